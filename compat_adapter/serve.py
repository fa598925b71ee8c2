"""`compat-adapter serve --stdio`: the JSON-lines service any agent host can speak.

It speaks the JSON-lines wire of :mod:`compat_adapter.host.wire.channel` (specified in
INTEGRATION.md, "The serve protocol") on this process's stdin and stdout, with a
:class:`~compat_adapter.host.wire.host.WireHost` on the service side of the channel: a peer says
hello with its surface, or names its host kind (``host``) with that kind's report (the DSH bundle
sends its composition), and the registered kind reads it (:mod:`compat_adapter.host.surfaces`).

The host side (the DSH bundle's Cordis plugin, or any other client) calls ``hello``,
``register_hook``, ``register_rules``, ``import_workspace``, ``matrix``, ``dispatch``, ``status``
and ``dispose``; the
service calls back ``subscribe``/``unsubscribe`` (notifications), ``next`` (the rest of a waterfall),
``mount_bridge``/``unmount_bridge`` and sends ``agent/inject``, ``agent/steer``, ``session/append``
and ``log`` notifications. A malformed line gets a ``PROTOCOL_ERROR`` reply and the service keeps
reading. Every request read is answered: at end of input the service finishes the requests in
hand (their replies are written) before it ends, and ``dispose`` waits for the dispatches it
accepted before it answers.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

import anyio

from compat_adapter.errors import ProtocolError
from compat_adapter.host.wire.channel import PROTOCOL_VERSION, Channel, stdio_lines, version
from compat_adapter.host.wire.host import WireHost
from compat_adapter.service import CompatAdapter

__all__ = ("AUDIT_IN_STATUS", "ServiceSession", "serve_stdio")

#: Hook runs a ``status`` reply includes by default (the newest; ``params.audit`` asks for others).
AUDIT_IN_STATUS = 100
#: How long ``dispose`` waits for the dispatches under way to be answered before it replies.
_DISPOSE_SETTLE_S = 5.0


class ServiceSession:
    """The service side of one connection: a :class:`~compat_adapter.host.wire.host.WireHost` over
    the channel, and one :class:`~compat_adapter.service.CompatAdapter` on it once the host said hello.
    """

    def __init__(self, channel: Channel, *, state_dir: str | None = None,
                 cwd: str | None = None) -> None:
        self.channel = channel
        self._state_dir = state_dir
        self._cwd = cwd or os.getcwd()
        self.adapter: Any = None
        self.host: Any = None
        self._imported: set[Path] = set()

    async def run(self) -> None:
        async with anyio.create_task_group() as tg:
            self.host = WireHost(self.channel, cwd=Path(self._cwd), tg=tg)
            self.host.attach()
            c = self.channel
            c.on_request("hello", self._hello)
            c.on_request("register_hook", self._register_hook)
            c.on_request("register_rules", self._register_rules)
            c.on_request("status", self._status)
            c.on_request("matrix", self._matrix)
            c.on_request("import_workspace", self._import_workspace)
            c.on_request("dispose", self._dispose, last=True)
            try:
                await c.run()
            finally:
                with anyio.CancelScope(shield=True):
                    if self.adapter is not None:
                        with anyio.move_on_after(10):
                            await self.adapter.dispose()
                tg.cancel_scope.cancel()

    def _require(self) -> Any:
        if self.adapter is None:
            raise ProtocolError("say hello first: the service grades against the host's surface")
        return self.adapter

    async def _hello(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.adapter is not None:
            raise ProtocolError("hello was already said on this connection")
        protocol = params.get("protocol", PROTOCOL_VERSION)
        if protocol != PROTOCOL_VERSION:
            raise ProtocolError(f"this service speaks protocol {PROTOCOL_VERSION}, not {protocol!r}")
        surface = self.host.welcome(params)
        options = dict(params.get("adapter") or {})
        # Grading follows the host's own surface: the service is there to adapt to whoever calls.
        options.setdefault("target_host_version", surface.version)
        if self._state_dir is not None:
            options.setdefault("state_dir", self._state_dir)
        try:
            self.adapter = CompatAdapter(self.host, **options)
            self.adapter.start()
        except ValueError as exc:
            raise ProtocolError(f"invalid adapter options: {exc}") from exc
        return {"protocol": PROTOCOL_VERSION, "service": "compat-adapter", "version": version(),
                "surface": surface.model_dump(mode="json")}

    async def _register_hook(self, params: dict[str, Any]) -> Any:
        adapter = self._require()
        result = await adapter.register_hook(params.get("vendor"), params.get("event"),
                                             params.get("matcher"), params.get("handler"),
                                             params.get("id"), origin=params.get("origin"),
                                             prefer=params.get("prefer"))
        return result.model_dump(mode="json")

    async def _register_rules(self, params: dict[str, Any]) -> Any:
        adapter = self._require()
        result = await adapter.register_rules(params.get("vendor"), params.get("source"),
                                              params.get("base_dir"), params.get("id"))
        return result.model_dump(mode="json")

    async def _status(self, params: dict[str, Any]) -> Any:
        adapter = self._require()
        limit = params.get("audit", AUDIT_IN_STATUS)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ProtocolError("audit is how many of the newest hook runs to include (an integer >= 0)")
        report = adapter.status().model_dump(mode="json")
        # The newest runs only: a status poll costs the live hooks, not the session's history.
        kept = adapter.audit
        report["audit"] = [_audit_json(r) for r in kept[max(0, len(kept) - limit):]]
        return report

    async def _matrix(self, params: dict[str, Any]) -> Any:
        adapter = self._require()
        return adapter.matrix(self.host.surface).model_dump(mode="json")

    async def _import_workspace(self, params: dict[str, Any]) -> Any:
        """Find and register the vendor files of a session folder, as ``compat-adapter`` does for a
        project: under the user's trust store (an untrusted file is refused with its command, never
        run), and once per folder on this connection."""
        from compat_adapter.importers import register_import
        from compat_adapter.importers.discover import import_all
        from compat_adapter.importers.held import held_back

        adapter = self._require()
        root = Path(str(params.get("root") or self.host.cwd)).resolve()
        if root in self._imported:
            return {"root": str(root), "registered": [], "refused": [], "again": True}
        self._imported.add(root)
        registered: list[Any] = []
        refused: list[Any] = []
        held: list[tuple[str, str]] = []  # what each session on the folder announces at its start
        for found in import_all(root):
            if found.error is not None:
                what = ", ".join(map(str, found.files))
                refused.append({"vendor": found.vendor, "what": what,
                                "code": found.error.code, "reason": found.error.message, "origin": None})
                held += held_back((), [(what, f"{found.error.code}: {found.error.message}")])
                continue
            assert found.result is not None
            refused += [asdict(r) for r in found.result.refused]
            held += held_back(found.result.refused)
            registered += [r.model_dump(mode="json") for r in await register_import(adapter, found.result)]
        return {"root": str(root), "registered": registered, "refused": refused, "held": held, "again": False}

    async def _dispose(self, params: dict[str, Any]) -> Any:
        if self.adapter is not None:
            await self.adapter.dispose()
            # The dispatches it cut short are answered (denied, fail closed) before this reply
            # ends the channel; one still waiting on the peer's own next() is not held up long.
            with anyio.move_on_after(_DISPOSE_SETTLE_S):
                await self.host.settle()
        return {"disposed": True}


def _audit_json(record: Any) -> dict[str, Any]:
    return asdict(record)


async def serve_stdio(*, state_dir: str | None = None) -> int:
    """Run the service on stdin/stdout until the peer is gone or asks to dispose; returns 0."""
    read_line, write = stdio_lines()
    channel = Channel(read_line, write, name="host")
    await ServiceSession(channel, state_dir=state_dir).run()
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m compat_adapter.serve`` — the same as ``compat-adapter serve --stdio``."""
    parser = argparse.ArgumentParser(prog="compat-adapter serve")
    parser.add_argument("--stdio", action="store_true", help="speak the protocol on stdin/stdout")
    parser.add_argument("--state-dir", default=None, help="where generated bridge configs go")
    args = parser.parse_args(argv)
    return anyio.run(lambda: serve_stdio(state_dir=args.state_dir))


if __name__ == "__main__":
    raise SystemExit(main())
