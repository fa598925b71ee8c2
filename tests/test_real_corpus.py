"""The real-world corpus (tests/fixtures/real-configs, provenance in its SOURCES.md): every file
imports without failing whole, and one command grades a whole project laid out from it.

These run the real importers on the committed files as they are, and the real `compat-adapter`
console script in a subprocess on a project folder built from them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compat_adapter.catalog import vendors
from compat_adapter.errors import UnknownEvent
from compat_adapter.importers import import_files
from compat_adapter.importers.discover import discover, import_all, twice

CORPUS = Path(__file__).parent / "fixtures" / "real-configs"
VENDOR_OF = {"claude": "claude", "codex": "codex", "codebuddy": "workbuddy", "copilot": "copilot",
             "opencode": "opencode", "gemini": "gemini", "cursor": "cursor", "qwen": "qwen",
             "factory": "factory", "continue": "continue", "windsurf": "windsurf", "kimi": "kimi", "cline": "cline",
             "kilo": "kilo"}
SUFFIXES = {".json", ".jsonc", ".toml", ".md", ".rules", ".ts", ".js"}


def corpus_files() -> list[tuple[str, Path]]:
    return [(vendor, f) for folder, vendor in VENDOR_OF.items()
            for f in sorted((CORPUS / folder).rglob("*")) if f.is_file() and (f.suffix in SUFFIXES or _program(f))]


def _program(path: Path) -> bool:
    """A hook file that is itself the program it runs (Cline's event-named scripts: no suffix, a #! line)."""
    return not path.suffix and path.read_bytes().startswith(b"#!")


def test_the_corpus_is_real_and_wide() -> None:
    files = corpus_files()
    assert len(files) >= 15
    assert {v for v, _ in files} == set(VENDOR_OF.values())


@pytest.mark.parametrize(("vendor", "path"), corpus_files(), ids=lambda x: getattr(x, "name", x))
def test_no_corpus_file_fails_whole(vendor: str, path: Path) -> None:
    result = import_files(vendor, [path], trust_all=True)
    # Every hook entry is accounted for: imported, or refused with its own place in the file.
    for refused in result.refused:
        assert refused.origin.startswith(str(path)), refused
        assert refused.reason
    # A settings file may hold permission rules and no hook (pydantic-ai's, 0xstack's, OpenCode's
    # `permission` in workers-sdk's): the hook import has nothing of them; their vendor's permission
    # reader takes them from where the vendor reads them (tests/test_permissions*.py, the lane).
    if not (result.hooks or result.refused or result.rules or result.plugins or path.name == "settings.json"):
        assert {"permissions", "permission"} & set(json.loads(path.read_text(encoding="utf-8"))), path


def _refused(result, code: str) -> list:
    return [r for r in result.refused if r.code == code]


def _figure(env: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, str(CORPUS.parents[2] / "scripts" / "corpus_figure.py"), "--json"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_corpus_figure_holds_its_floor() -> None:
    """The share of corpus handlers graded ADAPTED (scripts/corpus_figure.py, the real `grade`
    command per file). Measured 2026-11-30: 161/171 (94.2 %) on the embedded host, 163/171
    (95.3 %) once it has a model for the two prompt hooks. The rest are UNSUPPORTED with the
    vendor's or the host's reason: Copilot CLI rejects the comment-bearing Azure file (2), a
    powershell-only entry without pwsh, a Copilot slash-command prompt, Codex has no PreCommit,
    and three OpenCode plugins cannot be resolved (two npm packages, one absolute macOS path).
    With Gemini CLI's four files (2026-12-01): 168/179 (93.9 %) and 170/179 (95.0 %); the one Gemini
    handler not ADAPTED is co-safety's flat SessionStart handler, which Gemini itself discards (no
    `hooks` list in its group). With issue 34's real teams' files (2026-12-04: planning-with-files'
    four, Qwen's two, workers-sdk, pydantic-ai, vscode, superpowers' newer hooks): 202/219 (92.2 %)
    and 204/219: Cursor drops planning-with-files' whole hooks file for its `userPromptSubmit` (not
    a Cursor event: four handlers the vendor never runs), and Gemini's BeforeModel has no seam here.
    With issue 34's turn-5 files (2026-12-05: Kimi's troopai config, Cline's two hook files, Kilo's
    turbo-ea permission file, oh-my-droid's Droid settings), on a corpus whose permission rules are
    graded rows too: 378/411 (92.0 %) and 380/411 (92.5 %). turbo-ea allows six Kilo tools no host
    tool stands for (webfetch, websearch, skill, todowrite, todoread, question): UNSUPPORTED, with
    that reason."""
    from loopback import model_server

    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPAT_ADAPTER_MODEL")}
    plain = _figure(env)
    with model_server('{"ok": true}') as model:
        served = _figure({**env, "COMPAT_ADAPTER_MODEL_URL": model.url})
    for figure in (plain, served):
        assert set(figure["vendors"]) == set(VENDOR_OF.values())
        for vendor, part in figure["vendors"].items():
            assert not part["failed_files"], (vendor, part["failed_files"])
            assert part["handlers"] > 0
            assert all(row["reason"] for row in part["not_adapted"]), part["not_adapted"]
    assert plain["handlers"] == served["handlers"] >= 150
    assert plain["share"] >= 0.915, json.dumps(plain["vendors"], indent=1)
    assert served["share"] >= 0.92, json.dumps(served["vendors"], indent=1)
    # What the model adds is exactly the prompt hooks, nothing else.
    gained = {r["origin"] for p in plain["vendors"].values() for r in p["not_adapted"]} - {
        r["origin"] for p in served["vendors"].values() for r in p["not_adapted"]}
    assert gained == {"claude/settings.full-featured.json:hooks.Stop[0].hooks[0]",
                      "codebuddy/plugin.hooks.json:hooks.Stop[0].hooks[0]"}
    # The DSH host asks the composition's own model: there the prompt hooks are ADAPTED as they are.
    dsh = json.loads(subprocess.run([sys.executable, str(CORPUS.parents[2] / "scripts" / "corpus_figure.py"),
                                     "--json", "--host", "dsh"], capture_output=True, text=True, env=env,
                                    timeout=600, check=True).stdout)
    assert not gained & {r["origin"] for p in dsh["vendors"].values() for r in p["not_adapted"]}


def test_the_corpus_figure_counts_the_hooks_that_start_step_by_step(toolchain: Path) -> None:
    """How many corpus hooks start (scripts/corpus_figure.py, preflight's answer per hook): alone,
    installed with the lane's stand-ins, with the team's toolchain really installed
    (scripts/toolchain_lane.sh), assuming the programs no registry has, and with a project mounted
    at its author's path. Measured 2026-12-02 on 172 hooks (claude-mem's Setup hook is UNSUPPORTED since
    Setup is unserved): 38 / 125 / 125 / 135 / 139 with go on PATH. A hook that
    starts only at its author's path is still one that does not start for anyone else."""
    s = _figure(dict(os.environ))["starts"]
    assert s["toolchain"], "bash scripts/toolchain_lane.sh installs the team's toolchain"
    assert s["author_sandbox"], "bash scripts/dsh_lane.sh installs bubblewrap"
    assert s["hooks"] >= 170
    assert s["alone"] <= s["installed"] <= s["with_toolchain"] <= s["assumed"]
    assert s["with_toolchain"] <= s["at_author_path"] < s["hooks"]
    assert s["with_toolchain"] >= 125 and s["share"]["with_toolchain"] >= 0.72, json.dumps(s, indent=1)
    stuck = {(r["file"], r["place"]): r for r in s["not_starting"]}
    assert len(stuck) == s["hooks"] - s["with_toolchain"] and all(r["why"] for r in stuck.values())
    # uv, pnpm, go and notify-send are installed: no hook waits on one of them any more.
    assert not [r for r in stuck.values() if r["cause"] == "program" and "sumo" not in r["why"]], stuck
    # loa-constructs' guard names the author's checkout: it starts there, and nowhere else.
    guard = stuck[("codex/hooks.loa-constructs.json", "hooks.PreToolUse[1].hooks[0]")]
    assert guard["cause"] == "foreign-path" and guard["at_author_path"] and "/Users/zksoju/" in guard["why"]
    # A script the repository is not known to have gets no stand-in, even at the author's path.
    assert not stuck[("codex/hooks.loa-constructs.json", "hooks.PreToolUse[2].hooks[1]")]["at_author_path"]
    assert not stuck[("codex/hooks.ruff.json", "hooks.SessionStart[0].hooks[0]")]["at_author_path"]
    assert sum(r["at_author_path"] for r in stuck.values()) == s["at_author_path"] - s["with_toolchain"]
    assert not Path("/Users/zksoju").exists()  # the sandbox wrote nothing outside itself


def test_codex_schema_key_imports_and_says_why_nothing_runs(tmp_path: Path) -> None:
    # Real Codex 0.169.0 fired none of a project hooks.json's hooks once `$schema` was at its root
    # (vendor lane, 2026-11-30); the file still imports, each hook one row, and config.toml beside
    # it still grades.
    data = json.loads((CORPUS / "codex" / "hooks.sumo.json").read_text())
    codex = tmp_path / ".codex"
    codex.mkdir()
    (codex / "hooks.json").write_text(json.dumps({"$schema": "https://example.com/s.json", **data}))
    shutil.copy(CORPUS / "codex" / "config.toml", codex / "config.toml")
    result = import_files("codex", [codex / "hooks.json", codex / "config.toml"], trust_all=True)
    skipped = [r for r in result.refused if "$schema" in r.reason]
    assert skipped and all(r.code == "SKIPPED_BY_VENDOR" for r in skipped)
    assert all(r.origin.startswith(str(codex / "hooks.json")) for r in skipped)
    assert result.hooks and all(h.origin.startswith(str(codex / "config.toml")) for h in result.hooks)


def test_codex_requirements_managed_hooks_import() -> None:
    result = import_files("codex", [CORPUS / "codex" / "requirements.toml"], trust_all=True)
    assert [h.event for h in result.hooks] == ["PreToolUse"]
    assert not result.refused


def test_codex_managed_only_skips_the_other_files(tmp_path: Path) -> None:
    files = [CORPUS / "codex" / "config.toml", CORPUS / "codex" / "requirements.toml"]
    result = import_files("codex", files, trust_all=True)
    assert [h.origin.split(":")[0] for h in result.hooks] == [str(files[1])]
    skipped = [r for r in result.refused if "allow_managed_hooks_only" in r.reason]
    assert skipped and all(r.origin.startswith(str(files[0])) for r in skipped)


def test_a_bad_event_is_one_row_and_the_rest_registers(tmp_path: Path) -> None:
    # vercel/ai's PreCommit: not a Codex event. One row with its place; nothing raised.
    result = import_files("codex", [CORPUS / "codex" / "hooks.vercel-ai-precommit.json"], trust_all=True)
    [row] = _refused(result, "UNKNOWN_EVENT")
    assert row.origin.endswith("hooks.PreCommit[0].hooks[0]")
    # A file with a good and a bad event: the good one still imports.
    mixed = tmp_path / "hooks.json"
    mixed.write_text(json.dumps({"hooks": {
        "PreCommit": [{"hooks": [{"type": "command", "command": "pnpm fix"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}],
        "PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "true"}]},
                       {"matcher": 7, "hooks": [{"type": "command", "command": "true"}]},
                       "not a group"]}}))
    result = import_files("codex", [mixed], trust_all=True)
    assert [h.event for h in result.hooks] == ["Stop"]
    codes = sorted(r.code for r in result.refused)
    assert codes == ["INVALID_ENTRY", "INVALID_MATCHER", "SKIPPED_BY_VENDOR", "UNKNOWN_EVENT"]


def test_codebuddy_documented_events_beyond_24_grade(tmp_path: Path) -> None:
    from compat_adapter.grading import grade
    from compat_adapter.host.surfaces import surface_named

    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"hooks": {
        event: [{"hooks": [{"type": "command", "command": "echo hi"}]}]
        for event in ("Notification", "PermissionRequest", "PostCompact")}}))
    result = import_files("codebuddy", [path], trust_all=True)
    assert not result.refused
    graded = [grade(h.declared, surface_named("embedded")) for h in result.hooks]
    assert [str(g.capability) for g in graded] == ["ADAPTED"] * 3


