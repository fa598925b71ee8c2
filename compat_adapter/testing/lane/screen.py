"""What a vendor's interactive terminal UI shows its user, read off the screen (test support).

A CLI's non-interactive mode (``claude -p``, ``codex exec``) prints the answer and little else: a
hook's ``stopReason`` or ``systemMessage`` appears nowhere in it, while the same CLI's terminal UI
draws it for the person (measured, lane cases ``*_halt`` and ``system_message``). So the lane reads
what the person saw where the person sees it: ``python -m compat_adapter.testing.lane.screen OUT --
ARGV…`` runs the interactive CLI in a detached tmux of a fixed size (inside the lane's sandbox, so
offline like every lane run), waits until the screen has stood still, and prints the screen on its
stdout, which the sandbox records as the run's output. :func:`notices_on` then cuts the screen into
the blocks the UI draws and keeps those that carry a mark.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

__all__ = ("notices_on", "watch")

#: The glyphs that open a block in the terminal UIs the lane reads: Claude Code's message bullet,
#: its result elbow, prompt and status marks; Codex's cell bullet, its hook-message arrow and prompt.
OPENERS = "●⎿❯✻•↳›"
#: Glyphs that lead a block's continuation line and are drawing, not text (Codex's result elbow).
LEADERS = "└│"
#: The terminal's size: wide enough that no notice of the lane wraps.
SIZE = ("200", "60")
#: How long the screen must stand still to count as settled, and how long a run may take at most.
QUIET_S = 6.0
LIMIT_S = 120.0


def _capture(tmux: list[str]) -> str:
    done = subprocess.run([*tmux, "capture-pane", "-p", "-J", "-S", "-", "-t", "lane"], capture_output=True, text=True)
    return done.stdout


def watch(out: Path, argv: list[str], *, quiet: float = QUIET_S, limit: float = LIMIT_S) -> str:
    """Run ``argv`` in a private tmux server under ``out``; the screen once it has settled."""
    if shutil.which("tmux") is None:
        raise RuntimeError("tmux is not installed: the lane reads a terminal UI through it (apt-get install tmux)")
    out.mkdir(parents=True, exist_ok=True)
    tmux = ["tmux", "-S", str(out / "tmux.sock")]
    line = " ".join("'" + a.replace("'", "'\\''") + "'" for a in argv)
    # The pane outlives the CLI (it may exit by itself), so that its last screen can still be read.
    subprocess.run([*tmux, "-f", "/dev/null", "new-session", "-d", "-x", SIZE[0], "-y", SIZE[1], "-s", "lane",
                    f"{line}; sleep {int(limit) + 30}"], check=True)
    started = time.monotonic()
    last, still_since = "", time.monotonic()
    try:
        while time.monotonic() - started < limit:
            time.sleep(0.5)
            now = _capture(tmux)
            if now != last:
                last, still_since = now, time.monotonic()
            elif now.strip() and time.monotonic() - still_since >= quiet:
                break
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    (out / "screen.txt").write_text(last)
    return last


def _text(line: str) -> tuple[int, str]:
    """A screen line's text column and its text without the UI's drawing glyphs."""
    body = line.lstrip(" \u00a0")
    column = len(line) - len(body)
    while body and (body[0] in OPENERS or body[0] in LEADERS):
        body = body[1:]
        stripped = body.lstrip(" \u00a0")
        column += 1 + len(body) - len(stripped)
        body = stripped
    return column, body.rstrip()


def notices_on(screen: str, markers: Iterable[str], *, blank_ends: bool = False) -> tuple[str, ...]:
    """The blocks of ``screen`` that carry one of ``markers``, each as its lines of text.

    A block opens at a line led by one of :data:`OPENERS`; a later line belongs to it while it is
    indented at least as far as the block's text (after a blank line: exactly as far). Blank lines
    inside a block are kept, one each, unless ``blank_ends``: a UI that leaves a blank line after
    every block (Codex's history cells) puts its next, unbulleted line (a "Worked for" status) in a
    block of its own."""
    marks = tuple(markers)
    blocks: list[list[str]] = []
    column = 0
    after_blank = False
    for raw in screen.splitlines():
        line = raw.rstrip()
        lead = line.lstrip(" \u00a0")[:1]
        indent = len(line) - len(line.lstrip(" \u00a0"))
        if lead and lead in OPENERS:
            column, text = _text(line)
            blocks.append([text])
        elif not line.strip():
            if blocks and blank_ends:
                column = sys.maxsize  # the next line opens a block of its own
            elif blocks:
                blocks[-1].append("")
            after_blank = True
            continue
        elif blocks and (indent == column or (indent > column and not after_blank)):
            # After a blank line only a paragraph at the block's own column goes on with it (a
            # right-aligned status line, Claude's "◐ medium · /effort", is no part of it).
            blocks[-1].append(_text(line)[1])
        else:
            blocks.append([_text(line)[1]])
            column = indent
        after_blank = False
    out = []
    for lines in blocks:
        while lines and not lines[-1]:
            lines.pop()
        text = "\n".join(lines)
        while "\n\n\n" in text:
            text = text.replace("\n\n\n", "\n\n")
        if any(m in text for m in marks):
            out.append(text)
    return tuple(out)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3 or args[1] != "--":
        sys.stderr.write("usage: python -m compat_adapter.testing.lane.screen OUT -- ARGV...\n")
        return 2
    sys.stdout.write(watch(Path(args[0]), args[2:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
