"""`compat-adapter port` (issue 38): the target's files written, checked and removed; the team's own
entries kept; the written entry a real shim process that runs the original hook and answers in
the target's dialect; no trust record ever written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import trust

GUARD = ("#!/bin/sh\ninput=$(cat)\ncase \"$input\" in\n  *\"rm -rf\"*) echo \"GUARD: no rm -rf here\" >&2; exit 2;;\n"
         "esac\nexit 0\n")
LAUNCHER = f"{sys.executable} -m compat_adapter"


@pytest.fixture(autouse=True)
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call in its own process, unless a test asks for the server: no server outlives a test."""
    monkeypatch.setenv("COMPAT_ADAPTER_SHIM_SERVER", "off")
#: A team's own Gemini settings, written by hand (odd spacing kept byte for byte by a removal).
TEAM_GEMINI = ('{ "general": {"vimMode": true},\n  "hooks": {"BeforeTool": [ {"matcher": "write_file", '
               '"hooks": [{"type": "command", "command": "echo team-own"}]} ]} }\n')


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compat_adapter", *args], capture_output=True, text=True, cwd=cwd,
                          env=os.environ.copy(), timeout=120)


def _port_claude_hook(root: Path, event: str, command: str, target: str, matcher: str | None = None) -> dict:
    """A team's Claude hook at ``event`` running ``command``, trusted and ported to ``target``: port's
    grade of each event (the settings file is left, for the test to remove)."""
    settings = root / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    group: dict = {"hooks": [{"type": "command", "command": command}], **({"matcher": matcher} if matcher else {})}
    settings.write_text(json.dumps({"hooks": {event: [group]}}))
    trust("claude", settings)
    done = cli("port", "--to", target, str(root), "--json", "--launcher", LAUNCHER)
    assert done.returncode == 0, done.stderr
    return {r["event"]: r for r in json.loads(done.stdout)["results"]}


def _as_opencode(root: Path, script: list) -> list:
    """The project's written OpenCode plugin run as OpenCode's own (the source file removed) by the
    plugin host over one turn "go" of ``script``: the session's events."""
    import anyio

    from compat_adapter.host.embedded.memory import MemoryHost
    from compat_adapter.service import CompatAdapter
    from tests.conftest import trust_project

    (root / ".claude" / "settings.json").unlink()  # OpenCode runs the written plugin alone

    async def run() -> list:
        async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
            trust_project("opencode", root)  # the user reviewed the written plugin
            await adapter.register_plugins(root)
            agent = await host.create_agent(script=script)
            await agent.run_turn("go")
            return list(agent.session.events)

    return anyio.run(run)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "guard.sh").write_text(GUARD)
    (tmp_path / "guard.sh").chmod(0o755)
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "./guard.sh"}]}]}}))
    trust("claude", settings)
    return tmp_path


def _entry(project: Path) -> str:
    groups = json.loads((project / ".gemini/settings.json").read_text())["hooks"]["BeforeTool"]
    return next(h["command"] for g in groups for h in g["hooks"] if " shim " in h["command"])


def _shim(project: Path, command: str, shell_command: str) -> subprocess.CompletedProcess[str]:
    stdin = json.dumps({"session_id": "s1", "cwd": str(project), "hook_event_name": "BeforeTool",
                        "tool_name": "run_shell_command", "tool_input": {"command": shell_command}})
    return subprocess.run(["/bin/sh", "-c", command], input=stdin, capture_output=True, text=True, cwd=project,
                          timeout=120)


def test_port_writes_an_entry_whose_shim_runs_the_claude_guard_and_answers_in_geminis_words(project: Path) -> None:
    done = cli("port", "--to", "gemini", str(project), "--launcher", LAUNCHER)
    assert done.returncode == 0, done.stderr
    assert "1 ADAPTED" in done.stdout and "trust the folder" in done.stdout
    denied = _shim(project, _entry(project), "rm -rf build")
    assert denied.returncode == 0
    assert json.loads(denied.stdout) == {"decision": "deny", "reason": "GUARD: no rm -rf here\n"}
    # The guard lets other commands through: the shim then says nothing.
    allowed = _shim(project, _entry(project), "ls")
    assert allowed.returncode == 0 and allowed.stdout == ""


