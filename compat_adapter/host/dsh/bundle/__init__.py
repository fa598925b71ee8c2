"""The DeepSeek Harness bundle, shipped as package data: ``plugin.mjs`` (the Cordis plugin),
``channel.mjs`` (its JSON-lines transport), ``package.json`` and ``cordis.patch.yml`` (the profile
row). ``python -m compat_adapter.host.dsh.bundle`` prints this folder, for
``dsh plugin --profile <p> add "file:$(python -m compat_adapter.host.dsh.bundle)"``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ("BUNDLE_DIR",)

#: The bundle folder (what ``dsh plugin add file:…`` installs).
BUNDLE_DIR = Path(__file__).resolve().parent
