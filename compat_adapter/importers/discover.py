"""Find every vendor's hook and rules files in one project folder, and import them all.

Each registered vendor's own project layout decides what is found (its importer's ``project_files``),
plus the places that layout leaves out (its ``extra_files``: a plugin's ``hooks/hooks.json`` when
the folder is one …). A file is found by where the vendor looks for it, never guessed from its
content. Nothing above the folder and no user-level file is searched.

Some files are read by two vendors (Copilot CLI runs a repository's ``.claude/settings.json``
hooks; OpenCode and Copilot read ``AGENTS.md``/``CLAUDE.md``): each vendor imports what it reads,
and :func:`twice` says which hooks would then run twice on one host.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from compat_adapter.catalog import units
from compat_adapter.errors import CompatError
from compat_adapter.importers.common import ImportedHook, ImportResult, Refused
from compat_adapter.importers.loaders import load_json
from compat_adapter.model import UnsupportedVendor
from vendors.unsupported import UNSUPPORTED

__all__ = ("Discovered", "Twice", "discover", "import_all", "twice", "unsupported_files")

def discover(root: str | Path) -> dict[str, list[Path]]:
    """Vendor id → the files that vendor reads under ``root``, in the vendor's order; vendors in
    matrix order."""
    base = Path(root)
    found: dict[str, list[Path]] = {}
    for unit in units():
        files = list(unit.importer.project_files(base))
        files += [path for path in unit.importer.extra_files(base) if path not in files]
        if files:
            found[unit.spec.id] = files
    return found


def unsupported_files(root: str | Path) -> list[tuple[UnsupportedVendor, Path]]:
    """The hook files under ``root`` of agents with no unit here (``vendors/unsupported.py``): a
    hooks file always, a shared settings file when it has a ``hooks`` key (or cannot be read as a
    JSON object, so that nobody can tell it has none)."""
    base = Path(root)
    out: list[tuple[UnsupportedVendor, Path]] = []
    for other in UNSUPPORTED:
        found = sorted({p for pattern in other.files for p in base.glob(pattern) if p.is_file()})
        for name in other.settings:
            path = base / name
            if path.is_file() and _has_hooks(path):
                found.append(path)
        out += [(other, path) for path in found]
    return out


def _has_hooks(path: Path) -> bool:
    try:
        return "hooks" in load_json(path, str(path))
    except CompatError:
        return True


@dataclass(frozen=True, slots=True)
class Discovered:
    """What one vendor's files in the project gave."""

    vendor: str
    files: tuple[Path, ...]
    result: ImportResult | None
    """What the usable files gave; None when no file of this vendor was usable."""
    errors: tuple[CompatError, ...] = ()
    """One per unusable file (unreadable, refused, not JSON/TOML at all); the other files still
    import."""

    @property
    def error(self) -> CompatError | None:
        """The first unusable file's error, if any."""
        return self.errors[0] if self.errors else None


def import_all(root: str | Path, *, trust_all: bool | None = None,
               vendors: Sequence[str] | None = None) -> tuple[Discovered, ...]:
    """Import every vendor's files under ``root``; one unusable file spoils only itself, never
    another file of the same vendor or another vendor's."""
    from compat_adapter.importers import import_files

    out = []
    for vendor, files in discover(root).items():
        if vendors is not None and vendor not in vendors:
            continue
        unusable: list[CompatError] = []
        result: ImportResult | None = import_files(vendor, files, trust_all=trust_all, unusable=unusable)
        if len(unusable) == len(files):
            result = None
        out.append(Discovered(vendor=vendor, files=tuple(files), result=result, errors=tuple(unusable)))
    # An agent this project has no unit for is named with its files, never skipped in silence.
    by_agent: dict[str, list[tuple[UnsupportedVendor, Path]]] = {}
    for other, path in unsupported_files(root):
        if vendors is None or other.id in vendors:
            by_agent.setdefault(other.id, []).append((other, path))
    for agent, found in by_agent.items():
        refused = tuple(Refused(vendor=agent, what=f"{other.name} hooks", origin=str(path), code="UNSUPPORTED_VENDOR",
                                reason=f"not a supported vendor: {other.name} ({agent}) has no vendor unit here, "
                                       "so this file is not read and none of its hooks run")
                        for other, path in found)
        out.append(Discovered(vendor=agent, files=tuple(p for _, p in found), result=ImportResult(refused=refused)))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Twice:
    """A hook that would load twice on one host, and why."""

    origin: str
    other: str
    """The origin of the copy it repeats."""
    why: str


def _command(hook: ImportedHook) -> str:
    h = hook.handler
    if isinstance(h, str):
        return h
    for key in ("command", "bash"):
        if isinstance(h.get(key), str):
            return str(h[key]).strip()
    return repr(sorted(h.items()))


def twice(results: Sequence[Discovered], root: str | Path) -> tuple[Twice, ...]:
    """Hooks that registering every import on one host would run twice.

    Two copies are the same hook when they run the same command on the same host point with the
    same matcher: the same handler in ``settings.json`` and ``settings.local.json`` (Claude and
    CodeBuddy run it once; registered twice here it runs twice), or a Claude file's hook that
    Copilot CLI also runs from the same file. A rules file several vendors read (``AGENTS.md``) is
    carried once per vendor.
    """
    out: list[Twice] = []
    seen: dict[tuple[str, str | None, str], list[ImportedHook]] = {}
    for part in results:
        for hook in part.result.hooks if part.result else ():
            key = (hook.declared.row.point, hook.matcher, _command(hook))
            # Within one vendor only the very same handler repeats: the same script under another
            # condition or timeout is another hook (a real config runs one gate under seven filters).
            first = next((h for h in seen.get(key, ()) if h.vendor != hook.vendor or h.handler == hook.handler),
                         None)
            seen.setdefault(key, []).append(hook)
            if first is None:
                continue
            same_vendor = first.vendor == hook.vendor
            why = (f"the same handler is declared again; {hook.vendor} would run it once, but "
                   "registered twice here it runs twice" if same_vendor else
                   f"{first.vendor} and {hook.vendor} both declare this command on the same host "
                   f"point ({hook.declared.row.point}); registering both imports runs it twice")
            out.append(Twice(origin=hook.origin, other=first.origin, why=why))
    carried: dict[str, list[str]] = {}
    for part in results:
        for rules in part.result.rules if part.result else ():
            for source in rules.sources:
                carried.setdefault(source, []).append(rules.origin)
    for source, origins in carried.items():
        for origin in origins[1:]:
            out.append(Twice(origin=origin, other=origins[0], why=(
                f"{Path(source).name} is read by several vendors; registering every import carries "
                "it into the context once per vendor")))
    base = Path(root)
    present = {p.vendor for p in results}
    # A vendor that also runs another vendor's hook files (Copilot CLI runs a repository's
    # .claude/settings.json hooks) says so in its importer; its unit names the files.
    for unit in units():
        if unit.spec.id not in present:
            continue
        for other, (names, why) in unit.importer.RUNS_HOOKS_OF.items():
            for part in results:
                if part.vendor != other or part.result is None:
                    continue
                for hook in part.result.hooks:
                    if any(hook.origin.startswith(str(base / name) + ":") for name in names):
                        out.append(Twice(origin=hook.origin, other=hook.origin, why=why))
    return tuple(out)