def test_a_vendor_event_the_host_cannot_serve_says_why() -> None:
    from compat_adapter.catalog import resolve_event, resolve_vendor

    with pytest.raises(UnknownEvent) as err:
        resolve_event(resolve_vendor("opencode"), "experimental.session.compacting")
    assert "cannot be served on this host" in err.value.message
    assert "no hook event" not in err.value.message


def test_copilot_pascal_case_files_import() -> None:
    for name, events in (("dotnet-runtime.json", [("PreToolUse", "Bash")]),
                         ("1password-agent-hooks.json", [("PreToolUse", None)]),
                         ("vscode-npm-i.json", [("SessionStart", None)])):
        result = import_files("copilot", [CORPUS / "copilot" / name], trust_all=True)
        assert [(h.event, h.matcher) for h in result.hooks] == events and not result.refused
    # The comment-bearing Azure file: read (its hooks are listed), each refused as Copilot CLI would.
    result = import_files("copilot", [CORPUS / "copilot" / "azure-rest-api-specs.json"], trust_all=True)
    assert [(r.code, r.origin.split(":", 1)[1]) for r in result.refused] == [
        ("SKIPPED_BY_VENDOR", "hooks.PostToolUse[0]"), ("SKIPPED_BY_VENDOR", "hooks.SessionStart[0]")]
    assert all("not strict JSON" in r.reason for r in result.refused)


