"""CompatAdapter: what a preset author or a host author calls.

One adapter is bound to one host. It grades every registration, mounts what can run on the route
its row names, carries rules onto every agent start, and reports what is running now. Two adapters
on one host share nothing: each has its own listeners, its own bridge configs and its own audit.
"""

from __future__ import annotations

import itertools
import logging
from collections import deque
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from pydantic import Field

from compat_adapter.capability import CommandPolicy, PluginRouter, PluginRuntime, PolicyGuard, PolicyRule, capability
from compat_adapter.catalog import unit_of, units
from compat_adapter.declare import Declared, declare_hook
from compat_adapter.errors import AdapterDisposed, HostSurfaceMismatch, InvalidDeclaration, MountFailed
from compat_adapter.grading import Prefer, grade, grade_rules, routed
from compat_adapter.host.protocol import AgentCreated, Host, new_message
from compat_adapter.matrix import Matrix, build_matrix
from compat_adapter.model import (
    Capability,
    CapabilityResult,
    DegradationCode,
    Frozen,
    Route,
    RulesFile,
)
from compat_adapter.permissions.grade import grade_permission, grade_setting
from compat_adapter.permissions.guard import PermissionGuard
from compat_adapter.permissions.read import language_of
from compat_adapter.permissions.model import PermissionRule, PermissionSetting
from compat_adapter.routing.base import Router
from compat_adapter.routing.dispatch import AuditRecord, HookEntry, make_entry
from compat_adapter.routing.native import BuiltinBridgeRouter, Listening, NativeRouter
from compat_adapter.routing.observe import ObserveRouter
from compat_adapter.routing.official import BridgeRouter, config_dir, prune_orphans
from compat_adapter.rules import RULES_SOURCE_KIND, CarriedRules, read_rules

__all__ = ("AdapterConfig", "CompatAdapter", "HookStatus", "RulesStatus", "Status")

_log = logging.getLogger("compat_adapter")
_instances = itertools.count(1)


class AdapterConfig(Frozen):
    """Defaults follow the reference plugin."""

    log_registrations: bool = True
    """Log one structured line per graded registration."""
    fail_closed: bool = True
    """Refuse (raise HOST_SURFACE_MISMATCH) when the host is not the targeted version; off: warn."""
    target_host_version: str = "0.2.1-rc.2"
    max_rule_bytes: int = 524_288
    """Largest rules file carried; a larger one is refused, never truncated."""
    state_dir: str | None = None
    """Where generated bridge configs are written; default: ``bridges`` in the user's private state
    folder. Either way a real directory of this user (never a symlink), not writable by others."""
    max_audit: int = Field(default=1000, ge=1)
    """Hook runs kept in :attr:`CompatAdapter.audit`, newest last; older ones are dropped, so a
    long session holds a bounded history."""
    prefer: Prefer = "fidelity"
    """Route policy: ``fidelity`` translates every event this project can carry with the vendor's own
    semantics; ``official`` keeps the host's official bridge for the events it carries."""


class HookStatus(Frozen):
    id: str
    vendor: str
    event: str
    capability: Capability
    route: Route
    seams: tuple[str, ...]
    matcher: str | None
    running: bool
    """True when a listener or a mounted bridge really runs this hook now."""
    bridge: str | None = None
    note: str | None = None


class RulesStatus(Frozen):
    id: str
    vendor: str
    capability: Capability
    files: tuple[RulesFile, ...]


class Status(Frozen):
    host: str
    version: str
    disposed: bool
    hooks: tuple[HookStatus, ...]
    rules: tuple[RulesStatus, ...]
    services: dict[str, bool]
    bridges: dict[str, str | None]
    """Bridge package → the config file its mounted bridge reads (None: not mounted)."""
    permissions: tuple[CapabilityResult, ...] = ()
    """Every registered permission rule and setting, graded; the mounted ones are enforced now."""