def test_port_writes_the_compiled_client_by_default_and_says_so_when_no_compiler_builds_it(
        project: Path, tmp_path: Path) -> None:
    """With a C compiler the entry runs the compiled client (no Python per call), and port says that
    the entry names this machine's path where the install's scripts folder is not on PATH; without
    one the entry runs compat-adapter itself, and port says, in its text and in its JSON, that every
    call then starts Python. --fast-client makes the missing compiler an error."""
    empty = tmp_path / "no-compiler"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty), "CC": ""}
    run = [sys.executable, "-m", "compat_adapter", "port", "--to", "gemini", str(project)]
    text = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
    assert text.returncode == 0, text.stderr
    assert "note: no C compiler" in text.stdout and "each ported call starts Python" in text.stdout
    assert _entry(project).startswith("compat-adapter shim --to gemini ")
    as_json = json.loads(subprocess.run([*run, "--json"], capture_output=True, text=True, env=env, timeout=120).stdout)
    assert as_json["client"] == "compat-adapter" and "each ported call starts Python" in as_json["client_note"]
    refused = subprocess.run([*run, "--fast-client"], capture_output=True, text=True, env=env, timeout=120)
    assert refused.returncode == 2 and "no C compiler" in refused.stderr
    # The same project, ported where the compiler is but the install's scripts folder is not on PATH:
    # the compiled client, built into the state folder (tests/test_port_client.py: on PATH, by name).
    scripts = os.path.realpath(sysconfig.get_path("scripts"))
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p and os.path.realpath(p) != scripts)
    done = subprocess.run([*run, "--json"], capture_output=True, text=True, env={**os.environ, "PATH": path},
                          timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert "/bin/compat-adapter-shim-" in report["client"]
    # Its path is this machine's: port says so and why, and names the portable choice.
    assert "this machine's compiled shim client by its path" in report["client_note"]
    assert "--python-client" in report["client_note"] and "is not on PATH" in report["client_note"]
    assert _entry(project).startswith(report["client"] + " shim --to gemini ")
    assert json.loads(_shim(project, _entry(project), "rm -rf build").stdout)["decision"] == "deny"


def test_the_teams_own_entries_survive_and_removal_restores_the_file_byte_for_byte(project: Path) -> None:
    target = project / ".gemini" / "settings.json"
    target.parent.mkdir()
    target.write_text(TEAM_GEMINI)
    assert cli("port", "--to", "gemini", str(project), "--launcher", LAUNCHER).returncode == 0
    written = json.loads(target.read_text())
    assert written["general"] == {"vimMode": True}
    commands = [h["command"] for g in written["hooks"]["BeforeTool"] for h in g["hooks"]]
    assert commands[0] == "echo team-own" and " shim --to gemini " in commands[1]
    # Porting again changes nothing; --check agrees.
    assert cli("port", "--to", "gemini", str(project), "--launcher", LAUNCHER).returncode == 0
    assert cli("port", "--to", "gemini", str(project), "--check", "--launcher", LAUNCHER).returncode == 0
    removed = cli("port", "--to", "gemini", str(project), "--remove")
    assert removed.returncode == 0 and "restore" in removed.stdout
    assert target.read_bytes() == TEAM_GEMINI.encode()
    assert not (project / ".compat-adapter").exists()


def test_removal_of_a_file_port_created_leaves_no_file_and_no_folder(project: Path) -> None:
    for target, file in (("copilot", ".github/hooks/compat-adapter-port.json"),
                         ("opencode", ".opencode/plugin/compat-adapter-port.ts"), ("codex", ".codex/hooks.json")):
        assert cli("port", "--to", target, str(project), "--launcher", LAUNCHER).returncode == 0
        assert (project / file).is_file()
        assert cli("port", "--to", target, str(project), "--remove").returncode == 0
        assert not (project / file).exists() and not (project / file.split("/")[0]).exists(), target


def test_check_fails_when_the_target_differs_and_dry_run_writes_nothing(project: Path) -> None:
    dry = cli("port", "--to", "qwen", str(project), "--dry-run", "--launcher", LAUNCHER)
    assert dry.returncode == 0 and "would write .qwen/settings.json" in dry.stdout
    assert not (project / ".qwen").exists()
    assert cli("port", "--to", "qwen", str(project), "--check", "--launcher", LAUNCHER).returncode == 1
    assert cli("port", "--to", "qwen", str(project), "--launcher", LAUNCHER).returncode == 0
    assert cli("port", "--to", "qwen", str(project), "--check", "--launcher", LAUNCHER).returncode == 0
    # The source hook changed: the written entry is stale, and --check says so.
    settings = project / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace("Bash", "Bash|Write"))
    trust("claude", settings)
    assert cli("port", "--to", "qwen", str(project), "--check", "--launcher", LAUNCHER).returncode == 1


