"""Find every vendor's hook and rules files in one project folder, and import them all.

Each vendor's own project layout decides what is found (its importer's ``project_files``), plus
the few places that layout leaves out: a Claude plugin's ``hooks/hooks.json``, WorkBuddy's
``.workbuddy/settings.json``, an ``.opencode/opencode.json(c)`` and a CodeBuddy plugin's hooks. A
file is found by where the vendor looks for it, never guessed from its content. Nothing above the
folder and no user-level file is searched.

Some files are read by two vendors (Copilot CLI runs a repository's ``.claude/settings.json``
hooks; OpenCode and Copilot read ``AGENTS.md``/``CLAUDE.md``): each vendor imports what it reads,
and :func:`twice` says which hooks would then run twice on one host.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from compat_adapter.errors import CompatError
from compat_adapter.importers.common import ImportedHook, ImportResult
from compat_adapter.importers.gate import importer_for

__all__ = ("Discovered", "Twice", "discover", "import_all", "twice")

#: Vendors in matrix order.
VENDOR_ORDER = ("claude", "codex", "workbuddy", "opencode", "copilot")

#: Places a vendor reads that its project layout list does not name.
_EXTRA: Mapping[str, tuple[str, ...]] = {
    "claude": ("hooks/hooks.json",),  # a Claude Code plugin's hooks, when the folder is a plugin
    "workbuddy": (".workbuddy/settings.json", ".workbuddy/settings.local.json"),
    "opencode": (".opencode/opencode.json", ".opencode/opencode.jsonc"),
}
#: Copilot CLI also runs these Claude files' hooks (vendor-protocols §5.1, item 4).
COPILOT_READS_CLAUDE = (".claude/settings.json", ".claude/settings.local.json")


def _plugin(root: Path, vendor: str) -> bool:
    marker = {"claude": ".claude-plugin", "workbuddy": ".codebuddy-plugin"}.get(vendor)
    return marker is not None and (root / marker).is_dir()


def discover(root: str | Path) -> dict[str, list[Path]]:
    """Vendor id → the files that vendor reads under ``root``, in the vendor's order."""
    base = Path(root)
    found: dict[str, list[Path]] = {}
    for vendor in VENDOR_ORDER:
        files = list(importer_for(vendor).project_files(base))
        for name in _EXTRA.get(vendor, ()):
            path = base / name
            if name.startswith("hooks/") and not _plugin(base, vendor):
                continue
            if path.is_file() and path not in files:
                files.append(path)
        if vendor == "workbuddy" and _plugin(base, vendor) and (base / "hooks/hooks.json").is_file():
            files.append(base / "hooks/hooks.json")
        if files:
            found[vendor] = files
    return found


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
    vendors = {p.vendor for p in results}
    if "copilot" in vendors:
        for part in results:
            if part.vendor != "claude" or part.result is None:
                continue
            for hook in part.result.hooks:
                if any(hook.origin.startswith(str(base / name) + ":") for name in COPILOT_READS_CLAUDE):
                    out.append(Twice(origin=hook.origin, other=hook.origin, why=(
                        "Copilot CLI also runs the hooks of this Claude file; with the Copilot import "
                        "registered too, a host that stands in for both would run it twice")))
    return tuple(out)
