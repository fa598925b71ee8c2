"""OpenCode as a host of other vendors' hooks.

OpenCode has no command hooks: its hooks are plugin callbacks. Port writes one plugin file of its
own (``.opencode/plugin/compat-adapter-port.ts``) whose callbacks hand their arguments to the shim
in this project's OpenCode command contract (``{hook, input, output}``, see the unit's dialect) and
act on the answer as an OpenCode plugin does: a thrown Error denies the call, ``output.args`` is
written over in place, and a post-tool hook's context (and a post-tool block's reason) is appended
to ``output.output`` (what the model reads of the call: the one place an OpenCode plugin adds text
for the model after a tool, measured by the lane case opencode:post_context).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from compat_adapter.vendor import (
    EntrySpec, HookAnswer, Moment, ReadKeys, Reply, TableFace, degrade, json_reply, parse_stdin, read_fields,
)

__all__ = ("FACE",)

_PLUGIN = """// Written by `compat-adapter port`: each callback runs the ported hooks through the shim.
// Remove it with `compat-adapter port --remove`; edit the source hooks, then port again.
import { spawnSync } from "node:child_process"

function shim(command: string, timeoutMs: number, hook: string, input: any, output: any) {
  const run = spawnSync("/bin/sh", ["-c", command], {
    input: JSON.stringify({ hook, input, output }) + "\\n", encoding: "utf8", timeout: timeoutMs,
  })
  if (run.error) throw new Error(`compat-adapter shim did not run: ${run.error.message}`)
  if (run.status !== 0) throw new Error((run.stderr || "").trim() || `compat-adapter shim exited ${run.status}`)
  const text = (run.stdout || "").trim()
  const answer = text.startsWith("{") ? JSON.parse(text) : {}
  if (answer.decision === "deny") throw new Error(answer.reason || "denied by a ported hook")
  if (answer.args && output && output.args) Object.assign(output.args, answer.args)
  if (answer.output !== undefined && output && "output" in output) output.output = answer.output
  if (typeof answer.additionalContext === "string" && output && typeof output.output === "string")
    output.output += "\\n" + answer.additionalContext
  if (typeof answer.additionalContext === "string" && hook === SESSION_HOOK && output && Array.isArray(output.system))
    output.system.push(answer.additionalContext)
  if (typeof answer.additionalContext === "string" && hook === "chat.message" && output && Array.isArray(output.parts)) {
    // A part of the prompt's own message, as an OpenCode plugin adds one (it needs an id to be kept).
    const first = output.parts[0] ?? {}
    output.parts.push({ ...first, id: (first.id ?? "prt_port") + "z", type: "text", text: answer.additionalContext })
  }
}

const ENTRIES: Record<string, [string, number][]> = __ENTRIES__

// A session-start hook has no OpenCode event: it runs once per session, from the first system
// transform of the session (before its first model request), and what it said is given to the
// system prompt of every request of that session, as a start hook's context stays in the session.
const SESSION_HOOK = "experimental.chat.system.transform"
const started = new Map<string, string[]>()

function sessionStart(command: string, timeoutMs: number, input: any, output: any) {
  const key = JSON.stringify([input?.sessionID ?? "", command])
  if (!started.has(key)) {
    const said = { system: [] as string[] }
    shim(command, timeoutMs, SESSION_HOOK, input, said)
    started.set(key, said.system)
  }
  if (output && Array.isArray(output.system)) output.system.push(...(started.get(key) ?? []))
}

