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
    compilers = _compilers()
    if not compilers:
        raise BadArgument("no C compiler (cc, or $CC) to build the compiled shim client: install one and port "
                          "again")
    folder.mkdir(parents=True, exist_ok=True)
    # A name of this build's own: two builds at once (ports run in parallel) must not take each
    # other's half-written file; the last rename wins, and both wrote the same bytes.
    partial = out.with_name(f"{out.name}.{os.getpid()}.{threading.get_ident()}.part")
    defines = [f"-DPKGDIR={_c_string(package)}", f"-DPYTHON={_c_string(python)}"]
    failed = ""
    for compiler in compilers:
        argv = [compiler, "-O2", "-o", str(partial), *defines, str(_SOURCE)]
        try:
            # Linked statically where the C library allows it: no dynamic loader on each call's
            # start (0.45 against 0.57 ms for an empty program, measured); else as the compiler
            # links by default.
            done = subprocess.run([*argv, "-static"], capture_output=True, text=True)
            if done.returncode != 0:
                done = subprocess.run(argv, capture_output=True, text=True)
        except OSError as exc:  # $CC names no program that can start
            failed = f"the C compiler {compiler} does not start ({exc}): install one and port again"
            continue
        if done.returncode == 0:
            break
        failed = (f"the compiled shim client did not build ({compiler} exited {done.returncode}): "
                  f"{done.stderr.strip()[-400:]}")
    else:
        raise BadArgument(failed)
    partial.replace(out)
    return out


def _compilers() -> list[str]:
    """The C compilers to build with, best first. ``$CC`` alone when set (the person chose). Else
    musl's ``musl-gcc`` where it is installed, then ``cc`` or ``gcc``: a static musl program starts
    in 0.07 ms where a static glibc one takes 0.74 (an empty program exec'd by ``sh -c``, median of
    200, on this project's 2-core VM). glibc's start-up probes the CPU with CPUID instructions,
    each a trap to the hypervisor on a VM (7 µs each here), which is the likely cost; musl's does
    not. The client starts once per ported call. A musl build that fails falls back to ``cc``."""
    chosen = os.environ.get("CC")
    if chosen:
        return [chosen]
    found = (shutil.which("musl-gcc"), shutil.which("cc") or shutil.which("gcc"))
    return [path for path in found if path]


def install_build() -> Path:
    """This install's client where port keeps it (the state folder's ``bin/``), built if need be."""
    from compat_adapter.statedir import state_home

    return build_client(state_home() / "bin")


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
