"""The importers' side of trust: every file read is checked against the user's trust store.

``import_files`` reads each file through :func:`gate`. Hooks of a file the user has
not trusted (or that changed since, or whose hooks run a project file that changed) become
``Refused`` entries with code ``UNTRUSTED`` and the stable ``untrusted: …`` reason naming the command
that trusts them; so they are never registered, mounted or started. Rules stay: they are context,
and each ``ImportedRules`` says whether its file was trusted. :func:`review` and :func:`trust_files`
are what ``compat-adapter trust`` and explicit callers (tests, set-up scripts) use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from compat_adapter.catalog import resolve_vendor, unit_of
from compat_adapter.errors import ConfigParseError
from compat_adapter.importers.common import FileImport, ImportedHook, Refused
from compat_adapter.model import VendorSpec
from compat_adapter.registry import Importer
from compat_adapter.trust import (
    UNTRUSTED,
    HookView,
    TrustRecord,
    TrustStore,
    Verdict,
    command_view,
    file_digest,
    project_root,
    trust_all_enabled,
    warn_trust_all,
)

__all__ = ("Review", "gate", "importer_for", "review", "trust_files")


def importer_for(vendor_id: str) -> Importer:
    """The importer of a vendor id or alias: its unit's (the one resolver of it)."""
    return unit_of(vendor_id).importer


def _views(spec: VendorSpec, hooks: Sequence[ImportedHook], root: Path) -> tuple[HookView, ...]:
    return tuple(command_view(spec, h.event, h.matcher, h.handler, root, h.declared.place) for h in hooks)


def gate(spec: VendorSpec, path: Path, shown: str, read: Callable[[], FileImport], *,
         trust_all: bool | None = None, store: TrustStore | None = None) -> FileImport:
    """``read()`` the file, then hold back the hooks if it is untrusted or changed; mark its rules
    trusted or not. The digest is taken before the read, so the bytes parsed are the bytes trusted.

    ``trust_all`` None follows :func:`compat_adapter.trust.trusting_all`; True lets every hook
    through, with a warning line on stderr for each untrusted file, every time.
    """
    before = file_digest(path)
    part = read()
    if not part.hooks and not part.rules and not part.plugins:
        return part
    root = project_root(path)
    views = _views(spec, part.hooks, root)
    verdict = (store or TrustStore()).check_read(path, before, views, root=root, shown=shown)
    part.rules = [replace(r, trusted=verdict.trusted) for r in part.rules]
    if verdict.trusted:
        return part
    if trust_all if trust_all is not None else trust_all_enabled():
        if part.hooks or part.plugins:
            warn_trust_all(shown, verdict)
        return part
    part.refused.extend(Refused(vendor=h.vendor, what=_what(v), reason=verdict.why, origin=h.origin, code=UNTRUSTED,
                                event=h.event, matcher=h.matcher) for h, v in zip(part.hooks, views, strict=True))
    # A plugin is code as much as a hook command is: it loads only from a trusted file.
    part.refused.extend(Refused(vendor=p.vendor, what=f"plugin {Path(p.name).name if p.kind == 'file' else p.name}",
                                reason=verdict.why, origin=p.origin, code=UNTRUSTED) for p in part.plugins)
    part.hooks = []
    part.plugins = []
    return part


def _what(view: HookView) -> str:
    on = f"{view.event}[{view.matcher}]" if view.matcher else view.event
    text = view.command if len(view.command) <= 60 else view.command[:57] + "..."
    return f"command handler on {on}: {text}"


@dataclass(frozen=True, slots=True)
class Review:
    """One file as the user reviews it before trusting it."""

    vendor: str
    path: Path
    shown: str
    root: Path
    hooks: tuple[HookView, ...]
    """What would run: every hook the file declares that this project would run."""
    refused: tuple[Refused, ...]
    """Declared but never run here, whatever the trust (an http handler, a plugin …)."""
    rules: bool
    """The file carries rules (context)."""
    verdict: Verdict
    sha256: str
    """The digest of the bytes reviewed; trusting records this, not whatever is there later."""
    programs: Mapping[str, str | None]
    """Each project file the hooks run → its digest when reviewed."""
    plugins: tuple[str, ...] = ()
    """OpenCode plugins the file names (files, npm packages): code the plugin host would load."""
    origins: tuple[str, ...] = ()
    """Where each of :attr:`hooks` is declared (``<file>:<place>``), in the same order."""
    permissions: tuple[tuple[str, str, str], ...] = ()
    """(behaviour or setting key, rule text or value, origin) of each permission rule and setting:
    enforced whether the file is trusted or not (a rule only refuses or asks here)."""


def review(vendor: str, path: Path, shown: str | None = None, store: TrustStore | None = None) -> Review:
    """Read one file (without the gate) and say what would run and whether it is trusted now."""
    spec = resolve_vendor(vendor)
    shown = shown or str(path)
    if not path.is_file():
        raise ConfigParseError(f"{shown}: no such file", path=shown)
    before = file_digest(path)
    part = importer_for(spec.id).import_file(spec, path, shown)
    if before is None or file_digest(path) != before:
        raise ConfigParseError(f"{shown}: changed while it was read; review it again", path=shown)
    root = project_root(path)
    views = _views(spec, part.hooks, root)
    programs = MappingProxyType({f: file_digest(root / f) for v in views for f in v.files})
    verdict = (store or TrustStore()).check_read(path, before, views, root=root, shown=shown)
    return Review(vendor=spec.id, path=path, shown=shown, root=root, hooks=views,
                  refused=tuple(part.refused), rules=bool(part.rules), verdict=verdict,
                  sha256=before, programs=programs,
                  plugins=tuple(f"{p.kind} {p.name}" for p in part.plugins),
                  origins=tuple(h.origin for h in part.hooks),
                  permissions=tuple((r.behavior, r.text, r.origin) for r in part.permissions)
                  + tuple((s.key, s.value if isinstance(s.value, str) else ", ".join(map(str, s.value))
                           if isinstance(s.value, tuple) else repr(s.value), s.origin)
                          for s in part.permission_settings))


def trust_files(vendor: str, paths: Sequence[str | Path], *, command: str,
                store: TrustStore | None = None) -> tuple[TrustRecord, ...]:
    """Trust files as they are now, as reviewed by ``command`` (what the record will say did it)."""
    store = store or TrustStore()
    out = []
    for given in [paths] if isinstance(paths, str | Path) else paths:
        seen = review(vendor, Path(given), str(given), store)
        out.append(store.record(seen.path, seen.hooks, command, root=seen.root, sha256=seen.sha256,
                                programs=seen.programs))
    return tuple(out)
