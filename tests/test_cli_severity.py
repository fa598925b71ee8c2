"""Every loss has a safety class; `grade` puts a disarmed guard first, SARIF levels follow the
class, and `--strict` fails on a disarmed guard (or a chosen class) and on nothing to grade."""

from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import trust_project, write_script

from compat_adapter.catalog import resolve_vendor
from compat_adapter.declare import declare_hook
from compat_adapter.grading import grade
from compat_adapter.host.surfaces import surface_named
from compat_adapter.vocabulary import FINDING_SAFETY, SAFETY, DegradationCode, Safety, safety_of

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compat_adapter.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=180, stdin=subprocess.DEVNULL)


def test_every_loss_code_has_a_safety_class() -> None:
    assert set(SAFETY) == set(DegradationCode)
    assert all(isinstance(c, Safety) for c in SAFETY.values())
    assert [c.level for c in Safety] == ["error", "warning", "note"]


def test_the_preflight_kinds_explain_lists_each_have_a_class() -> None:
    from compat_adapter.cli.codes import PREFLIGHT_KINDS

    assert set(PREFLIGHT_KINDS) <= set(FINDING_SAFETY)


def _project(root: Path, *, guard: bool = True) -> Path:
    """One guard whose script is missing, beside hooks whose only losses are env, payload and timing."""
    (root / ".claude").mkdir(parents=True)
    ok = write_script(root / ".claude" / "ok.sh", "cat > /dev/null\n")
    command = "$CLAUDE_PROJECT_DIR/.claude/hooks/missing-guard.sh" if guard else str(ok)
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}],
             "Stop": [{"hooks": [{"type": "command", "command": str(ok)}]}],
             "SessionEnd": [{"hooks": [{"type": "command", "command": str(ok)}]}]}
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    trust_project("claude", root)
    return root


def _sarif(project: Path) -> list[tuple[str, str]]:
    done = cli("grade", ".", "--sarif", cwd=project)
    assert done.returncode == 0, done.stderr
    return [(r["ruleId"], r["level"]) for r in json.loads(done.stdout)["runs"][0]["results"]]


def test_sarif_gives_one_error_for_the_guard_that_cannot_start_and_no_warning_for_env(
        tmp_path: Path, trust_home: Path) -> None:
    found = _sarif(_project(tmp_path / "p"))
    levels = collections.Counter(level for _, level in found)
    assert levels["error"] == 1 and ("preflight/fails-open", "error") in found
    assert ("loss/env-differs", "note") in found and ("loss/env-differs", "warning") not in found
    assert found.count(("loss/env-differs", "note")) >= 3  # many env losses, none louder than a note


def test_strict_fails_on_a_disarmed_guard_by_default_and_on_a_chosen_class(tmp_path: Path) -> None:
    bad, clean = _project(tmp_path / "bad"), _project(tmp_path / "clean", guard=False)
    assert cli("grade", ".", "--strict", cwd=bad).returncode == 1
    assert cli("grade", ".", "--strict", cwd=clean).returncode == 0
    report = json.loads(cli("grade", ".", "--json", cwd=clean).stdout)
    assert report["safety"]["disarms-guard"] == 0 and report["safety"]["changes-behaviour"] >= 1
    assert cli("grade", ".", "--strict", "--fail-on", "changes-behaviour", cwd=clean).returncode == 1
    bogus = cli("grade", ".", "--strict", "--fail-on", "loud", cwd=clean)
    assert bogus.returncode == 2 and "invalid choice" in bogus.stderr


@pytest.mark.parametrize("where", ["empty", "mistyped"])
def test_strict_with_nothing_to_grade_is_never_a_pass(tmp_path: Path, where: str) -> None:
    (tmp_path / "empty").mkdir()
    done = cli("grade", "empty" if where == "empty" else "emtpy", "--strict", cwd=tmp_path)
    assert done.returncode == (1 if where == "empty" else 2), done.stdout + done.stderr
    assert ("nothing to grade" in done.stderr) if where == "empty" else done.stderr.startswith("NO_SUCH_PATH")


def _losses(event: str, matcher: str | None, vendor: str = "claude", prefer: str = "fidelity") -> list[str]:
    decl = declare_hook(vendor, event, matcher, "true")
    return [str(d.code) for d in grade(decl, surface_named("embedded"), prefer=prefer).degradations]


def test_a_matcher_only_on_tools_the_host_lacks_never_fires() -> None:
    assert "never-fires" in _losses("PreToolUse", "WebSearch|WebFetch")
    partly = _losses("PreToolUse", "Bash|WebSearch")
    assert "never-fires" not in partly and "matcher-narrowed" in partly
    assert "never-fires" not in _losses("PreToolUse", "Bash")


def test_a_subagent_matcher_on_an_agent_type_that_never_occurs_never_fires() -> None:
    assert "never-fires" in _losses("SubagentStop", "code-reviewer")
    assert "never-fires" not in _losses("SubagentStop", "*") and "never-fires" not in _losses("SubagentStop", None)
    # the official bridge reports "general-purpose": a matcher naming it fires there, not natively
    assert "never-fires" not in _losses("SubagentStop", "general-purpose", prefer="official")
    assert "never-fires" in _losses("SubagentStop", "general-purpose")


def test_the_agent_type_grading_assumes_is_the_one_the_bridge_sends() -> None:
    from compat_adapter.host.embedded.bridges.bridge import SUBAGENT_TYPE
    from compat_adapter.routing.points import BRIDGE_AGENT_TYPE

    assert SUBAGENT_TYPE == BRIDGE_AGENT_TYPE


def test_grade_shows_a_hook_that_never_fires_first_and_as_such(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    hooks = {"PreToolUse": [{"matcher": "WebSearch", "hooks": [{"type": "command", "command": "true"}]}],
             "SubagentStop": [{"matcher": "code-reviewer", "hooks": [{"type": "command", "command": "true"}]}],
             "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    trust_project("claude", tmp_path)
    done = cli("grade", ".", cwd=tmp_path)
    text = " ".join(done.stdout.split())
    assert text.count("ADAPTED, NEVER FIRES") == 2
    assert text.index("DISARMED") < text.index("claude .claude/settings.json")  # under "to do", first
    assert "2 with a guard disarmed" in text
    assert cli("grade", ".", "--strict", cwd=tmp_path).returncode == 1
    assert safety_of("never-fires") is Safety.DISARMS_GUARD
    assert resolve_vendor("claude").id == "claude"
