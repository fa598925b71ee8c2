"""Which driver checks which point, and the runs over one row or every row."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import nullcontext
from typing import Any

import anyio

from compat_adapter.catalog import resolve_event, resolve_vendor
from compat_adapter.declare import declare_hook
from compat_adapter.host.protocol import (
    ApprovalOutcome,
)
from compat_adapter.model import EventRow, Route, VendorSpec
from compat_adapter.routing import points
from compat_adapter.routing.points import POINTS, Point
from compat_adapter.testing.live.drivers import (
    Driver,
    drive_agent_created,
    drive_command,
    drive_compaction,
    drive_disposed,
    drive_error,
    drive_inbox,
    drive_message_display,
    drive_model_switch,
    drive_post_tool,
    drive_pre_step,
    drive_pre_tool,
    drive_pre_tool_ask,
    drive_session_created,
    drive_session_event,
    drive_settings,
    drive_status,
    drive_step_end,
    drive_stop,
    drive_subagent_end,
    drive_subagent_start,
    drive_todo,
    drive_workspace,
)
from compat_adapter.testing.live.narrow import drive_pre_tool_halt, drive_stop_observed
from compat_adapter.testing.live.speakers import speaker_for
from compat_adapter.testing.live.harness import (
    CONCURRENCY,
    ROW_TIMEOUT_S,
    RowCheck,
    Session,
    all_rows,
    open_session,
)
from compat_adapter.testing.live.services import (
    drive_approval,
    drive_approval_decided,
    drive_approval_deny,
    drive_approval_observed,
    drive_permission,
    drive_fs_watch,
    drive_lsp,
    drive_questions,
    drive_shell_env,
    drive_worktrees,
)

#: Driver per native point.
DRIVERS: Mapping[Point, Driver] = {
    points.PRE_EXECUTE: drive_pre_tool,
    points.POST_EXECUTE: drive_post_tool,
    points.PRE_STEP: drive_pre_step,
    points.PRE_STEP_TRANSFORM: drive_pre_step,
    points.TURN_STOPPING: drive_stop,
    points.AGENT_CREATED: drive_agent_created,
    points.SUBAGENT_START: drive_subagent_start,
    points.SUBAGENT_END: drive_subagent_end,
    points.COMPACTION_START: drive_compaction,
    points.COMPACTION_END: drive_compaction,
    points.DISPOSED: drive_disposed,
    points.AGENT_ERROR: drive_error,
    points.AGENT_STATUS: drive_status,
    points.INBOX: drive_inbox,
    points.SESSION_CREATED: drive_session_created,
    points.INSTRUCTIONS_LOADED: drive_session_created,
    points.SESSION_EVENT: drive_session_event,
    points.DISPLAY: drive_message_display,
    points.STEP_END: drive_step_end,
    points.TODO: drive_todo,
    points.MODEL_SWITCH: drive_model_switch,
    points.COMMAND: drive_command,
    points.WORKSPACE: drive_workspace,
    points.SETTINGS: drive_settings,
    points.APPROVAL: drive_approval,
    points.PERMISSION: drive_permission,
    points.APPROVAL_DECIDED: drive_approval_decided,
    points.QUESTIONS: drive_questions,
    points.FS_WATCH: drive_fs_watch,
    points.WORKTREES: drive_worktrees,
    points.SHELL_ENV: drive_shell_env,
    points.LSP: drive_lsp,
}
#: Driver per bridge event, for official-bridge rows (the host's bridge, not a point of ours).
BRIDGE_DRIVERS: Mapping[str, Driver] = {
    "PreToolUse": drive_pre_tool,
    "PostToolUse": drive_post_tool,
    "UserPromptSubmit": drive_pre_step,
    "Stop": drive_stop,
    "SessionStart": drive_agent_created,
    "SubagentStart": drive_subagent_start,
    "SubagentStop": drive_subagent_end,
}


def driver_for(row: EventRow) -> Driver:
    """The driver that checks a row: by its bridge event when bridged, else by its point."""
    if row.route is Route.OFFICIAL_BRIDGE:
        driver = BRIDGE_DRIVERS.get(row.bridge_event or row.event)
    else:
        point = POINTS.get(row.point)
        driver = DRIVERS.get(point) if point is not None else None
    if driver is None:
        raise LookupError(f"no verification driver for point {row.point!r}")
    return driver


def _scenarios(spec: VendorSpec, row: EventRow) -> list[tuple[str, Driver, dict[str, Any]]]:
    """The sessions one row is checked in: (label, driver, host options)."""
    driver = driver_for(row)
    out: list[tuple[str, Driver, dict[str, Any]]] = [(row.point, driver, {})]
    if driver is drive_pre_tool and speaker_for(spec.id).halts(row.event):
        out[0] = (row.point, drive_pre_tool_halt, {})
    elif driver is drive_pre_tool and speaker_for(spec.id).honours_ask(row.event):
        out.append(("ask", drive_pre_tool_ask, {}))
    if driver is drive_stop and row.blocking == "observe":
        out[0] = (row.point, drive_stop_observed, {})
    if driver is drive_approval and row.blocking == "observe":
        # The vendor reads nothing of a permission hook's answer: the person decides (allows here).
        out[0] = (row.point, drive_approval_observed, {})
    elif driver is drive_approval:
        out.append(("deny", drive_approval_deny, {}))
    if driver is drive_approval_decided:
        out[0] = (row.point, driver, {"approver": lambda request: ApprovalOutcome.REJECTED})
    return out


def graded_rows(host: str = "embedded", vendor: str | None = None, prefer: str = "fidelity"
                ) -> tuple[tuple[VendorSpec, EventRow], ...]:
    """The rows graded ADAPTED on ``host``'s surface on the route ``prefer`` chooses (the rows
    that host promises to run)."""
    from compat_adapter.grading import grade
    from compat_adapter.host.surfaces import surface_named
    from compat_adapter.model import Capability

    surface = surface_named(host)
    wanted = None if vendor is None else resolve_vendor(vendor).id
    out = []
    for spec, row in all_rows():
        if wanted is not None and spec.id != wanted:
            continue
        if grade(declare_hook(spec, row.event, None, "true"), surface,
                 prefer=prefer).capability is Capability.ADAPTED:
            out.append((spec, row))
    return tuple(out)


async def verify_row(vendor: str, event: str, prefer: str = "fidelity", *, host: str = "embedded") -> RowCheck:
    """Verify one vendor row end to end on ``host`` (``embedded`` or ``dsh``), on the route
    ``prefer`` chooses; never raises for a failing row."""
    spec = resolve_vendor(vendor)
    row = resolve_event(spec, event)
    if prefer == "official" and row.official is not None:
        row = row.official
    failures: list[str] = []
    proved: list[str] = []
    current: Session | None = None

    def collect(label: str) -> None:
        if current is not None:
            failures.extend(f"[{label}] {f}" if label != row.point else f for f in current.failures)
            proved.extend(current.proved)

    label = row.point
    try:
        with anyio.fail_after(ROW_TIMEOUT_S):
            for label, driver, options in _scenarios(spec, row):
                async with open_session(spec.id, row.event, host=host, prefer=prefer, **options) as current:
                    await driver(current)
                collect(label)
                current = None
    except TimeoutError:
        collect(label)
        failures.append(f"[{label}] timed out after {ROW_TIMEOUT_S:g} s")
    except Exception as exc:  # noqa: BLE001 - a crash is a failed row, reported with its cause
        collect(label)
        failures.append(f"[{label}] raised {type(exc).__name__}: {exc}")
    if failures:
        detail = "; ".join(failures)
    else:
        detail = "; ".join(dict.fromkeys(proved)) or "ok"
    return RowCheck(spec.id, row.event, str(row.route), not failures, detail)


async def verify_all(progress: Callable[[RowCheck], None] | None = None, *,
                     vendor: str | None = None, host: str = "embedded",
                     prefer: str | None = None) -> tuple[RowCheck, ...]:
    """Verify every row graded ADAPTED on ``host`` (or one vendor's), :data:`CONCURRENCY` at a
    time, in matrix order.

    A row the host's official bridge can also carry is verified twice: on its default route and
    with ``prefer="official"``, so both routes stay first-class. ``prefer`` keeps one policy only
    (``official``: the bridged rows on the bridge, every other row on its own route).
    """
    policies = ("fidelity", "official") if prefer is None else (prefer,)
    graded = {p: {(s.id, r.event) for s, r in graded_rows(host, vendor, p)} for p in ("fidelity", "official")}
    rows = []
    for spec, row in all_rows():
        for policy in policies:
            if row.official is None and policy == "official":
                if prefer is None:
                    continue  # checked once, on its only route
                policy = "fidelity"
            if (spec.id, row.event) in graded[policy]:
                rows.append((spec, row, policy))
    results: list[RowCheck | None] = [None] * len(rows)
    limiter = anyio.CapacityLimiter(CONCURRENCY)

    async def one(index: int, spec: VendorSpec, row: EventRow, policy: str) -> None:
        async with limiter:
            check = await verify_row(spec.id, row.event, policy, host=host)
        results[index] = check
        if progress is not None:
            progress(check)

    # On the real DSH lane the rows share CONCURRENCY booted runtimes (one boot serves many rows).
    shared: Any = nullcontext()
    if host == "dsh":
        from compat_adapter.testing.live.pool import runtime_pool

        shared = runtime_pool(CONCURRENCY)
    async with shared, anyio.create_task_group() as tg:
        for i, (spec, row, policy) in enumerate(rows):
            tg.start_soon(one, i, spec, row, policy)
    return tuple(r for r in results if r is not None)
