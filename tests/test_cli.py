"""The command line as a person meets it: real processes, one-line errors, the README's commands."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import trust

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "importers"
CLAUDE_SETTINGS = FIXTURES / "claude" / "webapp" / ".claude" / "settings.json"


def cli(*args: str, cwd: Path = ROOT, timeout: float = 180, columns: int | None = None
        ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns)} if columns else None
    return subprocess.run([sys.executable, "-m", "compat_adapter.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=env)


def on_a_terminal(args: list[str], answer: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """The command with a real pseudo-terminal on stdin, a person's answer typed into it."""
    controller, terminal = os.openpty()
    try:
        os.write(controller, answer.encode() + b"\n")
        return subprocess.run([sys.executable, "-m", "compat_adapter.cli", *args], cwd=cwd, stdin=terminal,
                              capture_output=True, text=True, timeout=180)
    finally:
        os.close(controller)
        os.close(terminal)


def test_demo_prints_the_timeline_and_exits_0() -> None:
    done = cli("demo")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "host point → hook → what the hook said → what the host did" in " ".join(out.split())
    assert "git/worktrees" in out and "fs/watch" in out and "hooks registered" in out
    assert "turns: completed" in out
    assert "only after `compat-adapter trust`" in " ".join(out.split())
    assert max(len(line) for line in out.splitlines()) <= 80  # not a terminal: COLUMNS, else 80
    assert "Traceback" not in done.stderr


