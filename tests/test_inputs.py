"""Hostile input files and texts: FIFOs, devices, /proc, escaping symlinks, growing files, deep
nesting, NUL bytes. Real files, real FIFOs, the real CLI in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.catalog import resolve_vendor
from compat_adapter.declare import declare_hook
from compat_adapter.errors import (
    InputRefused,
    InputTooLarge,
    InvalidHandler,
    NestingTooDeep,
    RulesTooLarge,
)
from compat_adapter.importers import import_files
from compat_adapter.jsonlimits import MAX_DEPTH, check_depth, loads_json, loads_toml
from compat_adapter.rules import read_rules
from compat_adapter.safefile import read_regular

CLAUDE = resolve_vendor("claude")
ROOT = Path(__file__).resolve().parent.parent
SECRET = "sk-environ-probe-9f8e7d6c5b4a"


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    # A bound well above a refusal's milliseconds: a hang (the old FIFO behaviour) fails the test.
    return subprocess.run([sys.executable, "-m", "compat_adapter.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "CLAUDE.md").write_text("# rules\n")
    return root


# -- regular files only ---------------------------------------------------------------------------


def test_a_fifo_is_refused_at_once(project: Path) -> None:
    fifo = project / "AGENTS.md"
    os.mkfifo(fifo)  # nobody ever writes: a plain open would wait forever
    with pytest.raises(InputRefused, match="FIFO"):
        read_regular(fifo, max_bytes=1000)
    with pytest.raises(InputRefused):
        read_rules(CLAUDE, "r", "AGENTS.md", project, 1000)


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/null", "/proc/self/environ", "/proc/self/status",
                                    "/sys/kernel/mm/transparent_hugepage/enabled"])
def test_symlinks_into_the_system_are_refused(project: Path, target: str) -> None:
    link = project / "CLAUDE.local.md"
    link.symlink_to(target)
    with pytest.raises(InputRefused, match="system"):
        read_regular(link, max_bytes=1000, allow_outside=True)  # even when outside is allowed
    with pytest.raises(InputRefused):
        read_rules(CLAUDE, "r", ["CLAUDE.md", "CLAUDE.local.md"], project, 1000, allow_outside=True)


def test_a_descriptor_magic_link_to_proc_is_refused(project: Path) -> None:
    # /dev/fd/N names an already open file; it resolves to the /proc file behind it.
    fd = os.open("/proc/self/environ", os.O_RDONLY)
    try:
        with pytest.raises(InputRefused):
            read_regular(f"/dev/fd/{fd}", max_bytes=1 << 20, allow_outside=True)
    finally:
        os.close(fd)


def test_an_environ_symlink_never_carries_the_secret_through_registration(project: Path) -> None:
    # A real adapter, in a process whose real environment holds a secret, registers the project's
    # rules; the repository's rules file is a symlink to /proc/self/environ.
    (project / "AGENTS.md").symlink_to("/proc/self/environ")
    code = (
        "import anyio, sys\n"
        "from compat_adapter import CompatAdapter, MemoryHost\n"
        "async def main():\n"
        "    async with MemoryHost(sys.argv[1]) as host, CompatAdapter(host) as adapter:\n"
        "        try:\n"
        "            await adapter.register_rules('codex', 'AGENTS.md', base_dir=sys.argv[1])\n"
        "        except Exception as exc:\n"
        "            print('refused', exc.code)\n"
        "        print('carried', [f.path for r in adapter.status().rules for f in r.files])\n"
        "anyio.run(main)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(project)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "OPENAI_API_KEY": SECRET})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["refused INPUT_REFUSED", "carried []"]
    assert SECRET not in done.stdout + done.stderr


def test_symlink_leaving_the_project_is_refused_unless_allowed(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "home-secrets.md"
    outside.write_text("private notes\n")
    (project / "AGENTS.md").symlink_to(outside)
    with pytest.raises(InputRefused, match="outside"):
        read_rules(CLAUDE, "r", "AGENTS.md", project, 1000)
    carried = read_rules(CLAUDE, "r", "AGENTS.md", project, 1000, allow_outside=True)
    assert carried.files[0].data == b"private notes\n"


def test_a_symlinked_folder_leaving_the_project_is_refused(project: Path, tmp_path: Path) -> None:
    shared = tmp_path / "elsewhere"
    shared.mkdir()
    (shared / "team.md").write_text("x\n")
    (project / "docs").symlink_to(shared)
    with pytest.raises(InputRefused):
        read_rules(CLAUDE, "r", "docs/*.md", project, 1000)


def test_symlinks_inside_the_project_are_fine(project: Path) -> None:
    (project / "rules").mkdir()
    (project / "rules" / "real.md").write_text("inside\n")
    (project / "AGENTS.md").symlink_to("rules/real.md")
    carried = read_rules(CLAUDE, "r", "AGENTS.md", project, 1000)
    assert carried.files[0].data == b"inside\n"
    assert carried.files[0].path == (project / "rules" / "real.md").resolve()


def test_size_is_checked_on_the_descriptor_and_while_reading(project: Path) -> None:
    big = project / "big.md"
    big.write_bytes(b"x" * 5000)
    with pytest.raises(InputTooLarge):
        read_regular(big, max_bytes=4999)
    assert read_regular(big, max_bytes=5000) == b"x" * 5000
    with pytest.raises(RulesTooLarge):
        read_rules(CLAUDE, "r", "big.md", project, 4999)


# -- the importers and `grade` -------------------------------------------------------------------


def test_grade_on_a_fifo_exits_2_at_once(project: Path) -> None:
    fifo = project / "settings.json"
    os.mkfifo(fifo)
    done = cli("grade", "--vendor", "claude", str(fifo))
    assert done.returncode == 2
    assert done.stderr.startswith("INPUT_REFUSED: ")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("target", ["/dev/zero", "/proc/self/environ"])
def test_grade_on_a_system_symlink_exits_2_and_reads_nothing(project: Path, target: str) -> None:
    link = project / ("settings.json" if target == "/dev/zero" else "CLAUDE.local.md")
    link.symlink_to(target)
    done = cli("grade", "--vendor", "claude", str(link), "--json",
               env={**os.environ, "ANTHROPIC_API_KEY": SECRET})
    assert done.returncode == 2
    assert done.stderr.startswith("INPUT_REFUSED: ")
    assert SECRET not in done.stdout + done.stderr


def test_import_of_an_oversized_config_is_refused(project: Path) -> None:
    settings = project / "settings.json"
    settings.write_text('{"hooks": {}, "pad": "' + "x" * (9 * 1024 * 1024) + '"}')
    with pytest.raises(InputTooLarge):
        import_files("claude", [settings])


# -- nesting -------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["json", "toml"])
def test_a_config_nested_100k_deep_is_a_clear_error_exit_2(project: Path, kind: str) -> None:
    if kind == "json":
        path, vendor = project / "settings.json", "claude"
        path.write_text('{"hooks": ' + "[" * 100_000 + "]" * 100_000 + "}")
    else:
        path, vendor = project / "config.toml", "codex"
        path.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(NestingTooDeep):
        import_files(vendor, [path])
    done = cli("grade", "--vendor", vendor, str(path))
    assert done.returncode == 2
    assert done.stderr.startswith("NESTING_TOO_DEEP: ")
    assert str(path) in done.stderr
    assert "Traceback" not in done.stderr


def _nest(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


def test_the_limit_is_exact_and_the_same_for_json_toml_and_parsed_data() -> None:
    at, over = _nest(MAX_DEPTH), _nest(MAX_DEPTH + 1)
    assert loads_json(json.dumps(at)) == at
    with pytest.raises(NestingTooDeep) as caught:
        loads_json(json.dumps(over), where="line 3")
    assert caught.value.code == "NESTING_TOO_DEEP" and "line 3" in caught.value.message
    # TOML: the value of `x` is one level inside the document table.
    assert loads_toml("x = " + json.dumps(_nest(MAX_DEPTH - 1)))["x"] == _nest(MAX_DEPTH - 1)
    with pytest.raises(NestingTooDeep):
        loads_toml("x = " + json.dumps(at))
    assert check_depth(at) is at
    with pytest.raises(NestingTooDeep):
        check_depth({"a": over})
    with pytest.raises(json.JSONDecodeError):
        loads_json("[1,")  # a syntax error stays what it was


def test_deep_inline_tables_in_toml(project: Path) -> None:
    path = project / "config.toml"
    path.write_text("x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n")
    with pytest.raises(NestingTooDeep):
        import_files("codex", [path])


# -- NUL bytes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("handler", [
    "echo a\0b",
    {"type": "command", "command": "echo a\0b"},
    {"type": "command", "command": "true", "env": {"A": "x\0y"}},
    {"type": "command", "command": "true", "env": {"A=B": "x"}},
    {"type": "command", "command": "true", "cwd": "/tmp\0x"},
], ids=["string", "mapping", "env-value", "env-name", "cwd"])
def test_a_handler_no_process_can_start_is_refused_at_registration(handler: object) -> None:
    with pytest.raises(InvalidHandler):
        declare_hook("claude", "PreToolUse", "Bash", handler)


async def test_register_hook_refuses_a_nul_command(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        with pytest.raises(InvalidHandler) as caught:
            await adapter.register_hook("claude", "PreToolUse", "Bash", "echo a\0b")
        assert caught.value.code == "INVALID_HANDLER"
        assert adapter.status().hooks == ()


def test_an_imported_nul_command_names_its_place(project: Path) -> None:
    settings = project / "settings.json"
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo a\u0000b"}]}]}}))
    # One refused row at its place (issue 14: no dead files), never registered.
    result = import_files("claude", [settings], trust_all=True)
    assert not result.hooks
    [row] = result.refused
    assert row.origin == f"{settings}:hooks.PreToolUse[0].hooks[0]" and "NUL" in row.reason
