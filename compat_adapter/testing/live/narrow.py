"""Drivers for rows whose vendor reads less of an answer than the point's own driver checks.

- A pre-tool row of a vendor whose only refusal ends the run (Cline's ``cancel``): the call does not
  run and the turn ends there, where ``drive_pre_tool`` wants the turn to go on with the reason as
  the call's result. Which vendors refuse so is their speaker's word (``Speaker.halts``).
- A turn-stopping row that only watches (Cline's TaskComplete, started detached): its hook runs and
  its most blocking answer forces no further step, where ``drive_stop`` wants a block to continue.
"""

from __future__ import annotations

from compat_adapter.testing.live.checks import check_observed, check_payload, denied_shell_turn, observe_answer
from compat_adapter.testing.live.harness import Session

__all__ = ("drive_pre_tool_halt", "drive_stop_observed")


async def drive_pre_tool_halt(s: Session) -> None:
    """The refusal stops the agent before the call: no side effect, no completed turn."""
    _, result = await denied_shell_turn(s)
    s.expect(not (s.root / "denied.txt").exists(), "the refusal did not stop the call: the command ran",
             "the refusal stopped the call")
    s.expect(result.reason != "completed", "the turn went on past the refusal", "the turn ended at the refusal")


async def drive_stop_observed(s: Session) -> None:
    """The hook runs when the turn stops, and the turn ends after its one step whatever it answers."""
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()
    agent = await s.host.create_agent(script=["first answer", "second answer"])
    result = await agent.run_turn("fix the tests")
    await s.host.settle()
    check_payload(s, tool=None)
    s.expect(result.steps == 1 and result.reason == "completed", f"the answer kept the turn going: {result}",
             "the turn ended after one step")
    check_observed(s, answer)
