"""Trust: a cloned repository's hooks start no process until the user trusts them.

Real git clones, real hook processes (a hook that would write a marker file), the real CLI in a
subprocess, the real store on disk (a private folder per test, see conftest.trust_home).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import trust

from compat_adapter.errors import UnsafeStateDir
from compat_adapter.importers import import_files, import_project, register_import
from compat_adapter.trust import TrustStore, command_view, trusting_all

ROOT = Path(__file__).resolve().parents[1]
GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t.invalid"}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=GIT_ENV)


def cli(*args: str, cwd: Path = ROOT, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    # stdin is never a terminal here: `trust` records only with --yes, as in a script.
    return subprocess.run([sys.executable, "-m", "compat_adapter.cli", *args], cwd=cwd, input=stdin or "",
                          capture_output=True, text=True, timeout=180)


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A real clone of an upstream repository whose Claude hook would write ``marker``."""
    upstream = tmp_path / "upstream"
    hooks = upstream / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    script = hooks / "mark.sh"
    script.write_text(f"#!/bin/sh\necho ran >> '{tmp_path / 'marker'}'\nexit 0\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    (upstream / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command",
                                       "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/mark.sh'}]}]}}))
    (upstream / "CLAUDE.md").write_text("Answer briefly.\n")
    git(upstream, "init", "-q", "-b", "main")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-q", "-m", "hooks")
    git(tmp_path, "clone", "-q", str(upstream), "clone")
    return tmp_path / "clone"


def marker(clone: Path) -> Path:
    return clone.parent / "marker"


async def session(project: Path, **import_options: object) -> tuple[object, object, list[str]]:
    """Import the project's Claude files, register them, run one bash call; (import, status, rules)."""
    from compat_adapter import CompatAdapter
    from compat_adapter.host.embedded.memory import MemoryHost
    from compat_adapter.host.script import call

    imported = import_project("claude", project, **import_options)  # type: ignore[arg-type]
    async with MemoryHost(project) as host:
        async with CompatAdapter(host, state_dir=str(project.parent / "bridges")) as adapter:
            await register_import(adapter, imported)
            status = adapter.status()
            agent = await host.create_agent(script=[call("bash", command="echo hi"), "done"])
            await agent.run_turn("go")
            await host.settle()
            rules = [e.data["text"] for e in agent.session.of_type("user/message")
                     if e.data["source"]["kind"] == "compat-adapter-rules"]
    return imported, status, rules


# ── the gate, end to end ────────────────────────────────────────────────────────────────────────

async def test_an_untrusted_clone_never_starts_a_hook_process(clone: Path) -> None:
    imported, status, rules = await session(clone)
    assert not marker(clone).exists()
    assert imported.hooks == ()  # type: ignore[attr-defined]
    (refused,) = imported.refused  # type: ignore[attr-defined]
    settings = clone / ".claude" / "settings.json"
    assert refused.code == "UNTRUSTED" and refused.origin == f"{settings}:hooks.PreToolUse[0].hooks[0]"
    assert refused.reason == (f"untrusted: {settings} has not been reviewed; run "
                              f"`compat-adapter trust {settings}` to review and trust its hooks")
    assert status.hooks == ()  # type: ignore[attr-defined]
    # Rules are context, not code: carried, and they say their file was not trusted.
    assert [r.trusted for r in imported.rules] == [False]  # type: ignore[attr-defined]
    assert any("Answer briefly." in text for text in rules)


async def test_trusting_runs_them_and_an_edit_stops_them_until_trusted_again(clone: Path) -> None:
    review = cli("trust", "--yes", str(clone))
    assert review.returncode == 0, review.stderr
    assert "not trusted yet" in review.stdout and "PreToolUse [Bash]" in review.stdout
    assert "runs project files: .claude/hooks/mark.sh" in review.stdout
    assert "trusted 2 file(s)" in review.stdout
    imported, status, _ = await session(clone)
    assert marker(clone).read_text() == "ran\n"
    assert [r.trusted for r in imported.rules] == [True]  # type: ignore[attr-defined]
    assert [h.running for h in status.hooks] == [True]  # type: ignore[attr-defined]

    # The settings file changes: a second hook. Nothing runs until it is trusted again, and the
    # review shows the change as a diff of the hooks.
    settings = clone / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["PreToolUse"][0]["hooks"].append({"type": "command", "command": "echo second"})
    settings.write_text(json.dumps(data))
    marker(clone).unlink()
    imported, _, _ = await session(clone)
    assert not marker(clone).exists()
    assert {r.code for r in imported.refused} == {"UNTRUSTED"}  # type: ignore[attr-defined]
    assert "changed since it was trusted on" in imported.refused[0].reason  # type: ignore[attr-defined]
    review = cli("trust", "--yes", str(settings))
    assert "CHANGED since it was trusted" in review.stdout
    assert "    +claude PreToolUse[Bash]: echo second" in review.stdout
    assert "trusted 1 file(s)" in review.stdout
    await session(clone)
    assert marker(clone).read_text() == "ran\n"

    # Only the script the hook runs changes: that is new code too.
    script = clone / ".claude" / "hooks" / "mark.sh"
    script.write_text(script.read_text().replace("ran", "edited"))
    marker(clone).unlink()
    imported, _, _ = await session(clone)
    assert not marker(clone).exists()
    assert ".claude/hooks/mark.sh, which its hooks run, changed" in imported.refused[0].reason  # type: ignore[attr-defined]
    review = cli("trust", "--yes", str(clone))
    assert "program .claude/hooks/mark.sh: edited since trusted" in review.stdout
    await session(clone)
    assert marker(clone).read_text() == "edited\n"


async def test_revoke_stops_them_and_list_shows_what_is_trusted(clone: Path) -> None:
    assert cli("trust", "--yes", str(clone)).returncode == 0
    listed = json.loads(cli("trust", "--list", "--json").stdout)["records"]
    assert sorted(r["file"] for r in listed) == [".claude/settings.json", "CLAUDE.md"]
    assert {r["state"] for r in listed} == {"trusted"}
    assert {r["command"] for r in listed} == {f"compat-adapter trust {clone}"}
    revoked = cli("trust", "--revoke", str(clone / ".claude" / "settings.json"))
    assert revoked.returncode == 0 and "revoked:" in revoked.stdout
    await session(clone)
    assert not marker(clone).exists()
    assert [r["file"] for r in json.loads(cli("trust", "--list", "--json").stdout)["records"]] == ["CLAUDE.md"]
    assert "revoked:" in cli("trust", "--revoke", str(clone)).stdout  # a folder: the whole project
    assert "nothing is trusted yet" in cli("trust", "--list").stdout


async def test_trust_all_runs_them_and_is_loud_every_time(clone: Path, capfd: pytest.CaptureFixture[str]) -> None:
    settings = clone / ".claude" / "settings.json"
    warning = f"compat-adapter: WARNING: --trust-all is on (dangerous): the hooks of {settings} (never reviewed)"
    imported, _, _ = await session(clone, trust_all=True)
    assert marker(clone).read_text() == "ran\n"
    assert capfd.readouterr().err.count(warning) == 1
    with trusting_all():
        assert len(import_files("claude", [settings]).hooks) == 1
        assert len(import_files("claude", [settings]).hooks) == 1
    assert capfd.readouterr().err.count(warning) == 2
    assert import_files("claude", [settings]).hooks == ()  # off again outside the block
    assert "WARNING" not in capfd.readouterr().err
    # The CLI flag: the real grade shows, with the warning line on every run.
    for _ in range(2):
        graded = cli("grade", "--vendor", "claude", str(settings), "--json", "--trust-all")
        assert graded.returncode == 0, graded.stderr
        assert "WARNING: --trust-all is on (dangerous)" in graded.stderr
        assert [r["capability"] for r in json.loads(graded.stdout)["rows"]] == ["ADAPTED"]
    plain = json.loads(cli("grade", "--vendor", "claude", str(settings), "--json").stdout)["rows"]
    assert [(r["capability"], r["reason"].split(":")[0]) for r in plain] == [("UNSUPPORTED", "UNTRUSTED")]


def test_a_preset_that_imports_the_project_follows_its_trust(clone: Path, tmp_path: Path) -> None:
    """`run` with a preset file that imports the session folder's files: untrusted, no process;
    --trust-all runs it and says so; a preset's own register_hook calls are its own code."""
    preset = tmp_path / "team_preset.py"
    preset.write_text(
        "from compat_adapter.importers import import_project, register_import\n"
        "async def apply(adapter):\n"
        "    await register_import(adapter, import_project('claude', adapter.host.cwd))\n"
        f"    await adapter.register_hook('claude', 'PostToolUse', 'Bash', 'echo own >> {tmp_path / 'own'}')\n")
    script = tmp_path / "session.json"
    script.write_text(json.dumps([{"tools": [{"name": "bash", "arguments": {"command": "echo hi"}}]}, "done"]))
    done = cli("run", "--preset", str(preset), "--script", str(script), "--cwd", str(clone), "--json")
    assert done.returncode == 0, done.stderr
    assert not marker(clone).exists()
    assert (tmp_path / "own").read_text() == "own\n"
    assert "WARNING" not in done.stderr
    loud = cli("run", "--preset", str(preset), "--script", str(script), "--cwd", str(clone), "--json", "--trust-all")
    assert loud.returncode == 0, loud.stderr
    assert marker(clone).read_text() == "ran\n"
    assert "WARNING: --trust-all is on (dangerous)" in loud.stderr


# ── the store ───────────────────────────────────────────────────────────────────────────────────

def test_the_store_is_private(clone: Path, trust_home: Path) -> None:
    trust("claude", clone / ".claude" / "settings.json")
    folder, file = trust_home / "trust", trust_home / "trust" / "trust.json"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and stat.S_IMODE(trust_home.stat().st_mode) == 0o700
    assert stat.S_IMODE(file.stat().st_mode) == 0o600 and file.stat().st_uid == os.getuid()
    record = json.loads(file.read_text())["projects"][os.path.realpath(clone)][".claude/settings.json"]
    assert set(record) == {"sha256", "trusted_at", "command", "hooks", "programs"}
    assert record["command"].startswith("tests/conftest.py")
    assert list(record["programs"]) == [".claude/hooks/mark.sh"]
    # A store file others may write grants nothing: the import refuses to read it.
    file.chmod(0o666)
    with pytest.raises(UnsafeStateDir):
        import_files("claude", [clone / ".claude" / "settings.json"])


def test_a_symlinked_state_folder_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clone: Path) -> None:
    real = tmp_path / "elsewhere"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    monkeypatch.setenv("COMPAT_ADAPTER_STATE_HOME", str(tmp_path / "link"))
    with pytest.raises(UnsafeStateDir, match="symlink"):
        import_files("claude", [clone / ".claude" / "settings.json"])
    done = cli("trust", "--list")
    assert done.returncode == 2 and done.stderr.startswith("UNSAFE_STATE_DIR: ")