def test_port_never_writes_a_trust_record_and_says_what_to_approve(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "compat_adapter", "port", "--to", "codex", str(project)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0
    assert "trusted_hash" in done.stdout and "port never writes" in done.stdout
    assert list(home.iterdir()) == []  # no ~/.codex/config.toml, nothing of the user's
    assert not (project / ".codex" / "config.toml").exists()


def test_losses_are_ranked_a_guard_that_would_stop_guarding_first(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "./guard.sh"}]}]
    settings.write_text(json.dumps(data))
    trust("claude", settings)
    done = cli("port", "--to", "opencode", str(project), "--json", "--launcher", LAUNCHER)
    report = json.loads(done.stdout)
    assert report["losses"][0]["safety"] == "disarms-guard" and report["losses"][0]["event"] == "Stop"
    assert [r["capability"] for r in report["results"]] == ["ADAPTED", "UNSUPPORTED"]
    assert report["entries"] == 1


def test_untrusted_hooks_are_not_ported_and_are_named(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"hooks": [{"type": "command", "command": "echo hi"}]}]}}))
    done = cli("port", "--to", "gemini", str(tmp_path))
    assert done.returncode == 0 and "not ported: UNTRUSTED" in done.stdout
    assert not (tmp_path / ".gemini").exists()


def test_a_bad_target_is_a_clear_error() -> None:
    done = cli("port", "--to", "cursor", ".")
    assert done.returncode == 2 and done.stderr.startswith("BAD_ARGUMENT:")


@pytest.mark.parametrize("fast", [False, True], ids=["python-client", "compiled-client"])
def test_a_warm_server_answers_the_calls_after_the_first_as_the_shim_does(project: Path, tmp_path: Path,
                                                                          fast: bool) -> None:
    """The first call runs in its own process and starts a server (a private folder of this
    user's); the next calls are answered by it, with the same answers; its id is beside its socket.
    With ``--fast-client`` the entry runs the compiled client: the later calls start no Python at
    all (they succeed with an environment in which Python cannot start)."""
    flags = ["--fast-client"] if fast else ["--launcher", LAUNCHER]
    done = cli("port", "--to", "gemini", str(project), *flags)
    assert done.returncode == 0, done.stderr
    assert (" -m compat_adapter shim " in _entry(project)) != fast
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "COMPAT_ADAPTER_SHIM_IDLE_S": "60"}
    env.pop("COMPAT_ADAPTER_SHIM_SERVER", None)
    stdin = json.dumps({"session_id": "s1", "cwd": str(project), "hook_event_name": "BeforeTool",
                        "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf build"}})

    def call() -> subprocess.CompletedProcess[str]:
        return subprocess.run(["/bin/sh", "-c", _entry(project)], input=stdin, capture_output=True, text=True,
                              cwd=project, env=env, timeout=120)

    first = call()
    folder = runtime / f"compat-adapter-shim-{os.getuid()}"
    pid_files: list[Path] = []
    for _ in range(600):  # the server starts in the background; its pid file says it listens
        pid_files = list(folder.glob("*.sock.pid"))
        if pid_files:
            break
        import time

        time.sleep(0.1)
    assert pid_files, "no server started"
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    pid = int(pid_files[0].read_text())
    try:
        if fast:
            env["PYTHONHOME"] = str(tmp_path / "no-python-here")  # a Python started now would fail
        later = [call() for _ in range(2)]
        for done in (first, *later):
            assert done.returncode == 0 and json.loads(done.stdout) == {"decision": "deny",
                                                                     "reason": "GUARD: no rm -rf here\n"}
    finally:
        os.kill(pid, 15)


