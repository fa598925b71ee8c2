"""Live verification: every vendor row, end to end, on the embedded host with a real hook.

For one row, :func:`verify_row` makes a fresh temporary git repository (one commit, identity set in
the repository's own config), boots a :class:`~compat_adapter.host.embedded.memory.MemoryHost` on it, creates
a :class:`~compat_adapter.service.CompatAdapter` and registers ONE command hook: a small shell
script that records every stdin payload it gets to a file and prints an answer written in the
row's vendor dialect. It then drives the session until the row's seam fires and checks two things:

* the hook really ran, and its payload speaks the vendor's dialect (Claude ``hook_event_name``,
  Copilot camelCase ``toolName`` with ``toolArgs`` as an object, OpenCode ``{hook, input,
  output}`` …, with the vendor's stdin framing);
* the answer had the effect the row promises: a deny blocks (no side effect, the reason is in the
  tool result the model reads), an ask reaches the host's approval and fails closed without an
  approver, a permission allow turns an approval into allowed-once, context reaches the session
  log as a user message (the child's log for subagent starts), a stop block forces another step of
  the same turn, an observe-only row runs the hook while a blocking answer is audited as not
  honoured and blocks nothing, and the service rows fire for real (a file written from outside, a
  ``git worktree add``, a turn that writes a ``.py`` file, a ``DSH_*`` variable in the shell).

Each check returns a frozen :class:`RowCheck`. :func:`verify_all` runs every row, two at a time.

The parts: ``harness`` (the probe hook, one session per check), ``checks`` (answers in each
vendor's dialect and what a payload and an observe-only run must show), ``drivers`` and
``services`` (one driver per point), ``run`` (which driver checks which row).
"""

from __future__ import annotations

__all__ = (
    "BRIDGE_DRIVERS",
    "DRIVERS",
    "driver_for",
    "CONCURRENCY",
    "CONTEXT",
    "CONTINUE",
    "REASON",
    "HookProbe",
    "RowCheck",
    "Session",
    "all_rows",
    "graded_rows",
    "ask_policy",
    "bash_reply",
    "check_payload",
    "log_records",
    "make_repo",
    "open_session",
    "specific",
    "tool_results",
    "user_messages",
    "verify_all",
    "verify_row",
)

from compat_adapter.testing.live.checks import check_payload, specific
from compat_adapter.testing.live.harness import (
    CONCURRENCY,
    CONTEXT,
    CONTINUE,
    REASON,
    HookProbe,
    RowCheck,
    Session,
    all_rows,
    bash_reply,
    log_records,
    make_repo,
    open_session,
    tool_results,
    user_messages,
)
from compat_adapter.testing.live.run import BRIDGE_DRIVERS, DRIVERS, driver_for, graded_rows, verify_all, verify_row
from compat_adapter.testing.live.services import ask_policy