def test_a_damaged_store_trusts_nothing(clone: Path, trust_home: Path) -> None:
    settings = clone / ".claude" / "settings.json"
    trust("claude", settings)
    assert len(import_files("claude", [settings]).hooks) == 1
    (trust_home / "trust" / "trust.json").write_text("{not json")
    assert import_files("claude", [settings]).hooks == ()


def test_a_moved_project_is_a_new_project(clone: Path, tmp_path: Path) -> None:
    trust("claude", clone / ".claude" / "settings.json")
    git(tmp_path, "clone", "-q", str(clone), "second")
    assert import_files("claude", [tmp_path / "second" / ".claude" / "settings.json"]).hooks == ()
    assert len(TrustStore().records()) == 1


def test_the_review_names_the_programs_a_command_starts(tmp_path: Path) -> None:
    from compat_adapter.catalog import resolve_vendor

    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "check.py").write_text("")
    view = command_view(resolve_vendor("claude"), "PreToolUse", "Bash",
                        {"command": "FOO=1 python3 \"$CLAUDE_PROJECT_DIR/hooks/check.py\" --x && jq -r . | "
                                    "./tools/fmt.sh; env node ../outside.js"}, tmp_path)
    assert view.programs == ("python3", "jq", "./tools/fmt.sh", "node")
    # Project files it runs (a missing one too: creating it later is a change).
    assert view.files == ("hooks/check.py", "tools/fmt.sh")
    wrapped = command_view(resolve_vendor("claude"), "Stop", None,
                           'uv run python "$CLAUDE_PROJECT_DIR"/hooks/check.py > out.log 2>&1 < in.txt', tmp_path)
    assert wrapped.programs == ("uv", "python") and wrapped.files == ("hooks/check.py",)
    copilot = command_view(resolve_vendor("copilot"), "preToolUse", None, {"type": "command", "bash": "sh x.sh"},
                           tmp_path)
    assert copilot.command == "sh x.sh" and copilot.programs == ("sh",) and copilot.files == ()


