"""Find every vendor's hook and rules files in one project folder, and import them all.

Each registered vendor's own project layout decides what is found (its importer's ``project_files``),
plus the places that layout leaves out (its ``extra_files``: a plugin's ``hooks/hooks.json`` when
the folder is one …). A file is found by where the vendor looks for it, never guessed from its
content. Nothing above the folder and no user-level file is searched.

Some files are read by two vendors. A hook file whose place names one of them (a plugin's
``hooks/hooks.json`` beside ``.claude-plugin/`` is Claude's, though CodeBuddy reads Claude plugins
too) is loaded once, as that vendor's (:func:`owner_of`; ``shared=`` picks otherwise), and
:func:`shared_files` says so. Rules files several vendors read (``AGENTS.md``) are context, carried
per vendor; Copilot CLI running a repository's ``.claude/settings.json`` hooks is another host's
behaviour: :func:`twice` says which hooks would then run twice on one host.

:func:`readers_of` is the one place a lone file's vendor is inferred (``trust FILE``, ``grade
FILE``): the vendors that read it where it sits, as a folder's discovery finds it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from compat_adapter.catalog import unit_of, units
from compat_adapter.errors import CompatError, NotAVendorFile
from compat_adapter.importers.common import ImportedHook, ImportResult, Refused
from compat_adapter.importers.loaders import load_json
from compat_adapter.model import UnsupportedVendor
from vendors.unsupported import UNSUPPORTED

__all__ = ("OWNER", "Discovered", "Shared", "Twice", "discover", "import_all", "owner_of", "readers_of",
           "shared_files", "vendor_of", "twice", "unsupported_files")

#: ``shared=`` for a file several vendors read: load it as the vendor its place names (the default).
OWNER = "owner"
#: ``shared=``: load it as every vendor that reads it (each copy registers, and runs).
EVERY = "all"
#: Rules are context each vendor carries on its own; only hook files are loaded once.
_RULES_SUFFIXES = (".md", ".mdc")


@dataclass(frozen=True, slots=True)
class Shared:
    """A file several vendors read, and as whose it is loaded."""

    path: Path
    readers: tuple[str, ...]
    loaded_as: tuple[str, ...]
    why: str


def _found(base: Path) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for unit in units():
        files = list(unit.importer.project_files(base))
        files += [path for path in unit.importer.extra_files(base) if path not in files]
        if files:
            found[unit.spec.id] = files
    return found


def owner_of(path: Path, readers: Sequence[str]) -> str | None:
    """The reader whose layout ``path`` belongs to: a folder of its name above the file
    (``.claude/settings.json``), or its manifest folder in the plugin the file belongs to
    (``.claude-plugin/`` beside a plugin's ``hooks/hooks.json``, ``.codebuddy-plugin/`` …). Every
    vendor names its folders after itself (its id or a documented alias); None when no reader's
    name marks the place, and the file is then every reader's."""
    full = Path(os.path.abspath(path))
    for vendor in readers:
        unit = unit_of(vendor)
        names = (unit.spec.id, *unit.spec.aliases)
        plugin = unit.importer.hook_place(full).plugin_root
        if plugin is not None:
            if any((Path(plugin) / f".{name}-plugin").is_dir() for name in names):
                return vendor
        elif any(folder.name in {f".{name}" for name in names} for folder in full.parents):
            return vendor
    return None


def _sharing(found: Mapping[str, list[Path]], shared: str) -> tuple[Shared, ...]:
    readers: dict[str, list[tuple[str, Path]]] = {}
    for vendor, files in found.items():
        for file in files:
            if file.suffix.lower() not in _RULES_SUFFIXES:
                readers.setdefault(os.path.realpath(file), []).append((vendor, file))
    out = []
    for both in readers.values():
        if len(both) < 2:
            continue
        path, names = both[0][1], tuple(v for v, _ in both)
        owner = owner_of(path, names)
        if shared == EVERY or (shared == OWNER and owner is None):
            why = ("every reader loads it (--shared-as all): registered once per vendor, its hooks run once "
                   "per vendor" if shared == EVERY else
                   "no reader's folder marks it, so each loads it: its hooks run once per vendor")
            out.append(Shared(path, names, names, why))
        elif shared == OWNER:
            assert owner is not None
            out.append(Shared(path, names, (owner,), (
                f"read by {', '.join(names)}; loaded once, as {owner}'s: its place is {owner}'s layout "
                "(--shared-as picks another reader, or all)")))
        else:
            chosen = tuple(v for v in names if v == shared) or names
            out.append(Shared(path, names, chosen, (
                f"read by {', '.join(names)}; loaded once, as {shared}'s (--shared-as {shared})"
                if chosen != names else f"{shared} does not read it; each reader loads it")))
    return tuple(out)


def shared_files(root: str | Path, *, shared: str = OWNER) -> tuple[Shared, ...]:
    """The hook files under ``root`` that several vendors read, and as whose each is loaded."""
    return _sharing(_found(Path(root)), shared)


def discover(root: str | Path, *, shared: str = OWNER) -> dict[str, list[Path]]:
    """Vendor id → the files that vendor reads under ``root``, in the vendor's order; vendors in
    matrix order. A hook file several vendors read is listed only under the vendor(s) it is loaded
    as (``shared``: ``"owner"``, ``"all"``, or a vendor id)."""
    found = _found(Path(root))
    for part in _sharing(found, shared):
        for vendor in set(part.readers) - set(part.loaded_as):
            found[vendor] = [f for f in found[vendor] if os.path.realpath(f) != os.path.realpath(part.path)]
    return {vendor: files for vendor, files in found.items() if files}


def readers_of(path: str | Path, *, shared: str = OWNER) -> tuple[Path, tuple[str, ...]]:
    """(the folder whose discovery finds ``path``, the vendors that load it there): its project
    (``compat_adapter.trust.project_root``) first, then the folders above it a plugin's hooks file
    sits in. No vendor: the file is nobody's where it sits."""
    from compat_adapter.trust import project_root

    full = Path(os.path.abspath(path))
    real = os.path.realpath(full)
    for folder in dict.fromkeys([project_root(full), *list(full.parents)[:4]]):
        found = discover(folder, shared=shared)
        vendors = tuple(v for v, files in found.items() if any(os.path.realpath(f) == real for f in files))
        if vendors:
            return folder, vendors
    return project_root(full), ()


def vendor_of(path: str | Path, *, shared: str = OWNER) -> str:
    """The vendor a lone file is read as (the first of :func:`readers_of`), for every command that
    takes a file without ``--vendor``.

    :raises NotAVendorFile: no vendor reads it where it sits.
    """
    _, vendors = readers_of(path, shared=shared)
    if not vendors:
        raise NotAVendorFile(f"{path}: no vendor reads this file where it sits (grade and trust find each "
                             "vendor's files where that vendor looks)", path=str(path))
    return vendors[0]


def unsupported_files(root: str | Path) -> list[tuple[UnsupportedVendor, Path]]:
    """The hook files under ``root`` of agents with no unit here (``vendors/unsupported.py``): a
    hooks file always, a shared settings file when it has a ``hooks`` key (or cannot be read as a
    JSON object, so that nobody can tell it has none)."""
    base = Path(root)
    out: list[tuple[UnsupportedVendor, Path]] = []
    registered = {name for u in units() for name in (u.spec.id, *u.spec.aliases)}
    for other in (u for u in UNSUPPORTED if u.id not in registered):  # a unit supersedes its listing
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
               vendors: Sequence[str] | None = None, shared: str = OWNER) -> tuple[Discovered, ...]:
    """Import every vendor's files under ``root``; one unusable file spoils only itself, never
    another file of the same vendor or another vendor's. A file several vendors read is imported
    as ``shared`` says (:func:`discover`)."""
    from compat_adapter.importers import import_files

    out = []
    for vendor, files in discover(root, shared=shared).items():
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
