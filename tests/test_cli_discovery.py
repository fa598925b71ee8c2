"""`trust` finds what `grade` finds, infers a lone file's vendor the same way, and a hook file two
vendors read is loaded once, as the vendor whose layout it belongs to. Real CLI processes."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write_script

from compat_adapter.importers.discover import discover, owner_of, readers_of, shared_files

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compat_adapter.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=180, stdin=subprocess.DEVNULL)


def _plugin(root: Path, marker: str = ".claude-plugin") -> Path:
    """A plugin repository as teams publish one: a manifest folder and ``hooks/hooks.json``."""
    (root / marker).mkdir(parents=True)
    (root / marker / "plugin.json").write_text(json.dumps({"name": "gate"}))
    (root / "hooks").mkdir()
    write_script(root / "hooks" / "stop.sh", f"cat > /dev/null\necho ran >> '{root}/stop.log'\n")
    var = "CLAUDE_PLUGIN_ROOT" if marker == ".claude-plugin" else "CODEBUDDY_PLUGIN_ROOT"
    (root / "hooks" / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": f"${{{var}}}/hooks/stop.sh", "timeout": 90}]}]}}))
    return root / "hooks" / "hooks.json"


def test_trust_of_a_plugin_folder_finds_what_grade_finds(tmp_path: Path) -> None:
    hooks = _plugin(tmp_path / "plugin")
    graded = json.loads(cli("grade", ".", "--json", cwd=tmp_path / "plugin").stdout)
    assert {r["origin"].split(":")[0] for r in graded["rows"]} == {str(Path("hooks/hooks.json"))}
    reviewed = cli("trust", ".", "--json", "--yes", cwd=tmp_path / "plugin")
    assert reviewed.returncode == 0, reviewed.stderr
    files = json.loads(reviewed.stdout)["files"]
    assert [(f["file"], f["vendor"]) for f in files] == [(str(Path("hooks/hooks.json")), "claude")]
    # ...and, trusted, the hook grades ADAPTED where it was UNSUPPORTED untrusted
    again = json.loads(cli("grade", ".", "--json", cwd=tmp_path / "plugin").stdout)
    assert [r["capability"] for r in again["rows"]] == ["ADAPTED"]
    assert hooks.is_file()


def test_a_lone_hook_file_is_read_as_its_vendor_by_trust_and_by_grade(tmp_path: Path) -> None:
    _plugin(tmp_path / "plugin")
    trusted = cli("trust", "hooks/hooks.json", "--yes", cwd=tmp_path / "plugin")
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout.startswith("hooks/hooks.json (claude): not trusted yet")
    graded = json.loads(cli("grade", "hooks/hooks.json", "--json", cwd=tmp_path / "plugin").stdout)
    assert graded["vendor"] == "claude" and [r["capability"] for r in graded["rows"]] == ["ADAPTED"]


def test_a_file_no_vendor_reads_is_a_stable_error_in_both_commands(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text("{}")
    for command in ("trust", "grade"):
        done = cli(command, "settings.json", cwd=tmp_path)
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert done.stderr.startswith("NOT_A_VENDOR_FILE: settings.json: no vendor reads"), done.stderr
        assert "--vendor" in done.stderr


def test_a_claude_plugin_hook_file_loads_once_as_claude_and_grade_says_so(tmp_path: Path) -> None:
    hooks = _plugin(tmp_path)
    assert readers_of(hooks)[1] == ("claude",)
    assert readers_of(hooks, shared="all")[1] == ("claude", "workbuddy")
    assert owner_of(hooks, ("workbuddy", "claude")) == "claude"
    assert [v for v, files in discover(tmp_path).items() if hooks in files] == ["claude"]
    cli("trust", ".", "--yes", cwd=tmp_path)
    report = json.loads(cli("grade", ".", "--json", cwd=tmp_path).stdout)
    assert [r["vendor"] for r in report["rows"]] == ["claude"] and report["loads_twice"] == []
    assert report["shared"] == [{"file": str(Path(".") / "hooks" / "hooks.json"), "readers": ["claude", "workbuddy"],
                                 "loaded_as": ["claude"], "why": report["shared"][0]["why"]}]
    text = cli("grade", ".", cwd=tmp_path).stdout
    assert "read by claude, workbuddy; loaded once, as claude's" in " ".join(text.split())


def test_shared_as_picks_another_reader_or_every_reader(tmp_path: Path) -> None:
    _plugin(tmp_path)
    cli("trust", ".", "--yes", cwd=tmp_path)
    as_wb = json.loads(cli("grade", ".", "--json", "--shared-as", "codebuddy", cwd=tmp_path).stdout)
    assert [r["vendor"] for r in as_wb["rows"]] == ["workbuddy"]
    every = json.loads(cli("grade", ".", "--json", "--shared-as", "all", cwd=tmp_path).stdout)
    assert sorted(r["vendor"] for r in every["rows"]) == ["claude", "workbuddy"] and every["loads_twice"]
    bad = cli("grade", ".", "--shared-as", "claud", cwd=tmp_path)
    assert bad.returncode == 2 and "did you mean 'claude'?" in bad.stderr


def test_a_codebuddy_plugin_belongs_to_workbuddy(tmp_path: Path) -> None:
    hooks = _plugin(tmp_path, ".codebuddy-plugin")
    assert readers_of(hooks)[1] == ("workbuddy",)
    assert shared_files(tmp_path) == ()  # Claude reads only its own manifest folder


def test_a_session_runs_a_shared_plugin_gate_once(tmp_path: Path) -> None:
    """The 90-second Stop gate that ran twice: `run` registers the plugin file once."""
    _plugin(tmp_path)
    cli("trust", ".", "--yes", cwd=tmp_path)
    (tmp_path / "session.json").write_text(json.dumps(["hello", "done"]))
    done = cli("run", ".", "--script", "session.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "stop.log").read_text().splitlines() == ["ran"]


def test_unknown_vendor_offers_did_you_mean(tmp_path: Path) -> None:
    done = cli("grade", "--vendor", "copliot", ".", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("UNKNOWN_VENDOR: unknown vendor 'copliot' (did you mean "
                                                           "'copilot'?")


def test_nothing_raises_the_bare_root_error() -> None:
    """Every error the package raises has its own stable code: ``CompatError(...)`` itself is never
    built anywhere (COMPAT_ERROR would tell a user nothing)."""
    bare = []
    for folder in ("compat_adapter", "vendors"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "CompatError":
                    bare.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert bare == []


@pytest.mark.parametrize("args", [("grade", "--host", "nohost", "."), ("serve",)])
def test_former_bare_errors_have_codes(tmp_path: Path, args: tuple[str, ...]) -> None:
    done = cli(*args, cwd=tmp_path)
    assert done.returncode == 2 and not done.stderr.startswith("COMPAT_ERROR"), done.stderr
    assert done.stderr.split(":")[0] in ("UNKNOWN_HOST", "BAD_ARGUMENT")
    assert os.linesep not in done.stderr.strip()
