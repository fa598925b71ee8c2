"""The warm shim server (``python -m compat_adapter.port.server SOCKET``): one per user and install,
started by the first ported call that finds none (:mod:`compat_adapter.port.client`).

It imports the runtime once, then keeps a few forked copies of itself waiting for calls (one
per call, replaced as it leaves): the copy takes the call's folder and environment as its own and
runs :func:`compat_adapter.port.shim.run_shim`, so every call runs as it would in its own process
(its variables, its folder, its own event loop) without the start-up and without a fork.
It leaves after :data:`~compat_adapter.port.client.IDLE_S` seconds with no call, or when its socket
is gone.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys

from compat_adapter.port.client import IDLE_S

__all__ = ("serve",)


def _handle(conn: socket.socket) -> None:
    data = bytearray()
    while chunk := conn.recv(65536):
        data += chunk
    head, _, stdin = bytes(data).partition(b"\n")
    call = json.loads(head)
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in dict(call["env"]).items()})
    # No launcher process per call here: it would start its own small server in every forked
    # call, the start-up this server exists to save. The hook's process group is still killed on
    # a timeout; a process that left the group is not (runtime/process.py says what that loses).
    os.environ.setdefault("COMPAT_ADAPTER_HOOK_LAUNCHER", "off")
    os.chdir(call["cwd"])
    from compat_adapter.port.shim import run_shim

    done = run_shim(str(call["to"]), str(call["hooks"]), stdin, call["cwd"])
    if call.get("frame"):
        # The compiled client (port/client.c) reads a frame, not JSON: "<exit> <n> <m>\n" and the texts.
        out, err = done.stdout.encode(), done.stderr.encode()
        conn.sendall(f"{done.exit_code} {len(out)} {len(err)}\n".encode() + out + err)
        return
    conn.sendall(json.dumps({"ok": True, "stdout": done.stdout, "stderr": done.stderr,
                             "exit": done.exit_code}).encode())


def serve(path: str, idle_s: float = IDLE_S) -> None:
    # Warm: what every call needs is imported before the first fork.
    import anyio  # noqa: F401

    import compat_adapter.port.shim  # noqa: F401
    import compat_adapter.routing.dispatch  # noqa: F401
    from compat_adapter.catalog import unit_of, units

    from compat_adapter.port.shim import ShimSpec, encode_spec, run_shim

    for unit in units():
        _ = unit.dialect, unit.host
        # A unit looked up by name is cached per process (catalog.unit_of); a copy that looked
        # its source and target up itself read every installed distribution's entry points again
        # (7 of a call's 12 ms, measured in a forked copy).
        for name in (unit.spec.id, *unit.spec.aliases):
            unit_of(name)
    # One real call, of a hook that does nothing, loads what the first call would load.
    launcher = os.environ.get("COMPAT_ADAPTER_HOOK_LAUNCHER")
    os.environ["COMPAT_ADAPTER_HOOK_LAUNCHER"] = "off"
    from compat_adapter.dialects.base import Moment

    unit = next(u for u in units() if u.host is not None)
    event = unit.host.events["tools/pre-execute"]  # type: ignore[union-attr]
    stdin = unit.dialect.encode(unit.dialect.payload(Moment(event=event, session_id="warm-up", cwd=os.getcwd(), fields={
        "tool_name": "bash", "tool_input": {"command": "true"}})))
    run_shim(unit.spec.id, encode_spec(ShimSpec(unit.spec.id, event, event, (
        {"matcher": None, "handler": {"type": "command", "command": "true"}, "origin": "warm-up"},))), stdin, os.getcwd())
    if launcher is None:
        os.environ.pop("COMPAT_ADAPTER_HOOK_LAUNCHER")
    else:
        os.environ["COMPAT_ADAPTER_HOOK_LAUNCHER"] = launcher
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        try:
            server.bind(path)
        except OSError:
            return  # another server took the place first
        os.chmod(path, 0o600)
        # Its process id beside the socket: whoever started it can stop it by its id.
        with open(path + ".pid", "w") as pid:
            pid.write(f"{os.getpid()}\n")
        server.listen(64)
        try:
            _pool(server, path, idle_s)
        finally:
            for name in (path, path + ".pid"):
                try:
                    os.unlink(name)
                except OSError:
                    pass


#: Warm copies forked ahead of the calls: a call finds one already waiting, so its time holds no
#: fork (under load the fork of the warm server was the largest part of a call, measured). A copy
#: that takes a call is replaced at once, so a long hook never keeps the next call waiting.
POOL = 2
#: A copy's exit: it served a call; it saw no call for the idle time; its socket is gone.
_SERVED, _IDLE, _GONE = 0, 3, 4


def _waiting(server: socket.socket, path: str, idle_s: float, taken: int) -> None:
    """One forked copy: wait for a call, tell the server it took one (a byte on ``taken``), answer
    it, leave (never returns)."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the call waits for its own hook processes
    # Woken every few seconds: a copy whose socket was removed (its folder deleted) leaves then.
    server.settimeout(min(idle_s, 5.0))
    idle = 0.0
    try:
        while True:
            if not os.path.exists(path):
                os._exit(_GONE)
            try:
                conn, _ = server.accept()
            except TimeoutError:
                idle += min(idle_s, 5.0)
                if idle >= idle_s:
                    os._exit(_IDLE)
                continue
            os.write(taken, b".")
            os.close(taken)
            server.close()
            conn.settimeout(None)
            _handle(conn)
            os._exit(_SERVED)
    except BaseException:
        os._exit(1)


def _pool(server: socket.socket, path: str, idle_s: float) -> None:
    """Keep ``POOL`` copies waiting, one forked for each call taken; leave when the socket is gone,
    or when a copy saw no call for the idle time and none was taken since."""
    import select
    import time

    taken_r, taken_w = os.pipe()

    def fork() -> None:
        if os.fork() == 0:
            os.close(taken_r)
            _waiting(server, path, idle_s, taken_w)

    for _ in range(POOL):
        fork()
    last_call, failures = time.monotonic(), 0
    try:
        while True:
            ready, _, _ = select.select([taken_r], [], [], 1.0)
            if ready:
                for _ in os.read(taken_r, 64):
                    last_call, failures = time.monotonic(), 0
                    fork()
            while True:
                try:
                    child, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    child = 0
                if child == 0:
                    break
                code = os.waitstatus_to_exitcode(status)
                if code == _GONE or (code == _IDLE and time.monotonic() - last_call >= idle_s):
                    return
                if code in (_IDLE, 1):
                    failures += code == 1
                    if failures > 5:
                        return  # copies that keep failing: leave, and the next call runs on its own
                    fork()
    finally:
        os.close(taken_r)
        os.close(taken_w)
    # The copies still waiting leave on their own once the socket is gone (at most a few seconds);
    # one answering a call finishes it.


if __name__ == "__main__":
    target = sys.argv[1]
    # A stale socket of a server that is gone: take its place.
    if os.path.exists(target):
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(target)
            probe.close()
            raise SystemExit(0)  # a server answers there already
        except OSError:
            os.unlink(target)
    serve(target)
