"""The real-config lane (issue 26): real teams' hook files, installed as their vendor loads them, run
under the real vendor CLI (offline, ``bash scripts/vendor_lane.sh``) and on compat-adapter's embedded
host, both in the lane's sandbox, compared as the vendor lane compares.

The whole corpus runs in ``scripts/realconfig_diff.py --json``; here a representative subset does,
one file or two of each vendor, on the scenarios where its hooks decide something: a guard's deny
of a destructive command (a project file's, a plugin's by ``${CLAUDE_PLUGIN_ROOT}``, Copilot's
exit-1 guard, an OpenCode plugin's throw), a session's context, a Stop hook, a plain call, a file edit
(Gemini's AfterTool on write_file; a BeforeTool whose program is not installed, which blocks the
edit under Gemini CLI and here alike).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from compat_adapter.testing.lane.outcome import Outcome
from compat_adapter.testing.lane.outcome import Item
from compat_adapter.testing.lane.scenarios import Case
from compat_adapter.testing.realconfig.install import CORPUS, MANIFEST, SCRIPTS, corpus_files, install, manifest
from compat_adapter.testing.realconfig.judge import Side, commands_in, judge
from compat_adapter.testing.realconfig.procwatch import Trace, command_pattern, hook_runs, parse, traced
from compat_adapter.testing.realconfig.standin import answer
from compat_adapter.testing.realconfig.suite import SCENARIOS, case_commands, cases_of, run_cases, summarize

#: (corpus file, scenario): each vendor, each way of installing, the scenarios its hooks decide.
SUBSET = (
    ("claude/settings.full-featured.json", "destructive"),
    ("claude/settings.full-featured.json", "session"),
    ("claude/plugin-hookify.hooks.json", "benign"),
    ("claude/plugin-claude-mem.hooks.json", "session"),
    ("claude/settings.claude-flow.json", "benign"),
    ("copilot/settings.json", "benign"),
    ("codex/hooks.harness-stop.json", "stop"),
    ("copilot/tool-guardian.json", "destructive"),
    ("codebuddy/settings.tgfx.json", "benign"),
    ("codebuddy/settings.pgh-dreaming.json", "edit"),
    ("opencode/plugins/guard.ts", "destructive"),
    ("gemini/nepocorp.json", "edit"),
    ("gemini/co-safety.json", "edit"),
    ("claude/plugin-superpowers.hooks.json", "session"),
    ("claude/settings.game-studios.json", "destructive"),
    # Turn 5: a Kimi config whose real Stop script runs, Cline's event-named hook files, a Kilo permission file.
    ("kimi/config.troopai-adk.toml", "stop"),
    ("cline/clineshield/PreToolUse", "benign"),
    ("kilo/kilo.turbo-ea.json", "destructive"),
)
HOOK_SUFFIXES = {".json", ".jsonc", ".toml", ".ts", ".js"}


def test_every_hook_file_of_the_corpus_has_its_place_in_the_lane() -> None:
    # A hook file that is itself the program (Cline's event-named scripts) has no suffix: its #! says so.
    on_disk = {p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*") if p.is_file() and p != MANIFEST
               and (p.suffix in HOOK_SUFFIXES or (not p.suffix and p.read_bytes().startswith(b"#!")))}
    assert set(corpus_files()) == on_disk
    for source in corpus_files():
        layout = install(source)
        if layout.not_drivable:
            assert len(layout.not_drivable) > 40, source  # says why, in a sentence
            continue
        assert layout.imports and all(name in layout.files for name in layout.imports), source
        for path, behaviour, why in layout.standins:
            assert behaviour in ("observe", "guard", "guard-exit1", "context") and len(why) > 20, (source, path)
            assert "Stand-in written by the real-config lane" in layout.files[path]


def test_a_plugin_is_installed_as_a_plugin_folder_its_vendor_loads() -> None:
    layout = install("claude/plugin-hookify.hooks.json")
    assert layout.options["plugin_dirs"] == [".lane-plugins/hookify"]
    assert json.loads(layout.files[".lane-plugins/hookify/.claude-plugin/plugin.json"])["name"] == "hookify"
    # ${CLAUDE_PLUGIN_ROOT}/hooks/pretooluse.py resolved at the plugin: its stand-in is there.
    assert ".lane-plugins/hookify/hooks/pretooluse.py" in {p for p, _, _ in layout.standins}
    # A script on another machine's disk gets no stand-in: it cannot start, under Codex or here.
    codex = install("codex/hooks.ruff.json")
    assert not codex.standins and codex.cannot and codex.cannot[0].startswith("/Users/")


@pytest.mark.parametrize(("behaviour", "command", "expected"), [
    ("guard", "rm -rf build", ("", 2)), ("guard", "ls", ("", 0)), ("guard-exit1", "rm -rf x", ("", 1)),
    ("observe", "rm -rf build", ("", 0))])
def test_the_stand_ins_answer_as_their_contract_says(behaviour: str, command: str,
                                                     expected: tuple[str, int]) -> None:
    out, err, code = answer(behaviour, "x", {"hook_event_name": "PreToolUse", "tool_input": {"command": command}})
    assert (out, code) == expected and (("LANE-DENY" in err) == (code != 0))
    # Copilot's camelCase payload carries the arguments as a JSON string.
    out, err, code = answer(behaviour, "x", {"toolName": "bash", "toolArgs": json.dumps({"command": command})})
    assert code == expected[1]


def test_a_vendor_with_no_cli_here_gives_every_pair_its_units_reason() -> None:
    # Cursor has no lane driver to ask about tools: its files are not drivable, pair by pair, by the
    # reason its unit gives (the report lists them; it never stops on them).
    cursor = next(s for s in corpus_files() if s.startswith("cursor/"))
    _, cases = cases_of(cursor)
    assert len(cases) == len(SCENARIOS)
    assert all(c.not_drivable and "Cursor's CLI is not on the registries" in c.not_drivable for c in cases)


def test_a_file_edit_is_not_drivable_where_the_vendor_offers_no_write_tool() -> None:
    _, cases = cases_of("codex/hooks.harness-stop.json", ["edit"])
    assert cases[0].not_drivable and "file-write tool" in cases[0].not_drivable
    assert set(SCENARIOS) == {"destructive", "benign", "edit", "prompt", "stop", "session"}


@pytest.fixture(scope="module")
def subset(tmp_path_factory: pytest.TempPathFactory) -> tuple[list, list, dict]:
    import subprocess

    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run(["bash", str(repo / "scripts" / "vendor_lane.sh")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    built = [cases_of(source, [scenario]) for source, scenario in SUBSET]
    root = tmp_path_factory.mktemp("realconfig")
    results, _ = run_cases([c for _, cs in built for c in cs], root=root)
    return [i for i, _ in built], results, {r.case.name: r for r in results} | {"root": root}


@pytest.mark.vendor
def test_the_subset_agrees_with_the_real_vendors_or_lists_why(subset: tuple[list, list, dict]) -> None:
    installs, results, _ = subset
    assert len(results) == len(SUBSET)
    unlisted = []
    for r in results:
        assert r.failure is None, f"{r.case.name}: {r.failure}"
        assert r.vendor is not None and r.vendor.error is None, (r.case.name, r.vendor and r.vendor.error)
        assert r.verdict is not None
        if r.verdict.status == "differ_unlisted":
            unlisted.append(r.verdict)
    # The one difference the hook-text comparison found here before (2026-12-04) is gone: a hook whose
    # program is missing (co-safety's `bun`) makes bash complain in its own name, and Gemini CLI
    # starts `bash` by name; its unit says so (shell_name), so the model reads "bash: line 1: …" on
    # both sides (tests/test_shell_name.py pins it without the CLI).
    assert unlisted == [], json.dumps([v.as_json() for v in unlisted], indent=1)
    summary = summarize(installs, results)
    assert not any(s["differ_unlisted"] for s in summary.values())


@pytest.mark.vendor
def test_real_guards_deny_the_destructive_command_under_the_vendor_and_here(subset: tuple[list, list, dict]) -> None:
    _, _, by_name = subset
    for name in ("claude:settings.full-featured.json/destructive", "copilot:tool-guardian.json/destructive",
                 "opencode:plugins_guard.ts/destructive"):
        r = by_name[name]
        assert r.vendor is not None and r.ours is not None
        # What the team's guard does under its own vendor, it does here: the call does not run.
        assert r.vendor.tool_ran is r.ours.tool_ran, name
    # A team's permissions.deny (`Bash(rm -rf *)`, beside real hook scripts): Claude refuses the
    # command by the rule and so does this host; both refusals reach the model as a tool result.
    ruled = by_name["claude:settings.game-studios.json/destructive"]
    assert ruled.vendor is not None and ruled.ours is not None
    assert not ruled.vendor.tool_ran and not ruled.ours.tool_ran
    assert ruled.verdict is not None and ruled.verdict.status == "agree", ruled.verdict
    claude = by_name["claude:settings.full-featured.json/destructive"]
    assert claude.vendor is not None and claude.ours is not None
    assert not claude.vendor.tool_ran and "PreToolUse" in claude.vendor.invoked
    assert "PreToolUse" in claude.ours.invoked
    # CodeBuddy's Write is allowed up front as the lane allows it (one tool name per argument), so
    # the edit runs under CodeBuddy as here.
    wrote = by_name["workbuddy:settings.pgh-dreaming.json/edit"]
    assert wrote.vendor is not None and wrote.ours is not None and wrote.vendor.tool_ran and wrote.ours.tool_ran
    # A Gemini project's AfterTool on write_file ran after the real write_file, under Gemini and here.
    edit = by_name["gemini:nepocorp.json/edit"]
    assert edit.vendor is not None and edit.ours is not None
    assert edit.vendor.tool_ran and edit.ours.tool_ran
    assert "AfterTool" in edit.vendor.invoked and sorted(edit.vendor.invoked) == sorted(edit.ours.invoked)
    # A BeforeTool hook that cannot start (`bun` is not installed) exits 127: Gemini blocks the call
    # on any exit but 0 and 1, and so does this host; the model reads the shell's complaint.
    unstarted = by_name["gemini:co-safety.json/edit"]
    assert unstarted.vendor is not None and unstarted.ours is not None
    assert not unstarted.vendor.tool_ran and not unstarted.ours.tool_ran
    assert "bun: command not found" in (unstarted.vendor.tool_result or "") and \
        "bun: command not found" in (unstarted.ours.tool_result or "")
    # A plugin's hooks ran from its plugin folder under Claude (--plugin-dir) and here.
    hookify = by_name["claude:plugin-hookify.hooks.json/benign"]
    assert hookify.vendor is not None and hookify.ours is not None
    assert "PreToolUse" in hookify.vendor.invoked and sorted(hookify.vendor.invoked) == sorted(hookify.ours.invoked)


@pytest.mark.vendor
def test_real_configs_where_the_vendor_differs_from_its_docs_or_our_old_reading(
        subset: tuple[list, list, dict]) -> None:
    _, _, by_name = subset

    def both(name: str) -> tuple[Outcome, Outcome]:
        r = by_name[name]
        assert r.vendor is not None and r.ours is not None, name
        return r.vendor, r.ours

    # claude-mem's Setup hook: Claude Code 2.1.332 runs Setup only on --init/--maintenance runs, so a
    # session fires its SessionStart hooks and not Setup, under Claude and here; its plain-stdout
    # context reaches the model as Claude words it ("SessionStart:startup hook success: …").
    vendor, ours = both("claude:plugin-claude-mem.hooks.json/session")
    assert "Setup" not in vendor.invoked and "Setup" not in ours.invoked and "SessionStart" in vendor.invoked
    landing = vendor.landings["LANE-CTX-SESSION"]
    assert landing.line.startswith("SessionStart:startup hook success: ")
    assert ours.landings["LANE-CTX-SESSION"] == landing
    # claude-flow's hooks all run `npx claude-flow …`, which the sandbox cannot fetch: each fails at
    # once (npm told not to retry) with exit 1, a non-blocking error, and the call runs on both sides.
    vendor, ours = both("claude:settings.claude-flow.json/benign")
    assert vendor.tool_ran and ours.tool_ran
    # A Copilot settings file whose http preToolUse guard reaches no server: Copilot CLI 1.0.102
    # denies every call ("hook errored", the file named "repo settings"), and so does this host.
    vendor, ours = both("copilot:settings.json/benign")
    assert not vendor.tool_ran and not ours.tool_ran
    assert vendor.tool_result == ours.tool_result == 'Denied by preToolUse hook from "repo settings" (hook errored)'


def test_a_windows_drive_path_and_an_authors_checkout_get_no_stand_in_where_they_cannot_be() -> None:
    # `node "D:/develop/…/comet-hook-router.mjs"`: a relative path on Linux, another machine's all the same.
    janus = install("codebuddy/workbuddy.janus.json")
    assert not janus.standins and janus.cannot and janus.cannot[0].startswith("D:/")
    # loa-constructs names its scripts by the author's checkout: none is stood in for this machine …
    here = install("codex/hooks.loa-constructs.json")
    assert here.author_path is None and any(c.startswith("/Users/zksoju/") for c in here.cannot)
    assert not any(p.startswith(".codex/hooks/") for p, _, _ in here.standins)
    # … and at the author's path, only the scripts the repository is known to have.
    there = install("codex/hooks.loa-constructs.json", at_author_path=True)
    assert there.author_path == "/Users/zksoju/Documents/GitHub/loa-constructs"
    stood = {p: b for p, b, _ in there.standins}
    assert stood[".codex/hooks/safety/block-destructive-bash.sh"] == "guard"
    assert not [p for p in stood if "spiral" in p]


def test_the_go_and_typescript_stand_ins_run_under_the_real_toolchain(tmp_path: Path, toolchain: Path) -> None:
    """go-utils' `go run "$guard_root/…/main.go"` (Debian's go) and co-safety's `bun x.ts` (the
    toolchain lane's Bun) start the stand-ins, which record their call as the lane's recorder does."""
    import os
    import subprocess

    import shutil

    from compat_adapter.testing.lane import hookrec
    folder = toolchain
    env = {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path),
           "GOCACHE": str(tmp_path / "gocache"), "GOFLAGS": "-mod=mod"}
    for source, event, payload in (
            ("cursor/go-utils.json", "beforeShellExecution", {"hook_event_name": "beforeShellExecution",
                                                              "command": "ls"}),
            ("gemini/co-safety.json", "BeforeTool", {"hook_event_name": "BeforeTool", "tool_name": "write_file"})):
        layout = install(source)
        run = tmp_path / source.replace("/", "_")  # a lane run folder: bin/ (the recorder), state/, proj/
        proj = run / "proj"
        for sub in ("bin", "state", "proj"):
            (run / sub).mkdir(parents=True)
        shutil.copyfile(hookrec.__file__, run / "bin" / "hookrec.py")
        subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
        for name, text in layout.files.items():
            (proj / name).parent.mkdir(parents=True, exist_ok=True)
            (proj / name).write_text(text)
        hooks = json.loads(layout.files[layout.imports[0]])["hooks"][event]
        command = hooks[0]["command"] if "command" in hooks[0] else hooks[0]["hooks"][0]["command"]
        done = subprocess.run(["/bin/sh", "-c", command], cwd=proj, input=json.dumps(payload), env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (source, done.stderr)
        logged = [json.loads(line) for line in (run / "state" / "hooks.jsonl").read_text().splitlines()]
        assert [e["standin"].split(" ", 1)[0] for e in logged] == [source], logged


def test_every_kept_script_is_a_verbatim_copy_with_its_provenance() -> None:
    sources = (SCRIPTS / "SOURCES.md").read_text(encoding="utf-8")
    kept = {p.relative_to(SCRIPTS).as_posix() for p in SCRIPTS.rglob("*") if p.is_file() and p.name != "SOURCES.md"}
    named = {where for entry in manifest()["files"].values() for where in entry.get("scripts", {}).values()}
    assert kept == named  # every copy is run by a corpus file, and every file's script is kept
    for folder in {k.split("/", 1)[0] for k in kept}:
        repo, commit = folder.split("@")
        assert f"`{folder}`" in sources and f"`{repo.replace('__', '/')}` @ {commit}" in sources, folder
    # A corpus file's own scripts replace its stand-ins: superpowers' real run-hook.cmd, executable
    # as in its repository (it has no #! line: only its mode lets Claude start it).
    layout = install("claude/plugin-superpowers.hooks.json")
    assert not layout.standins and layout.options["kept_modes"][".lane-plugins/superpowers/hooks/run-hook.cmd"]
    assert layout.files[".lane-plugins/superpowers/hooks/run-hook.cmd"].startswith(": << 'CMDBLOCK'")


def test_the_hook_commands_are_read_from_the_file_as_written() -> None:
    assert commands_in('{"hooks": {"a": [{"command": "echo \\"x\\""}, {"bash": "b.sh", "command": ""}]}}') == \
        ['echo "x"', "b.sh"]
    assert commands_in('[[hooks]]\ncommand = "python3 x.py"\n') == ["python3 x.py"]
    _, cases = cases_of("claude/settings.uv.json", ["session"])
    assert case_commands(cases[0]) == [".claude/hooks/session-start.sh", "uv run .claude/hooks/post-edit-format.py"]


def test_a_command_matches_with_its_variables_expanded_or_not() -> None:
    pattern = command_pattern('"${CLAUDE_PLUGIN_ROOT}/hooks/run-hook.cmd" session-start.sh')
    assert pattern.fullmatch('"/tmp/r/proj/.lane-plugins/x/hooks/run-hook.cmd" session-start.sh')
    assert pattern.fullmatch('"${CLAUDE_PLUGIN_ROOT}/hooks/run-hook.cmd" session-start.sh')
    assert not pattern.fullmatch('"/tmp/hooks/run-hook.cmd" research-stop-hook.sh')


def test_a_plain_command_started_without_its_shell_is_seen_by_its_words() -> None:
    """Our hosts start a plain command without its shell (runtime/shellexec.py): no ``sh -c`` line
    carries it, and the program is named by the path found on PATH, its quotes removed. The observer
    still finds that run (before, the real-config subset counted such hooks as never run here)."""
    command = 'python3 "$CODEBUDDY_PROJECT_DIR/.codebuddy/hooks/runtime_context.py" --event SessionStart'
    started = ("/usr/bin/python3", "/r/proj/.codebuddy/hooks/runtime_context.py", "--event", "SessionStart")
    trace = Trace(execs=((1, ("vendor",)), (2, started), (3, ("/usr/bin/python3", "other.py"))), parent={2: 1, 3: 1})
    runs = hook_runs(trace, [command, "python3 never.py"])
    assert [(r.command, r.argv) for r in runs] == [(command, started)]


def test_the_observer_sees_a_hook_tree_and_only_what_reached_its_vendor(tmp_path: Path) -> None:
    """A stand-in vendor (Python) starts two hook commands with ``sh -c`` and reads their pipes; the
    trace has each hook run once, its children, and only the text written to the vendor's pipes:
    not a command substitution's, a pipeline's inner pipe's, or a file's."""
    import subprocess
    import sys

    hook = ('x=$(echo inner-substitution-text); echo "$x" | tr a-z A-Z > /dev/null; '
            'echo "hook says hello to the model"; echo "hook complains on stderr" >&2; echo kept-in-a-file > f.txt')
    vendor = ("import subprocess, sys\n"
              "for c in sys.argv[1:]:\n"
              "    subprocess.run(['/bin/sh', '-c', c], capture_output=True)\n")
    log = tmp_path / "procs.strace"
    done = subprocess.run(traced([sys.executable, "-c", vendor, hook, "true"], log), cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    trace = parse(log.read_text())
    runs = hook_runs(trace, [hook, "never started here", "true"])
    assert [r.command for r in runs] == [hook, "true"]
    first = runs[0]
    assert first.argv == ("/bin/sh", "-c", hook) and ("tr", "a-z", "A-Z") in first.programs
    assert first.stdout == "hook says hello to the model\n" and first.stderr == "hook complains on stderr\n"


def _outcome(side: str, texts: tuple[tuple[Item, ...], ...] = (), graded: tuple = ()) -> Outcome:
    return Outcome(side=side, case="claude:x/benign", tool_ran=True, model_calls=2, texts=texts, graded=graded)


def test_a_difference_is_listed_only_by_the_hook_that_made_it() -> None:
    """Two PreToolUse hooks of one file, one graded timing-differs and one graded exactly: a run the
    vendor made and this host did not is listed by its own hook's grade only, and a text that
    reached the model at the vendor only is named by the grade of the hook that wrote it."""
    listed, exact = "python3 listed.py", "python3 exact.py"
    case = Case("claude", "x/benign", steps=(("shell", "ls"), ("text", "done")), prompt="run the lane step")
    graded = (("PreToolUse", json.dumps({"type": "command", "command": listed}), ("timing-differs",)),
              ("PreToolUse", json.dumps({"type": "command", "command": exact}), ()))

    def trace(commands: list[str], said: str = "") -> Trace:
        # The vendor (pid 1, the observed program) starts each hook; the exact hook writes `said`.
        execs = ((1, ("vendor-cli", "-p", "run the lane step")),
                 *((100 + i, ("/bin/sh", "-c", c)) for i, c in enumerate(commands)))
        writes = tuple((100 + i, 1, "pipe:[1]", said) for i, c in enumerate(commands) if said and c == exact)
        return Trace(execs, {100 + i: 1 for i, _ in enumerate(commands)}, writes)

    read = ((Item("tool", "tool_result", "ran\nthe exact hook wrote this line", 1),),)
    vendor = Side(_outcome("vendor", read), trace([listed, exact], "the exact hook wrote this line\n"), ("/v",))
    ours = Side(_outcome("embedded", graded=graded), trace([], ""), ("/o",))
    verdict = judge(case, [listed, exact], vendor, ours)
    by = {d.facet: d for d in verdict.differences}
    assert by[f"ran:{listed}"].listed_by == ("timing-differs",)
    assert by[f"ran:{exact}"].listed_by == ()  # the other hook's timing-differs does not name it
    text = by["text:the exact hook wrote this line"]
    assert (text.vendor, text.ours) == ("tool_result", None)
    assert text.listed_by == ()  # only `exact` wrote it, and its grade has no loss
    assert verdict.status == "differ_unlisted"


@pytest.mark.vendor
def test_a_real_scripts_run_and_text_are_seen_under_the_vendor_and_here(subset: tuple[list, list, dict]) -> None:
    """superpowers' own run-hook.cmd and session-start.sh (no stand-in): the observer sees the plugin's
    hook process start once under Claude Code and once here, and the skill text the script prints
    reaches the model on both sides."""
    _, _, by_name = subset
    name = "claude:plugin-superpowers.hooks.json/session"
    r = by_name[name]
    assert r.failure is None and r.vendor is not None and r.ours is not None and r.verdict is not None
    run = by_name["root"] / "claude" / "plugin-superpowers.hooks.json/session"
    commands = case_commands(r.case)
    start = next(c for c in commands if "session-start" in c)
    for side, log in (("vendor", run / "vendor" / "out" / "procs.strace"), ("ours", run / "embedded" / "procs.strace")):
        runs = [h for h in hook_runs(parse(log.read_text()), commands) if h.command == start]
        assert len(runs) == 1, side
        assert any("session-start.sh" in " ".join(argv) for argv in runs[0].programs), side
        assert "You have superpowers" in runs[0].stdout, side
    for outcome in (r.vendor, r.ours):
        assert any("You have superpowers" in i.text for items in outcome.texts for i in items), outcome.side
    assert not [d for d in r.verdict.differences if d.facet == f"ran:{start}"]


def test_a_hook_that_prints_the_models_own_command_back_writes_no_hook_text() -> None:
    """ClineShield's PostToolUse logs its input pretty-printed (jq) on stderr, so one of its lines is
    the scripted command as a JSON string; Cline's tool result quotes the command too, so that line
    "reached the model" under Cline and not here. It is the model's own call, not the hook's text:
    in either quoting it is no text facet. A line the hook wrote itself still is one."""
    hook = "bash .clinerules/hooks/PostToolUse"
    case = Case("cline", "x/benign", steps=(("shell", "echo ran > tool-ran.txt"), ("text", "done")),
                prompt="run the lane step")
    said = '{\n  "commands": [\n    "echo ran > tool-ran.txt"\n  ]\n}\nthe hook itself said this\n'

    def trace() -> Trace:
        return Trace(((1, ("vendor-cli",)), (100, ("/bin/sh", "-c", hook))), {100: 1}, ((100, 2, "pipe:[1]", said),))

    read = ((Item("tool", "tool_result", '[{"query":"echo ran > tool-ran.txt","result":""}]', 1),),)
    verdict = judge(case, [hook], Side(_outcome("vendor", read), trace(), ("/v",)),
                    Side(_outcome("embedded"), trace(), ("/o",)))
    facets = {d.facet for d in verdict.differences}
    assert not any("echo ran" in f for f in facets), facets
    # The hook's own line is a text facet all the same (it reached the model on neither side).
    read_too = ((Item("tool", "tool_result", "the hook itself said this", 1),),)
    seen = judge(case, [hook], Side(_outcome("vendor", read_too), trace(), ("/v",)),
                 Side(_outcome("embedded"), trace(), ("/o",)))
    assert [d.facet for d in seen.differences] == ["text:the hook itself said this"]


def test_a_hook_file_that_is_its_own_program_is_observed_by_its_path() -> None:
    """Cline's hooks are event-named scripts: the corpus file is laid out where Cline loads it (with
    the repository's sibling hook file, which Cline loads as well and the embedded side imports), and
    the process observer looks for each file's path."""
    layout, cases = cases_of("cline/clineshield/PreToolUse", ["destructive"])
    assert layout.imports == (".clinerules/hooks/PreToolUse", ".clinerules/hooks/PostToolUse")
    assert all(layout.files[name].startswith("#!/bin/bash") for name in layout.imports) and not layout.standins
    assert case_commands(cases[0]) == list(layout.imports)