def test_unusable_input_still_fails_whole(tmp_path: Path) -> None:
    from compat_adapter.errors import ConfigParseError

    bad = tmp_path / "hooks.json"
    bad.write_text("not json at all {")
    with pytest.raises(ConfigParseError):
        import_files("codex", [bad])


# ── a whole project ─────────────────────────────────────────────────────────────────────────────

LAYOUT = {
    ".claude/settings.json": "claude/settings.posthog.json",
    ".claude/settings.local.json": "claude/settings.posthog.json",  # a local copy: loads twice
    "CLAUDE.md": "claude/CLAUDE.md",
    ".claude/rules/api.md": "claude/rules/api.md",
    ".codex/hooks.json": "codex/hooks.sumo.json",
    ".codex/config.toml": "codex/config.toml",
    ".codex/requirements.toml": "codex/requirements.toml",
    ".codex/rules/default.rules": "codex/rules/default.rules",
    "AGENTS.md": "codex/AGENTS.md",
    ".codebuddy/settings.json": "codebuddy/settings.loopforge.json",
    "CODEBUDDY.md": "codebuddy/CODEBUDDY.md",
    ".workbuddy/settings.json": "codebuddy/workbuddy.ai-berkshire.json",
    "opencode.json": "opencode/opencode.json",
    ".opencode/plugin/guard.ts": "opencode/plugins/guard.ts",
    ".github/hooks/tool-guardian.json": "copilot/tool-guardian.json",
    ".github/hooks/dotnet-runtime.json": "copilot/dotnet-runtime.json",
    ".github/hooks/hooks.json": "copilot/vscode-hooks.json",
    ".github/copilot-instructions.md": "copilot/copilot-instructions.md",
    ".gemini/settings.json": "gemini/co-safety.json",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for place, source in LAYOUT.items():
        (root / place).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CORPUS / source, root / place)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_discover_finds_every_vendor_file(project: Path) -> None:
    found = discover(project)
    # Every vendor's files are in the corpus project, found in matrix order.
    assert list(found) == [s.id for s in vendors()]
    every = {p.relative_to(project).as_posix() for files in found.values() for p in files}
    assert set(LAYOUT) <= every


