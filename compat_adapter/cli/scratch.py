"""A scratch copy of a project for the commands that run its hooks (`run`, `explain`).

A hook is code: `rm -rf build`, a state file, a formatter rewriting sources. Run to see what it
would do, it must not do it to the user's project, so those commands copy the project to a
temporary folder and run there, unless ``--in-place``. Trust is the user's, per file and per
project: a file of the copy is trusted exactly when the original is, with the same bytes, in a
private trust store that lives as long as the copy (the user's own store is read, never written).
What a hook names by absolute path (``/home/me/project/build``) is still that path: only the
project folder is copied, and its installed dependencies (``node_modules``, ``.venv`` at the top)
are linked, not copied: hooks run the project's tools from there, and removing the link removes
nothing of the original.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from compat_adapter.errors import CompatError

__all__ = ("SCRATCH_NOTE", "scratch_project")

#: Said once by each command that ran in a copy.
SCRATCH_NOTE = ("ran in a scratch copy of {root} (its hooks changed nothing there; --in-place runs them in "
                "the project itself)")
_COMMAND = "compat-adapter (a scratch copy of a file the user trusted)"
#: Top-level folders linked into the copy, not copied: installed dependencies, large and read-only
#: to a hook.
_LINKED = frozenset({"node_modules", ".venv", "venv"})


def _carry_trust(root: Path, copy: Path, files: Sequence[tuple[str, Path]], scratch_home: Path) -> None:
    from compat_adapter.importers.gate import review
    from compat_adapter.trust import TrustStore

    users, scratch = TrustStore(), TrustStore(scratch_home)
    for vendor, original in files:
        try:
            seen = review(vendor, original, store=users)
            if not seen.verdict.trusted:
                continue
            twin = review(vendor, copy / original.relative_to(root), store=scratch)
        except (CompatError, ValueError):  # unusable here as there: the run reports it
            continue
        if twin.sha256 == seen.sha256:
            scratch.record(twin.path, twin.hooks, _COMMAND, root=twin.root, sha256=twin.sha256,
                           programs=twin.programs)


@contextlib.contextmanager
def scratch_project(root: Path, named: Sequence[tuple[str, Path]] = ()) -> Iterator[Path]:
    """A copy of ``root`` to run in, with the original's trust; the folder is removed afterwards.

    ``named``: (vendor, file) pairs named on the command line, besides every file a vendor reads
    in ``root`` (``importers.discover``)."""
    from compat_adapter.importers.discover import EVERY, discover
    from compat_adapter.statedir import STATE_HOME_ENV

    root = Path(os.path.realpath(root))
    with tempfile.TemporaryDirectory(prefix="compat-adapter-scratch-") as tmp:
        copy = Path(tmp) / (root.name or "project")
        shutil.copytree(root, copy, symlinks=True,
                        ignore=lambda folder, names: [n for n in names if folder == str(root) and n in _LINKED])
        for name in _LINKED:
            if (root / name).is_dir() and not (root / name).is_symlink():
                (copy / name).symlink_to(root / name, target_is_directory=True)
        home = Path(tmp) / "state"
        files = [(v, f) for v, found in discover(root, shared=EVERY).items() for f in found]
        files += [(v, Path(os.path.realpath(f))) for v, f in named if Path(os.path.realpath(f)).is_relative_to(root)]
        _carry_trust(root, copy, files, home)
        before = os.environ.get(STATE_HOME_ENV)
        os.environ[STATE_HOME_ENV] = str(home)
        try:
            yield copy
        finally:
            if before is None:
                os.environ.pop(STATE_HOME_ENV, None)
            else:
                os.environ[STATE_HOME_ENV] = before