#: A team's OpenCode guard: a plugin that throws on a recursive delete, and a session callback.
OPENCODE_GUARD = """export const Guard = async () => ({
  "tool.execute.before": async (input: any, output: any) => {
    if (input.tool === "bash" && String(output.args.command).includes("rm -r")) throw new Error("PLUGIN-GUARD no rm -r")
  },
  "chat.message": async () => {},
  "event": async () => {},
})
"""


def test_an_opencode_plugin_guard_is_ported_to_codex_its_shim_loads_the_same_file(tmp_path: Path,
                                                                                  plugin_runtime: None) -> None:
    """OpenCode as a source: the plugin's tool.execute.before runs from Codex's PreToolUse through
    the shim (the plugin host loads the very file; a throw is Codex's deny), a bus ``event`` callback is
    UNSUPPORTED with the reason, and a plugin file changed after the port is refused, not run."""
    plugin = tmp_path / ".opencode" / "plugin" / "guard.ts"
    plugin.parent.mkdir(parents=True)
    plugin.write_text(OPENCODE_GUARD)
    trust("opencode", plugin)
    done = cli("port", "--to", "codex", str(tmp_path), "--json", "--launcher", LAUNCHER)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    grades = {r["event"]: r for r in report["results"]}
    assert grades["tool.execute.before"]["capability"] == "ADAPTED"
    assert grades["event"]["capability"] == "UNSUPPORTED" and "tool calls and prompts" in grades["event"]["reason"]
    groups = json.loads((tmp_path / ".codex/hooks.json").read_text())["hooks"]["PreToolUse"]
    command = next(h["command"] for g in groups for h in g["hooks"])

    def call(shell: str) -> subprocess.CompletedProcess[str]:
        stdin = json.dumps({"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "PreToolUse",
                            "tool_name": "Bash", "tool_input": {"command": shell}})
        return subprocess.run(["/bin/sh", "-c", command], input=stdin, capture_output=True, text=True, cwd=tmp_path,
                              timeout=120)

    denied = json.loads(call("rm -rf build").stdout)["hookSpecificOutput"]
    assert denied["permissionDecision"] == "deny" and "PLUGIN-GUARD no rm -r" in denied["permissionDecisionReason"]
    assert "permissionDecision" not in call("ls").stdout
    plugin.write_text(OPENCODE_GUARD.replace("rm -r", "rm -f"))
    changed = json.loads(call("rm -rf build").stdout)["hookSpecificOutput"]
    assert changed["permissionDecision"] == "deny" and "changed since it was ported" in changed["permissionDecisionReason"]


def test_claude_permission_rules_are_ported_as_a_guard_weighed_by_claudes_own_rule_language(tmp_path: Path) -> None:
    """Claude's permissions.deny on Gemini: one BeforeTool entry whose shim weighs the rules with
    Claude's language (the refusal in Claude's words, framed by Gemini); an allow rule is not
    ported (UNSUPPORTED, with why); a call no rule matches gets no decision."""
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"deny": ["Bash(rm -rf:*)"], "allow": ["Bash(ls:*)"]}}))
    trust("claude", settings)
    done = cli("port", "--to", "gemini", str(tmp_path), "--json", "--launcher", LAUNCHER)
    assert done.returncode == 0, done.stderr
    grades = {r["event"]: r for r in json.loads(done.stdout)["results"]}
    assert grades["rule:deny"]["capability"] == "ADAPTED"
    assert grades["rule:allow"]["capability"] == "UNSUPPORTED" and "lift" in grades["rule:allow"]["reason"]
    command = _entry(tmp_path)
    refused = _shim(tmp_path, command, "rm -rf build")
    assert refused.returncode == 0, refused.stderr
    answer = json.loads(refused.stdout)
    assert answer["decision"] == "deny" and "rm -rf" in answer["reason"], answer
    assert '"deny"' not in _shim(tmp_path, command, "ls -la").stdout


