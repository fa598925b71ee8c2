"""Kilo as a host of other vendors' hooks: OpenCode's plugin face, written where Kilo loads plugins.

``port`` writes the same plugin OpenCode's face writes (callbacks that hand their arguments to the
shim and throw to deny) into ``.kilo/plugin/``, one of the folders ``kilo`` 7.7.9 loads plugin files
from (``.opencode`` is not one of them).
"""

from __future__ import annotations

import dataclasses

from vendors.opencode.hostface import FACE as OPENCODE_FACE

__all__ = ("FACE",)

FACE = dataclasses.replace(
    OPENCODE_FACE, vendor="kilo", file=".kilo/plugin/compat-adapter-port.ts",
    trust="Kilo loads every plugin file in .kilo/plugin with no prompt: review the written plugin as you "
          "would any code",
)