def test_a_teams_kimi_config_keeps_its_keys_beside_the_lanes_model() -> None:
    """troopai's project Kimi config names its own provider and model: the lane's Kimi driver drops
    those (and the keys it sets itself) and keeps the rest, its hooks and its [thinking]."""
    from vendors.kimi.lane import without_model

    kept = without_model((CORPUS / "kimi/config.troopai-adk.toml").read_text(encoding="utf-8"))
    data = tomllib.loads(kept)
    assert "default_model" not in data and "providers" not in data and "models" not in data
    assert data["thinking"]["effort"] == "max"
    assert [h["command"] for h in data["hooks"]] == ["python3 -m tools.kimi_hooks stop",
                                                     "python3 -m tools.kimi_hooks subagent-stop"]


@pytest.mark.vendor
def test_kimi_and_cline_run_the_teams_own_hooks_under_the_vendor_and_here(subset: tuple[list, list, dict]) -> None:
    """troopai's Stop hook (``python3 -m tools.kimi_hooks stop``, its real module) runs once under
    Kimi Code and once here; ClineShield's two event-named scripts each run once per call under Cline
    and here, each answering Cline's JSON."""
    _, _, by_name = subset
    for name, kind, want in (("kimi:config.troopai-adk.toml/stop", "config.troopai-adk.toml/stop",
                              {"python3 -m tools.kimi_hooks stop": 1, "python3 -m tools.kimi_hooks subagent-stop": 0}),
                             ("cline:clineshield_PreToolUse/benign", "clineshield_PreToolUse/benign",
                              {".clinerules/hooks/PreToolUse": 1, ".clinerules/hooks/PostToolUse": 1})):
        r = by_name[name]
        assert r.failure is None and r.verdict is not None and r.verdict.status == "agree", name
        run = by_name["root"] / r.case.vendor / kind
        for side, log in (("vendor", run / "vendor" / "out" / "procs.strace"), ("ours", run / "embedded" / "procs.strace")):
            runs = hook_runs(parse(log.read_text()), case_commands(r.case))
            assert {c: sum(h.command == c for h in runs) for c in want} == want, (name, side)
            if r.case.vendor == "cline":
                assert all(json.loads(h.stdout) is not None for h in runs), (name, side)
