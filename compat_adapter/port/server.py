"""The warm shim server (``python -m compat_adapter.port.server SOCKET``): one per user and install,
started by the first ported call that finds none (:mod:`compat_adapter.port.client`).

It imports the runtime once and serves every call inside itself, each as a task of one event loop
(:func:`compat_adapter.port.shim.shim_reply`): no fork, no new event loop and no interpreter per
call. A call's environment and folder are the caller's, handed over with the call and given to
the hooks it runs (:mod:`compat_adapter.runtime.callenv`, the moment's folder); nothing of the
process's own (``os.environ``, its folder, its signal handlers) changes for a call, so calls run at
once without seeing each other. A compiled client's call has its hook processes started by the
client itself, one at a time (:mod:`compat_adapter.port.callerruns`: cheaper than a spawn from
here); the others run under the hook launcher (:mod:`compat_adapter.runtime.process`), whose one
launch server this process starts on its warm-up: a hook that hangs is killed at its timeout with
every descendant, as in a process of its own; a call whose caller went away (the target CLI gave up
on it and killed the client) is cancelled, which kills its hooks too.

It leaves after :data:`~compat_adapter.port.client.IDLE_S` seconds with no call, or when its socket
is gone or another server's has taken its place (once the calls it is serving are done).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import sys
import time

import anyio

from compat_adapter.port.callerruns import ClientRuns
from compat_adapter.port.callsocket import CallSocket
from compat_adapter.port.client import IDLE_S

__all__ = ("serve",)

#: Longest call request line (the caller's environment is in it).
_REQUEST_MAX = 64 * 1024 * 1024
#: Seconds between two looks at the socket (gone?), the idle time and each call's caller (still there?).
_LOOK_S = 0.5


def _warm() -> None:
    """What every call needs, imported and looked up before the first call comes."""
    import compat_adapter.routing.dispatch  # noqa: F401
    from compat_adapter.catalog import unit_of, units

    for unit in units():
        _ = unit.dialect, unit.host
        # A unit looked up by name is cached per process (catalog.unit_of); looked up per call it
        # read every installed distribution's entry points again (7 of a call's 12 ms, measured).
        for name in (unit.spec.id, *unit.spec.aliases):
            unit_of(name)


async def _warm_call() -> None:
    """One real call, of a hook that does nothing: it loads what the first call would load, and
    starts the hook launcher's server."""
    from compat_adapter.catalog import units
    from compat_adapter.dialects.base import Moment
    from compat_adapter.port.shim import ShimSpec, encode_spec, shim_reply

    unit = next(u for u in units() if u.host is not None)
    event = unit.host.events["tools/pre-execute"]  # type: ignore[union-attr]
    cwd = os.getcwd()
    stdin = unit.dialect.encode(unit.dialect.payload(Moment(event=event, session_id="warm-up", cwd=cwd, fields={
        "tool_name": "bash", "tool_input": {"command": "true"}})))
    hooks = ({"matcher": None, "handler": {"type": "command", "command": "true"}, "origin": "warm-up"},)
    await shim_reply(unit.spec.id, encode_spec(ShimSpec(unit.spec.id, event, event, hooks)), stdin, cwd)


class _Calls:
    """The server's calls: how many run now, when the last one came, and each one's socket with the
    scope that ends it (one look at every caller per :data:`_LOOK_S`, not a watcher per call)."""

    def __init__(self) -> None:
        self.running = 0
        self.last = time.monotonic()
        self.open: dict[socket.socket, anyio.CancelScope] = {}

    def end_the_abandoned(self) -> None:
        """Cancel each call whose caller is gone (the target killed it): its hooks are killed."""
        for conn, scope in list(self.open.items()):
            if _gone(conn):
                scope.cancel()


def _gone(conn: socket.socket) -> bool:
    """The caller has closed its end (it was killed): its half-close after the request makes the
    socket readable for good, so only a hang-up tells a caller that is gone from one that waits."""
    poller = select.poll()
    poller.register(conn, select.POLLHUP | select.POLLERR)
    return bool(poller.poll(0))


