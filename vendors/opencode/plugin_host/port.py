"""OpenCode plugins as ported hooks: a plugin's callbacks run by the shim in the plugin host.

An OpenCode plugin is code, not a command: its hooks are the keys the plugin function returns, known
only by loading it (in the plugin host's sidecar, never in this process). Port loads each trusted
plugin file once to learn its keys, and each key is graded on the target like any hook of the
plugin's event. Carried: ``tool.execute.before`` and ``tool.execute.after`` (the target's pre- and
post-tool events call the shim, which loads the plugin in a sidecar of its own and calls that key
with OpenCode's ``{input, output}`` built from the target's stdin: a throw denies the call or fails
its result, as in OpenCode, ``output.args`` written over is a rewritten input, and text appended to
``output.output`` reaches the model as the hook's context, the one way every target lets a post-tool
hook add to what the model reads), ``chat.message`` and ``experimental.chat.system.transform``
(the target's prompt event: a throw blocks the prompt, an added text part or a pushed system line is
the hook's context). Every other key is UNSUPPORTED with its reason. An npm plugin is not ported (it
is installed by OpenCode, not a file of the project that another agent could load).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from compat_adapter.vendor import Degradation, HookAnswer, Moment, degrade
from vendors.opencode.plugins import PLUGIN_TIMEOUT_S

__all__ = ("PLUGIN_TIMEOUT_S", "PORTED_KEYS", "THROW_BLOCKS", "digest", "key_losses", "plugin_answer", "plugin_keys",
           "unported_reason")

SYSTEM_TRANSFORM = "experimental.chat.system.transform"
#: The plugin keys the shim calls, each with its point (where the target's hook must fire).
PORTED_KEYS = {"tool.execute.before": "tools/pre-execute", "tool.execute.after": "tools/post-execute",
               "chat.message": "agent/pre-step", SYSTEM_TRANSFORM: "agent/pre-step"}
#: The keys where a throw refuses what the point does (measured, lane cases opencode:deny_json,
#: post_block, prompt_block): the call, its result, the prompt.
THROW_BLOCKS = frozenset({"tool.execute.before", "tool.execute.after", "chat.message"})
#: Seconds the shim's sidecar may take to load a ported plugin.
LOAD_S = 30.0


def digest(path: Path) -> str:
    """The plugin file's digest, written into the ported entry: the code the target trusts by the
    entry's text is exactly this file's."""
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


async def _load(root: Path, relpath: str, pinned: str | None = None) -> tuple[Any, Any]:
    """The plugin loaded in a sidecar of its own: at port time only when trusted (the trust store),
    in the shim only when its digest is ``pinned`` (what port read)."""
    from vendors.opencode.plugin_host.grade import LoadReport
    from vendors.opencode.plugin_host.host import PluginHost
    from vendors.opencode.plugin_host.sources import file_source

    host = PluginHost(root)
    source = file_source(root, root / relpath)
    if pinned is not None:
        try:
            now = digest(root / relpath)
        except OSError as exc:
            return host, LoadReport(source, error=f"the ported plugin file cannot be read: {exc}")
        if now != pinned:
            return host, LoadReport(source, error="the plugin file changed since it was ported (its digest differs); "
                                                  "review it, trust it and port again")
    reports = await host.load(root, [source], timeout_s=LOAD_S, checked=pinned is not None)
    return host, reports[0]


def _keys(report: Any) -> tuple[list[str], str | None]:
    if report.error is not None:
        return [], report.error
    failed = next((e.error for e in report.exports if e.error), None)
    return list(dict.fromkeys(k for e in report.exports for k in e.keys)), failed


async def plugin_keys(root: Path, relpath: str) -> tuple[list[str], str | None]:
    """The keys the (trusted) plugin file returns, and why it failed to load when it did."""
    host, report = await _load(root, relpath)
    try:
        return _keys(report)
    finally:
        await host.close()


def unported_reason(key: str, target: str) -> str | None:
    """Why a plugin key is not carried to ``target`` (None: the shim calls it)."""
    if key in PORTED_KEYS:
        return None
    return (f"the shim calls an OpenCode plugin only at tool calls and prompts (tool.execute.before/after, "
            f"chat.message, experimental.chat.system.transform); {key} is a callback of OpenCode's own session "
            f"with no hook event of {target} to call it")


def key_losses(key: str, target: str) -> tuple[Degradation, ...]:
    """What the shim does not carry of a plugin key's callback on ``target``, beyond what its point's
    hook loses there (``compat_adapter.port.plan.grade_port``)."""
    if key == "tool.execute.after":
        return (degrade("output-rewrite-ignored",
                        f"a rewrite of the tool's output (output.output) is not carried to {target}: text the "
                        "plugin appends reaches the model as the hook's context beside the result, any other "
                        "change is dropped"),)
    if key == "chat.message":
        return (degrade("output-rewrite-ignored",
                        f"a changed prompt text is not carried to {target}: an added text part reaches the model "
                        "as the hook's context, where OpenCode sends it in the prompt's own message"),)
    if key == SYSTEM_TRANSFORM:
        return (degrade("timing-differs",
                        f"OpenCode calls it before every model request, and once more for its own session-title "
                        f"request; the shim calls it when {target}'s prompt event fires: fewer times"),
                degrade("message-provenance",
                        f"the lines pushed to output.system reach the model as the hook's context, where {target} "
                        "puts a prompt hook's text, not in the system prompt"))
    return ()


def _given(key: str, moment: Moment) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """OpenCode's ``{input, output}`` for ``key`` at the target's ``moment`` (the shapes the real
    OpenCode passed: :mod:`vendors.opencode.plugin_host.payloads`), and the tool's host arguments."""
    from vendors.opencode.plugin_host import payloads

    session = moment.session_id
    if key == "chat.message":
        prompt = str(moment.fields.get("prompt") or "")
        message = {"id": "msg_port", "role": "user", "sessionID": session,
                   "time": {"created": int(time.time() * 1000)}}
        part = {"type": "text", "text": prompt, "id": "prt_port", "messageID": "msg_port", "sessionID": session}
        return {"sessionID": session}, {"message": message, "parts": [part]}, {}
    if key == SYSTEM_TRANSFORM:
        return {"sessionID": session, "model": {}}, {"system": []}, {}
    tool = str(moment.fields.get("tool_name") or "")
    host_args = moment.fields.get("tool_input")
    args = payloads.vendor_arguments(tool, host_args if isinstance(host_args, Mapping) else {})
    call = {"tool": payloads.vendor_tool(tool), "sessionID": session,
            "callID": str(moment.fields.get("tool_use_id") or "port-call")}
    if key == "tool.execute.before":
        return call, {"args": dict(args)}, args
    text = moment.fields.get("tool_response")
    text = text if isinstance(text, str) else "" if text is None else str(text)
    return ({**call, "args": dict(args)}, {"title": str(args.get("command") or tool), "output": text,
                                           "metadata": {"output": text, "truncated": False}}, args)


