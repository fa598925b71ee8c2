"""``compat-adapter serve --stdio`` with its whole input piped in at once, then stdin closed.

A host that writes its requests and closes its end (a shell pipe, a crashing peer) must still get an
answer to every request the service read: the dispatches in flight at end of input run to their
verdict, and a ``dispose`` answers once the dispatches accepted before it are answered. Real
processes: the service, and a real hook that takes a while to deny.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from conftest import write_script
from test_serve import SURFACE, agent_json, serve_command


def _lines(*messages: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def _run(tmp_path: Path, *messages: dict[str, Any]) -> dict[Any, dict[str, Any]]:
    """Pipe ``messages`` in, close stdin, wait for the service to exit; its replies by id."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([*serve_command(), "--state-dir", str(tmp_path / "state")], input=_lines(*messages),
                          capture_output=True, cwd=tmp_path, env=env, timeout=120)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    replies = {}
    for line in done.stdout.splitlines():
        message = json.loads(line)
        if "id" in message and "method" not in message:
            replies[message["id"]] = message
    return replies


def _slow_deny(tmp_path: Path) -> str:
    return str(write_script(tmp_path / "deny.sh", (
        "cat > /dev/null\nsleep 1\n"
        "printf '%s' '{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"piped no\"}'\n")))


def _dispatch(rid: int, tmp_path: Path) -> dict[str, Any]:
    return {"id": rid, "method": "dispatch", "params": {
        "seam": "tools/pre-execute", "dispatch": f"d{rid}",
        "event": {"call_id": f"c{rid}", "name": "bash", "arguments": {"command": f"rm -rf build{rid}"},
                  "agent": agent_json(tmp_path)}}}


def _start(tmp_path: Path) -> tuple[dict[str, Any], ...]:
    return ({"id": 1, "method": "hello", "params": {"protocol": 1, "surface": SURFACE, "cwd": str(tmp_path)}},
            {"id": 2, "method": "register_hook", "params": {"vendor": "copilot", "event": "preToolUse",
                                                           "matcher": "bash", "handler": _slow_deny(tmp_path)}})


def test_every_dispatch_piped_in_before_end_of_input_is_answered(tmp_path: Path) -> None:
    replies = _run(tmp_path, *_start(tmp_path), *(_dispatch(rid, tmp_path) for rid in (3, 4, 5)))
    assert set(replies) == {1, 2, 3, 4, 5}
    assert replies[2]["result"]["capability"] == "ADAPTED"
    for rid in (3, 4, 5):
        # The hook ran to its answer after the input had ended: a real deny, not a closed channel.
        assert replies[rid]["result"]["verdict"] == {"kind": "deny", "reason": "Denied by preToolUse hook: piped no"}


def test_a_dispatch_followed_by_dispose_is_answered_before_dispose(tmp_path: Path) -> None:
    replies = _run(tmp_path, *_start(tmp_path), _dispatch(3, tmp_path), {"id": 4, "method": "dispose"})
    assert replies[3]["result"]["verdict"]["kind"] == "deny"
    assert replies[4]["result"] == {"disposed": True}
