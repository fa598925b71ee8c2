"""INTEGRATION.md stays true: its API names exist, its error codes are the real ones, its examples run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import compat_adapter
from compat_adapter import service
from compat_adapter import vendor as author_api
from compat_adapter.errors import ERROR_CODES
from compat_adapter.host import protocol
from compat_adapter.importers import import_files, import_project, register_import  # noqa: F401
from compat_adapter.presets import apply_preset  # noqa: F401

DOC = Path(__file__).resolve().parents[1] / "INTEGRATION.md"
TEXT = DOC.read_text(encoding="utf-8")
EXAMPLES = re.findall(r"```python\n(# example:.*?)```", TEXT, flags=re.S)


def _exists(name: str) -> bool:
    owner, _, attr = name.partition(".")
    # The vendor author's API ("Adding a vendor") is API too.
    for module in (compat_adapter, service, protocol, sys.modules["compat_adapter.importers"],
                   sys.modules["compat_adapter.presets"], author_api):
        if hasattr(module, owner):
            return not attr or hasattr(getattr(module, owner), attr)
    return False


def test_examples_are_present() -> None:
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("code", EXAMPLES, ids=lambda c: c.splitlines()[0][len("# example: "):])
def test_examples_run(code: str, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_error_codes_table_is_exactly_the_error_tree() -> None:
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", TEXT, flags=re.M))
    assert documented == set(ERROR_CODES)


def test_every_api_name_exists() -> None:
    names = set(re.findall(r"`((?:CompatAdapter|Host|AdapterConfig)\.[a-z_]+)`", TEXT))
    names |= {n for n in re.findall(r"`([A-Za-z_]+)`", TEXT)
              if n[:1].isupper() and n not in ERROR_CODES and not n.isupper() and n[0] != "_"}
    names |= {"import_files", "import_project", "register_import", "apply_preset", "validate_host",
              "SEAM_DEFAULTS"}
    missing = sorted(n for n in names if not _exists(n) and n not in _NOT_API)
    assert not missing, missing


def test_host_contract_names_match_the_code() -> None:
    for name in ("surface", "on", "get_agent", "log", "start_soon", "settle", "cwd"):
        assert name in protocol.REQUIRED_PARTS and f"`{name}`" in TEXT
    for name in protocol.OPTIONAL_PARTS:
        assert f"`{name}`" in TEXT
    for field in service.AdapterConfig.model_fields:
        assert f"`{field}`" in TEXT


#: Words in backticks that are not Python names (file names, vendor names, values).
_NOT_API = {"CLAUDE", "ADAPTED", "UNSUPPORTED", "DIRECT", "CARRY", "Refused"}