async def _answer(conn: socket.socket, calls: _Calls) -> None:
    """Read one call (a JSON head line, then the target's stdin up to the caller's half-close), run
    it, send the reply; a call that fails in the server is closed unanswered (the client then runs
    it itself)."""
    from compat_adapter.port.shim import shim_reply
    from compat_adapter.runtime.callenv import serving

    calls.running += 1
    calls.last = time.monotonic()
    stream = CallSocket(conn)
    try:
        call = json.loads(await stream.receive_until(b"\n", _REQUEST_MAX))
        runs = None
        if call.get("runs"):
            # The compiled client: its stdin is counted (the socket stays open both ways, for
            # the hook runs it makes for us: port/callerruns.py).
            stdin = await stream.receive_exactly(int(call["stdin"])) if int(call["stdin"]) else b""
            runs = ClientRuns(stream)
        else:  # the Python client: its stdin runs to its half-close (an older compiled client keys
            # its socket on fewer files, so it never reaches this server)
            stdin = await stream.receive_rest()
        env = {str(k): str(v) for k, v in dict(call["env"]).items()}
        cwd = str(call["cwd"])
        # The caller's switch: its hooks spawned here (bench.py measures both ways).
        runner = runs if env.get("COMPAT_ADAPTER_CLIENT_RUNS", "on").lower() != "off" else None
        done = None
        with anyio.CancelScope() as scope:
            calls.open[conn] = scope  # a caller gone: the call is cancelled, its hooks killed
            if runner is not None:
                # The client answered from the forecast: the call ends here, unanswered again.
                runner.on_answered = scope.cancel
            with serving(env, runner):
                done = await shim_reply(str(call["to"]), str(call["hooks"]), stdin, cwd)
        if done is None:
            return
        if runs is not None:
            # The compiled client reads a frame: "= <exit> <n> <m>\n" and the texts.
            out, err = done.stdout.encode(), done.stderr.encode()
            await stream.send(f"= {done.exit_code} {len(out)} {len(err)}\n".encode() + out + err)
        else:
            await stream.send(json.dumps({"ok": True, "stdout": done.stdout, "stderr": done.stderr,
                                          "exit": done.exit_code}).encode())
    except Exception:  # noqa: BLE001 - any failure of one call: unanswered, the client runs it itself
        pass
    finally:
        calls.open.pop(conn, None)
        stream.close()
        calls.running -= 1
        calls.last = time.monotonic()


def _ours(path: str, inode: int) -> bool:
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


async def _serve(server: socket.socket, path: str, inode: int, idle_s: float) -> None:
    calls = _Calls()
    server.setblocking(False)
    async with anyio.create_task_group() as calls_tg:
        async with anyio.create_task_group() as accept_tg:
            async def accept() -> None:
                while True:
                    try:
                        conn, _ = server.accept()
                    except BlockingIOError:
                        await anyio.wait_readable(server)
                        continue
                    calls_tg.start_soon(_answer, conn, calls)

            accept_tg.start_soon(accept)
            while _ours(path, inode) and (calls.running or time.monotonic() - calls.last < idle_s):
                await anyio.sleep(_LOOK_S)
                calls.end_the_abandoned()
            accept_tg.cancel_scope.cancel()
        # The calls being served finish; a new caller finds no server and starts one.


def serve(path: str, idle_s: float = IDLE_S) -> None:
    _warm()
    anyio.run(_warm_call)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        try:
            server.bind(path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(path + ".start")
            return  # another server took the place first
        os.chmod(path, 0o600)
        inode = os.stat(path).st_ino
        # Its process id beside the socket: whoever started it can stop it by its id.
        with open(path + ".pid", "w") as pid:
            pid.write(f"{os.getpid()}\n")
        server.listen(64)
        with contextlib.suppress(OSError):
            os.unlink(path + ".start")  # the client's mark of a start under way (port/client.py)
        try:
            anyio.run(_serve, server, path, inode, idle_s)
        finally:
            if _ours(path, inode):  # never another server's socket, which took the place meanwhile
                for name in (path, path + ".pid"):
                    try:
                        os.unlink(name)
                    except OSError:
                        pass


if __name__ == "__main__":
    target = sys.argv[1]
    # A stale socket of a server that is gone: take its place.
    if os.path.exists(target):
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(target)
            probe.close()
            with contextlib.suppress(OSError):
                os.unlink(target + ".start")
            raise SystemExit(0)  # a server answers there already
        except OSError:
            os.unlink(target)
    serve(target)
