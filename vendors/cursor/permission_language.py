"""Cursor CLI's permission tokens in the permission framework: read from ``.cursor/cli.json``'s
``permissions`` block, matched as Cursor's docs describe (:mod:`vendors.cursor.permissions`).

Cursor's precedence is the framework's own (a deny beats an allow; Cursor has no ask token), so the
language only reads and matches. Confidence documented: no Cursor CLI runs offline here, so what its
model reads for a denied call and whether its hooks run first are not known; both are said as losses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from compat_adapter.vendor import (
    Combination, Degradation, PermissionImport, PermissionRule, Refused, RuleCall, degrade, host_tool, json_kind,
)
from vendors.cursor.permissions import Token, judge, parse_token

__all__ = ("LANGUAGE", "CursorRules")

#: The Cursor tool names each token kind covers.
_TOOLS = {"Shell": ("Shell",), "Read": ("Read",), "Write": ("Write",), "Mcp": ()}
_HOST_ARGS = {"file_path": "path", "old_string": "old", "new_string": "new"}


@dataclass(frozen=True, slots=True)
class CursorRules:
    vendor: str
    combination: Combination

    def read(self, value: object, *, path: Path, shown: str, place: str, scope: str) -> PermissionImport:
        out = PermissionImport()
        if not isinstance(value, Mapping):
            out.refused.append(self._refused("`permissions`", shown, place, f"expected an object, found {json_kind(value)}"))
            return out
        folder = path.absolute().parent
        root = str(folder.parent if folder.name == ".cursor" else folder)
        for key, item in value.items():
            where = f"{place}.{key}"
            if key not in ("allow", "deny"):
                out.refused.append(Refused(vendor=self.vendor, what=f"permissions `{key}`", origin=f"{shown}:{where}",
                                           reason=f"Cursor's CLI documents no permissions list {key!r}",
                                           code="UNSUPPORTED_CONFIG"))
                continue
            if not isinstance(item, list):
                out.refused.append(self._refused(f"{key} tokens", shown, where,
                                                 f"expected a list of tokens, found {json_kind(item)}"))
                continue
            for i, text in enumerate(item):
                try:
                    token = parse_token(text, key, f"{shown}:{where}[{i}]")
                except ValueError as exc:
                    out.refused.append(self._refused(f"{key} token {text!r}", shown, f"{where}[{i}]", str(exc)))
                    continue
                out.rules.append(PermissionRule(
                    vendor=self.vendor, behavior=token.action, text=token.written.strip(), tool=token.kind,
                    specifier=token.argument, origin=f"{shown}:{where}[{i}]", scope=scope, root=root,
                    settings_dir=str(folder)))
        return out

    def _refused(self, what: str, shown: str, place: str, reason: str) -> Refused:
        return Refused(vendor=self.vendor, what=f"permissions {what}", reason=reason, origin=f"{shown}:{place}",
                       code="INVALID_ENTRY")

    def host_tools(self, rule: PermissionRule) -> tuple[str, ...]:
        if rule.tool == "Write":
            return ("write", "edit")
        found = (host_tool(self.vendor, t) for t in _TOOLS.get(rule.tool, ()))
        return tuple(dict.fromkeys(t for t in found if t is not None))

    def matches(self, rule: PermissionRule, call: RuleCall) -> bool:
        token = Token(rule.tool, rule.specifier or "", rule.behavior, rule.text, rule.origin)  # type: ignore[arg-type]
        args = {_HOST_ARGS.get(k, k): v for k, v in call.input.items()}
        return judge((token,), call.host_tool, args, rule.root) is not None

    def refusal(self, rule: PermissionRule, call: RuleCall) -> str:
        return f"Denied by permission rule {rule.text} ({rule.origin})"

    def unasked(self, rule: PermissionRule, call: RuleCall) -> str:
        return self.refusal(rule, call)

    def losses(self, rule: PermissionRule) -> tuple[Degradation, ...]:
        out: list[Degradation] = []
        if rule.behavior == "deny":
            out.append(degrade("text-differs",
                               "Cursor's docs do not say what the model reads for a call a deny token refuses; "
                               "here it reads which token refused it."))
        if rule.tool == "Shell":
            out.append(degrade("approximate",
                               "Cursor's docs name the command's first word; here every command of a script "
                               "(after &&, ;, | and inside $(…)) is judged by its first word, which can only "
                               "refuse more."))
        return tuple(out)

    def samples(self, root: Path) -> tuple[PermissionRule, ...]:
        """rm denied, env files kept from reads, an MCP server's tools denied, git allowed (Cursor has
        no ask token)."""
        block = {"allow": ["Shell(git)"], "deny": ["Shell(rm)", "Read(.env*)", "Mcp(github, *)"]}
        return tuple(self.read(block, path=root / ".cursor/cli.json", shown=".cursor/cli.json", place="permissions",
                               scope="project").rules)

    def setting_losses(self, key: str, value: object) -> tuple[Degradation, ...] | str:
        return ()


#: Cursor's, as its docs leave it: hooks are taken to run first, as in Claude Code whose hooks it reads.
LANGUAGE = CursorRules("cursor", Combination(hooks_first=True, hook_allow_lifts_ask=False,
                                           hook_allow_lifts_deny=False, unattended_ask="refuse"))