def test_twice_flags_the_local_copy_and_copilot_reading_claude(project: Path) -> None:
    found = import_all(project, trust_all=True)
    doubles = twice(found, project)
    local = [d for d in doubles if d.origin.startswith(str(project / ".claude/settings.local.json"))
             and "Copilot" not in d.why and "Continue" not in d.why]
    assert local and all(d.other.startswith(str(project / ".claude/settings.json")) for d in local)
    assert any("Copilot CLI also runs" in d.why for d in doubles)
    assert any("Continue's cn also loads" in d.why for d in doubles)
    # AGENTS.md: Codex, OpenCode (no CLAUDE.md fallback needed), Copilot, Cursor, Qwen, Factory Droid,
    # Continue, Kimi Code, Crush, Windsurf, Cline and Kilo all carry it (Qwen: its only file in this project, since the public corpus
    # has no Qwen hooks file yet; Kimi: its only project file, its hooks live in the user's config).
    agents = [d for d in doubles if d.why.startswith("AGENTS.md is read by several vendors")]
    # Twelve readers: the first carries it, eleven more carry it again; and Kilo reads opencode.json
    # (its legacy config name), so the instructions that file names are carried twice too.
    assert len(agents) == 12
    assert sum(d.origin.endswith("opencode.json:instructions") for d in agents) == 1


