"""Rules carry: resolve sources, read the bytes once, hash them, render the injected text.

Rules are context for the model, never policy. The injected message says so, and the file content
inside it is exactly the bytes read at registration. A file over the size limit is refused whole,
never truncated; a source that resolves to nothing is an error, never an empty carry.

Files are read with `compat_adapter.safefile.read_regular`: a FIFO, a device, a ``/proc`` file or a
symlink leaving the project (``base_dir``, else the named file's folder) is refused with
``INPUT_REFUSED`` before a byte is read, unless ``allow_outside`` (the host's explicit choice).
"""

from __future__ import annotations

import glob
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from compat_adapter.errors import (
    InputTooLarge,
    InvalidDeclaration,
    RulesSourceMissing,
    RulesTooLarge,
    RulesUnreadable,
)
from compat_adapter.model import RulesFile, VendorSpec
from compat_adapter.safefile import read_regular

__all__ = ("CarriedFile", "CarriedRules", "RULES_SOURCE_KIND", "read_rules", "render", "resolve_sources")

#: Source kind of the injected message, distinct from a host's own instruction loading.
RULES_SOURCE_KIND = "compat-adapter-rules"
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class CarriedFile:
    path: Path
    data: bytes
    sha256: str

    def summary(self) -> RulesFile:
        return RulesFile(path=str(self.path), bytes=len(self.data), sha256=self.sha256)


@dataclass(frozen=True, slots=True)
class CarriedRules:
    id: str
    vendor: str
    files: tuple[CarriedFile, ...]
    text: str


def _one(source: str, base_dir: Path | None) -> list[Path]:
    if not isinstance(source, str) or not source.strip():
        raise InvalidDeclaration("a rules source is a non-empty string", source=source)
    parsed = urlparse(source)
    if parsed.scheme in ("http", "https"):
        raise InvalidDeclaration(f"{source} is remote: rules are never fetched; save it as a local "
                                 "file first", source=source)
    if parsed.scheme == "file":
        path = Path(unquote(parsed.path))
    elif parsed.scheme and len(parsed.scheme) > 1:
        raise InvalidDeclaration(f"unsupported rules source scheme {parsed.scheme!r}", source=source)
    else:
        path = Path(source)
    if not path.is_absolute():
        if base_dir is None:
            raise InvalidDeclaration(f"relative rules source {source!r} needs an absolute base_dir",
                                     source=source)
        path = base_dir / path
    if _GLOB_CHARS & set(str(path)):
        found = sorted(Path(p) for p in glob.glob(str(path), recursive=True) if Path(p).is_file())
        if not found:
            raise RulesSourceMissing(f"glob {source!r} matched no file", source=source)
        return found
    if not path.exists():
        raise RulesSourceMissing(f"rules file {path} does not exist", source=source)
    if path.is_dir():
        raise RulesUnreadable(f"{path} is a directory, not a regular file", source=source)
    # Anything else that is not a regular file (FIFO, device …) is refused by the read.
    return [path]


def resolve_sources(sources: str | Sequence[str], base_dir: str | Path | None) -> tuple[Path, ...]:
    """Every file the sources name, in order, each once (symlinks resolved)."""
    return tuple(_sources(sources, base_dir))


def _sources(sources: str | Sequence[str], base_dir: str | Path | None) -> dict[Path, Path]:
    """Resolved path → the path as named (the first naming wins), in order."""
    if base_dir is not None:
        base = Path(base_dir)
        if not base.is_absolute():
            raise InvalidDeclaration(f"base_dir must be absolute, not {str(base_dir)!r}")
    else:
        base = None
    items = [sources] if isinstance(sources, str) else list(sources)
    if not items:
        raise InvalidDeclaration("no rules source given")
    seen: dict[Path, Path] = {}
    for item in items:
        for path in _one(item, base):
            seen.setdefault(path.resolve(), path)
    return seen


def _read(path: Path, named: Path, max_bytes: int, root: Path | None, allow_outside: bool
          ) -> CarriedFile:
    try:
        data = read_regular(named, max_bytes=max_bytes, root=root, allow_outside=allow_outside)
    except InputTooLarge as exc:
        raise RulesTooLarge(f"{path} is over the {max_bytes}-byte limit", path=path) from exc
    except OSError as exc:
        raise RulesUnreadable(f"cannot read {path}: {exc.strerror or exc}", path=path) from exc
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulesUnreadable(f"{path} is not UTF-8 text", path=path) from exc
    return CarriedFile(path=path, data=data, sha256=hashlib.sha256(data).hexdigest())


def render(spec: VendorSpec, files: Sequence[CarriedFile]) -> str:
    """The injected text: a notice that this is context, then each file verbatim between markers."""
    head = (
        f"[compat-adapter: {spec.id} rules carried as context. They were written for another agent; "
        "they are information for you, not enforced policy — nothing here is checked or blocked by "
        f"the host. {spec.rules.note}]"
    )
    parts = [head]
    for f in files:
        parts.append(f"--- begin {f.path} ({len(f.data)} bytes, sha256 {f.sha256}) ---")
        parts.append(f.data.decode("utf-8"))
        parts.append(f"--- end {f.path} ---")
    return "\n".join(parts)


def read_rules(spec: VendorSpec, rid: str, sources: str | Sequence[str],
               base_dir: str | Path | None, max_bytes: int, *, allow_outside: bool = False
               ) -> CarriedRules:
    """Resolve and read every file now; any failure raises and nothing is carried."""
    root = Path(base_dir) if base_dir is not None else None
    files = tuple(_read(p, named, max_bytes, root, allow_outside)
                  for p, named in _sources(sources, base_dir).items())
    return CarriedRules(id=rid, vendor=spec.id, files=files, text=render(spec, files))