def test_on_a_terminal_trust_asks_and_no_records_nothing(clone: Path) -> None:
    """A real pseudo-terminal on stdin: the review is shown, the answer decides."""
    def on_terminal(answer: str) -> subprocess.CompletedProcess[str]:
        controller, terminal = os.openpty()
        try:
            os.write(controller, answer.encode() + b"\n")
            return subprocess.run([sys.executable, "-m", "compat_adapter.cli", "trust", str(clone)], cwd=ROOT,
                                  stdin=terminal, capture_output=True, text=True, timeout=180)
        finally:
            os.close(controller)
            os.close(terminal)

    declined = on_terminal("n")
    assert declined.returncode == 1 and "[y/N]" in declined.stdout and "PreToolUse [Bash]" in declined.stdout
    assert "nothing was recorded" in declined.stderr
    assert TrustStore().records() == ()
    accepted = on_terminal("y")
    assert accepted.returncode == 0 and "trusted 2 file(s)" in accepted.stdout
    assert len(TrustStore().records()) == 2


def test_reading_creates_nothing_and_parallel_trusts_keep_every_record(tmp_path: Path, trust_home: Path) -> None:
    files = []
    for i in range(4):
        project = tmp_path / f"p{i}"
        (project / ".claude").mkdir(parents=True)
        files.append(project / ".claude" / "settings.json")
        files[-1].write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}))
    assert import_files("claude", files).hooks == ()
    assert not (trust_home / "trust").exists()  # an import only reads
    running = [subprocess.Popen([sys.executable, "-m", "compat_adapter.cli", "trust", "--yes", str(f)], cwd=ROOT,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
               for f in files]
    assert [p.wait(timeout=180) for p in running] == [0, 0, 0, 0]
    for p in running:
        p.stdout.close()  # type: ignore[union-attr]
        p.stderr.close()  # type: ignore[union-attr]
    assert len(TrustStore().records()) == 4
    assert len(import_files("claude", files).hooks) == 4


def test_the_bytes_parsed_are_the_bytes_trusted(clone: Path) -> None:
    """The gate digests the file before the importer reads it: a file swapped while it was read
    (other bytes parsed than the ones now on disk) is not trusted."""
    settings = clone / ".claude" / "settings.json"
    trust("claude", settings)
    store = TrustStore()
    assert store.check_read(settings, store.get(settings).sha256, ()).trusted  # type: ignore[union-attr]
    swapped = store.check_read(settings, "0" * 64, (), shown="s.json")
    assert swapped.state == "changed" and "s.json changed while it was read" in swapped.why


@pytest.mark.parametrize("vendor,file,content", [
    ("codex", ".codex/hooks.json", {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}]}]}}),
    ("copilot", ".github/hooks/guard.json",
     {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "sh scripts/guard.sh"}]}}),
    ("workbuddy", ".codebuddy/settings.json",
     {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "bash hooks/g.sh"}]}]}}),
])
def test_every_vendor_is_gated_and_trust_finds_its_files(tmp_path: Path, vendor: str, file: str,
                                                          content: dict[str, object]) -> None:
    project = tmp_path / "project"
    (project / file).parent.mkdir(parents=True)
    (project / file).write_text(json.dumps(content))
    git(project, "init", "-q")
    held = import_project(vendor, project)
    assert held.hooks == () and [r.code for r in held.refused] == ["UNTRUSTED"]
    review = cli("trust", "--yes", ".", cwd=project)
    assert review.returncode == 0 and f"{file} ({vendor}): not trusted yet" in review.stdout, review.stdout
    assert len(import_project(vendor, project).hooks) == 1


