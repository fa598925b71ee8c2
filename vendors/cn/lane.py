"""Continue's cn in the vendor lane (test support): its CLI runs offline, and fires no hook.

``cn -p`` runs against the scripted model as an OpenAI provider of a local ``config.yaml`` (no
login, no hub: measured, 1.5.47), but the release never runs a hook, so no case could compare a
hook's effect: the driver is a :class:`NoCli` with that reason, and ``tests/test_cn.py`` pins the
measurement itself (:func:`run_cn`), so a release that starts firing hooks fails it.

Loaded only by the lane and the tests, never by the product.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from compat_adapter.testing.lane.run import NETNS_PORT, isolation
from compat_adapter.testing.lane.vendors import NoCli, base_env, lane_dir
from compat_adapter.testing.live.speakers import ClaudeShapedSpeaker

__all__ = ("BINARY", "CLI", "LIVE", "config_yaml", "run_cn")

#: The CLI in the lane folder (vendors/cn/lane.pin).
BINARY = "cn/node_modules/@continuedev/cli/dist/cn.js"

CLI = NoCli("continue", "cn 1.5.47 runs offline against the scripted model but fires no hook: its bundle builds "
                        "the hook service and never calls it (measured by tests/test_cn.py), so no lane case "
                        "can compare a hook's effect")


def config_yaml(base: str) -> str:
    """A cn assistant whose one chat model is the scripted server (OpenAI chat completions)."""
    return (f"name: lane\nversion: 0.0.1\nschema: v1\nmodels:\n  - name: lane\n    provider: openai\n"
            f"    model: mock-model\n    apiBase: {base}/v1\n    apiKey: sk-test\n    roles: [chat]\n")


def run_cn(run: Path, hooks: dict[str, Any], prompt: str, turns: list[dict[str, Any]], *,
           timeout: float = 120) -> dict[str, Any]:
    """Run ``cn -p`` in ``run/proj`` with ``hooks`` in its ``.continue/settings.json``, a scratch
    HOME and the scripted model answering ``turns``, in the lane's sandbox (a loopback-only network
    namespace where the machine allows one); the sandbox's result (``rc``, ``stdout``, ``stderr`` …)."""
    home, proj, out = run / "home", run / "proj", run / "out"
    for folder in (home, proj / ".continue", out, run / "tmp"):
        folder.mkdir(parents=True, exist_ok=True)
    (proj / ".continue" / "settings.json").write_text(json.dumps(hooks))
    netns, _ = isolation()
    port = NETNS_PORT if netns else free_port()
    (home / "config.yaml").write_text(config_yaml(f"http://127.0.0.1:{port}"))
    env = {**base_env(run), "CONTINUE_GLOBAL_DIR": str(home / ".continue")}
    argv = ["node", str(lane_dir() / BINARY), "-p", "--config", str(home / "config.yaml"), "--auto", prompt]
    job = {"api": "chat", "turns": turns, "argv": argv, "env": env, "cwd": str(proj), "port": port, "out": str(out),
           "netns": netns, "timeout": timeout}
    (run / "job.json").write_text(json.dumps(job))
    runner = [sys.executable, "-m", "compat_adapter.testing.lane.sandbox", str(run / "job.json")]
    subprocess.run(["unshare", "-n", "-m", "--", *runner] if netns else runner, capture_output=True, text=True,
                   timeout=timeout + 30, check=True)
    result: dict[str, Any] = json.loads((out / "result.json").read_text())
    return result


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: The live checks in Claude's words (cn's payloads are Claude's).
LIVE = ClaudeShapedSpeaker("continue", ask_honoured=False)
