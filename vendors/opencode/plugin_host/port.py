"""OpenCode plugins as ported hooks: a plugin's tool callbacks run by the shim in the plugin host.

An OpenCode plugin is code, not a command: its hooks are the keys the plugin function returns, known
only by loading it (in the plugin host's sidecar, never in this process). Port loads each trusted
plugin file once to learn its keys, and each key is graded on the target like any hook of the
plugin's event: ``tool.execute.before`` and ``tool.execute.after`` are carried (the target's
pre- and post-tool events call the shim, which loads the plugin in a sidecar of its own and calls
that key with OpenCode's ``{input, output}`` built from the target's stdin: a throw denies the call
or fails its result, as in OpenCode, and ``output.args`` written over is a rewritten input). Every
other key is UNSUPPORTED with its reason. An npm plugin is not ported (it is installed by OpenCode,
not a file of the project that another agent could load).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from compat_adapter.vendor import HookAnswer, Moment
from vendors.opencode.plugins import PLUGIN_TIMEOUT_S

__all__ = ("PLUGIN_TIMEOUT_S", "PORTED_KEYS", "digest", "plugin_answer", "plugin_keys", "unported_reason")

#: The plugin keys the shim calls, each with its point (where the target's hook must fire).
PORTED_KEYS = {"tool.execute.before": "tools/pre-execute", "tool.execute.after": "tools/post-execute"}
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
    return (f"the shim calls an OpenCode plugin only at tool calls (tool.execute.before/after); {key} is a "
            f"callback of OpenCode's own session with no hook event of {target} to call it")


async def plugin_answer(hooks: Sequence[Mapping[str, Any]], key: str, moment: Moment,
                        timeout_s: float) -> HookAnswer:
    """What the ported plugins answer at ``key`` for the target's call, as a hook's answer."""
    from vendors.opencode.plugin_host import payloads

    root = Path(moment.cwd)
    tool = str(moment.fields.get("tool_name") or "")
    host_args = moment.fields.get("tool_input")
    args = payloads.vendor_arguments(tool, host_args if isinstance(host_args, Mapping) else {})
    call = {"tool": payloads.vendor_tool(tool), "sessionID": moment.session_id,
            "callID": str(moment.fields.get("tool_use_id") or "port-call")}
    if key == "tool.execute.before":
        given: tuple[dict[str, Any], dict[str, Any]] = (call, {"args": dict(args)})
    else:
        text = moment.fields.get("tool_response")
        text = text if isinstance(text, str) else "" if text is None else str(text)
        given = ({**call, "args": dict(args)}, {"title": str(args.get("command") or tool), "output": text,
                                                "metadata": {"output": text, "truncated": False}})
    answer = HookAnswer()
    for hook in hooks:
        host, report = await _load(root, str(hook["plugin"]), str(hook.get("digest") or "none"))
        try:
            if report.error is not None:
                return HookAnswer(decision="deny" if key == "tool.execute.before" else "block",
                                  reason=f"the ported OpenCode plugin {hook['plugin']} did not load: {report.error}")
            ids = [e.id for e in report.exports]
            result = await host.call(ids, key, given[0], given[1], timeout_s=min(timeout_s, LOAD_S))
        finally:
            await host.close()
        if result.error is not None:
            # A throw: OpenCode refuses the call before it runs, or fails it after (its message read).
            return HookAnswer(decision="deny" if key == "tool.execute.before" else "block", reason=result.error)
        out = result.output if isinstance(result.output, Mapping) else {}
        if key == "tool.execute.before" and isinstance(out.get("args"), Mapping) and dict(out["args"]) != args:
            answer = HookAnswer(updated_input=payloads.host_arguments(tool, out["args"]))
            given = (given[0], {"args": dict(out["args"])})
    return answer
