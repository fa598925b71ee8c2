"""The embedded host's glob, grep and skill tools on real files, called by a scripted model through the loop
(so the pre-execute guard and the hooks see them as any tool), shaped as DSH's fs-search tools."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compat_adapter import CompatAdapter
from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.embedded.search import GLOB_MAX_RESULTS, GREP_MAX_LINE_BYTES, GREP_MAX_MATCHES, glob_pattern
from compat_adapter.host.script import Reply, call
from compat_adapter.importers import import_project, register_import


def _tree(root: Path) -> Path:
    files = {"src/app.py": "def main():\n    return 1\n", "src/lib/util.py": "MAIN = 'main'\n",
             "src/lib/util.ts": "export const main = 1\n", "README.md": "# main\nnothing here\n",
             ".hidden/secret.py": "def main(): pass\n", ".git/config.py": "main\n",
             "data.bin": "main\0binary\n"}
    for i, (name, text) in enumerate(files.items()):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))  # the order they were written: oldest first
    return root


async def _results(root: Path, *calls: Reply) -> list[tuple[bool, str]]:
    async with MemoryHost(root) as host:
        agent = await host.create_agent(script=[*calls, "done"])
        await agent.run_turn("look")
    return [(e.data["isError"], e.data["text"]) for e in agent.session.of_type("tool/result")]


async def test_glob_lists_files_by_name_at_any_depth_oldest_first_with_hidden_but_no_vcs(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    results = await _results(root, Reply(calls=(call("glob", pattern="*.py"),)),
                             Reply(calls=(call("glob", pattern="src/*.py"),)),
                             Reply(calls=(call("glob", pattern="**/*.{ts,md}"),)),
                             Reply(calls=(call("glob", pattern="*.py", path="src/lib"),)),
                             Reply(calls=(call("glob", pattern="*.rs"),)),
                             Reply(calls=(call("glob", pattern="  "),)))
    assert results == [
        (False, "src/app.py\nsrc/lib/util.py\n.hidden/secret.py"),  # .git/config.py is never listed
        (False, "src/app.py"),                                       # a `/` anchors the pattern to the root
        (False, "src/lib/util.ts\nREADME.md"),
        (False, "src/lib/util.py"),                                  # shown relative to the cwd
        (False, "No files found"),
        (True, "Error: pattern must be a non-empty string"),
    ]


async def test_glob_shows_the_first_hundred_paths_and_says_how_many_there_were(tmp_path: Path) -> None:
    for i in range(GLOB_MAX_RESULTS + 5):
        (tmp_path / f"f{i:03}.txt").write_text("x")
        os.utime(tmp_path / f"f{i:03}.txt", (1_000_000 + i, 1_000_000 + i))
    [(error, text)] = await _results(tmp_path, Reply(calls=(call("glob", pattern="*.txt"),)))
    lines = text.split("\n")
    assert not error and lines[:GLOB_MAX_RESULTS] == [f"f{i:03}.txt" for i in range(GLOB_MAX_RESULTS)]
    assert lines[GLOB_MAX_RESULTS:] == ["", f"(Showing {GLOB_MAX_RESULTS} of {GLOB_MAX_RESULTS + 5} paths. The complete "
                                            "result could not be saved; narrow pattern or path to see more.)"]


async def test_grep_finds_lines_grouped_by_file_skipping_hidden_binary_and_vcs(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    results = await _results(root, Reply(calls=(call("grep", pattern=r"def \w+\("),)),
                             Reply(calls=(call("grep", pattern="(?i)MAIN", include="*.py"),)),
                             Reply(calls=(call("grep", pattern="main", path="src/lib/util.ts"),)),
                             Reply(calls=(call("grep", pattern="absent"),)),
                             Reply(calls=(call("grep", pattern="main("),)),
                             Reply(calls=(call("grep", pattern="main", include="*.py,*.ts"),)),
                             Reply(calls=(call("grep", pattern="main", path="nowhere"),)))
    assert results[0] == (False, "Found 1 match\n\nsrc/app.py\nLine 1: def main():")
    assert results[1] == (False, "Found 2 matches\n\nsrc/app.py\nLine 1: def main():\n\nsrc/lib/util.py\nLine 1: MAIN = 'main'")
    assert results[2] == (False, "Found 1 match\n\nsrc/lib/util.ts\nLine 1: export const main = 1")
    assert results[3] == (False, "No matches found")
    assert results[4][0] and results[4][1].startswith("Error: grep pattern is not a regular expression")
    assert results[5] == (True, "Error: include must be one glob, not a comma-separated list (use {a,b} alternation "
                                "instead)")
    assert results[6] == (True, "Error: grep search path does not exist: nowhere")


async def test_grep_caps_matches_and_cuts_long_lines(tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("hit\n" * (GREP_MAX_MATCHES + 3))
    (tmp_path / "wide.txt").write_text("hit" + "é" * GREP_MAX_LINE_BYTES + "\n")
    [(error, many), (_, wide)] = await _results(tmp_path, Reply(calls=(call("grep", pattern="hit", path="many.txt"),)),
                                                Reply(calls=(call("grep", pattern="hit", path="wide.txt"),)))
    assert not error and many.startswith(f"Found {GREP_MAX_MATCHES} of {GREP_MAX_MATCHES + 3} matches\n\nmany.txt\n")
    assert many.count("\nLine ") == GREP_MAX_MATCHES and many.endswith(
        "(The complete result could not be saved; narrow pattern, path, or include to see more.)")
    line = wide.split("\n")[-1]
    assert line.endswith(" (line truncated)")
    kept = line.removeprefix("Line 1: ").removesuffix(" (line truncated)")
    assert len(kept.encode()) <= GREP_MAX_LINE_BYTES and kept.startswith("hit")


def test_glob_patterns_read_as_ripgreps_globs() -> None:
    assert glob_pattern("*.py").match("a/b/c.py") and not glob_pattern("*.py").match("a/b/c.pyc")
    assert glob_pattern("src/*.py").match("src/a.py") and not glob_pattern("src/*.py").match("src/x/a.py")
    assert glob_pattern("src/**/*.py").match("src/a.py") and glob_pattern("src/**/*.py").match("src/x/y/a.py")
    assert glob_pattern("*.{js,jsx}").match("x/a.jsx") and not glob_pattern("*.{js,jsx}").match("a.ts")
    assert glob_pattern("[!a]?.md").match("b1.md") and not glob_pattern("[!a]?.md").match("a1.md")


async def test_a_permission_rule_guards_grep_as_any_tool(tmp_path: Path) -> None:
    # OpenCode asks `grep` for the pattern: a project that denies grepping for secrets is refused in
    # OpenCode's words, and the file is never read.
    root = _tree(tmp_path)
    (root / "opencode.json").write_text(json.dumps({"permission": {"grep": {"*": "allow", "*password*": "deny"}}}))
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_project("opencode", root))
        agent = await host.create_agent(script=[Reply(calls=(call("grep", pattern="password=.*"),)),
                                                Reply(calls=(call("grep", pattern="main", include="*.ts"),)), "done"])
        await agent.run_turn("go")
    texts = [e.data["text"] for e in agent.session.of_type("tool/result")]
    assert texts[0].startswith("The user has specified a rule which prevents you from using this specific tool call.")
    assert '"pattern":"*password*","action":"deny"' in texts[0]
    assert texts[1] == "Found 1 match\n\nsrc/lib/util.ts\nLine 1: export const main = 1"


async def test_skill_loads_a_project_skill_as_dsh_words_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # DSH's roots: the project's .dsh/skills before its .agents/skills, then the user's; the project is
    # the nearest folder holding .git. A skill the model may not invoke, or none of that name, is an error.
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    cwd = project / "sub"
    cwd.mkdir()
    skills = {project / ".dsh/skills/release": "---\nname: release\ndescription: Cut a release\n---\nRun `make dist`.\n",
              project / ".agents/skills/release": "---\nname: release\n---\nshadowed\n",
              project / ".agents/skills/lint": "Run scripts/lint.sh & read <output>.\n",
              home / ".agents/skills/private": "---\ndisable-model-invocation: yes\n---\nnot for the model\n"}
    for folder, text in skills.items():
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(text)
    results = await _results(cwd, *(Reply(calls=(call("skill", name=n),)) for n in
                                    ("release", "lint", "private", "absent", "Bad_Name")))
    base = project / ".dsh/skills/release"
    assert results[0] == (False, f'<skill_content name="release">\n<skill_resources>\nBase directory for this skill: '
                                 f"{base}\nResolve relative paths mentioned by this skill against the base directory "
                                 "before using them. Load referenced resources only as needed.\n</skill_resources>\n\n"
                                 "<skill_instructions>\nRun `make dist`.\n</skill_instructions>\n</skill_content>")
    assert "<skill_instructions>\nRun scripts/lint.sh & read <output>.\n</skill_instructions>" in results[1][1]
    assert results[2:] == [(True, 'Error: skill "private" is not available for model invocation'),
                           (True, 'Error: skill "absent" is unknown or no longer available'),
                           (True, 'Error: invalid skill name "Bad_Name"')]
