"""Copilot CLI's tool rules: measured on Copilot CLI 1.0.102 (vendor lane, ``copilot -p``), a
repository settings file's ``permissions`` are not enforced (the command ran), so the import lists
them as skipped by the vendor, never as rules it dropped."""

from __future__ import annotations

import json
from pathlib import Path

from compat_adapter.importers import import_project


def test_permissions_in_copilot_settings_are_listed_as_not_enforced_by_copilot(tmp_path: Path) -> None:
    (tmp_path / ".github/copilot").mkdir(parents=True)
    (tmp_path / ".github/copilot/settings.json").write_text(json.dumps({"permissions": {"deny": ["shell(rm)"]}}))
    imported = import_project("copilot", tmp_path)
    assert imported.permissions == ()
    [entry] = imported.refused
    assert entry.code == "SKIPPED_BY_VENDOR" and entry.origin.endswith("settings.json:permissions")
    assert "--deny-tool" in entry.reason
