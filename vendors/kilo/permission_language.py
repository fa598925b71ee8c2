"""Kilo's permission rules: OpenCode's rule language under Kilo's id (its ``permission`` block in
``kilo.json`` is OpenCode's shape and is weighed as OpenCode weighs it: the lane's ``perm_*`` cases
on ``kilo run`` 7.7.9 give OpenCode's verdicts).

Kilo's agents bring defaults of their own (its ``code`` agent allows ``echo *``, logged as
``action.source=agent``), which this language does not know: it applies OpenCode's defaults.
"""

from __future__ import annotations

import dataclasses

from vendors.opencode.permission_language import LANGUAGE as OPENCODE_LANGUAGE

__all__ = ("LANGUAGE",)

LANGUAGE = dataclasses.replace(OPENCODE_LANGUAGE, vendor="kilo")