def test_a_hook_script_turned_into_a_fifo_is_held_back_not_waited_on(clone: Path) -> None:
    settings = clone / ".claude" / "settings.json"
    trust("claude", settings)
    script = clone / ".claude" / "hooks" / "mark.sh"
    script.unlink()
    os.mkfifo(script)  # opening it to read would wait for a writer forever
    imported = import_files("claude", [settings])
    assert imported.hooks == () and imported.refused[0].code == "UNTRUSTED"
    assert "mark.sh, which its hooks run, stopped being a regular file since it was trusted" in imported.refused[0].reason
    done = cli("trust", "--yes", str(settings))
    assert done.returncode == 2 and done.stderr.startswith("INPUT_REFUSED: "), done.stderr


async def test_an_untrusted_opencode_plugin_is_never_loaded(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """Loading a plugin runs its code: its module top level writes a marker."""
    from compat_adapter.model import Capability
    from vendors.opencode.plugin_host.host import grade_plugins
    from vendors.surface import TABLE_SURFACE

    project = tmp_path / "project"
    (project / ".opencode" / "plugins").mkdir(parents=True)
    loaded = tmp_path / "loaded"
    (project / ".opencode" / "plugins" / "p.ts").write_text(
        f'import {{ writeFileSync }} from "node:fs"\nwriteFileSync({json.dumps(str(loaded))}, "yes")\n'
        'export const P = async () => ({ "tool.execute.before": async () => {} })\n')
    git(project, "init", "-q")
    (held,) = await grade_plugins(project, TABLE_SURFACE)
    assert held.result.capability is Capability.UNSUPPORTED and "untrusted: .opencode/plugins/p.ts" in held.result.reason
    assert not loaded.exists()
    with trusting_all():
        (row,) = await grade_plugins(project, TABLE_SURFACE)
    assert row.result.capability is Capability.ADAPTED and loaded.read_text() == "yes"
    assert "WARNING: --trust-all is on (dangerous): the hooks of .opencode/plugins/p.ts" in capfd.readouterr().err
    loaded.unlink()
    review = cli("trust", "--yes", ".", cwd=project)
    assert review.returncode == 0 and "would load 1 OpenCode plugin(s) in the plugin host: file " in review.stdout
    (row,) = await grade_plugins(project, TABLE_SURFACE)
    assert row.result.capability is Capability.ADAPTED and loaded.read_text() == "yes"