def _added(key: str, before: Mapping[str, Any], after: Any) -> tuple[str, ...]:
    """The text a callback added for the model: parts it added to the prompt (``chat.message``),
    lines it pushed (the system transform), text it appended to the tool's output."""
    from vendors.opencode.plugin_host import payloads

    out = after if isinstance(after, Mapping) else {}
    if key == "chat.message":
        known = {p["id"] for p in before["parts"]}
        return tuple(text for pid, text in payloads.text_parts(out) if pid not in known and text.strip())
    if key == SYSTEM_TRANSFORM:
        lines = out.get("system")
        return tuple(s for s in lines if isinstance(s, str) and s.strip()) if isinstance(lines, list) else ()
    if key == "tool.execute.after":
        old, new = str(before.get("output") or ""), out.get("output")
        if isinstance(new, str) and new != old and new.startswith(old) and new[len(old):].strip():
            return (new[len(old):].strip("\n"),)
    return ()


async def plugin_answer(hooks: Sequence[Mapping[str, Any]], key: str, moment: Moment,
                        timeout_s: float) -> HookAnswer:
    """What the ported plugins answer at ``key`` for the target's call, as a hook's answer."""
    from vendors.opencode.plugin_host import payloads

    root = Path(moment.cwd)
    tool = str(moment.fields.get("tool_name") or "")
    input, output, args = _given(key, moment)
    answer = HookAnswer()
    context: tuple[str, ...] = ()
    for hook in hooks:
        host, report = await _load(root, str(hook["plugin"]), str(hook.get("digest") or "none"))
        try:
            if report.error is not None:
                return HookAnswer(decision="deny" if key == "tool.execute.before" else "block",
                                  reason=f"the ported OpenCode plugin {hook['plugin']} did not load: {report.error}")
            ids = [e.id for e in report.exports]
            result = await host.call(ids, key, input, output, timeout_s=min(timeout_s, LOAD_S))
        finally:
            await host.close()
        if result.error is not None and key not in THROW_BLOCKS:
            # Elsewhere a throw is a session error in OpenCode: logged, and the moment goes on as if
            # the callback had not answered (as the plugin host does).
            return replace(answer, additional_context=tuple(dict.fromkeys(context)),
                           failed=f"{key} threw: {result.error}")
        if result.error is not None:
            # A throw: OpenCode refuses the call before it runs, or fails it after, or refuses the
            # prompt (no model is called); its message is what is read.
            return HookAnswer(decision="deny" if key == "tool.execute.before" else "block", reason=result.error)
        out = result.output if isinstance(result.output, Mapping) else {}
        context += _added(key, output, out)
        if key == "tool.execute.before" and isinstance(out.get("args"), Mapping) and dict(out["args"]) != args:
            answer = HookAnswer(updated_input=payloads.host_arguments(tool, out["args"]))
            output = {"args": dict(out["args"])}
        elif key != "tool.execute.before" and out:
            # The next plugin of the key gets what this one left, as OpenCode passes one output along.
            output = dict(out)
    return replace(answer, additional_context=tuple(dict.fromkeys(context)))