def test_matrix_on_a_vendor_host_grades_opencode_plugin_keys_as_port_does() -> None:
    """`matrix --host codex --vendor opencode`: the plugin keys port carries are ADAPTED, every other
    key UNSUPPORTED with the reason (a session callback with no Codex event to call it)."""
    done = cli("matrix", "--host", "codex", "--vendor", "opencode", "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = {r["id"]: r for r in json.loads(done.stdout)["rows"]}
    assert rows["opencode-plugin:tool.execute.before"]["capability"] == "ADAPTED"
    assert rows["opencode-plugin:tool.execute.after"]["capability"] == "ADAPTED"
    assert rows["opencode-plugin:chat.message"]["capability"] == "ADAPTED"
    transform = rows["opencode-plugin:experimental.chat.system.transform"]
    assert transform["capability"] == "ADAPTED" and "timing-differs" in {d["code"] for d in transform["degradations"]}
    bus = rows["opencode-plugin:event"]
    assert bus["capability"] == "UNSUPPORTED" and "no hook event of codex" in bus["reason"]


#: A team's OpenCode plugin that speaks at prompts and after tools: a refused word, a note added to
#: the prompt, a system line, and a line appended to each tool output.
OPENCODE_PROMPTS = """export const Notes = async () => ({
  "chat.message": async (input: any, output: any) => {
    if (output.parts.some((p: any) => String(p.text).includes("forbidden"))) throw new Error("PLUGIN-BLOCK forbidden")
    output.parts.push({ ...output.parts[0], id: output.parts[0].id + "z", text: "PLUGIN-NOTE prompt" })
  },
  "experimental.chat.system.transform": async (input: any, output: any) => { output.system.push("PLUGIN-SYSTEM line") },
  "tool.execute.after": async (input: any, output: any) => { output.output += "\\nPLUGIN-AFTER note" },
})
"""


@pytest.mark.parametrize("target", ["claude", "qwen"])
def test_opencode_prompt_and_after_callbacks_are_ported_as_the_target_s_context_and_block(
        tmp_path: Path, plugin_runtime: None, target: str) -> None:
    """chat.message and the system transform run from the target's prompt event: a throw blocks the
    prompt with the plugin's message, an added text part and a pushed system line are the hook's
    context; text appended to a tool's output is the post-tool hook's context. On Qwen, whose
    UserPromptSubmit fires again after each tool result with no prompt, those steps are skipped."""
    plugin = tmp_path / ".opencode" / "plugin" / "notes.ts"
    plugin.parent.mkdir(parents=True)
    plugin.write_text(OPENCODE_PROMPTS)
    trust("opencode", plugin)
    done = cli("port", "--to", target, str(tmp_path), "--json", "--launcher", LAUNCHER)
    assert done.returncode == 0, done.stderr
    grades = {r["event"]: r for r in json.loads(done.stdout)["results"]}
    assert {grades[k]["capability"] for k in ("chat.message", "experimental.chat.system.transform",
                                              "tool.execute.after")} == {"ADAPTED"}, grades
    hooks = json.loads((tmp_path / f".{target}/settings.json").read_text())["hooks"]
    commands = {event: [h["command"] for g in groups for h in g["hooks"]] for event, groups in hooks.items()}
    assert len(commands["UserPromptSubmit"]) == 2, commands  # one entry per key, each its own shim

    def call(event: str, command: str, **fields: object) -> dict:
        stdin = json.dumps({"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": event, **fields})
        run = subprocess.run(["/bin/sh", "-c", command], input=stdin, capture_output=True, text=True, cwd=tmp_path,
                             timeout=120)
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout) if run.stdout.strip() else {}

    message, system = commands["UserPromptSubmit"]
    said = call("UserPromptSubmit", message, prompt="list the files")
    assert said["hookSpecificOutput"]["additionalContext"] == "PLUGIN-NOTE prompt", said
    blocked = call("UserPromptSubmit", message, prompt="a forbidden word")
    assert blocked["decision"] == "block" and "PLUGIN-BLOCK forbidden" in blocked["reason"], blocked
    assert call("UserPromptSubmit", system, prompt="list the files")["hookSpecificOutput"]["additionalContext"] == \
        "PLUGIN-SYSTEM line"
    if target == "qwen":
        assert call("UserPromptSubmit", message, prompt="") == {}  # a step after a tool result: no prompt
    after = call("PostToolUse", commands["PostToolUse"][0], tool_name="Bash" if target == "claude" else
                 "run_shell_command", tool_input={"command": "ls"}, tool_response="a.txt")
    assert after["hookSpecificOutput"]["additionalContext"] == "PLUGIN-AFTER note", after


