"""Continue (``cn``, ``@continuedev/cli``): 17 hook events in Claude Code's shape, Claude's own files too.

Data only: Continue's own facts, from which :mod:`vendors.cn.spec` derives its table from Claude
Code's (:mod:`vendors.claude.table`). Continue's hook code copies Claude's protocol (its
``src/hooks/``, shipped in the package: "Loads hooks from settings files in the same locations as
Claude Code"), so each of its rows is Claude's row of the same event.

Every row is ``confidence="documented"``: cn 1.5.47 loads these hooks and never fires one. Its
bundle builds the hook service and never calls it (the release's ``dist/index.js`` holds no call of
``fireEvent``; the ``fire*`` helpers of ``src/hooks/fireHook.ts`` are not bundled), and the vendor
lane measured it: ``cn -p`` against the scripted model, with a recording hook on five events in
``.continue/settings.json``, ran its Bash tool and no hook. So the rows follow Continue's own source
(``src/hooks/hookRunner.ts``), which no run can check, and the vendor-wide loss says the release
never runs them.
"""

from compat_adapter.vendor import MatcherEngine, RulesSpec, ToolName, degrade
from vendors.claude.table import BASH, CLAUDE_ONLY, EDIT

#: The release these rows follow (vendors/cn/lane.pin).
RELEASE = "1.5.47"

#: cn's hook events (``HOOK_EVENT_NAMES`` of src/hooks/types.ts, 1.5.47), in its order.
CN_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "UserPromptSubmit",
             "SessionStart", "SessionEnd", "Stop", "Notification", "SubagentStart", "SubagentStop", "PreCompact",
             "ConfigChange", "TeammateIdle", "TaskCompleted", "WorktreeCreate", "WorktreeRemove")

_NEVER_FIRED = degrade(
    "timing-differs",
    "cn 1.5.47 loads Continue's hook settings and never runs a hook (no code path of the release fires "
    "one; measured: cn -p ran its Bash tool and none of five configured hooks), where this host runs "
    "each as Continue's source says it would: a hook that guards under this host guards nothing under cn.",
)
_OWN = degrade(
    "own-translation",
    "No Continue bridge exists on the host, so this project speaks Continue's dialect itself, read from "
    "its source (src/hooks/hookRunner.ts): Claude's protocol with every matcher a regular expression, "
    "decision block read on every event, the first block's reason kept, continue and systemMessage never "
    "read; each row is Claude Code's, so its losses are worded as Claude's.",
)
_PAYLOAD = degrade(
    "payload-field-missing",
    "Continue sends an empty transcript_path, no tool_use_id on PermissionRequest, no prompt_id or effort, "
    "and stop_hook_active always true on Stop (its fireHook.ts); this dialect sends Claude's fields as "
    "Continue names them.",
)

# cn's tools (the tools `cn -p` offers the model, 1.5.47); the first name listed for a host tool is
# the one a payload carries.
TOOLS = (
    BASH,
    ToolName(vendor="Read", host="read", arguments=(("filepath", "path"),)),
    ToolName(vendor="Write", host="write", arguments=(("filepath", "path"),)),
    EDIT,
    ToolName(vendor="List", host="glob"),
    ToolName(vendor="Checklist", host="todo"),
    ToolName(vendor="AskQuestion", host="ask_user_question"),
    ToolName(vendor="Skills", host="skill"),
)

RULES = RulesSpec(
    default_sources=("AGENTS.md",),
    note=("Read byte for byte and injected as a sourced user message at every agent start: context for the "
          "model, never tool policy. Continue's .continue/rules and config.yaml rules are not read here."),
)

#: Continue's own facts over Claude's table (vendors/cn/spec.py derives the table from them).
OWN = {
    "id": "continue",
    "aliases": ("cn", "continue-cli"),
    **CLAUDE_ONLY,
    # src/hooks/hookRunner.ts: the project under Claude's name and Continue's, /bin/sh -c, 600 s.
    "project_dir_env": ("CONTINUE_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
    "shell": "sh",
    "default_timeout_s": 600.0,
    # Command and http hooks run; prompt and agent hooks are skipped ("not yet implemented").
    "handler_kinds": frozenset({"command", "http"}),
    "http_losses": (),
    # getMatchingHookGroups: "" and "*" match all, anything else is `new RegExp(matcher).test(value)`;
    # an invalid pattern skips its group.
    "matchers": MatcherEngine(engine="js-regex", names=None, names_events=None, match_all=("", "*")),
    "bad_matcher": "skips-hook",
    "confidence": "documented",
    "rules": RULES,
    "plugin_runtime": ("Continue's config.yaml (models, MCP servers, rules, prompts) and hub assistants are out "
                       "of scope; only its settings command hooks and AGENTS.md are adapted."),
    "tools": TOOLS,
    "measured_on": RELEASE,
}
#: Continue's losses besides Claude's first (the scrubbed environment, true of every vendor's runner).
OWN_LOSSES = (_NEVER_FIRED, _OWN, _PAYLOAD)
NOT_CN = "cn 1.5.47 has no such hook event (its HOOK_EVENT_NAMES has seventeen), so a hook on it never runs."
