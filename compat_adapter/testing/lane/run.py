"""Run one scenario under the real vendor CLI, offline, and collect the raw record.

The run folder holds ``home/`` (scratch HOME), ``proj/`` (a one-commit git repository with the
vendor's hook config), ``bin/hookrec.py`` (the self-recording hook), ``state/hooks.jsonl`` (what
each hook received and answered) and ``out/`` (the model's request log and the CLI's result).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compat_adapter.testing.lane.scenarios import CORPUS_PLUGINS, Case
from compat_adapter.testing.lane.vendors import PROJECT, cli_for, lane_vendors, prepare

__all__ = ("NETNS_PORT", "VendorRecord", "hook_files", "isolation", "prepare_project", "run_vendor", "turns_for")

HERE = Path(__file__).resolve().parent
#: Inside a fresh network namespace every port is free; the model always listens here.
NETNS_PORT = 18590


@dataclass(frozen=True, slots=True)
class VendorRecord:
    case: Case
    run: Path
    result: dict[str, Any]
    requests: list[dict[str, Any]]
    hooks: list[dict[str, Any]]
    tool_ran: bool


@functools.cache
def isolation() -> tuple[bool, str]:
    """Whether runs get a loopback-only network namespace here, and if not, why not."""
    if os.geteuid() != 0:
        return False, "not root: `unshare -n -m` needs CAP_SYS_ADMIN; runs use loopback addresses only"
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False, "unshare or ip is not installed; runs use loopback addresses only"
    probe = subprocess.run(["unshare", "-n", "-m", "--", "ip", "link", "set", "lo", "up"], capture_output=True,
                           text=True)
    if probe.returncode != 0:
        return False, f"the kernel refused a network namespace ({probe.stderr.strip()}); loopback addresses only"
    return True, "loopback-only network namespace with a NXDOMAIN DNS sink"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def turns_for(case: Case, proj: Path | None = None) -> list[dict[str, Any]]:
    """The scripted model's turns for ``case``; a call's :data:`PROJECT` becomes ``proj``."""
    cli = cli_for(case.vendor)
    calls = {"shell": cli.call, "read": cli.read, "write": cli.write, "inert": cli.inert}
    extra = dict(case.options.get("call_args") or {})  # what a case adds to every call (Codex: escalation)

    def one(kind: str, value: str) -> dict[str, Any]:
        made = calls[kind](value)
        arguments = {k: v.replace(PROJECT, str(proj)) if proj is not None and isinstance(v, str) else v
                     for k, v in made["arguments"].items()}
        return {**made, "arguments": {**arguments, **extra}}

    # A case may give the model a real model's latency on the turns after the first (``model_delay``).
    delay = {"delay": float(case.options["model_delay"])} if case.options.get("model_delay") else {}
    turns = [{"calls": [one(kind, value)]} if kind in calls else {"text": value} for kind, value in case.steps]
    return [turns[0], *({**t, **delay} for t in turns[1:])] if turns else turns


def hook_files(case: Case, proj: Path) -> list[Path]:
    """The project files that hold the case's hooks (what a user would import)."""
    if case.imports:
        return [proj / name for name in case.imports]
    if case.plugins:
        # A corpus plugin runs alone, without the lane's recording plugin: OpenCode loads plugin
        # files concurrently, so which of two plugins' hooks runs first varies from run to run.
        return [proj / ".opencode/plugins" / name for name in case.plugins]
    return [proj / cli_for(case.vendor).hooks_file]


