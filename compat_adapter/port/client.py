"""The quick side of the shim: hand the call to a warm shim server, or run it here and start one.

A ported entry runs once per hook call, under the target CLI; starting Python and importing the
whole runtime for each call costs far more than a hook written natively. So the entry's process
imports nothing of the runtime: it sends the call (the target's stdin, its folder, its environment
and the encoded hooks) to a per-user server on a Unix socket in a folder only this user can open,
which runs it inside itself exactly as the shim would here. When
there is no server (or it fails), the call runs in this process, and a server is started in its
own session for the next calls; it leaves after ``IDLE_S`` seconds without a call.

Only the standard library is imported here, on purpose.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import zlib
from collections.abc import Mapping

__all__ = ("IDLE_S", "call_server", "server_path", "shim_main")

#: Seconds a server waits for a call before it leaves (``COMPAT_ADAPTER_SHIM_IDLE_S`` sets another).
IDLE_S = float(os.environ.get("COMPAT_ADAPTER_SHIM_IDLE_S") or 300.0)
#: Seconds a call may take in the server before the client stops waiting and runs it itself
#: (the target's own timeout bounds the whole hook in any case).
CALL_S = 3600.0


#: The files whose change makes a new server: the call's code, and the wire between a compiled client and
#: the server (a client that speaks a newer wire must never reach an older server, which would wait on it).
#: The compiled client (client.c) keys its socket on the same files, in the same order.
_KEYED = ("shim.py", "server.py", "callerruns.py", "client.c")


def server_path(environ: Mapping[str, str] = os.environ) -> str | None:
    """The server's socket for this user and this install, as a call with ``environ`` finds it;
    None when its folder is not private (someone else owns it, or others may open it): the call then
    runs in this process."""
    base = environ.get("XDG_RUNTIME_DIR") or environ.get("TMPDIR") or "/tmp"
    # One server per install and release: another copy of compat-adapter, or this one upgraded
    # (its files rewritten), runs its own code, never a server started from the old one.
    here = os.path.dirname(os.path.abspath(__file__))
    stamp = "".join(str(os.stat(os.path.join(here, name)).st_mtime_ns) for name in _KEYED)
    tag = format(zlib.crc32(f"{here}:{stamp}".encode()), "08x")
    folder = os.path.join(base, f"compat-adapter-shim-{os.getuid()}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    info = os.lstat(folder)
    if info.st_uid != os.getuid() or info.st_mode & 0o077 or not os.path.isdir(folder) or os.path.islink(folder):
        return None
    return os.path.join(folder, f"{tag}.sock")


def call_server(path: str, target: str, hooks: str, stdin: bytes) -> dict[str, object] | None:
    """The server's reply to one call, or None when no server answered."""
    head = json.dumps({"to": target, "hooks": hooks, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(CALL_S)
            conn.connect(path)
            conn.sendall(head + b"\n" + stdin)
            conn.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := conn.recv(65536):
                chunks.append(chunk)
    except OSError:
        return None
    try:
        reply = json.loads(b"".join(chunks))
    except ValueError:
        return None
    return reply if isinstance(reply, dict) and reply.get("ok") else None


#: Seconds a server's start may take before another call may start one again.
START_S = 60.0


def _start_server(path: str) -> None:
    """Start a server, unless one is starting: the calls that come while it warms up (a target that
    runs its hooks at once) each run in their own process and start none, rather than several
    servers importing the runtime at once and taking the machine from the calls."""
    import subprocess
    import time

    starting = path + ".start"  # removed by the server once it listens
    try:
        try:
            os.close(os.open(starting, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            if time.time() - os.stat(starting).st_mtime < START_S:
                return
            os.unlink(starting)  # a start that never came to listen: this call starts one again
            os.close(os.open(starting, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except OSError:
        return  # another call got there first
    try:
        subprocess.Popen([sys.executable, "-m", "compat_adapter.port.server", path], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                         close_fds=True)
    except OSError:
        pass  # no server: the next call runs in its own process again


def shim_main(target: str, hooks: str) -> int:
    """One call of a ported entry: the reply written, its exit status returned."""
    stdin = sys.stdin.buffer.read()
    path = None if os.environ.get("COMPAT_ADAPTER_SHIM_SERVER") == "off" else server_path()
    reply = call_server(path, target, hooks, stdin) if path else None
    if reply is None:
        from compat_adapter.port.shim import run_shim

        done = run_shim(target, hooks, stdin)
        reply = {"stdout": done.stdout, "stderr": done.stderr, "exit": done.exit_code}
        if path:
            _start_server(path)
    if reply.get("stdout"):
        sys.stdout.write(str(reply["stdout"]))
        sys.stdout.flush()
    if reply.get("stderr"):
        sys.stderr.write(str(reply["stderr"]))
    code = reply.get("exit", 0)
    return code if isinstance(code, int) else 1
