"""How Copilot CLI words a hook's answer for the model (vendor lane, Copilot CLI 1.0.102)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import MappingProxyType

from compat_adapter.vendor import Place, Said, Voice

__all__ = ("HOOK_ERRORED", "CopilotVoice")

_COPILOT_DENIED = "Denied by preToolUse hook"
#: The dialect's reason for a preToolUse hook that errored (a non-zero exit other than 2, a crash):
#: Copilot denies the call and names the hook's file, not the exit code or stderr.
HOOK_ERRORED = "hook errored"


class CopilotVoice(Voice):
    """Copilot: a deny names the hook event (an exit-2 deny drops stderr and names the exit code);
    pre-tool context a labelled user message, post-tool context appended to the result under a
    line naming the tool, prompt context a <system_reminder> after the prompt, session-start
    context bare. The PascalCase spellings are the same events to Copilot."""

    def deny(self, said: Said) -> str:
        if said.reason == HOOK_ERRORED and not said.exit2:
            # Measured on Copilot CLI 1.0.102 (vendor lane, pre_error, pre_crash): the file the hook
            # came from, relative to the repository, e.g. ".github/hooks/hooks.json".
            return f'{_COPILOT_DENIED} from "{_shown(said)}" ({HOOK_ERRORED})'
        reason = "hook exited with code 2" if said.exit2 else said.reason
        return f"{_COPILOT_DENIED}: {reason}"

    def permission_denied(self, said: Said) -> str:
        # Measured on Copilot CLI 1.0.102 (vendor lane, permission_deny): the deny's message after
        # a fixed lead, whichever spelling of the event refused.
        return f"Permission denied by a PermissionRequest hook: {said.reason}"

    def ask_denied(self, said: Said) -> str:
        return f"{_COPILOT_DENIED} (unable to ask user for confirmation): {said.reason}"

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        name = _COPILOT_EVENTS.get(event, event)
        if name == "preToolUse":
            return f"Additional context from preToolUse hook:\n{text}"
        if name in ("postToolUse", "postToolUseFailure"):
            outcome = "failed" if failed else "succeeded"
            return f'Tool "{tool}" {outcome}. Additional guidance from {name} hooks:\n{text}'
        if name == "userPromptSubmitted":
            return f"<system_reminder>\n{text}\n</system_reminder>"
        return text

    def place(self, event: str, failed: bool = False) -> Place:
        # A failing tool's context is a user message of its own (measured with postToolUseFailure).
        return "message" if failed else super().place(_COPILOT_EVENTS.get(event, event))


#: The repository's settings files (the importer's ``SETTINGS``), which Copilot names as one place.
_REPO_SETTINGS = frozenset({".github/copilot/settings.json", ".github/copilot/settings.local.json"})


def _shown(said: Said) -> str:
    """The hook's file as Copilot names it: relative to the project when it lies inside it, and
    "repo settings" for either of the repository's settings files (measured on 1.0.102, vendor lane
    pre_http_repo_settings and pre_http_local_settings)."""
    source = said.source or said.event
    if said.cwd and os.path.isabs(source):
        rel = os.path.relpath(source, said.cwd)
        if not rel.startswith(os.pardir):
            return "repo settings" if rel.replace(os.sep, "/") in _REPO_SETTINGS else rel
    return source


#: Copilot's PascalCase spellings → its own event names (the words it uses for the model).
_COPILOT_EVENTS: Mapping[str, str] = MappingProxyType({
    "PreToolUse": "preToolUse", "PostToolUse": "postToolUse", "PostToolUseFailure": "postToolUseFailure",
    "UserPromptSubmit": "userPromptSubmitted", "SessionStart": "sessionStart",
})