export const CompatAdapterPort = async () => {
  const hooks: Record<string, (input: any, output: any) => Promise<void>> = {}
  for (const [hook, commands] of Object.entries(ENTRIES)) {
    hooks[hook] = async (input: any, output: any) => {
      for (const [command, timeoutMs] of commands) {
        if (hook === SESSION_HOOK) sessionStart(command, timeoutMs, input, output)
        else shim(command, timeoutMs, hook, input, output)
      }
    }
  }
  return hooks
}
"""


#: The points a ported prompt hook fires at: OpenCode's chat.message plugin callback, once per prompt.
_PROMPT_POINTS = ("agent/pre-step", "agent/pre-step/transform")


def _answer(event: str, point: str, answer: HookAnswer) -> Reply:
    out: dict[str, Any] = {}
    if answer.decision in ("deny", "block", "ask") and point == "tools/pre-execute":
        # OpenCode's plugin gate has no ask: a thrown Error is its only refusal (a listed loss).
        out.update(decision="deny", reason=answer.reason or "denied by a ported hook")
    if answer.decision in ("deny", "block") and point in _PROMPT_POINTS:
        # A throw in chat.message refuses the prompt: OpenCode calls no model (lane case
        # opencode:prompt_block).
        out.update(decision="deny", reason=answer.reason or "blocked by a ported hook")
    if answer.additional_context and point in (*_PROMPT_POINTS, "agent/created"):
        # A text part added to the prompt's message (lane case opencode:prompt_context).
        out["additionalContext"] = "\n".join(answer.additional_context)
    if isinstance(answer.updated_input, Mapping) and point == "tools/pre-execute":
        out["args"] = dict(answer.updated_input)
    if point == "tools/post-execute":
        # Appended to the tool's output by the plugin. A block after the tool has nothing left to
        # stop (the source vendors give its reason to the model): OpenCode has no such answer, so its
        # reason is appended too (the grade lists observe-only: nothing is obeyed). Before a tool
        # there is nowhere to put text for the model (the port grade lists it as
        # output-field-ignored, read back from this very answer).
        blocked = (answer.reason,) if answer.decision in ("deny", "block") and answer.reason else ()
        if texts := (*blocked, *answer.additional_context):
            out["additionalContext"] = "\n".join(texts)
    return json_reply(out)


class OpenCodeFace(TableFace):
    def read(self, event: str, stdin: bytes, cwd: str) -> Moment:
        obj = parse_stdin(self.vendor, stdin)
        given: Mapping[str, Any] = obj["input"] if isinstance(obj.get("input"), Mapping) else {}
        output: Mapping[str, Any] = obj["output"] if isinstance(obj.get("output"), Mapping) else {}
        args = output.get("args") if isinstance(output.get("args"), Mapping) else given.get("args")
        flat = {"tool_name": given.get("tool"), "tool_input": args if isinstance(args, Mapping) else {},
                "tool_use_id": given.get("callID")}
        if "output" in output:
            flat["tool_response"] = output.get("output")
        parts = output.get("parts")
        if isinstance(parts, list):  # chat.message: the prompt is its text parts
            flat["prompt"] = "\n".join(str(p.get("text") or "") for p in parts
                                       if isinstance(p, Mapping) and p.get("type") == "text")
        fields = read_fields(self.vendor, self.keys, {k: v for k, v in flat.items() if v is not None})
        return Moment(event=event, session_id=str(given.get("sessionID") or "port-session"), cwd=cwd, fields=fields)

    def render(self, existing: str | None, entries: Sequence[EntrySpec]) -> str:
        table: dict[str, list[Any]] = {}
        for entry in entries:
            table.setdefault(entry.event, []).append([entry.command, round(entry.timeout_s * 1000)])
        return _PLUGIN.replace("__ENTRIES__", json.dumps(table, indent=2))

    def strip(self, existing: str) -> str | None:
        return None


FACE = OpenCodeFace(
    vendor="opencode", file=".opencode/plugin/compat-adapter-port.ts", owns_file=True,
    keys=ReadKeys(framing=("tool_name", "tool_input")),
    events={"tools/pre-execute": "tool.execute.before", "tools/post-execute": "tool.execute.after",
            **dict.fromkeys(_PROMPT_POINTS, "chat.message"), "agent/created": "experimental.chat.system.transform"},
    point_losses={"agent/created": (degrade(
        "timing-differs", "OpenCode has no session-start event: the written plugin runs the hook once per session from "
                          "its first experimental.chat.system.transform, before the session's first model request "
                          "(after the first prompt is sent, not at start-up), and gives what it said to the system "
                          "prompt of every request of the session"),)},
    answer=_answer,
    trust="OpenCode loads every plugin file in .opencode/plugin with no prompt: review the written plugin "
          "as you would any code",
)
