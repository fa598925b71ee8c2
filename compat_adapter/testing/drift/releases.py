"""What an installed vendor release says about itself: its version (the lane's stamp) and the hook
events it knows, read from what the vendor ships (its JSON schemas, its type definitions, the event
table compiled into its binary), never from our own tables.

One reader per vendor, registered in :data:`READERS`; each returns the events and names the file it
read them from, so that a report can say where a claim comes from. A reader that finds nothing
raises: a release whose layout moved must be looked at, not reported as knowing no event.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from compat_adapter.catalog import resolve_vendor

__all__ = ("LANE_FOLDERS", "READERS", "Release", "read_release", "table_gaps")

#: The lane's folder per vendor id (``workbuddy`` is CodeBuddy's).
LANE_FOLDERS: Mapping[str, str] = {"claude": "claude", "codex": "codex", "copilot": "copilot",
                                   "opencode": "opencode", "workbuddy": "codebuddy"}


@dataclass(frozen=True, slots=True)
class Release:
    vendor: str
    stamp: str
    """What the lane installed, as its stamp says (``@anthropic-ai/claude-code@2.1.332``)."""
    events: tuple[str, ...]
    """Every hook event the release knows, in the order it lists them."""
    source: str
    """Where the events were read, relative to the vendor's lane folder."""

    def as_json(self) -> dict[str, object]:
        return {"vendor": self.vendor, "stamp": self.stamp, "events": list(self.events), "source": self.source}


def _strings(path: Path, pattern: bytes) -> Iterator[re.Match[bytes]]:
    return re.finditer(pattern, path.read_bytes())


def _claude(folder: Path) -> tuple[tuple[str, ...], str]:
    # The bundled CLI keeps its hook events as one JSON-like array literal (the settings schema's
    # list); smaller arrays of some of them also exist, so the longest that holds the anchors wins.
    rel = "node_modules/@anthropic-ai/claude-code/bin/claude.exe"
    best: list[str] = []
    for m in _strings(folder / rel, rb'\["PreToolUse"(?:,"[A-Za-z]+")+\]'):
        names = json.loads(m.group(0))
        if {"SessionStart", "Stop", "UserPromptSubmit"} <= set(names) and len(names) > len(best):
            best = names
    return tuple(best), rel


def _codex(folder: Path) -> tuple[tuple[str, ...], str]:
    # Codex embeds a draft-07 JSON schema per hook event (``<event>.command.input``); the event
    # name is the const of its ``hook_event_name``.
    rel = "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
    data = (folder / rel).read_bytes().decode("utf-8", "replace")
    decoder = json.JSONDecoder()
    found: list[str] = []
    for m in re.finditer(r'\{\s*"\$schema": "http://json-schema.org/draft-07/schema#"', data):
        try:
            schema, _ = decoder.raw_decode(data, m.start())
        except ValueError:
            continue
        title = str(schema.get("title", ""))
        const = schema.get("properties", {}).get("hook_event_name", {}).get("const")
        if title.endswith(".command.input") and isinstance(const, str) and const not in found:
            found.append(const)
    # An event without a schema (0.169 and 0.171 have PreModelRequest in their hook-event enum but
    # no schema for it) is not seen here: the enum's variant names are stored back to back with
    # other identifiers, with no boundary that tells where the run ends.
    return tuple(found), rel + " (embedded <event>.command.input schemas)"


def _copilot(folder: Path) -> tuple[tuple[str, ...], str]:
    # The CLI unpacks its payload on first start (the lane does that at install); the payload ships
    # its API schema, whose HookType enum lists every event (file-configurable and SDK-only).
    for schema in sorted(folder.glob("xdg-cache/copilot/pkg/*/*/schemas/api.schema.json")):
        enum = json.loads(schema.read_text())["definitions"]["HookType"]["enum"]
        return tuple(enum), str(schema.relative_to(folder)) + " (definitions.HookType)"
    return (), "xdg-cache/copilot/pkg/*/*/schemas/api.schema.json"


def _opencode(folder: Path) -> tuple[tuple[str, ...], str]:
    # A plugin's callbacks are the keys of the plugin package's `Hooks` interface; the bus events an
    # `event` callback receives are the members of the SDK's `Event` union (each names its `type`).
    plugin = "node_modules/@opencode-ai/plugin/dist/index.d.ts"
    sdk = "node_modules/@opencode-ai/sdk/dist/gen/types.gen.d.ts"
    text = (folder / plugin).read_text()
    body = text[text.index("interface Hooks"):]
    body = body[:body.index("\n}")]
    hooks = re.findall(r'^    "?([A-Za-z][\w.]*)"?\??:', body, re.M)
    types = (folder / sdk).read_text()
    union = re.search(r"export type Event = ([^;]*);", types)
    bus: list[str] = []
    for member in (union.group(1).split("|") if union else ()):
        m = re.search(r"export type " + re.escape(member.strip()) + r' = \{\s*(?:id: [^;]*;\s*)?type: "([^"]+)"',
                      types)
        if m:
            bus.append(m.group(1))
    return tuple(dict.fromkeys([*hooks, *bus])), f"{plugin} (interface Hooks) + {sdk} (type Event)"


def _codebuddy(folder: Path) -> tuple[tuple[str, ...], str]:
    # The bundled CLI compiles its hook-event enum to `x.PRE_TOOL_USE="PreToolUse",…` in one function.
    rel = "wheel/codebuddy_agent_sdk/bin/codebuddy-headless"
    for m in _strings(folder / rel, rb'\{(\w+)\.PRE_TOOL_USE="PreToolUse"[^}]*\}'):
        names = re.findall(rb'\.[A-Z_]+="([A-Za-z]+)"', m.group(0))
        return tuple(n.decode() for n in names), rel + " (compiled hook-event enum)"
    return (), rel


READERS: Mapping[str, Callable[[Path], tuple[tuple[str, ...], str]]] = {
    "claude": _claude, "codex": _codex, "copilot": _copilot, "opencode": _opencode, "workbuddy": _codebuddy}


def read_release(vendor: str, lane: Path) -> Release:
    """The release of ``vendor`` installed in the lane folder ``lane``; raises when it is not
    installed or its event list cannot be found."""
    folder = lane / LANE_FOLDERS[vendor]
    stamp_file = folder / ".stamp"
    if not stamp_file.exists():
        raise FileNotFoundError(f"{vendor} is not installed in {lane} (no {stamp_file.name})")
    events, source = READERS[vendor](folder)
    if not events:
        raise LookupError(f"{vendor}: no hook event list found in {source}: the release's layout changed")
    return Release(vendor, stamp_file.read_text().strip(), events, source)


def table_gaps(vendor: str, events: tuple[str, ...]) -> tuple[str, ...]:
    """The events among ``events`` that our vendor table neither serves nor names as unserved."""
    spec = resolve_vendor(vendor)
    return tuple(e for e in events if spec.row(e) is None and spec.unserved_reason(e) is None)
