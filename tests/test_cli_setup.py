"""The README's set-up on a fresh machine: its test command collects before any lane is installed,
and `.ci/run` proves it in that order."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The lanes' Python modules, hidden from a real collection as on a machine that never ran a lane.
_HIDE_LANES = """
import sys
class _NoLane:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('deepseek_harness', 'deepseek_harness_runtime'):
            raise ModuleNotFoundError(f"No module named {name!r} (hidden: no lane installed)", name=name)
        return None
sys.meta_path.insert(0, _NoLane())
import pytest
sys.exit(pytest.main(['-q', '--collect-only', '-p', 'no:cacheprovider']))
"""


def _readme_setup() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Set-up.*?```sh\n(.*?)```", readme, flags=re.S)
    assert block is not None
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_test_command_collects_with_no_lane_installed() -> None:
    done = subprocess.run([sys.executable, "-c", _HIDE_LANES], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert re.search(r"\d+ tests collected", done.stdout) and " error" not in done.stdout.splitlines()[-1]


def test_ci_runs_the_readme_first_command_then_collection_before_any_lane() -> None:
    first, test = _readme_setup()
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert first in lines and test in lines
    collect = next(i for i, line in enumerate(lines) if line.startswith(test + " --collect-only"))
    lanes = [i for i, line in enumerate(lines) if "_lane.sh" in line]
    assert lines.index(first) < collect < min(lanes)
    assert lines[-1] == test  # and it ends with the README's test command, exactly