def prepare_project(case: Case, run: Path) -> Path:
    """The run folder's project with the vendor-native hook config; also used by the embedded side."""
    for sub in ("home", "proj", "state", "bin", "tmp", "out"):
        (run / sub).mkdir(parents=True, exist_ok=True)
    shutil.copyfile(HERE / "hookrec.py", run / "bin" / "hookrec.py")
    # What the recorder logs of its environment: every lane vendor's own variables, and ours.
    prefixes = sorted({p for v in lane_vendors() for p in cli_for(v).env_prefixes} | {"COMPAT"})
    (run / "bin" / "hookrec.json").write_text(json.dumps({"prefixes": prefixes}))
    proj = run / "proj"
    # One fixed author, committer and date: both sides' projects get the same commit hash, so a hook
    # that shows the model `git log` (a real script's session start) writes the same text on each.
    git_env = {**os.environ, "GIT_AUTHOR_NAME": "lane", "GIT_AUTHOR_EMAIL": "lane@invalid",
               "GIT_COMMITTER_NAME": "lane", "GIT_COMMITTER_EMAIL": "lane@invalid",
               "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    (proj / "README.md").write_text("lane project\n")
    for args in (["init", "-q", "-b", "main"], ["add", "README.md"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=proj, env=git_env, check=True, capture_output=True)
    for name, text in case.files.items():
        (proj / name).parent.mkdir(parents=True, exist_ok=True)
        (proj / name).write_text(text)
        # A script the config starts directly; a repository's own script keeps its repository's mode.
        kept = case.options.get("kept_modes", {}).get(name)
        if kept or (kept is None and text.startswith("#!")):
            (proj / name).chmod(0o755)
    cli = cli_for(case.vendor)
    target = proj / cli.hooks_file
    target.parent.mkdir(parents=True, exist_ok=True)
    for source in case.plugins:
        placed = proj / ".opencode/plugins" / source
        placed.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CORPUS_PLUGINS / source, placed)
    if not case.installed:
        cli.write_hooks(case, run, target)  # the vendor's own config shape (OpenCode: the lane's plugin)
    return proj


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_vendor(case: Case, run: Path, *, timeout: float = 150.0, lane: Path | None = None,
               wrap: Callable[[list[str]], list[str]] | None = None, screen: bool = False) -> VendorRecord:
    """Run ``case`` under the real CLI in ``run`` (created); raises if the CLI is not installed.
    ``wrap`` puts a program in front of the CLI's command line (the real-config lane's process
    observer), inside the sandbox. ``screen``: run the CLI's interactive terminal UI instead (its
    ``interactive`` argv) and record the settled screen as the run's stdout
    (:mod:`compat_adapter.testing.lane.screen`)."""
    if case.not_drivable:
        raise ValueError(f"{case.name} is not drivable: {case.not_drivable}")
    cli = cli_for(case.vendor)
    binary = cli.binary_path(lane)
    if not binary.exists():
        raise FileNotFoundError(f"{binary} is missing: run `bash scripts/vendor_lane.sh` first")
    proj = prepare_project(case, run)
    netns, why = isolation()
    port = NETNS_PORT if netns else _free_port()
    argv, env = prepare(cli, run, port, case.prompt, lane=lane, options=case.options)
    if screen:
        shown = cli.interactive(argv, run, env)
        if shown is None:
            raise ValueError(f"{case.name}: {cli.cli} {cli.version} has no interactive UI the lane can read")
        # A person's terminal, not a CI job: the UIs draw less (or nothing) under CI or NO_COLOR.
        env.pop("CI", None)
        env.pop("NO_COLOR", None)
        env["TERM"] = "xterm-256color"
        argv = [sys.executable, "-m", "compat_adapter.testing.lane.screen", str(run / "out" / "screen"), "--", *shown]
    if wrap is not None:
        argv = wrap(list(argv))
    job = {"api": cli.api, "turns": turns_for(case, proj), "argv": argv, "env": env, "cwd": str(proj), "port": port,
           "out": str(run / "out"), "netns": netns, "timeout": timeout,
           "http_server": case.options.get("http_server"), "side_markers": list(cli.side_requests)}
    (run / "job.json").write_text(json.dumps(job, indent=1))
    runner = [sys.executable, "-m", "compat_adapter.testing.lane.sandbox", str(run / "job.json")]
    if netns:
        runner = ["unshare", "-n", "-m", "--", *runner]
    done = subprocess.run(runner, capture_output=True, text=True, timeout=timeout + 30)
    result_path = run / "out" / "result.json"
    if done.returncode != 0 or not result_path.exists():
        raise RuntimeError(f"{case.name}: the sandbox failed (rc {done.returncode}): {done.stderr[-2000:]}")
    result = json.loads(result_path.read_text())
    result["isolation"] = why
    return VendorRecord(case, run, result, _read_jsonl(run / "out" / "requests.jsonl"),
                        _read_jsonl(run / "state" / "hooks.jsonl"), (proj / "tool-ran.txt").exists())
