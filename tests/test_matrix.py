"""The support matrix: the reference figures, JSON/Markdown from one source, and no README drift."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from compat_adapter.cli import main
from compat_adapter.host.surfaces import EMBEDDED_SURFACE
from compat_adapter.matrix import build_matrix, to_json, to_markdown
from compat_adapter.model import Capability

ROOT = Path(__file__).resolve().parents[1]


def test_reference_figures() -> None:
    m = build_matrix()
    t = m.totals
    assert t.events == 112
    assert {c.vendor: c.events for c in m.counts} == {"claude": 33, "codex": 12, "workbuddy": 24,
                                                      "opencode": 29, "copilot": 14}
    assert t.routes == {"official-bridge": 17, "native-translate": 80, "native-seam": 5,
                        "builtin-bridge": 10}
    assert t.direct == 0 and t.unsupported == 0 and t.adapted == 112
    assert t.approximate == 10
    assert all(h.degradations for h in m.hooks if h.capability is Capability.ADAPTED)
    assert [r.capability for r in m.rules] == [Capability.CARRY] * 5
    assert [r.capability for r in m.runtimes] == [Capability.UNSUPPORTED] * 5
    assert len(m.native_points) == 29


def test_grading_depends_on_the_surface() -> None:
    small = EMBEDDED_SURFACE.without(services=["shell"])
    m = build_matrix(small)
    assert m.totals.unsupported == 112
    assert all(r.capability is Capability.CARRY for r in m.rules)


def test_json_and_markdown_come_from_the_same_data(capsys) -> None:
    m = build_matrix(vendor="copilot")
    data = json.loads(to_json(m))
    assert len(data["hooks"]) == 14
    md = to_markdown(m)
    for h in m.hooks:
        assert f"`{h.event}`" in md
    assert main(["matrix", "--format", "json", "--vendor", "github-copilot"]) == 0
    assert json.loads(capsys.readouterr().out)["totals"]["events"] == 14


def test_cli_matrix_json_in_a_real_process() -> None:
    out = subprocess.run([sys.executable, "-m", "compat_adapter.cli", "matrix", "--format", "json"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    data = json.loads(out.stdout)
    assert data["totals"]["routes"]["native-translate"] == 80


def test_readme_block_has_not_drifted() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "write_matrix.py"), "--check"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert to_markdown(build_matrix()) in readme


def test_the_per_host_block_names_every_difference_and_why() -> None:
    from compat_adapter.host.surfaces import SURFACES
    from compat_adapter.matrix import host_differences

    embedded, dsh = build_matrix(SURFACES["embedded"]), build_matrix(SURFACES["dsh"])
    block = host_differences(embedded, dsh)
    differing = [h for h, o in zip(embedded.hooks, dsh.hooks, strict=True) if h.capability != o.capability]
    assert differing
    for h in differing:
        assert f"| {h.vendor} | `{h.event}` |" in block
    for o in dsh.hooks:
        if o.capability is Capability.UNSUPPORTED:
            assert o.reason and o.reason in block
    assert block in (ROOT / "README.md").read_text(encoding="utf-8")


def test_numbers_in_readme_prose_match_the_code() -> None:
    """Every figure the README states outside the generated block is checked here."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    generated = r"<!-- (matrix|hosts):begin -->.*?<!-- \1:end -->"
    prose = " ".join(re.sub(generated, "", readme, flags=re.S).split())
    m = build_matrix()
    t = m.totals
    claims = {
        r"(\d+) hook events": t.events,
        r"(\d+) through the host's official bridges": t.routes["official-bridge"],
        r"(\d+) by our own native translation": t.routes["native-translate"],
        r"(\d+) observe-only": t.routes["native-seam"],
        r"(\d+) through our built-in Copilot bridge": t.routes["builtin-bridge"],
        r"(\d+) rows say they are approximate": t.approximate,
        r"(\d+) native translation points": len(m.native_points),
    }
    for pattern, value in claims.items():
        found = re.findall(pattern, prose)
        assert found, f"README prose no longer says {pattern!r}"
        assert all(int(f) == value for f in found), (pattern, found, value)
    # No other bare number claims about rows may hide in the prose.
    stray = re.findall(r"\b(\d+) (?:events|rows|hooks)\b", prose)
    assert all(int(n) in (t.events, t.approximate) for n in stray), stray
