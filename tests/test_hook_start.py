"""Whether a team's hooks can start, as their vendor would start them (issue 26): the command
resolved with the variables the vendor gives (measured on its CLI), relative to the folder the
vendor runs it in, and what a hook that cannot start means on that vendor; the same rows however
the folder is spelled; a named file rooted where its vendor roots it, not at the nearest ``.git``.

Everything runs the real CLI in a subprocess on a real git repository built from the real corpus
(``teamproject``), and where a claim is about the shell, the real shell.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from teamproject import build, git, write_script
from test_team_cli import cli, grade_json

from compat_adapter.catalog import resolve_vendor
from compat_adapter.cli.reports import split_origin
from compat_adapter.preflight import preflight


def _rows(report: dict[str, Any], project: Path, ran_in: Path) -> list[tuple[Any, ...]]:
    """Each row with its origin relative to the project: what must not depend on the spelling."""
    out = []
    for r in report["rows"]:
        path, place = split_origin(r["origin"])
        rel = os.path.relpath(os.path.normpath(ran_in / path), project)
        findings = tuple((p["kind"], p["text"].replace(str(project), "<p>")) for p in r["preflight"])
        out.append((r["vendor"], rel, place, r["capability"], tuple(r["losses"]), findings, r.get("starts")))
    return sorted(out, key=repr)


def test_a_relative_an_absolute_and_a_dot_folder_give_the_same_rows_and_findings(tmp_path: Path) -> None:
    project = build(tmp_path / "work" / "proj")
    assert cli("trust", "--yes", ".", cwd=project).returncode == 0
    _, dot = grade_json(".", cwd=project)
    _, relative = grade_json("proj", cwd=project.parent)
    _, absolute = grade_json(str(project), cwd=tmp_path)
    assert _rows(dot, project, project) == _rows(relative, project, project.parent) == \
        _rows(absolute, project, tmp_path)
    assert dot["cannot_start"] == relative["cannot_start"] == absolute["cannot_start"] > 0


def test_grade_never_says_every_hook_starts_while_a_script_is_missing(tmp_path: Path) -> None:
    project = build(tmp_path / "proj")  # deploy-autoarm-gate.sh is missing, as in the newcomer report
    assert cli("trust", "--yes", ".", cwd=project).returncode == 0
    rc, report = grade_json(".", cwd=project)
    assert rc == 0
    stuck = [r for r in report["rows"] if r.get("starts") is False]
    gate = [r for r in stuck if "deploy-autoarm-gate.sh" in (r.get("command") or "")]
    assert len(gate) == 3  # the three handlers of cdk-real-drift that run it
    assert all({"cannot-start", "fails-open"} <= {p["kind"] for p in r["preflight"]} for r in gate)
    # The Codex hooks run `/usr/bin/python3 /Users/<user>/…`: in sh, `<user>` is a redirection from a
    # file named `user`, so the shell exits 2 before python starts, and Codex reads exit 2 on
    # PreToolUse as a deny: every tool call is denied.
    codex = [r for r in stuck if r["vendor"] == "codex" and r["event"] == "PreToolUse"]
    assert codex and all("fails-closed" in {p["kind"] for p in r["preflight"]} for r in codex)
    text = cli("grade", ".", cwd=project, columns=120).stdout
    first = " ".join(text.splitlines()[:2])
    assert f"{len(stuck)} cannot start" in first and "0 with preflight findings" not in first
    # --strict fails on any hook that cannot start, a guard failing open among them.
    assert cli("grade", "--strict", ".", cwd=project).returncode == 1
    (project / ".claude/hooks/deploy-autoarm-gate.sh").write_text("#!/bin/sh\nexit 0\n")
    (project / ".claude/hooks/deploy-autoarm-gate.sh").chmod(0o755)
    _, after = grade_json(".", cwd=project)
    assert not [r for r in after["rows"] if r.get("starts") is False and r["vendor"] == "claude"]


def test_the_redirection_preflight_reads_is_what_the_shell_does(tmp_path: Path) -> None:
    """The exit status preflight gives the `/Users/<user>/…` command is the real shell's."""
    command = "/usr/bin/python3 /Users/<user>/Projects/AiDR/.aidr/codex_hook.py pre"
    done = subprocess.run(["/bin/sh", "-c", command], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 2 and "user" in done.stderr
    found = preflight(resolve_vendor("codex"), "PreToolUse", "*", {"type": "command", "command": command},
                      tmp_path, blocking="verdict")
    start = next(f for f in found if f.kind == "cannot-start")
    assert "exits 2" in start.text and "fails closed" in start.text


def test_a_named_file_in_a_nested_repository_is_rooted_where_its_vendor_runs_it(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    settings = outer / "tools" / "web" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": ".claude/hooks/guard.sh"},
        {"type": "command", "command": "python3 .claude/hooks/missing.py"}]}]}}))
    write_script(outer / "tools" / "web" / ".claude" / "hooks" / "guard.sh", "exit 0\n")
    git(outer, "init", "-q", "-b", "main")
    rc, report = grade_json("--trust-all", "--vendor", "claude", str(settings.relative_to(outer)), cwd=outer)
    assert rc == 0
    guard, missing = report["rows"]
    # Claude runs the hooks of tools/web/.claude/settings.json in tools/web, not at the git root.
    assert guard["preflight"] == [] and guard["starts"] is True
    assert missing["starts"] is False
    assert any("tools/web" in p["text"] for p in missing["preflight"] if p["kind"] == "file")


def test_a_plugin_root_in_a_project_file_is_empty_as_under_claude(tmp_path: Path) -> None:
    """Claude gives ``${CLAUDE_PLUGIN_ROOT}`` only to a plugin's hooks (measured): in a project
    settings file the script path loses its folder, and preflight says so."""
    found = preflight(resolve_vendor("claude"), "PreToolUse", "Bash",
                      {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/safety-check.sh"},
                      tmp_path, blocking="verdict")
    texts = " ".join(f.text for f in found)
    assert "here /hooks/safety-check.sh" in texts and "$CLAUDE_PLUGIN_ROOT is not set for this hook" in texts
    assert {"cannot-start", "fails-open"} <= {f.kind for f in found}
