"""Kilo's command contract: OpenCode's (``{hook, input, output}`` in, ``decision``/``reason`` out),
under Kilo's id. Kilo's plugin hooks and their arguments are OpenCode's, measured in the vendor lane
(``kilo run`` 7.7.9 sends the same ``input``/``output`` objects as ``opencode run`` 1.18.33)."""

from __future__ import annotations

from vendors.opencode.dialect import OpenCodeDialect

__all__ = ("DIALECT", "KiloDialect")


class KiloDialect(OpenCodeDialect):
    vendor: str = "kilo"


DIALECT = KiloDialect()
