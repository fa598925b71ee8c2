"""The five vendor tables. Data only: module-level constants built from model types.

A test over the syntax tree keeps every module here free of `def`, `class`, I/O and host imports.
"""

from vendors.claude import CLAUDE
from vendors.codex import CODEX
from vendors.copilot import COPILOT
from vendors.opencode import OPENCODE
from vendors.workbuddy import WORKBUDDY

__all__ = ("CLAUDE", "CODEX", "COPILOT", "OPENCODE", "VENDORS", "WORKBUDDY")

#: In matrix order.
VENDORS = (CLAUDE, CODEX, WORKBUDDY, OPENCODE, COPILOT)
