"""Reading a file's permission block through its vendor's rule language, for every importer.

An importer that finds a vendor's permission block hands it here with the file's scope; the rules,
settings and refusals land in the file's import. A vendor whose unit declares no rule language gets
one refusal for the block (``UNREAD_PERMISSIONS``): its rules are listed as not enforced, never
dropped in silence.
"""

from __future__ import annotations

from pathlib import Path

from compat_adapter.importers.common import FileImport, Refused
from compat_adapter.model import VendorSpec
from compat_adapter.permissions.language import RuleLanguage

__all__ = ("language_of", "read_block")


def language_of(vendor: str) -> RuleLanguage | None:
    """The rule language a vendor's unit declares, or None when it declares none."""
    from compat_adapter.catalog import unit_of

    return unit_of(vendor).permissions


def read_block(spec: VendorSpec, value: object, *, path: Path, shown: str, place: str, scope: str,
               out: FileImport) -> None:
    """Read one permission block (``value`` at ``place`` of file ``shown``) into ``out``."""
    language = language_of(spec.id)
    if language is None:
        out.refused.append(Refused(vendor=spec.id, what=f"permission rules `{place}`", origin=f"{shown}:{place}",
                                   code="UNREAD_PERMISSIONS",
                                   reason=f"{spec.id}'s permission rules are not read here yet: none of them "
                                          "is enforced on the host"))
        return
    found = language.read(value, path=path, shown=shown, place=place, scope=scope)
    out.permissions.extend(found.rules)
    out.permission_settings.extend(found.settings)
    out.refused.extend(found.refused)
