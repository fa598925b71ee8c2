"""The DSH lane's control plugin: what a user does in DSH's own UI, on request of the live checks.

A real 0.2.1 ``sdk`` profile runs its compaction, its commands and its agent lifecycle only when a
person asks for them in a UI; the SDK the lane drives sessions with has no call for them. This
Cordis bundle (added to the lane's own DSH home only, never to a user's) answers ``lane.*`` requests
on the compat-adapter bundle's channel by calling DSH's own services, as a UI plugin does:
``lane.compact`` (``ctx.compaction.compactNow``, what ``/compact`` does), ``lane.command`` (a line
through ``ctx.commands.execute``; it registers a ``review`` command to run), ``lane.cancel`` (an
agent's turn cancelled, as Esc does). Nothing here decides or changes what compat-adapter does.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ("CONTROLS_DIR",)

#: The bundle folder (``dsh plugin --profile sdk add file:…`` in the lane's home).
CONTROLS_DIR = Path(__file__).resolve().parent
