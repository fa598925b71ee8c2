"""The terminal a report is printed on: its width, whether it takes colour, and lines that fit it.

The width is the terminal's, or ``COLUMNS`` when there is no terminal (80 when neither says).
Text is wrapped, never cut: a line that does not fit continues on the next one, and a command the
user must run is kept whole on its own lines (continued with `` \\`` when even that is too wide),
so it can be copied as it is. Colour only on a terminal, never with ``NO_COLOR`` set
(https://no-color.org), and on purpose with ``FORCE_COLOR``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import textwrap
from typing import TextIO

__all__ = ("Printer", "colour_on", "width")

#: Narrower than this, wrapping does more harm than running over.
_MIN_WIDTH = 40

_STYLES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "blue": "34",
           "magenta": "35", "cyan": "36"}


def width() -> int:
    return max(_MIN_WIDTH, shutil.get_terminal_size((80, 24)).columns)


def colour_on(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty() and os.environ.get("TERM") != "dumb"


class Printer:
    """Lines wrapped to the width, styled when the stream takes colour."""

    def __init__(self, stream: TextIO | None = None, columns: int | None = None) -> None:
        self.stream = stream or sys.stdout
        self.width = columns or width()
        self.colour = colour_on(self.stream)

    def style(self, text: str, style: str | None) -> str:
        if not style or not self.colour:
            return text
        codes = ";".join(_STYLES[s] for s in style.split())
        return f"\x1b[{codes}m{text}\x1b[0m"

    def wrap(self, text: str, indent: int = 0, hang: int | None = None) -> list[str]:
        """``text`` wrapped to the width: the first line indented by ``indent``, the others by ``hang``."""
        hang = indent + 2 if hang is None else hang
        return textwrap.wrap(text, self.width, initial_indent=" " * indent, subsequent_indent=" " * hang,
                             break_on_hyphens=False, break_long_words=True) or [" " * indent]

    def line(self, text: str = "", indent: int = 0, hang: int | None = None, style: str | None = None,
             lead: str = "", lead_style: str | None = None) -> None:
        """One logical line, wrapped; ``lead`` (a grade, a code) starts it and is styled on its own."""
        head = f"{lead} " if lead else ""
        for i, out in enumerate(self.wrap(head + text, indent, hang)):
            if i == 0 and lead and out[indent:].startswith(lead):
                out = out[:indent] + self.style(lead, lead_style) + self.style(out[indent + len(lead):], style)
            else:
                out = self.style(out, style)
            self.stream.write(out + "\n")

    def command(self, words: list[str], indent: int = 4) -> None:
        """A command to run, whole: shell words on their own lines, continued with ``\\``."""
        lines: list[str] = []
        current = " " * indent
        for word in (shlex.quote(w) for w in words):
            if current.strip() and len(current) + 1 + len(word) + 2 > self.width:
                lines.append(current + " \\")
                current = " " * (indent + 2) + word
            else:
                current = f"{current} {word}" if current.strip() else current + word
        lines.append(current)
        for out in lines:
            self.stream.write(self.style(out, "bold") + "\n")
