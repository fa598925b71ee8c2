"""Reading what a terminal UI shows the person: the screen's blocks, and a real program in tmux."""

from __future__ import annotations

import sys
from pathlib import Path

from compat_adapter.testing.lane.scenarios import SHOWN_MARKERS
from compat_adapter.testing.lane.screen import notices_on, watch

#: Claude Code 2.1.332's screen after a blocked prompt (lane case claude:prompt_block), trimmed to
#: its layout: the message block with a paragraph after a blank line, then a right-aligned status.
CLAUDE_BLOCKED = """\
 \u2590\u259b\u2588\u2588\u2588\u259c\u258c   Claude Code v2.1.332

\u25cf UserPromptSubmit operation blocked by hook:
  LANE-BLOCK prompt

  Original prompt: run the lane step

                                                                                    \u25d0 medium \u00b7 /effort
\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500
\u276f run the lane step
"""

#: Claude Code's screen after a PreToolUse continue:false (lane case claude:pre_halt): the notice
#: hangs under the tool call, with a non-breaking space after the elbow as the UI draws it.
CLAUDE_HALT = """\
\u276f run the lane step

  Ran 1 shell command
  \u23bf \u00a0PreToolUse:Bash hook stopped Claude
     LANE-HALT stop

\u273b Cogitated for 6s \u00b7 done 1:25 AM
"""

#: Codex 0.171.0's history cells (lane cases codex:post_halt and codex:system_message).
CODEX_CELLS = """\
\u203a run the lane step

\u21b3 Hook \u00b7 LANE-SYSMSG for you

\u2022 Ran echo second > second.txt
  \u2514 (no output)

\u2022 Hook stopped
  \u2514 LANE-HALT stop

  Worked for 2s \u2022 01:33
"""


def test_a_blocks_paragraphs_stay_with_it_and_a_status_line_does_not() -> None:
    assert notices_on(CLAUDE_BLOCKED, SHOWN_MARKERS) == (
        "UserPromptSubmit operation blocked by hook:\nLANE-BLOCK prompt\n\nOriginal prompt: run the lane step",)


def test_a_notice_under_a_tool_call_is_its_own_block() -> None:
    assert notices_on(CLAUDE_HALT, SHOWN_MARKERS) == ("PreToolUse:Bash hook stopped Claude\nLANE-HALT stop",)
    # The status after it opens a block of its own (its glyph), not a line of the notice.
    assert notices_on(CLAUDE_HALT, ("Cogitated",)) == ("Cogitated for 6s \u00b7 done 1:25 AM",)


def test_cells_that_end_at_a_blank_line_keep_a_status_out() -> None:
    assert notices_on(CODEX_CELLS, SHOWN_MARKERS, blank_ends=True) == (
        "Hook \u00b7 LANE-SYSMSG for you", "Hook stopped\nLANE-HALT stop")
    # Read as one block across blank lines, the status would be glued to the hook's cell.
    assert "Worked for" in notices_on(CODEX_CELLS, ("LANE-HALT",))[0]


def test_watch_reads_a_real_programs_screen_in_tmux(tmp_path: Path) -> None:
    # A real process in a real tmux: it draws a notice, waits, and exits; the pane outlives it.
    program = ("import time; print('\u2022 Hook stopped'); print('  \u2514 LANE-HALT stop'); "
               "print(); print('  Worked for 1s'); time.sleep(1)")
    screen = watch(tmp_path / "screen", [sys.executable, "-c", program], quiet=2.0, limit=30.0)
    assert notices_on(screen, SHOWN_MARKERS, blank_ends=True) == ("Hook stopped\nLANE-HALT stop",)
    assert (tmp_path / "screen" / "screen.txt").read_text() == screen
