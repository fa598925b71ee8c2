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
    # The Codex hooks run `/usr/bin/python3 /Users/<user>/…`: `<user>` is a redirection from a file
    # named `user`, so the shell fails before python starts. Codex 0.171 runs hooks with bash, which
    # exits 1 there (measured in the real-config lane: "hook: PreToolUse Failed", and the call ran),
    # a non-blocking failure: the guard fails open.
    codex = [r for r in stuck if r["vendor"] == "codex" and r["event"] == "PreToolUse"]
    assert codex and all("fails-open" in {p["kind"] for p in r["preflight"]} for r in codex)
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
    """The exit status preflight gives the `/Users/<user>/…` command is the real shell's: the one its
    vendor runs hooks with (Codex: bash, exit 1, fails open; Claude: sh, exit 2, a block)."""
    command = "/usr/bin/python3 /Users/<user>/Projects/AiDR/.aidr/codex_hook.py pre"
    for shell, vendor, status, meaning in (("/bin/bash", "codex", 1, "fails open"), ("/bin/sh", "claude", 2,
                                                                                     "fails closed")):
        done = subprocess.run([shell, "-c", command], cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == status and "user" in done.stderr
        found = preflight(resolve_vendor(vendor), "PreToolUse", "*", {"type": "command", "command": command},
                          tmp_path, blocking="verdict")
        start = next(f for f in found if f.kind == "cannot-start")
        assert f"exits {status}" in start.text and meaning in start.text, start.text


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


def test_each_vendor_gives_its_hooks_what_its_cli_gives(tmp_path: Path) -> None:
    """The variables measured on each real CLI (its lane recorder's env log): Claude's and CodeBuddy's
    plugins get the plugin folder and a data folder of its own, under both names on CodeBuddy;
    Copilot gives the project under two names and the hooks file's folder; Codex gives a project
    file's hooks nothing of its own; Gemini gives the project under three names and the session id,
    Qwen the project under three names and the session id, and neither a folder of its own state."""
    from compat_adapter.hookvars import given
    from compat_adapter.importers.common import file_place

    plugin = tmp_path / "plug"
    (plugin / ".codebuddy-plugin").mkdir(parents=True)
    (plugin / ".codebuddy-plugin" / "plugin.json").write_text('{"name": "fmt"}')
    (plugin / "hooks").mkdir()
    (plugin / "hooks" / "hooks.json").write_text('{"hooks": {}}')
    codebuddy = resolve_vendor("workbuddy")
    env = given(codebuddy, file_place(codebuddy, str(plugin / "hooks" / "hooks.json")), event="PreToolUse",
                cwd=str(tmp_path / "proj"), session="s1")
    assert env["CODEBUDDY_PLUGIN_ROOT"] == env["CLAUDE_PLUGIN_ROOT"] == str(plugin)
    assert env["CODEBUDDY_PLUGIN_DATA"] == env["CLAUDE_PLUGIN_DATA"] and Path(env["CLAUDE_PLUGIN_DATA"]).is_dir()
    assert env["CODEBUDDY_PROJECT_DIR"] == env["CLAUDE_PROJECT_DIR"] == str(tmp_path / "proj")
    assert env["CODEBUDDY_SESSION_ID"] == "s1" and "CODEBUDDY_SERVICE_PROXY_URL" not in env
    # Claude does not read a .codebuddy-plugin manifest: the same file is no plugin for it.
    claude = resolve_vendor("claude")
    env = given(claude, file_place(claude, str(plugin / "hooks" / "hooks.json")), event="Stop", cwd="/p", session="s")
    assert "CLAUDE_PLUGIN_ROOT" not in env and env["CLAUDE_PROJECT_DIR"] == "/p"
    copilot = resolve_vendor("copilot")
    hooks = tmp_path / "repo" / ".github" / "hooks" / "guard.json"
    env = given(copilot, file_place(copilot, str(hooks)), event="preToolUse", cwd="/p", session="s")
    assert env["COPILOT_PROJECT_DIR"] == env["CLAUDE_PROJECT_DIR"] == "/p"
    assert env["COPILOT_HOOK_DIR"] == str(hooks.parent)
    codex = resolve_vendor("codex")
    env = given(codex, file_place(codex, str(tmp_path / ".codex" / "hooks.json")), event="PreToolUse", cwd="/p",
                session="s")
    assert env == {}
    gemini = resolve_vendor("gemini")
    env = given(gemini, file_place(gemini, str(tmp_path / "repo" / ".gemini" / "settings.json")), event="BeforeTool",
                cwd="/p", session="s2")
    assert env == {"GEMINI_PROJECT_DIR": "/p", "CLAUDE_PROJECT_DIR": "/p", "GEMINI_CWD": "/p", "GEMINI_SESSION_ID": "s2"}
    qwen = resolve_vendor("qwen")
    env = given(qwen, file_place(qwen, str(tmp_path / "repo" / ".qwen" / "settings.json")), event="PreToolUse",
                cwd="/p", session="s3")
    # QWEN_CODE_PROJECT_DIR is Qwen's own ~/.qwen/projects/<…> folder (measured), never the project.
    assert env == {"QWEN_PROJECT_DIR": "/p", "CLAUDE_PROJECT_DIR": "/p", "GEMINI_PROJECT_DIR": "/p",
                   "QWEN_CODE_SESSION_ID": "s3"}


def test_a_variable_the_host_cannot_give_is_a_listed_loss() -> None:
    from compat_adapter.declare import declare_hook
    from compat_adapter.grading import grade
    from compat_adapter.host.surfaces import surface_named

    hook = declare_hook("workbuddy", "PreToolUse", "Bash",
                        {"type": "command", "command": "curl -s \"$CODEBUDDY_SERVICE_PROXY_URL\" -d @-"})
    texts = [d.text for d in grade(hook, surface_named("embedded")).degradations if str(d.code) == "env-differs"]
    assert any("CODEBUDDY_SERVICE_PROXY_URL" in t for t in texts)
    for vendor, event, name in (("gemini", "BeforeTool", "GEMINI_PLANS_DIR"), ("qwen", "PreToolUse", "QWEN_CODE_PROJECT_DIR")):
        hook = declare_hook(vendor, event, "run_shell_command",
                            {"type": "command", "command": f"cat ${name}/notes.md"})
        texts = [d.text for d in grade(hook, surface_named("embedded")).degradations if str(d.code) == "env-differs"]
        assert any(name in t for t in texts), (vendor, texts)


def test_a_launchers_run_options_are_not_the_program(tmp_path: Path, toolchain: Path) -> None:
    """`uv run --extra dev python -m mypy src/` (anthropics/claude-agent-sdk-python) starts uv, then
    python: `--extra` and its value are uv's options, never a program to look up. The real uv of the
    toolchain lane (scripts/toolchain_lane.sh) runs such a line, and preflight finds it clean."""
    import shutil
    import sys

    command = "uv run --offline --no-project --python \"$PY\" --with-requirements req.txt python -c 'print(7)'"
    hook = {"type": "command", "command": command}
    bare = preflight(resolve_vendor("claude"), "PostToolUse", "Edit", hook, tmp_path,
                     env={"PATH": str(tmp_path / "nothing"), "PY": sys.executable})
    assert [f.subject for f in bare if f.kind == "program"] == ["uv", "python"], bare
    uv = toolchain / "uv"
    (tmp_path / "req.txt").write_text("")
    path = f"{uv.parent}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    env = {"PATH": path, "PY": sys.executable, "UV_CACHE_DIR": str(tmp_path / "uv-cache"), "HOME": str(tmp_path)}
    assert preflight(resolve_vendor("claude"), "PostToolUse", "Edit", hook, tmp_path, env=env) == ()
    done = subprocess.run(["/bin/sh", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "7"), done.stderr
    assert shutil.which("uv", path=path) == str(uv)


def test_a_script_in_the_users_home_is_looked_for_there(tmp_path: Path) -> None:
    """Azure/azure-sdk-for-java's Copilot guard runs `pwsh -ExecutionPolicy Bypass -File
    ~/.copilot/hooks/block-force-push.ps1`: `Bypass` is a setting's value, not the script, and the
    shell expands `~/` to the hook's home folder. A machine without that file cannot start the hook
    even with PowerShell installed; preflight says so, beside pwsh itself."""
    command = "pwsh -ExecutionPolicy Bypass -File ~/.copilot/hooks/block-force-push.ps1"
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    proj.mkdir()
    shell = subprocess.run(["/bin/sh", "-c", "echo ~/.copilot/hooks/block-force-push.ps1"], env={"HOME": str(home)},
                           capture_output=True, text=True)
    expected = str(home / ".copilot" / "hooks" / "block-force-push.ps1")
    assert shell.stdout.strip() == expected
    hook = {"type": "command", "bash": command}
    before = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        found = preflight(resolve_vendor("copilot"), "preToolUse", None, hook, proj, blocking="verdict",
                          env={"PATH": str(tmp_path / "nothing")})
        assert {(f.kind, f.subject) for f in found if f.kind in ("program", "file")} == {("program", "pwsh"),
                                                                                        ("file", expected)}
        (home / ".copilot" / "hooks").mkdir(parents=True)
        Path(expected).write_text("")
        found = preflight(resolve_vendor("copilot"), "preToolUse", None, hook, proj, blocking="verdict",
                          env={"PATH": str(tmp_path / "nothing")})
        assert [(f.kind, f.subject) for f in found if f.kind in ("program", "file")] == [("program", "pwsh")]
    finally:
        if before is None:
            del os.environ["HOME"]
        else:
            os.environ["HOME"] = before