class CompatAdapter:
    """Register vendor hooks and rules on a host; grade, route, carry, report."""

    def __init__(self, host: Host, config: AdapterConfig | None = None, **options: Any) -> None:
        self.host = host
        self.config = config or AdapterConfig(**options)
        self.id = f"a{next(_instances)}"
        self._dir = config_dir(Path(self.config.state_dir) if self.config.state_dir else None)
        #: The last ``max_audit`` hook runs of this adapter's own routes, in order; the routes
        #: append to it (a ring: a long session must not grow without bound).
        self._audit: deque[AuditRecord] = deque(maxlen=self.config.max_audit)
        #: Registrations mount one at a time: a bridge re-mount reads the whole running set, so two
        #: interleaved ones would each mount a set without the other's hook.
        self._registering = anyio.Lock()
        self._bridges = BridgeRouter(host, self._dir, self.id)
        # The three seam routes share one set of host listeners, so that the hooks of one seam
        # run in registration order whichever route brought them.
        listening = self._listening = Listening(host, self.id, self._audit)
        self._routers: dict[Route, Router] = {
            Route.OFFICIAL_BRIDGE: self._bridges,
            Route.NATIVE_TRANSLATE: NativeRouter(listening),
            Route.NATIVE_SEAM: ObserveRouter(listening),
            Route.BUILTIN_BRIDGE: BuiltinBridgeRouter(listening),
        }
        # The plugin-host route is the plugin runtime's a unit brings (OpenCode's, which Kilo's unit
        # declares too): the first unit's, in unit order; none without such a unit.
        runtime = next((r for u in units() if (r := capability(u, PluginRuntime)) is not None), None)
        self._plugins: PluginRouter | None = None
        if runtime is not None:
            self._plugins = runtime.router(host, self.id, self._audit)
            self._routers[Route.PLUGIN_HOST] = self._plugins
        self._hooks: dict[str, tuple[CapabilityResult, HookEntry | None]] = {}
        self._rules: dict[str, tuple[CapabilityResult, CarriedRules]] = {}
        self._counters: dict[str, int] = {}
        self._rules_unsubscribe: Any = None
        #: Command policy from registered rules files (a unit's ``policy`` capability: Codex's
        #: .rules), enforced on tools/pre-execute; one guard per vendor, made on its first rules.
        self._guards: dict[str, PolicyGuard] = {}
        #: Permission rules (Claude's permissions.allow/ask/deny …), enforced on tools/pre-execute.
        self._permissions = PermissionGuard(host, allowed=listening.runner.allowed)
        self._permission_results: dict[str, CapabilityResult] = {}
        self._batch_depth = 0
        self._prefer: list[str] = []
        """Route policies of the open batches, innermost last (a preset or an import may ask)."""
        self._disposed = False
        self._started = False

    # ── lifecycle ───────────────────────────────────────────────────────────────────────────────
    async def __aenter__(self) -> CompatAdapter:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.dispose()

    def start(self) -> None:
        """Check the host version and prune configs orphaned by dead processes. Idempotent."""
        if self._started:
            return
        surface = self.host.surface
        if surface.version != self.config.target_host_version:
            message = (f"host {surface.host} is version {surface.version}, this adapter targets "
                       f"{self.config.target_host_version}")
            if self.config.fail_closed:
                raise HostSurfaceMismatch(message, host=surface.host)
            self.host.log("warning", message + "; grading follows the host's own surface")
        prune_orphans(self._dir)
        self._started = True

    def _check(self) -> None:
        if self._disposed:
            raise AdapterDisposed("this adapter was disposed; it registers nothing more")
        self.start()

    async def dispose(self) -> None:
        """Unmount bridges and listeners, stop watchers and pollers, release the host services
        this adapter used. When it returns no hook of this adapter runs or can start: runs the
        host had queued never start, runs under way are cancelled (each hook's process group is
        killed) and awaited. Later registrations raise."""
        if self._disposed:
            return
        self._disposed = True
        if self._rules_unsubscribe is not None:
            self._rules_unsubscribe()
        for guard in self._guards.values():
            guard.close()
        self._permissions.close()
        # A registration in flight finishes its mount first; then everything is closed together.
        async with self._registering:
            for router in dict.fromkeys(self._routers.values()):
                await router.close()
            # Last: the host stops what it started for this adapter alone (its language server …).
            surface = self.host.surface
            for service in sorted({*surface.services, *(("bridges",) if surface.bridge_packages else ())}):
                await self.host.release(service, self.id)

    # ── hooks ───────────────────────────────────────────────────────────────────────────────────
    def _next_id(self, vendor: str, event: str, given: str | None) -> str:
        if given is not None:
            if given in self._hooks or given in self._rules:
                raise InvalidDeclaration(f"id {given!r} is already registered on this adapter", id=given)
            return given
        key = f"{vendor}:{event}"
        while True:
            n = self._counters[key] = self._counters.get(key, 0) + 1
            candidate = f"{key}:{n}"
            if candidate not in self._hooks:
                return candidate

    async def register_hook(self, vendor: object, event: object, matcher: object = None,
                            handler: object = None, id: str | None = None, *,
                            origin: str | None = None, prefer: Prefer | None = None) -> CapabilityResult:
        """Declare, grade and mount one hook: ``register(declare_hook(...))``."""
        self._check()
        return await self.register(declare_hook(vendor, event, matcher, handler, id=id, origin=origin),
                                   prefer=prefer)

    def _policy(self, prefer: str | None) -> str:
        return prefer or (self._prefer[-1] if self._prefer else self.config.prefer)

    async def register(self, declared: Declared, *, prefer: Prefer | None = None) -> CapabilityResult:
        """Grade one declared hook and mount it on the route the policy chooses; returns the frozen result.

        ``prefer`` overrides the adapter's policy for this hook (``official``: the host's official
        bridge where it carries the event). Raises for a declaration that cannot be processed; a
        hook that cannot run here is returned UNSUPPORTED and never mounted. Raises MOUNT_FAILED
        when the host refuses to mount: hooks registered before keep running. Concurrent calls are
        safe: they mount one after another.
        """
        policy = self._policy(prefer)
        async with self._registering:
            return await self._register(declared, policy)

    async def _register(self, declared: Declared, policy: str) -> CapabilityResult:
        self._check()
        hid = self._next_id(declared.spec.id, declared.row.event, declared.id)
        result = grade(declared, self.host.surface, id=hid, prefer=policy)
        self._log_registration(result)
        if result.capability is Capability.UNSUPPORTED:
            self._hooks[hid] = (result, None)
            return result
        entry = make_entry(hid, routed(declared, policy))
        router = self._routers[result.route]
        await router.mount(entry)
        if not self._batch_depth:
            await router.flush()
        self._hooks[hid] = (result, entry)
        return result

    async def register_plugins(self, root: str | Path, files: Sequence[str | Path] | None = None, *,
                               sources: Sequence[Any] | None = None) -> tuple[CapabilityResult, ...]:
        """Load OpenCode plugins in this adapter's plugin sidecar (a Bun process of its own, never
        this one), grade one row per hook key they return, and mount every ADAPTED one on the
        plugin-host route. A plugin that throws at load is one UNSUPPORTED row with the error.

        ``root`` is the project (the plugins' ``directory``); by default its own plugins load
        (``opencode.json`` entries, then ``.opencode/plugin(s)/``), else only ``files`` or
        ``sources``. Loading runs a plugin's code, so only trusted plugin files load (an npm
        plugin follows the config that names it); an untrusted one is one UNSUPPORTED row whose
        reason starts ``untrusted:`` (see :mod:`compat_adapter.trust`).
        """
        self._check()
        async with self._registering:
            return await self._register_plugins(root, files, sources)

    async def _register_plugins(self, root: str | Path, files: Sequence[str | Path] | None,
                                sources: Sequence[Any] | None) -> tuple[CapabilityResult, ...]:
        if self._plugins is None:
            raise HostSurfaceMismatch("no registered vendor unit brings a plugin runtime")
        graded = await self._plugins.declarations(Path(root).resolve(), files, sources, self.host.surface)
        out = []
        for result, declared in graded:
            if result.id in self._hooks:
                raise InvalidDeclaration(f"id {result.id!r} is already registered on this adapter",
                                         id=result.id)
            self._log_registration(result)
            entry = make_entry(result.id, declared) if declared is not None else None
            if entry is not None:
                await self._plugins.mount(entry)
            self._hooks[result.id] = (result, entry)
            out.append(result)
        return tuple(out)

    @asynccontextmanager
    async def batch(self, *, prefer: Prefer | None = None) -> AsyncIterator[CompatAdapter]:
        """Register many hooks and mount each bridge once at the end (presets and importers).

        ``prefer`` sets the route policy of the hooks registered inside. If the final mount fails,
        MOUNT_FAILED is raised, the bridge keeps the set it ran before the batch, and the hooks
        that did not make it are dropped from this adapter.
        """
        self._batch_depth += 1
        self._prefer.append(self._policy(prefer))
        try:
            yield self
        finally:
            self._prefer.pop()
            self._batch_depth -= 1
            if not self._batch_depth:
                await self._flush()

    async def _flush(self) -> None:
        async with self._registering:
            await self._flush_routers()

    async def _flush_routers(self) -> None:
        failure: MountFailed | None = None
        for router in dict.fromkeys(self._routers.values()):
            try:
                await router.flush()
            except MountFailed as exc:
                failure = failure or exc
        if failure is None:
            return
        for hid, (result, entry) in list(self._hooks.items()):
            if entry is not None and not self._routers[result.route].state(entry).held:
                del self._hooks[hid]
        raise failure

    def _log_registration(self, result: CapabilityResult) -> None:
        if not self.config.log_registrations:
            return
        self.host.log("info", "compat-adapter registration", id=result.id, vendor=result.vendor,
                      event=result.event, capability=str(result.capability), route=str(result.route),
                      alternative=result.alternative,
                      seams=list(result.seams), reason=result.reason,
                      degradations=[str(d.code) for d in result.degradations])

    # ── rules ───────────────────────────────────────────────────────────────────────────────────
    async def register_rules(self, vendor: object, source: str | Sequence[str],
                             base_dir: str | Path | None = None, id: str | None = None
                             ) -> CapabilityResult:
        """Read rules files now and inject them as sourced context on every agent start."""
        self._check()
        unit = unit_of(vendor)
        spec = unit.spec
        if id is not None and (id in self._rules or id in self._hooks):
            raise InvalidDeclaration(f"id {id!r} is already registered on this adapter", id=id)
        rid = id or self._next_id(spec.id, "rules", None)
        carried = read_rules(spec, rid, source, base_dir, self.config.max_rule_bytes)
        result = grade_rules(spec.id, self.host.surface, id=rid,
                             files=tuple(f.summary() for f in carried.files))
        self._log_registration(result)
        if result.capability is Capability.CARRY:
            policy = capability(unit, CommandPolicy)
            rules = self._policy_rules(policy, carried, result) if policy is not None else ()
            if self._rules_unsubscribe is None:
                self._rules_unsubscribe = self.host.on("agent/created", self._inject_rules)
            self._rules[rid] = (result, carried)
            if policy is not None and rules:
                if spec.id not in self._guards:
                    self._guards[spec.id] = policy.guard(self.host)
                self._guards[spec.id].add(rid, rules)
        return result

    @staticmethod
    def _policy_rules(policy: CommandPolicy, carried: CarriedRules, result: CapabilityResult
                      ) -> tuple[PolicyRule, ...]:
        """The rules of the files the vendor's ``policy`` capability holds (Codex ``.rules``), when the
        grade says they are enforced here.

        Parsed before anything is mounted: a file outside the rules language raises
        INVALID_DECLARATION and nothing of the registration takes effect.
        """
        if not any(d.code is DegradationCode.APPROXIMATE for d in result.degradations):
            return ()
        rules: list[PolicyRule] = []
        for f in carried.files:
            if policy.holds(str(f.path)):
                rules.extend(policy.parse(f.data.decode("utf-8", errors="replace"), str(f.path)))
        return tuple(rules)

    def register_permissions(self, rules: Sequence[PermissionRule],
                             settings: Sequence[PermissionSetting] = ()) -> tuple[CapabilityResult, ...]:
        """Grade permission rules (and the settings beside them) and enforce every one that can run
        here on the host's tool calls, with its vendor's matching and precedence; results in order.

        A rule on a tool the host lacks is UNSUPPORTED with the reason and guards nothing.
        """
        self._check()
        out = []
        items: tuple[PermissionRule | PermissionSetting, ...] = (*rules, *settings)
        for item in items:
            language = language_of(item.vendor)
            if language is None:
                raise InvalidDeclaration(f"{item.vendor} has no permission-rule language here", id=item.origin)
            rid = self._next_id(item.vendor, "permission", None)
            if isinstance(item, PermissionRule):
                result = grade_permission(item, language, self.host.surface, id=rid)
                if result.mounted:
                    self._permissions.add(rid, language, item)
            else:
                result = grade_setting(item, language, self.host.surface, id=rid)
            self._log_registration(result)
            self._permission_results[rid] = result
            out.append(result)
        return tuple(out)

    async def _inject_rules(self, event: AgentCreated) -> None:
        for _, carried in self._rules.values():
            event.agent.inject(new_message(carried.text, RULES_SOURCE_KIND, carried.id))

    # ── reports ─────────────────────────────────────────────────────────────────────────────────
    @staticmethod
    def matrix(surface: Any = None) -> Matrix:
        """What this version can ever do (graded on the given surface, default the embedded one)."""
        return build_matrix(surface) if surface is not None else build_matrix()

    def kept(self) -> dict[str, int]:
        """How many entries each structure this adapter keeps per session, agent or call holds now
        (each is released with what it is kept for, or bounded): what a long-lived host watches."""
        plugins = self._plugins.kept() if self._plugins is not None else {}
        return {**self._listening.kept(), **plugins, "audit": len(self._audit)}

    @property
    def audit(self) -> tuple[AuditRecord, ...]:
        """Every hook run by this adapter's own routes, in order."""
        return tuple(self._audit)

    def status(self) -> Status:
        """What is running now, told truthfully."""
        hooks = []
        for hid, (result, entry) in self._hooks.items():
            running, bridge, note = False, None, result.reason
            if entry is not None:
                state = self._routers[result.route].state(entry)
                running, bridge, note = state.running and not self._disposed, state.bridge, state.note
            hooks.append(HookStatus(id=hid, vendor=result.vendor, event=result.event,
                                    capability=result.capability, route=result.route,
                                    seams=result.seams, matcher=result.matcher, running=running,
                                    bridge=bridge, note=note))
        surface = self.host.surface
        services = {name: name in surface.services for name in
                    ("shell", "shellEnv", "fs.watch", "lsp", "worktrees", "agents", "approval",
                     "userQuestions", "subagents", "settings")}
        return Status(
            host=surface.host, version=surface.version, disposed=self._disposed, hooks=tuple(hooks),
            rules=tuple(RulesStatus(id=rid, vendor=r.vendor, capability=r.capability, files=r.files)
                        for rid, (r, _) in self._rules.items()),
            services=services,
            bridges=self._bridges.configs(),
            permissions=tuple(self._permission_results.values()),
        )