def test_demo_json_is_data() -> None:
    done = cli("demo", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    answers = {(r["seam"], r["answer"]) for r in report["timeline"]}
    assert ("Stop", "block") in answers and ("preToolUse", "deny") in answers
    verdicts = [r["verdict"] for r in report["timeline"]]
    # Claude's own deny text on its native route, in full (the table folds it, JSON keeps it whole).
    assert any(v.startswith("PreToolUse:Write hook error: writes under prod/ are blocked")
               for v in verdicts if v)
    # Copilot's own words on the built-in Copilot bridge.
    assert "Denied by preToolUse hook: 'rm -rf' is not allowed here" in verdicts
    assert "approval allowed-once" in verdicts  # Claude PermissionRequest answers Copilot's ask
    assert len(report["status"]["rules"]) == 5
    assert all(h["running"] for h in report["status"]["hooks"])
    assert report["hook_runs"] > 5


def test_grade_a_real_world_claude_settings_file() -> None:
    trust("claude", CLAUDE_SETTINGS)  # the user reviewed and trusted this file
    done = cli("grade", "--vendor", "claude", str(CLAUDE_SETTINGS), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    rows = data["rows"]
    assert len(rows) >= 12
    assert {r["capability"] for r in rows} <= {"ADAPTED", "UNSUPPORTED"}
    assert all(r["losses"] for r in rows if r["capability"] == "ADAPTED")
    assert all(r["reason"] for r in rows if r["capability"] == "UNSUPPORTED")
    table = cli("grade", "--vendor", "cc", str(CLAUDE_SETTINGS), "--verbose", columns=200)
    # Native by default; the full table names the official bridge as the alternative.
    assert table.returncode == 0 and "graded" in table.stdout and "native-translate" in table.stdout
    assert "alternative: official-bridge would lose more" in table.stdout
    # Tables fit the terminal's width: long cells fold instead of running off the screen.
    narrow = cli("grade", "--vendor", "cc", str(CLAUDE_SETTINGS), "--verbose", columns=70)
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 70
    # Without --verbose: the summary first, then one line per row at its file:line; every loss code
    # is named (the codes all hooks of the file share once, for the file).
    summary = cli("grade", "--vendor", "cc", str(CLAUDE_SETTINGS), columns=200)
    lines = summary.stdout.splitlines()
    assert lines[0].startswith(f"{len(rows)} graded on embedded")
    per_row = [ln for ln in lines if re.match(r"^  :\d+ +(ADAPTED|UNSUPPORTED)(, CANNOT START)? ", ln)]
    assert len(per_row) == len(rows)
    codes = {d.split(":", 1)[0] for r in rows for d in r["losses"]}
    assert all(code in summary.stdout for code in codes)
    # --verbose: each distinct loss text once, however many hooks it affects.
    full = " ".join(table.stdout.split())
    for loss in {d for r in rows for d in r["losses"]}:
        assert full.count(" ".join(loss.split(": ", 1)[1].split())) == 1, loss
    strict = cli("grade", "--vendor", "claude", str(CLAUDE_SETTINGS), "--strict")
    assert strict.returncode == (1 if data["unsupported"] else 0)


@pytest.mark.parametrize("args,code", [
    (("grade", "--vendor", "kiro", "x.json"), "UNKNOWN_VENDOR"),
    (("grade", "--vendor", "claude", "/nonexistent/settings.json"), "NO_SUCH_PATH"),
    (("matrix", "--vendor", "nope"), "UNKNOWN_VENDOR"),
    (("run", "--preset", "no-such-preset", "--script", "s.json"), "SCRIPT_ERROR"),
])
def test_bad_input_is_one_line_with_a_code(args: tuple[str, ...], code: str) -> None:
    done = cli(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{code}: "), done.stderr
    assert "Traceback" not in done.stderr


def test_invalid_json_and_unknown_event_in_a_file(tmp_path: Path) -> None:
    broken = tmp_path / "settings.json"
    broken.write_text('{"hooks": {"PreToolUse": [ {"matcher": "Bash",, } ]}}')
    done = cli("grade", "--vendor", "claude", str(broken))
    assert done.returncode == 2 and done.stderr.startswith("CONFIG_PARSE_ERROR: ")
    assert "line 1" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({"hooks": {"BeforeEverything": [
        {"hooks": [{"type": "command", "command": "true"}]}]}}))
    # A bad event is one UNSUPPORTED row with its place, not a dead file (issue 14 item 4).
    done = cli("grade", "--vendor", "claude", "--json", str(unknown))
    assert done.returncode == 0, done.stderr
    [row] = json.loads(done.stdout)["rows"]
    assert row["capability"] == "UNSUPPORTED" and row["reason"].startswith("UNKNOWN_EVENT: ")
    assert row["origin"] == f"{unknown}:hooks.BeforeEverything[0].hooks[0]"
    assert "BeforeEverything" in row["reason"]
    assert cli("grade", "--vendor", "claude", "--strict", str(unknown)).returncode == 1


def test_usage_errors_exit_2() -> None:
    done = cli("grade", "--no-such-flag")
    assert done.returncode == 2
    # A file without its vendor: a folder is searched for every vendor, a file is not guessed.
    done = cli("grade", __file__)
    assert done.returncode == 2 and "--vendor" in done.stderr
    assert cli("no-such-command").returncode == 2


def test_run_a_users_preset_and_script(tmp_path: Path) -> None:
    preset = tmp_path / "team_preset.py"
    preset.write_text(
        "class P:\n"
        "    async def apply(self, adapter):\n"
        "        await adapter.register_hook('copilot', 'preToolUse', 'bash', "
        "\"cat >/dev/null; echo '{\\\"permissionDecision\\\": \\\"deny\\\", \\\"permissionDecisionReason\\\": \\\"team says no\\\"}'\")\n"
        "PRESET = P()\n")
    script = tmp_path / "session.json"
    script.write_text(json.dumps({"prompts": ["clean up"], "script": [
        {"text": "cleaning", "tools": [{"name": "bash", "arguments": {"command": "touch should-not-exist"}}]},
        "done"]}))
    done = cli("run", "--preset", str(preset), "--script", str(script), "--cwd", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["turns"] == ["completed"]
    assert any(r["verdict"] == "Denied by preToolUse hook: team says no" for r in data["timeline"])
    assert not (tmp_path / "should-not-exist").exists()
    missing = cli("run", "--preset", "no-such-preset", "--script", str(script), "--cwd", str(tmp_path))
    assert missing.returncode == 2 and missing.stderr.startswith("PRESET_ERROR: ")
    bad = tmp_path / "bad.json"
    bad.write_text("[{\"frobnicate\": 1}]")
    done = cli("run", "--preset", str(preset), "--script", str(bad), "--cwd", str(tmp_path))
    assert done.returncode == 2 and done.stderr.startswith("SCRIPT_ERROR: ")


def test_matrix_and_surface_commands() -> None:
    done = cli("matrix", "--host", "dsh", "--format", "json")
    assert done.returncode == 0 and json.loads(done.stdout)["host"] == "dsh"
    surface = cli("surface", "--json")
    assert surface.returncode == 0 and json.loads(surface.stdout)["missing"] == []
    check = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_surface.py")],
                           capture_output=True, text=True, cwd=ROOT)
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.parametrize("host", ["embedded", "dsh-0.2"])
def test_surface_json_is_the_same_bytes_under_any_hash_seed(host: str) -> None:
    # The surface's sets are frozensets, whose order follows PYTHONHASHSEED: printed as they
    # iterate, two runs of one command told a diff two different stories.
    runs = [subprocess.run([sys.executable, "-m", "compat_adapter.cli", "surface", "--json", "--host", host],
                           cwd=ROOT, capture_output=True, timeout=180, env={**os.environ, "PYTHONHASHSEED": seed})
            for seed in ("1", "2")]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    surface = json.loads(runs[0].stdout)["surface"]
    for key in ("services", "bridge_packages", "context_roles"):
        assert surface[key] == sorted(surface[key])
    assert len(surface["services"]) > 2 and len(surface["bridge_packages"]) == 2


def _readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", readme, flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_readme_set_up_is_two_commands_and_ci_runs_the_second() -> None:
    commands = _readme_commands()
    setup = commands[:2]
    assert setup[0].endswith("compat-adapter demo") and "pip install" in setup[0]
    assert setup[1] == ".venv/bin/python -m pytest -q"
    ci = (ROOT / ".ci" / "run").read_text()
    assert setup[1] in ci.splitlines()


def test_every_readme_compat_adapter_command_runs(tmp_path: Path) -> None:
    """The quick-start commands run against a project laid out like the README says."""
    project = tmp_path / "project"
    shutil.copytree(FIXTURES / "claude" / "webapp", project)
    shutil.copytree(FIXTURES / "codex" / "tooling" / ".codex", project / ".codex")
    shutil.copytree(FIXTURES / "copilot" / "api" / ".github", project / ".github")
    ran = 0
    for command in _readme_commands():
        if "compat-adapter" not in command or "pip install" in command:
            continue
        if command.startswith("DSH_HOME="):  # a DSH session: run in a real DSH by tests/host/test_dsh_sdk.py
            continue
        words = shlex.split(command)
        assert words[0] == ".venv/bin/compat-adapter"
        expanded: list[str] = []
        for word in words[1:]:
            matches = sorted(project.glob(word)) if "*" in word else []
            expanded += [str(m) for m in matches] or [word]
        if "--script" in expanded:  # the session script the README points to (INTEGRATION.md)
            (project / expanded[expanded.index("--script") + 1]).write_text(json.dumps(
                ["Listing.", {"tools": [{"name": "bash", "arguments": {"command": "ls"}}]}, "Done."]))
        # `trust` asks a person: on a terminal, answered yes (off one it refuses without --yes).
        done = on_a_terminal(expanded, "y", cwd=project) if expanded[0] == "trust" else cli(*expanded, cwd=project)
        assert done.returncode in (0, 1), (command, done.stdout, done.stderr)  # 1: --strict found UNSUPPORTED
        assert done.stdout.strip(), command
        ran += 1
    assert ran >= 3


def test_grade_sarif_and_json_schema(tmp_path: Path) -> None:
    import jsonschema

    trust("claude", CLAUDE_SETTINGS)
    done = cli("grade", "--vendor", "claude", str(CLAUDE_SETTINGS), "--json")
    report = json.loads(done.stdout)
    jsonschema.validate(report, json.loads((ROOT / "docs" / "schema" / "grade.schema.json").read_text()))
    sarif = cli("grade", "--vendor", "claude", str(CLAUDE_SETTINGS), "--sarif")
    assert sarif.returncode == 0, sarif.stderr
    log = json.loads(sarif.stdout)
    assert log["version"] == "2.1.0"
    [run] = log["runs"]
    results = run["results"]
    # A guard that cannot start is one result (its fails-open or fails-closed finding repeats the
    # cannot-start text): one fact, one annotation.
    repeated = sum(f["kind"] == "cannot-start" and any(g["kind"].startswith("fails") and g["text"] == f["text"]
                                                       for g in r["preflight"])
                   for r in report["rows"] for f in r["preflight"])
    assert len(results) == sum(len(r["losses"]) + len(r["preflight"]) + (r["capability"] == "UNSUPPORTED")
                               + len(r.get("loads_twice") or ()) for r in report["rows"]) - repeated
    from compat_adapter.vocabulary import safety_of

    assert all(r["level"] == safety_of(r["ruleId"].removeprefix("loss/")).level
               for r in results if r["ruleId"].startswith("loss/"))
    rule_ids = {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    assert {r["ruleId"] for r in results} == rule_ids
    uri = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "tests/fixtures/importers/claude/webapp/.claude/settings.json"
    assert all(r["level"] in ("error", "warning", "note") for r in results)


def test_version_module_entry_and_help_on_every_option() -> None:
    import argparse

    from compat_adapter.cli import _parser
    from compat_adapter.host.wire.channel import version

    done = subprocess.run([sys.executable, "-m", "compat_adapter", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"compat-adapter {version()}"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", version())
    done = subprocess.run([sys.executable, "-m", "compat_adapter", "explain", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "--payload FILE" in done.stdout
    parser = _parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [f"{name} {'/'.join(action.option_strings) or action.dest}"
               for name, sub in subs.choices.items() for action in sub._actions
               if not isinstance(action, argparse._HelpAction) and not action.help]
    assert not missing, missing


# ── a command loads only what it runs ───────────────────────────────────────────────────────────

def test_a_named_command_builds_the_parser_every_command_builds() -> None:
    """With a command named first, only its module is loaded; the parser reads as the full one:
    the same usage line (every command's name, in order), the same help and errors of the command."""
    import argparse

    from compat_adapter.cli import _MODULES, _parser

    def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return dict(action.choices)

    full = _parser()
    assert list(subparsers(full)) == list(_MODULES)
    for name in _MODULES:
        lazy = _parser([name, "--json"])
        assert lazy.format_usage() == full.format_usage()
        assert list(subparsers(lazy)) == list(_MODULES)
        assert subparsers(lazy)[name].format_help() == subparsers(full)[name].format_help(), name
    # Not a command first: the whole parser, so argparse's own messages list every choice.
    assert list(subparsers(_parser(["--version"]))) == list(_MODULES)
    assert subparsers(_parser(["nope"]))["grade"].format_help() == subparsers(full)["grade"].format_help()


def test_the_matrix_command_loads_no_other_command_nor_the_host_contract() -> None:
    probe = ("import sys, io, contextlib\n"
             "from compat_adapter.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    assert main(['matrix', '--format', 'json']) == 0\n"
             "print(sorted(m for m in sys.modules if m.startswith('compat_adapter')))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(json.loads(done.stdout.replace("'", '"')))
    assert "compat_adapter.cli.matrix" in loaded
    others = {m for m in loaded if m.startswith("compat_adapter.cli.") and m != "compat_adapter.cli.matrix"}
    assert others == set()
    # The host contract, a host wing, the service and rich are not what the matrix is made of.
    heavy = {"compat_adapter.host.protocol", "compat_adapter.host.dsh.surface", "compat_adapter.service",
             "compat_adapter.dialects.base",
             # A point's facts are all the matrix reads: no verdict rule, no host answer type.
             "compat_adapter.routing.points", "compat_adapter.routing.verdicts", "compat_adapter.host.answers",
             # Nor a loaded plugin's report, nor the `if` rule parser (no row's handler has one).
             "vendors.opencode.plugin_host.grade", "compat_adapter.handlers.rules", "compat_adapter.matrixdoc"}
    assert loaded & heavy == set()


def test_the_matrix_pauses_the_cyclic_collector_only_while_it_builds() -> None:
    """In-process (as a caller embeds it), the collector is as it was after the command, on or off,
    and nothing is frozen; as the process's own command line, what it made is frozen for the exit."""
    probe = ("import gc, io, sys, contextlib, json\n"
             "from compat_adapter.cli import main\n"
             "seen = []\n"
             "for on in (True, False):\n"
             "    (gc.enable if on else gc.disable)()\n"
             "    with contextlib.redirect_stdout(io.StringIO()):\n"
             "        assert main(['matrix', '--format', 'json']) == 0\n"
             "    seen.append([gc.isenabled(), gc.get_freeze_count()])\n"
             "gc.enable()\n"
             "sys.argv = ['compat-adapter', 'matrix', '--format', 'json']\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    assert main() == 0\n"
             "seen.append([gc.isenabled(), gc.get_freeze_count() > 0])\n"
             "print(json.dumps(seen))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [[True, 0], [False, 0], [True, True]]


def test_an_unknown_command_and_an_unknown_option_read_as_before() -> None:
    done = cli("nope")
    assert done.returncode == 2
    assert "invalid choice: 'nope' (choose from 'matrix', 'surface', 'demo', 'run', 'grade'" in done.stderr
    done = cli("matrix", "--nope")
    assert done.returncode == 2
    assert "{matrix,surface,demo,run,grade,explain,serve,trust,hooks,doctor,dsh-model,port,shim}" in done.stderr
    assert "unrecognized arguments: --nope" in done.stderr