def test_grade_a_project_folder_in_one_command(project: Path) -> None:
    env = {**os.environ, "PATH": os.environ.get("PATH", "")}
    done = subprocess.run([sys.executable, "-m", "compat_adapter.cli", "grade", "--json", "--trust-all",
                           str(project)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["vendors"] == [s.id for s in vendors()]
    assert not report["errors"]
    rows = report["rows"]
    assert {r["vendor"] for r in rows} == set(report["vendors"])
    origins = {r["origin"].split(":")[0] for r in rows} | {s for r in rows for s in r.get("sources", ())}
    for place in LAYOUT:
        assert str(project / place) in origins or any(o.startswith(str(project / place)) for o in origins), place
    assert report["loads_twice"]
    assert any(r.get("loads_twice") for r in rows)
    # Rows keep their grades: hooks ADAPTED, rules CARRY, the rest UNSUPPORTED with a reason; a
    # permission rule the host enforces exactly as its vendor does (OpenCode's `edit: allow`) is DIRECT.
    assert {r["capability"] for r in rows} <= {"ADAPTED", "DIRECT", "CARRY", "UNSUPPORTED"}
    assert all(r["reason"] for r in rows if r["capability"] == "UNSUPPORTED")


def test_preflight_calls_out_a_guard_that_fails_open(tmp_path: Path) -> None:
    from compat_adapter.catalog import resolve_vendor
    from compat_adapter.preflight import preflight

    root = tmp_path
    (root / "hooks").mkdir()
    script = root / "hooks" / "guard.sh"
    script.write_text("#!/bin/sh\nexit 0\n")  # not executable
    env = {"PATH": str(tmp_path / "empty-bin")}
    claude = resolve_vendor("claude")
    found = preflight(claude, "PreToolUse", "Bash",
                      {"type": "command", "command": "jq -r .tool_input.command | grep -q rm && exit 2"},
                      root, blocking="verdict", env=env)
    kinds = {f.kind for f in found}
    assert "program" in kinds and "fails-open" in kinds
    found = preflight(claude, "PostToolUse", None, {"command": "./hooks/guard.sh $TOOL_ARGS $API_TOKEN"},
                      root, env=env)
    texts = " ".join(f.text for f in found)
    assert "not executable" in texts
    assert "$TOOL_ARGS is not set" in texts
    assert "$API_TOKEN is removed" in texts
    assert "fails" not in texts  # not a guard
    copilot = resolve_vendor("copilot")
    found = preflight(copilot, "preToolUse", None, {"bash": "jq ."}, root, blocking="verdict", env=env)
    assert "fails-closed" in {f.kind for f in found}
    # A missing script run by python3: the interpreter exits 2, which Claude reads as a block.
    found = preflight(claude, "PreToolUse", None, {"command": "python3 hooks/gone.py"}, root,
                      blocking="verdict")
    assert [(f.kind, f.subject) for f in found] == [("file", "hooks/gone.py"), ("cannot-start", "hooks/gone.py"),
                                                    ("fails-closed", "hooks/gone.py")]
    assert "exits 2" in found[2].text


@pytest.mark.parametrize(("command", "status"), [("python3 gone.py", 2), ("sh gone.sh", 2), ("bash gone.sh", 127),
                                                 ("no-such-program-here", 127), ("./gone.sh", 127)])
def test_the_exit_statuses_preflight_assumes_are_what_this_machine_gives(tmp_path: Path, command: str,
                                                                          status: int) -> None:
    if shutil.which(command.split()[0]) is None and "/" not in command and command != "no-such-program-here":
        pytest.skip(f"{command.split()[0]} is not installed")
    done = subprocess.run(["sh", "-c", command], cwd=tmp_path, capture_output=True)
    assert done.returncode == status
    assert done.stderr  # the error is on stderr, so Codex's exit-2 rule blocks too


def test_grade_preflights_only_command_handlers(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "http", "url": "http://127.0.0.1:9/hook", "headers": {"X": "$API_TOKEN"}},
        {"type": "command", "command": "no-such-guard-program --check"}]}]}}))
    done = subprocess.run([sys.executable, "-m", "compat_adapter.cli", "grade", "--json", "--trust-all",
                           str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = {r["origin"].rsplit(".", 1)[-1]: r for r in json.loads(done.stdout)["rows"]}
    assert rows["hooks[0]"]["preflight"] == []
    kinds = [p["kind"] for p in rows["hooks[1]"]["preflight"]]
    assert kinds == ["program", "cannot-start", "fails-open"]
    assert rows["hooks[1]"]["starts"] is False and "starts" not in rows["hooks[0]"]


# ── Copilot's Claude-compatible (PascalCase) format, end to end ────────────────────────────────

async def test_copilot_pascal_case_hook_runs_with_its_own_payload_and_answer(git_repo: Path,
                                                                           tmp_path: Path) -> None:
    """The shape of dotnet/runtime's .github/hooks/hooks.json (a nested PascalCase `Bash` group),
    with a hook that records its stdin and denies in Claude's hookSpecificOutput, as the vendor
    lane's deny_json_pascal case did on Copilot CLI 1.0.102 (the call was denied)."""
    from conftest import trust, write_script

    from compat_adapter import CompatAdapter, MemoryHost
    from compat_adapter.host.script import call
    from compat_adapter.importers import register_import

    seen = tmp_path / "stdin.json"
    deny = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                              "permissionDecisionReason": "no rm here"}})
    hook = write_script(tmp_path / "guard.sh", f"cat > '{seen}'\necho '{deny}'\n")
    config = json.loads((CORPUS / "copilot" / "dotnet-runtime.json").read_text())
    config["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = str(hook)
    path = git_repo / ".github" / "hooks" / "hooks.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(config))
    trust("copilot", path)
    imported = import_files("copilot", [path])
    assert [(h.event, h.matcher) for h in imported.hooks] == [("PreToolUse", "Bash")]
    async with MemoryHost(git_repo) as host, CompatAdapter(host, log_registrations=False) as adapter:
        [result] = await register_import(adapter, imported)
        assert str(result.capability) == "ADAPTED" and str(result.route) == "builtin-bridge"
        agent = await host.create_agent(script=[call("bash", command="touch ran.txt"), "done"])
        await agent.run_turn("go")
        await host.settle()
    assert not (git_repo / "ran.txt").exists()  # denied through hookSpecificOutput
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "PreToolUse" and payload["tool_name"] == "Bash"
    assert payload["tool_input"]["command"] == "touch ran.txt"
    assert isinstance(payload["timestamp"], str) and payload["timestamp"].endswith("Z")
    assert "toolName" not in payload and "toolArgs" not in payload and "sessionId" not in payload