def test_a_prompt_hook_ported_to_qwen_skips_the_steps_that_carry_no_prompt(tmp_path: Path) -> None:
    """Qwen fires UserPromptSubmit again after every tool result with an empty prompt (measured); a
    Claude prompt hook fires once per prompt: the shim answers the prompt's step only, so the grade
    lists no approximate timing."""
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    answer = json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CTX-P"}})
    settings.write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": f"echo '{answer}'"}]}]}}))
    trust("claude", settings)
    done = cli("port", "--to", "qwen", str(tmp_path), "--json", "--launcher", LAUNCHER)
    assert done.returncode == 0, done.stderr
    codes = [d["code"] for r in json.loads(done.stdout)["results"] for d in r["degradations"]]
    assert "approximate" not in codes
    groups = json.loads((tmp_path / ".qwen/settings.json").read_text())["hooks"]["UserPromptSubmit"]
    command = groups[0]["hooks"][0]["command"]

    def step(prompt: str) -> str:
        stdin = json.dumps({"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
                            "prompt": prompt})
        return subprocess.run(["/bin/sh", "-c", command], input=stdin, capture_output=True, text=True,
                              cwd=tmp_path, timeout=120).stdout

    assert "CTX-P" in step("list the files")
    assert step("") == ""
    # The other way round the loss stays: a Qwen hook of every step hosted by Claude's once-per-prompt event.
    from compat_adapter.catalog import resolve_event, unit_of
    from compat_adapter.port.plan import grade_port

    qwen_row = resolve_event(unit_of("qwen").spec, "UserPromptSubmit")
    assert "approximate" in [str(d.code) for d in grade_port(qwen_row, "qwen", "claude").degradations]


def test_a_claude_post_tool_block_is_graded_observe_only_where_the_target_drops_it() -> None:
    """Claude's PostToolUse block gives the reason to the model (its row says context); Codex reads a
    ported block, Copilot's postToolUse and CodeBuddy's PostToolUse do not (port lane post_block,
    measured): the grade lists that, never a silent difference."""
    from compat_adapter.catalog import resolve_event, unit_of
    from compat_adapter.port.plan import grade_port

    row = resolve_event(unit_of("claude").spec, "PostToolUse")
    codes = {t: [str(d.code) for d in grade_port(row, "claude", t).degradations] for t in ("codex", "copilot", "workbuddy")}
    assert "observe-only" not in codes["codex"]
    assert "observe-only" in codes["copilot"] and "observe-only" in codes["workbuddy"]


