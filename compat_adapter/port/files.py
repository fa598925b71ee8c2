"""Writing, checking and removing what ``port`` puts in a target's files.

Every write is atomic (a temporary file beside the target, then a rename). Beside the target file
port keeps a record (``.compat-adapter/port/<target>.json`` in the project) of the file's bytes
before port first touched it and of what port wrote: removal restores those bytes exactly when the
file is still as port left it, and otherwise takes out only port's own entries.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from compat_adapter.hostface import HostFace
from compat_adapter.port.nativerules import NativeRule, add_rules, holds, strip_rules
from compat_adapter.port.plan import PortPlan

__all__ = ("Change", "expected_text", "record_path", "remove_port", "write_atomic", "write_port")

RECORD_DIR = ".compat-adapter/port"


@dataclass(frozen=True, slots=True)
class Change:
    """What port did (or would do) to one file."""

    path: Path
    action: str  # "write" | "unchanged" | "restore" | "strip" | "delete" | "none"
    text: str | None = None
    note: str = ""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def record_path(root: Path, target: str) -> Path:
    return root / RECORD_DIR / f"{target}.json"


def write_atomic(path: Path, data: bytes) -> None:
    """``data`` at ``path``, all or nothing: a reader sees the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".port-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read(path: Path) -> bytes | None:
    from compat_adapter.safefile import read_regular

    return read_regular(path, max_bytes=8 * 1024 * 1024, allow_outside=True) if path.exists() else None


def _record(root: Path, target: str) -> dict[str, object] | None:
    path = record_path(root, target)
    return json.loads(path.read_text()) if path.is_file() else None


def _natives(record: dict[str, object] | None) -> list[NativeRule]:
    """The rules port wrote in the target's own block (and the team had not written there itself)."""
    given = (record or {}).get("native")
    return [(str(p), str(b), str(t)) for p, b, t in given] if isinstance(given, list) else []


def _stripped(face: HostFace, current: str, record: dict[str, object] | None) -> str | None:
    return strip_rules(face.strip(current), _natives(record))


def _base(face: HostFace, current: bytes | None, record: dict[str, object] | None) -> str | None:
    """The target file as the team has it, without port's entries."""
    if record is not None and current is not None and _sha(current) == record.get("written"):
        original = record.get("original")
        return base64.b64decode(str(original)).decode() if original is not None else None
    if current is None or face.owns_file:
        return None
    return _stripped(face, current.decode(), record)


def expected_text(root: Path, face: HostFace, plan: PortPlan) -> str | None:
    """What the target file would hold after port (None: no file, nothing to carry and none before)."""
    path = root / plan.file
    current = _read(path)
    base = _base(face, current, _record(root, plan.target))
    text = face.render(base, plan.entries) if plan.entries else base
    return add_rules(text, plan.native)


def _added(face: HostFace, root: Path, plan: PortPlan) -> list[NativeRule]:
    """Of the rules port writes in the target's block, those the team's file does not hold itself."""
    base = _base(face, _read(root / plan.file), _record(root, plan.target))
    return [r for r in plan.native if not holds(base, r)]


def write_port(root: Path, face: HostFace, plan: PortPlan, *, dry_run: bool = False) -> Change:
    path = root / plan.file
    current = _read(path)
    record = _record(root, plan.target)
    text = expected_text(root, face, plan)
    if text is not None and current is not None and text.encode() == current:
        return Change(path, "unchanged", text)
    if text is None:
        return Change(path, "none", None, "nothing to port")
    if dry_run:
        return Change(path, "write", text)
    if record is None:
        # The folders port creates for the file, deepest first: removal takes them away again.
        made = [str(q) for q in Path(plan.file).parents if str(q) != "." and not (root / q).exists()]
        record = {"file": plan.file, "made": made,
                  "original": base64.b64encode(current).decode() if current is not None else None}
    record["native"] = [list(r) for r in _added(face, root, plan)]
    data = text.encode()
    write_atomic(path, data)
    record["written"] = _sha(data)
    write_atomic(record_path(root, plan.target), (json.dumps(record, indent=2) + "\n").encode())
    return Change(path, "write", text)


def remove_port(root: Path, face: HostFace, target: str, *, dry_run: bool = False) -> Change:
    """Take port's entries out of the target's file: its bytes from before port when port's write
    is still what the file holds, else the file with only port's entries stripped."""
    path = root / face.file
    record = _record(root, target)
    current = _read(path)
    if record is None:
        if current is None or face.owns_file:
            return Change(path, "none", None, f"port wrote nothing for {target} here")
        stripped = face.strip(current.decode())
        if stripped is not None and stripped.encode() == current:
            return Change(path, "none", None, f"{face.file} holds no entry of port's")
        action, data = "strip", (stripped.encode() if stripped is not None else None)
        note = "no port record: only port's entries were taken out"
    elif current is not None and _sha(current) == record.get("written"):
        original = record.get("original")
        data = base64.b64decode(str(original)) if original is not None else None
        action, note = "restore", "restored byte for byte"
    else:
        stripped = _stripped(face, current.decode(), record) if current is not None and not face.owns_file else None
        data = stripped.encode() if stripped is not None else None
        action, note = "strip", f"{face.file} changed since port wrote it: only port's entries were taken out"
    if dry_run:
        return Change(path, action, data.decode() if data is not None else None, note)
    if data is None:
        path.unlink(missing_ok=True)
    else:
        write_atomic(path, data)
    record_path(root, target).unlink(missing_ok=True)
    given = (record or {}).get("made")
    made = [root / str(m) for m in given] if isinstance(given, list) else []
    for folder in (record_path(root, target).parent, record_path(root, target).parent.parent, *made):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    return Change(path, "delete" if data is None else action, None if data is None else data.decode(), note)
