"""The compiled shim client (``port/client.c``): built once per install with the machine's C
compiler, so that a ported entry starts no Python per call when the warm server is up.

The client is bound to this install (its package folder, which names the server's socket, and its
interpreter, which runs a call when no server answers): it is built into a folder the caller names
and rebuilt whenever its source or this install moves.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from compat_adapter.errors import BadArgument

__all__ = ("CLIENT_NAME", "build_client", "install_build")

CLIENT_NAME = "compat-adapter-shim"
_SOURCE = Path(__file__).resolve().with_name("client.c")


def build_client(folder: Path) -> Path:
    """The client built for this install under ``folder`` (reused when already built from the same
    source for the same install); a clear error when the machine has no C compiler."""
    package, python = str(_SOURCE.parent), sys.executable
    key = hashlib.sha256(_SOURCE.read_bytes() + f"\0{package}\0{python}".encode()).hexdigest()[:16]
    out = folder / f"{CLIENT_NAME}-{key}"
    if out.is_file() and os.access(out, os.X_OK):
        return out
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise BadArgument("no C compiler (cc, or $CC) to build the compiled shim client: install one and port "
                          "again")
    folder.mkdir(parents=True, exist_ok=True)
    # A name of this build's own: two builds at once (ports run in parallel) must not take each
    # other's half-written file; the last rename wins, and both wrote the same bytes.
    partial = out.with_name(f"{out.name}.{os.getpid()}.{threading.get_ident()}.part")
    argv = [compiler, "-O2", "-o", str(partial), f"-DPKGDIR={_c_string(package)}", f"-DPYTHON={_c_string(python)}",
            str(_SOURCE)]
    try:
        # Linked statically where the C library allows it: no dynamic loader on each call's start
        # (0.45 against 0.57 ms for an empty program, measured); else as the compiler links by default.
        done = subprocess.run([*argv, "-static"], capture_output=True, text=True)
        if done.returncode != 0:
            done = subprocess.run(argv, capture_output=True, text=True)
    except OSError as exc:  # $CC names no program that can start
        raise BadArgument(f"the C compiler {compiler} does not start ({exc}): install one and port again") from exc
    if done.returncode != 0:
        raise BadArgument(f"the compiled shim client did not build ({compiler} exited {done.returncode}): "
                          f"{done.stderr.strip()[-400:]}")
    partial.replace(out)
    return out


def install_build() -> Path:
    """This install's client where port keeps it (the state folder's ``bin/``), built if need be."""
    from compat_adapter.statedir import state_home

    return build_client(state_home() / "bin")


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