@pytest.mark.parametrize(("answer", "codes"), [
    ({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CTX-AFTER"}}, set()),
    ({"decision": "block", "reason": "CTX-AFTER"}, {"observe-only"})])
def test_a_post_tool_context_ported_to_opencode_is_appended_to_what_the_model_reads(
        tmp_path: Path, plugin_runtime: None, answer: dict, codes: set) -> None:
    """A Claude PostToolUse hook's additionalContext (or a block's reason, which Claude gives the
    model), ported to OpenCode: its plugin appends the text to ``output.output``, where an OpenCode
    plugin adds text after a tool, so no output-field-ignored is graded (a block is observe-only:
    nothing is stopped); the written plugin, run as OpenCode's own by the plugin host, gives the model
    the tool's output followed by the hook's text."""
    from compat_adapter.host.script import Reply, call as tool_call

    grade = _port_claude_hook(tmp_path, "PostToolUse", f"echo '{json.dumps(answer)}'", "opencode", "Bash")["PostToolUse"]
    graded = {d["code"] for d in grade["degradations"]}
    assert grade["capability"] == "ADAPTED" and "output-field-ignored" not in graded and codes <= graded, graded
    events = _as_opencode(tmp_path, [Reply(calls=(tool_call("bash", command="echo hi"),)), "ok"])
    assert [e.data["text"] for e in events if e.type == "tool/result"] == ["hi\nCTX-AFTER"]


@pytest.mark.parametrize(("answer", "users", "calls"), [
    ({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CTX-PROMPT"}},
     ["go\n\nCTX-PROMPT"], 1),
    ({"decision": "block", "reason": "BLOCK-PROMPT"}, [], 0)])
def test_a_prompt_hook_ported_to_opencode_runs_from_chat_message(tmp_path: Path, plugin_runtime: None, answer: dict,
                                                                 users: list, calls: int) -> None:
    """A Claude UserPromptSubmit hook ported to OpenCode runs from the written plugin's chat.message
    (it was UNSUPPORTED: no OpenCode event at agent/pre-step): its context is a text part added to
    the prompt's message, its block a throw that refuses the prompt (no model call), both read back
    by OpenCode's dialect, so no loss beyond the port's own is graded; run as OpenCode's own plugin
    by the plugin host."""
    grade = _port_claude_hook(tmp_path, "UserPromptSubmit", f"echo '{json.dumps(answer)}'", "opencode")["UserPromptSubmit"]
    assert grade["capability"] == "ADAPTED", grade
    assert {d["code"] for d in grade["degradations"]} == {"payload-field-missing", "text-differs", "message-provenance"}
    events = _as_opencode(tmp_path, ["ok"])
    assert [e.data["text"] for e in events if e.type == "user/message"] == users
    assert sum(e.type == "assistant/message" for e in events) == calls


def test_an_opencode_callback_that_throws_to_block_is_graded_by_what_the_target_does_with_a_block() -> None:
    """A throw in tool.execute.after fails the call in OpenCode, one in chat.message refuses the
    prompt (lane cases opencode:post_block, prompt_block): port probes the target with a block there,
    though the rows answer context only. Copilot's postToolUse cannot block (observe-only); Claude's
    PostToolUse and prompt event can; the system transform's throw is no refusal in OpenCode."""
    from compat_adapter.capability import PluginRuntime, capability
    from compat_adapter.catalog import unit_of
    from compat_adapter.port.plan import grade_plugin_key

    runtime = capability(unit_of("opencode"), PluginRuntime)
    assert runtime is not None

    def codes(key: str, target: str) -> set[str]:
        row = runtime.row(key)
        assert row is not None
        return {str(d.code) for d in grade_plugin_key(row, "opencode", target, key).degradations}

    assert "observe-only" in codes("tool.execute.after", "copilot")
    assert "observe-only" not in codes("tool.execute.after", "claude")
    assert "observe-only" not in codes("chat.message", "claude") | codes("chat.message", "gemini")
    assert not runtime.port.blocks("experimental.chat.system.transform")


def test_a_session_start_hook_ported_to_opencode_runs_once_and_its_context_stays(tmp_path: Path,
                                                                                 plugin_runtime: None) -> None:
    """A Claude SessionStart hook ported to OpenCode (it was UNSUPPORTED: OpenCode has no
    session-start event): the written plugin runs it once per session from the system transform
    (graded timing-differs) and gives its context to the system prompt of every request; run as
    OpenCode's own plugin by the plugin host over a two-step turn, the hook ran once and the model
    was given the context."""
    from compat_adapter.host.script import Reply, call as tool_call

    answer = json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "CTX-SESSION"}})
    grade = _port_claude_hook(tmp_path, "SessionStart", f"echo ran >> {tmp_path}/runs.txt; echo '{answer}'",
                              "opencode")["SessionStart"]
    assert grade["capability"] == "ADAPTED" and "timing-differs" in {d["code"] for d in grade["degradations"]}
    events = _as_opencode(tmp_path, [Reply(calls=(tool_call("bash", command="echo hi"),)), "ok"])
    messages = [f"{e.type} {e.data.get('text')}" for e in events]
    assert "developer/message CTX-SESSION" in messages, messages  # the host's system role
    assert (tmp_path / "runs.txt").read_text() == "ran\n"  # once, over the title request and two steps
