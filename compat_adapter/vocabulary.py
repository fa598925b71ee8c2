"""The closed vocabularies every table and result is written in: capabilities, routes, loss codes,
services, seam modes and the host surface, on the one frozen base.

Split from :mod:`compat_adapter.model` (which re-exports every name here) so that the vendor-facing
records there stay readable; nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from types import MappingProxyType
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer

__all__ = ("FINDING_SAFETY", "SAFETY", "Capability", "Degradation", "DegradationCode", "Frozen", "NameSet", "Route",
           "Safety", "SeamMode", "Service", "Surface", "degrade", "finding_safety", "safety_of")


class Frozen(BaseModel):
    """Base for every value object: immutable, no unknown keys.

    Field docstrings document the fields in the source, where readers and documentation tools
    find them; they are not copied into the JSON schema (pydantic's ``use_attribute_docstrings``
    re-reads every class's source at import, 12-25 ms of ``import compat_adapter``). Validators
    are built on a model's first use, not at import (``defer_build``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


#: A set of names that JSON output writes as a sorted list. A frozenset iterates in an order that
#: depends on PYTHONHASHSEED, so dumped as it is, the same surface would print differently from
#: one run to the next (``compat-adapter surface --json``, ``serve``'s hello). Python dumps keep the set.
NameSet = Annotated[frozenset[str], PlainSerializer(sorted, return_type=list[str], when_used="json")]


class Capability(StrEnum):
    DIRECT = "DIRECT"
    ADAPTED = "ADAPTED"
    CARRY = "CARRY"
    UNSUPPORTED = "UNSUPPORTED"


class Route(StrEnum):
    """Who runs a hook, and whether its answer can reach the host. An :class:`EventRow` validator
    keeps the label and the row's behaviour in agreement."""

    OFFICIAL_BRIDGE = "official-bridge"
    """The host's own bridge runs it from a config we write."""
    NATIVE_TRANSLATE = "native-translate"
    """Our translation on a seam: the answer reaches the host as the vendor's would, or the vendor
    itself only observes the event (``blocking="observe"`` without an observe-only loss)."""
    NATIVE_SEAM = "native-seam"
    """Observe-only: the vendor could act on the answer, the seam cannot; the row says so with an
    observe-only loss, and a blocking answer is audited and ignored."""
    BUILTIN_BRIDGE = "builtin-bridge"
    """Our own Copilot bridge, for a vendor the host has no bridge for."""
    PLUGIN_HOST = "plugin-host"
    """OpenCode plugins loaded as written in a sidecar JS runtime; each callback is a hook on its point."""
    CARRY = "carry"
    UNSUPPORTED = "unsupported"


class DegradationCode(StrEnum):
    """The closed vocabulary of losses. Counts in the matrix come from these codes, never from text."""

    OBSERVE_ONLY = "observe-only"
    """The hook runs, but nothing it answers can change what the host does."""
    APPROXIMATE = "approximate"
    """The host moment only approximates the vendor's event; it may fire at other times."""
    INPUT_REWRITE_IGNORED = "input-rewrite-ignored"
    """Tool-input rewrites (updatedInput, modifiedArgs, modifiedInput) are not applied."""
    OUTPUT_REWRITE_IGNORED = "output-rewrite-ignored"
    """Tool-output or response rewrites are not applied."""
    PAYLOAD_FIELD_MISSING = "payload-field-missing"
    """The stdin payload lacks or flattens fields the vendor sends."""
    TIMING_DIFFERS = "timing-differs"
    """The hook runs at a different moment (or frequency) than in the vendor."""
    MATCHER_NARROWED = "matcher-narrowed"
    """A matcher selects differently here, or cannot narrow at all."""
    DECISION_NARROWED = "decision-narrowed"
    """Some of the vendor's decisions (ask, allow, block, always-allow …) have no effect here."""
    OUTPUT_FIELD_IGNORED = "output-field-ignored"
    """Some output fields (plain-stdout context, systemMessage, sessionTitle …) are not consumed."""
    NO_LOOP_GUARD = "no-loop-guard"
    """No consecutive-block cap: an unconditional blocking hook keeps forcing steps."""
    ENV_DIFFERS = "env-differs"
    """The hook's environment differs from the vendor's (variables missing or renamed)."""
    TIMEOUT_DIFFERS = "timeout-differs"
    """The default timeout differs from the vendor's."""
    EXIT_CODE_DIFFERS = "exit-code-differs"
    """An exit-code convention of the vendor is treated differently here."""
    REAUTHORED = "reauthored"
    """The vendor's in-process callback body cannot be carried; the hook must be a command."""
    NO_PUBLIC_API = "no-public-api"
    """The vendor product has no public hook API; another engine's dialect is assumed."""
    MESSAGE_PROVENANCE = "message-provenance"
    """Injected or steered messages carry a different source than in the vendor."""
    OWN_TRANSLATION = "own-translation"
    """No bridge exists for this vendor; this project re-implements the dialect."""
    POLLED = "polled"
    """The moment is detected by polling, bounded by the poll interval."""
    SCOPE_DIFFERS = "scope-differs"
    """Only part of what the vendor covers is visible here (in-process children, DSH_* env …)."""
    TEXT_DIFFERS = "text-differs"
    """What the model reads differs in wording from the vendor's own text (a host prefix …)."""
    MODEL_DIFFERS = "model-differs"
    """A prompt or agent hook is answered by the host's model, not the one the vendor would ask."""
    FIELD_IGNORED = "field-ignored"
    """A handler field the vendor reads (or at least accepts) is not honoured here."""
    CONTEXT_COST = "context-cost"
    """Context reaches the model in its role, but where the host puts such text it sits elsewhere
    and each change costs more than the vendor's message (a prompt-cache reset, a prompt copy)."""
    NEVER_FIRES = "never-fires"
    """The matcher selects nothing this host ever produces (only tools it lacks, an agent type it
    never reports): the hook registers and never runs."""
    RULE_NARROWED = "rule-narrowed"
    """A permission rule reaches fewer calls here than in the vendor (a form of call the vendor's
    matching covers that this host's tools or matching do not): a guard with a gap."""
    SETTING_IGNORED = "setting-ignored"
    """A permission setting beside the rules (a mode, extra folders) has no effect here."""
    SHOWN_MORE = "shown-more"
    """The host shows the person what a hook said (a stopReason, a systemMessage) where the vendor's
    own user interface shows nothing of it: the person learns more here, the model reads the same."""


class Safety(StrEnum):
    """What a loss does to a hook that guards something, worst first: the order ``grade`` shows,
    the SARIF level, and what ``--strict`` fails on."""

    DISARMS_GUARD = "disarms-guard"
    """A guard stops guarding: it fails open, a deny becomes ask or allow, its matcher can never
    fire here, it cannot start, or a permission rule is not enforced. SARIF ``error``."""
    CHANGES_BEHAVIOUR = "changes-behaviour"
    """The hook runs and its answer counts, but something it does or sees differs. SARIF ``warning``."""
    COSMETIC = "cosmetic"
    """What differs is wording, provenance or context a hook rarely reads. SARIF ``note``."""

    @property
    def rank(self) -> int:
        """0 for the worst class; a threshold fails on every class ranked at or below it."""
        return list(Safety).index(self)

    @property
    def level(self) -> str:
        """The SARIF level of this class."""
        return ("error", "warning", "note")[self.rank]


#: The safety class of every loss code: one line a code (a test checks that none is missing), so
#: a new code needs only its line here.
SAFETY: Mapping[DegradationCode, Safety] = MappingProxyType({
    DegradationCode.OBSERVE_ONLY: Safety.DISARMS_GUARD,  # a deny or block is read and ignored
    DegradationCode.NEVER_FIRES: Safety.DISARMS_GUARD,  # registered, never run
    DegradationCode.RULE_NARROWED: Safety.DISARMS_GUARD,  # a permission rule with a gap: calls it denies get through
    DegradationCode.APPROXIMATE: Safety.CHANGES_BEHAVIOUR,
    DegradationCode.INPUT_REWRITE_IGNORED: Safety.CHANGES_BEHAVIOUR,
    DegradationCode.OUTPUT_REWRITE_IGNORED: Safety.CHANGES_BEHAVIOUR,
    DegradationCode.TIMING_DIFFERS: Safety.CHANGES_BEHAVIOUR,
    DegradationCode.MATCHER_NARROWED: Safety.CHANGES_BEHAVIOUR,  # fires for fewer or more; never-fires is its own
    DegradationCode.DECISION_NARROWED: Safety.CHANGES_BEHAVIOUR,  # ask and allow differ; a deny still denies
    DegradationCode.OUTPUT_FIELD_IGNORED: Safety.CHANGES_BEHAVIOUR,
    DegradationCode.NO_LOOP_GUARD: Safety.CHANGES_BEHAVIOUR,
    DegradationCode.TIMEOUT_DIFFERS: Safety.CHANGES_BEHAVIOUR,
    DegradationCode.EXIT_CODE_DIFFERS: Safety.CHANGES_BEHAVIOUR,
    DegradationCode.REAUTHORED: Safety.CHANGES_BEHAVIOUR,
    DegradationCode.CONTEXT_COST: Safety.COSMETIC,  # the text reaches the model in its role; it costs more
    DegradationCode.POLLED: Safety.CHANGES_BEHAVIOUR,
    DegradationCode.SCOPE_DIFFERS: Safety.CHANGES_BEHAVIOUR,
    DegradationCode.MODEL_DIFFERS: Safety.CHANGES_BEHAVIOUR,
    DegradationCode.FIELD_IGNORED: Safety.CHANGES_BEHAVIOUR,
    DegradationCode.SETTING_IGNORED: Safety.CHANGES_BEHAVIOUR,  # a mode or extra folder beside the rules
    DegradationCode.CONTEXT_COST: Safety.COSMETIC,  # the vendor's role and words, elsewhere in the prompt, at a cost
    # Every hook of a vendor carries these; what they name (ids, paths, an effort level, secrets
    # kept from every hook, a message's role) changes no verdict a guard gives.
    DegradationCode.PAYLOAD_FIELD_MISSING: Safety.COSMETIC,
    DegradationCode.ENV_DIFFERS: Safety.COSMETIC,
    DegradationCode.MESSAGE_PROVENANCE: Safety.COSMETIC,
    DegradationCode.TEXT_DIFFERS: Safety.COSMETIC,
    DegradationCode.NO_PUBLIC_API: Safety.COSMETIC,  # where the semantics come from, not what they do
    DegradationCode.OWN_TRANSLATION: Safety.COSMETIC,
    DegradationCode.SHOWN_MORE: Safety.COSMETIC,  # a notice to the person; no verdict, no model text
})

#: The safety class of each preflight finding kind (``compat_adapter.preflight``) and of the other
#: things ``grade`` reports beside losses.
FINDING_SAFETY: Mapping[str, Safety] = MappingProxyType({
    "fails-open": Safety.DISARMS_GUARD,  # a guard that cannot start lets every call through
    "cannot-start": Safety.DISARMS_GUARD,
    "unsupported": Safety.DISARMS_GUARD,  # the hook never runs here
    "fails-closed": Safety.CHANGES_BEHAVIOUR,  # it cannot start, and every call it matches is denied
    "file": Safety.CHANGES_BEHAVIOUR,
    "program": Safety.CHANGES_BEHAVIOUR,
    "client-missing": Safety.CHANGES_BEHAVIOUR,  # the shim client not placed here: its entries cannot start
    "variable": Safety.CHANGES_BEHAVIOUR,
    "loads-twice": Safety.CHANGES_BEHAVIOUR,
})


def safety_of(code: str | DegradationCode) -> Safety:
    """The safety class of a loss code."""
    return SAFETY[DegradationCode(code)]


def finding_safety(kind: str) -> Safety:
    """The safety class of a preflight finding or report item; an unknown kind counts as
    changing behaviour (never silently cosmetic)."""
    return FINDING_SAFETY.get(kind, Safety.CHANGES_BEHAVIOUR)


class Degradation(Frozen):
    code: DegradationCode
    """Stable machine code from the closed vocabulary."""
    text: str = Field(min_length=1)
    """One sentence, in our words, saying exactly what is lost."""


def degrade(code: str | DegradationCode, text: str) -> Degradation:
    """Shorthand the vendor tables use to list one loss."""
    return Degradation(code=DegradationCode(code), text=text)


class Service(StrEnum):
    """Host services a row may need besides its seams."""

    SHELL = "shell"
    """A shell executor: without it no command hook can run."""
    SHELL_ENV = "shellEnv"
    FS_WATCH = "fs.watch"
    LSP = "lsp"
    WORKTREES = "worktrees"
    AGENTS = "agents"
    APPROVAL = "approval"
    USER_QUESTIONS = "userQuestions"
    SUBAGENTS = "subagents"
    SETTINGS = "settings"
    MODEL = "model"
    """A model the host lets hooks ask (prompt and agent hooks)."""
    TOOLS = "tools"
    """The host's tool registry: a nested call through its whole pipeline (DSH ``ctx.tools.execute``)."""


class SeamMode(StrEnum):
    """How a host seam dispatches (see ``compat_adapter.host.protocol``)."""

    WATERFALL = "waterfall"
    SERIAL = "serial"
    EMIT = "emit"


class Surface(Frozen):
    """What one host actually offers. Grading reads only this, never the host object."""

    host: str
    version: str
    seams: Mapping[str, SeamMode]
    """Seam name → dispatch mode."""
    services: NameSet
    """Service names (see :class:`Service`): shell, fs.watch, lsp …"""
    bridge_packages: NameSet = frozenset()
    """Official bridge packages the host can mount."""
    unserved: Mapping[str, str] = Field(default_factory=dict)
    """Row points whose seam exists but that this host never produces (point → why)."""
    context_roles: NameSet = frozenset()
    """Roles besides ``user`` this host gives hook context in (``system``, ``developer``)."""
    context_placement: Mapping[str, str] = Field(default_factory=dict)
    """Role → where this host puts context of that role and what each change costs, when that is
    not a message of the role where the vendor puts it (every row of the role lists it)."""
    timing: Mapping[str, str] = Field(default_factory=dict)
    """Row points this host reaches at another moment than the vendors do (point → how): every row
    there lists it as a ``timing-differs`` loss."""

    def without(self, *, seams: Sequence[str] = (), services: Sequence[str] = (),
                bridges: Sequence[str] = ()) -> Surface:
        """A copy with parts removed: how tests and other hosts describe a smaller composition."""
        return Surface(
            host=self.host,
            version=self.version,
            seams={k: v for k, v in self.seams.items() if k not in seams},
            services=self.services - set(services),
            bridge_packages=self.bridge_packages - set(bridges),
            unserved=self.unserved,
            context_roles=self.context_roles,
            context_placement=self.context_placement,
            timing=self.timing,
        )
