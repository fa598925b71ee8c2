"""The vendor author's API: every name of the product a vendor unit (``vendors/<id>/``) may import.

A unit's modules import the product from here only (``from compat_adapter.vendor import ...``), and
other units from ``vendors.<id>``; its lane (``lane.py``, test support) may also use
``compat_adapter.testing``. A house test (``tests/test_vendor_units.py``) holds every unit to this.
So the names here are the contract: the part types a unit hands to :func:`vendor_unit` (a dialect's
answers, an importer's rows, a handler shape, a voice, the facts of its table) and the helpers that
several units share. A module of the product may move or change behind them; these names stay.

A name a new unit needs is added here (one line below and one under ``TYPE_CHECKING``), not imported
from its home. Each name is imported on first use, from the module it lives in, so a table that
needs only :mod:`compat_adapter.model` loads nothing else (`matrix` reads tables, not dialects).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compat_adapter.capability import (CommandPolicy, GradedPlugin, PluginPort, PluginRouter, PluginRuntime,
        PolicyGuard, PolicyRule, VerdictRules)
    from compat_adapter.catalog import host_tool, resolve_vendor, unit_of
    from compat_adapter.declare import REFUSED_HANDLER_TYPES, Declared
    from compat_adapter.derive import derive_row
    from compat_adapter.dialects.base import Decision, Dialect, HookAnswer, Moment
    from compat_adapter.dialects.common import (OUTPUT_CAP, AnswerDraft, cause_text, chain_input, encode_json,
        first_line, keyed_subject, merge_answers, overlay, plain, vendor_call)
    from compat_adapter.dialects.facts import OMIT, flatten, take
    from compat_adapter.dialects.patterns import (Searched, compile_js, compile_rust, js_problem, search_problem,
        searches)
    from compat_adapter.errors import (CompatError, ConfigParseError, HostSurfaceMismatch, InvalidDeclaration,
        InvalidHandler, InvalidMatcher, ProtocolError, RulesSourceMissing)
    from compat_adapter.handlers.outcome import UNANSWERED, UNREACHABLE
    from compat_adapter.handlers.parse import CommandOptions, HandlerShape, flag_field, string_field, strings_field
    from compat_adapter.handlers.rules import IF_EVENTS
    from compat_adapter.host.protocol import (AgentError, AgentStatus, ApprovalOutcome, ApprovalRequest, Host,
        InboxInserted, PostToolDecision, PreStepDecision, PreStepEvent, PreToolDecision, SessionCreated, ToolExecution,
        ToolPostEvent, UserMessage, new_message)
    from compat_adapter.hostface import (EntrySpec, HostFace, ReadKeys, Reply, TableFace, claude_reply, json_reply,
        parse_stdin, read_fields)
    from compat_adapter.importers.common import (Decide, FileImport, ImportedHook, ImportedPlugin, ImportedRules,
        ReadFile, Refused, Slot, absolute, accept, config_or_rules, entry_refusal, freeze, grouped_slots, handler_type,
        hook_table, import_events, in_sequence, judged, matcher_of, no_row, read_disable_all, refuse, refuse_slots,
        rules_file, served_row, shape_error)
    from compat_adapter.importers.loaders import json_kind, load_json, load_jsonc, load_toml
    from compat_adapter.importers.places import PluginLayout, plugin_hook_files
    from compat_adapter.jsontext import JsonTextError, js_lines, js_object, js_read, js_trim, rust_read, rust_trim
    from compat_adapter.model import (BridgeSpec, Capability, CapabilityResult, CommandHandler, Confidence,
        Degradation, DegradationCode, EventRow, Frozen, Handler, HookDeclaration, HookPlace, HookVar, HttpHandler,
        MatcherEngine, McpToolHandler, ModelHandler, NameSet, Route, RulesDeclaration, RulesFile, RulesSpec, SeamMode,
        Service, Surface, ToolName, UnsupportedVendor, VendorSpec, capability_result, degrade)
    from compat_adapter.permissions.language import Combination, RuleLanguage
    from compat_adapter.permissions.model import PermissionImport, PermissionRule, PermissionSetting, RuleCall, Ruling
    from compat_adapter.permissions.read import read_block
    from compat_adapter.registry import Importer, Later, VendorUnit, home_parts, vendor_unit
    from compat_adapter.routing.dispatch import AuditRecord, GroupResult, HookEntry
    from compat_adapter.routing.placement import Facts
    from compat_adapter.routing.points import Point
    from compat_adapter.routing.verdicts import END_TURN, Applied, Rule, Steer, stop_rule
    from compat_adapter.routing.voice import Call, Place, PostBlock, Said, Voice, label
    from compat_adapter.rules import resolve_sources
    from compat_adapter.runtime.outcome import ProcessOutcome
    from compat_adapter.shellparts import split
    from compat_adapter.jsondata import thaw
    from compat_adapter.routing.base import HookState
    from compat_adapter.routing.failclosed import Unanswered
    from compat_adapter.routing.rewrite import Rewrites, can_rewrite
    from compat_adapter.routing.seams.tools import EXECUTE_SEAM
    from compat_adapter.routing.verbatim import Verbatim, reworded
    from compat_adapter.runtime.process import hook_environment
    from compat_adapter.trust import plugin_untrusted
    from compat_adapter.routing import points
    from compat_adapter.importers import places, solo
    from compat_adapter.importers import rules as project_rules

__all__ = ("AgentError", "AgentStatus", "AnswerDraft", "Applied", "ApprovalOutcome", "ApprovalRequest",
    "AuditRecord", "BridgeSpec", "Call", "Capability", "CapabilityResult", "Combination", "CommandHandler",
    "CommandOptions", "CommandPolicy", "CompatError", "Confidence", "ConfigParseError", "Decide", "Decision",
    "Declared", "Degradation", "DegradationCode", "Dialect", "END_TURN", "EXECUTE_SEAM", "EntrySpec", "EventRow",
    "Facts", "FileImport", "Frozen", "GradedPlugin", "GroupResult", "Handler", "HandlerShape", "HookAnswer",
    "HookDeclaration", "HookEntry", "HookPlace", "HookState", "HookVar", "Host", "HostFace", "HostSurfaceMismatch",
    "HttpHandler", "IF_EVENTS", "ImportedHook", "ImportedPlugin", "ImportedRules", "Importer", "InboxInserted",
    "InvalidDeclaration", "InvalidHandler", "InvalidMatcher", "JsonTextError", "Later", "MatcherEngine",
    "McpToolHandler", "ModelHandler", "Moment", "NameSet", "OMIT", "OUTPUT_CAP", "PermissionImport",
    "PermissionRule", "PermissionSetting", "Place", "PluginLayout", "PluginPort", "PluginRouter", "PluginRuntime",
    "Point", "PolicyGuard", "PolicyRule", "PostBlock", "PostToolDecision", "PreStepDecision", "PreStepEvent",
    "PreToolDecision", "ProcessOutcome", "ProtocolError", "REFUSED_HANDLER_TYPES", "ReadFile", "ReadKeys", "Refused",
    "Reply", "Rewrites", "Route", "Rule", "RuleCall", "RuleLanguage", "RulesDeclaration", "RulesFile",
    "RulesSourceMissing", "RulesSpec", "Ruling", "Said", "SeamMode", "Searched", "Service", "SessionCreated", "Slot",
    "Steer", "Surface", "TableFace", "ToolExecution", "ToolName", "ToolPostEvent", "UNANSWERED", "UNREACHABLE",
    "Unanswered", "UnsupportedVendor", "UserMessage", "VendorSpec", "VendorUnit", "Verbatim", "VerdictRules",
    "Voice", "absolute", "accept", "can_rewrite", "capability_result", "cause_text", "chain_input", "claude_reply",
    "compile_js", "compile_rust", "config_or_rules", "degrade", "derive_row", "encode_json", "entry_refusal",
    "first_line", "flag_field", "flatten", "freeze", "grouped_slots", "handler_type", "home_parts",
    "hook_environment", "hook_table", "host_tool", "import_events", "in_sequence", "js_lines", "js_object",
    "js_problem", "js_read", "js_trim", "json_kind", "json_reply", "judged", "keyed_subject", "label", "load_json",
    "load_jsonc", "load_toml", "matcher_of", "merge_answers", "new_message", "no_row", "overlay", "parse_stdin",
    "places", "plain", "plugin_hook_files", "plugin_untrusted", "points", "project_rules", "read_block",
    "read_disable_all", "read_fields", "refuse", "refuse_slots", "resolve_sources", "resolve_vendor", "reworded",
    "rules_file", "rust_read", "rust_trim", "search_problem", "searches", "served_row", "shape_error", "solo",
    "split", "stop_rule", "string_field", "strings_field", "take", "thaw", "unit_of", "vendor_call", "vendor_unit")


#: Where each name lives. Modules are named by their own path (``places`` is
#: ``compat_adapter.importers.places``); a name of a module lives in that module.
_MODULES = {
    "places": "compat_adapter.importers.places",
    "points": "compat_adapter.routing.points",
    "project_rules": "compat_adapter.importers.rules",
    "solo": "compat_adapter.importers.solo",
}
_HOMES = {
    **dict.fromkeys(("CommandPolicy", "PolicyGuard", "PolicyRule", "VerdictRules"), "compat_adapter.capability"),
    **dict.fromkeys(("host_tool", "resolve_vendor"), "compat_adapter.catalog"),
    "REFUSED_HANDLER_TYPES": "compat_adapter.declare",
    "derive_row": "compat_adapter.derive",
    **dict.fromkeys(("Decision", "Dialect", "HookAnswer", "Moment"), "compat_adapter.dialects.base"),
    **dict.fromkeys(("OUTPUT_CAP", "AnswerDraft", "cause_text", "chain_input", "encode_json", "first_line",
                    "keyed_subject", "merge_answers", "overlay", "plain",
                    "vendor_call"), "compat_adapter.dialects.common"),
    **dict.fromkeys(("OMIT", "flatten", "take"), "compat_adapter.dialects.facts"),
    **dict.fromkeys(("Searched", "compile_js", "compile_rust", "js_problem", "search_problem",
                    "searches"), "compat_adapter.dialects.patterns"),
    **dict.fromkeys(("CompatError", "ConfigParseError", "InvalidDeclaration", "InvalidHandler", "InvalidMatcher",
                    "RulesSourceMissing"), "compat_adapter.errors"),
    **dict.fromkeys(("UNANSWERED", "UNREACHABLE"), "compat_adapter.handlers.outcome"),
    **dict.fromkeys(("CommandOptions", "HandlerShape", "flag_field", "string_field",
                    "strings_field"), "compat_adapter.handlers.parse"),
    "IF_EVENTS": "compat_adapter.handlers.rules",
    **dict.fromkeys(("Host", "PreToolDecision", "ToolExecution"), "compat_adapter.host.protocol"),
    **dict.fromkeys(("EntrySpec", "HostFace", "ReadKeys", "Reply", "TableFace", "claude_reply", "json_reply",
                    "parse_stdin", "read_fields"), "compat_adapter.hostface"),
    **dict.fromkeys(("Decide", "FileImport", "ImportedHook", "ImportedPlugin", "ImportedRules", "ReadFile", "Refused",
                    "Slot", "absolute", "accept", "config_or_rules", "entry_refusal", "freeze", "grouped_slots",
                    "handler_type", "hook_table", "import_events", "in_sequence", "judged", "matcher_of", "no_row",
                    "read_disable_all", "refuse", "refuse_slots", "rules_file", "served_row",
                    "shape_error"), "compat_adapter.importers.common"),
    **dict.fromkeys(("json_kind", "load_json", "load_jsonc", "load_toml"), "compat_adapter.importers.loaders"),
    **dict.fromkeys(("PluginLayout", "plugin_hook_files"), "compat_adapter.importers.places"),
    **dict.fromkeys(("JsonTextError", "js_lines", "js_object", "js_read", "js_trim", "rust_read",
                    "rust_trim"), "compat_adapter.jsontext"),
    **dict.fromkeys(("BridgeSpec", "Capability", "CapabilityResult", "CommandHandler", "Confidence", "Degradation",
                    "DegradationCode", "EventRow", "Frozen", "Handler", "HookDeclaration", "HookPlace", "HookVar",
                    "HttpHandler", "MatcherEngine", "McpToolHandler", "ModelHandler", "NameSet", "Route",
                    "RulesDeclaration", "RulesFile", "RulesSpec", "SeamMode", "Service", "Surface", "ToolName",
                    "UnsupportedVendor", "VendorSpec", "capability_result", "degrade"), "compat_adapter.model"),
    **dict.fromkeys(("Combination", "RuleLanguage"), "compat_adapter.permissions.language"),
    **dict.fromkeys(("PermissionImport", "PermissionRule", "PermissionSetting", "RuleCall",
                    "Ruling"), "compat_adapter.permissions.model"),
    "read_block": "compat_adapter.permissions.read",
    **dict.fromkeys(("Importer", "Later", "VendorUnit", "home_parts", "vendor_unit"), "compat_adapter.registry"),
    "GroupResult": "compat_adapter.routing.dispatch",
    "Facts": "compat_adapter.routing.placement",
    "Point": "compat_adapter.routing.points",
    **dict.fromkeys(("END_TURN", "Applied", "Rule", "Steer", "stop_rule"), "compat_adapter.routing.verdicts"),
    **dict.fromkeys(("Call", "Place", "PostBlock", "Said", "Voice", "label"), "compat_adapter.routing.voice"),
    "resolve_sources": "compat_adapter.rules",
    "ProcessOutcome": "compat_adapter.runtime.outcome",
    "split": "compat_adapter.shellparts",
    # What OpenCode's plugin host (vendors/opencode/plugin_host) uses, since it left the core (issue 37).
    **dict.fromkeys(("GradedPlugin", "PluginPort", "PluginRouter", "PluginRuntime"), "compat_adapter.capability"),
    "unit_of": "compat_adapter.catalog",
    "Declared": "compat_adapter.declare",
    **dict.fromkeys(("HostSurfaceMismatch", "ProtocolError"), "compat_adapter.errors"),
    **dict.fromkeys(("AgentError", "AgentStatus", "ApprovalOutcome", "ApprovalRequest", "InboxInserted",
                    "PostToolDecision", "PreStepDecision", "PreStepEvent", "SessionCreated", "ToolPostEvent",
                    "UserMessage", "new_message"), "compat_adapter.host.protocol"),
    "thaw": "compat_adapter.jsondata",
    "HookState": "compat_adapter.routing.base",
    **dict.fromkeys(("AuditRecord", "HookEntry"), "compat_adapter.routing.dispatch"),
    "Unanswered": "compat_adapter.routing.failclosed",
    **dict.fromkeys(("Rewrites", "can_rewrite"), "compat_adapter.routing.rewrite"),
    "EXECUTE_SEAM": "compat_adapter.routing.seams.tools",
    **dict.fromkeys(("Verbatim", "reworded"), "compat_adapter.routing.verbatim"),
    "hook_environment": "compat_adapter.runtime.process",
    "plugin_untrusted": "compat_adapter.trust",
}


def __getattr__(name: str) -> Any:
    import importlib

    if name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    elif name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
    else:
        raise AttributeError(f"module 'compat_adapter.vendor' has no attribute {name!r}: "
                             "a name a vendor unit needs is added to the author API first")
    globals()[name] = value
    return value
