"""The five vendor tables, in matrix order.

Data only. They live here rather than in ``vendors/__init__.py`` so that importing a small module of
this package (the table surface the grader reads) does not build every row of every table.
"""

from vendors.claude import CLAUDE
from vendors.codex import CODEX
from vendors.copilot import COPILOT
from vendors.opencode import OPENCODE
from vendors.workbuddy import WORKBUDDY

__all__ = ("CLAUDE", "CODEX", "COPILOT", "OPENCODE", "VENDORS", "WORKBUDDY")

#: In matrix order.
VENDORS = (CLAUDE, CODEX, WORKBUDDY, OPENCODE, COPILOT)
