"""Windsurf (Cascade): twelve hook events, flat command lists in ``.windsurf/hooks.json``.

Data only: Windsurf's own facts, from which :mod:`vendors.windsurf.spec` derives its rows from
Cursor's rows of the same host points (:mod:`vendors.cursor.table`: a shell call, a file read, a
file edit, a prompt, a response shown), each with Windsurf's own losses.

Windsurf is an IDE with no CLI on the registries and its models are hosted, so nothing of it runs
here: every row is ``confidence="documented"``, read from docs.windsurf.com/windsurf/cascade/hooks
(its event list, payloads and exit codes) and the hook objects public adapters write for it
(1Password/agent-hooks, rulesync). A hook answers only by its exit code: 2 on a pre-hook blocks the
action and Cascade reads stderr; any other exit lets it go on; stdout is shown to the user alone
(``show_output``), never to the model.
"""

from compat_adapter.vendor import MatcherEngine, RulesSpec, degrade
from vendors import shared

#: Windsurf's events this host serves → the Cursor row of the same host point and, where the tools
#: differ, the host tools it fires for.
SERVED = {
    "pre_read_code": ("beforeReadFile", None),
    "post_read_code": ("afterFileEdit", ("read",)),
    "pre_write_code": ("beforeReadFile", ("write", "edit")),
    "post_write_code": ("afterFileEdit", None),
    "pre_run_command": ("beforeShellExecution", None),
    "post_run_command": ("afterShellExecution", None),
    "pre_user_prompt": ("beforeSubmitPrompt", None),
    "post_cascade_response": ("afterAgentResponse", None),
}
UNSERVED = (
    ("pre_mcp_tool_use", "the host has no MCP tools, so there is no MCP call to gate"),
    ("post_mcp_tool_use", "the host has no MCP tools, so no MCP call ever completes"),
    ("post_cascade_response_with_transcript", "the host writes no Cascade transcript (JSONL) for a hook to read"),
    ("post_setup_worktree", "the host sets up no worktree for a session, so there is no moment to fire it on"),
)

_DOCS = degrade(
    "own-translation",
    "No Windsurf runs here (an IDE with hosted models, not on the registries), so this project speaks "
    "Cascade's hook protocol as docs.windsurf.com describes it: the payload, exit 2 on a pre-hook, every "
    "other output ignored. Nothing of it was compared with a running Windsurf.",
)
_SCRUB = degrade(
    "env-differs",
    "Parent variables named like KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL, and every DSH_* one, are "
    "removed from the hook's environment, where Windsurf passes its own on.",
)
_COMMON = degrade(
    "payload-field-missing",
    "trajectory_id is the host session's id and execution_id its turn; timestamp is when the hook starts; "
    "Windsurf's model_name is absent.",
)
_NO_UI = degrade(
    "message-provenance",
    "show_output has no reader: the host has no Cascade panel, so a hook's output reaches no one (as in "
    "Windsurf, never the model).",
)
_TIMEOUT = degrade(
    "timeout-differs",
    "Windsurf documents no hook timeout; here a hook is stopped after 30 s.",
)
#: Windsurf's losses (the vendor's, on every row).
OWN_LOSSES = (_DOCS, _SCRUB, _COMMON, _NO_UI, _TIMEOUT)

_DIRECTORIES = degrade(
    "scope-differs",
    "Windsurf also fires it when Cascade reads a directory (file_path a directory); here only the host's "
    "read tool fires it, never a listing, glob or grep.",
)
_EDITS = degrade(
    "payload-field-missing",
    "edits holds the one host edit (old_string, new_string); a whole-file write is one edit with an empty "
    "old_string and the content as new_string.",
)
_RESPONSE = degrade(
    "timing-differs",
    "It fires on each response message the host shows, one that goes on to call tools included, where "
    "Windsurf fires it once Cascade has responded.",
)
#: Each served row's own losses.
ROW_LOSSES = {
    "pre_read_code": (_DIRECTORIES,),
    "post_read_code": (_DIRECTORIES,),
    "pre_write_code": (_EDITS,),
    "post_write_code": (_EDITS,),
    "pre_run_command": (),
    "post_run_command": (),
    "pre_user_prompt": (shared.EVERY_INBOX_STEP,),
    "post_cascade_response": (_RESPONSE,),
}

RULES = RulesSpec(
    default_sources=(".windsurfrules", ".windsurf/rules/*.md", "AGENTS.md"),
    note=("Read byte for byte and injected as a sourced user message at every agent start: context, never "
          "policy. Windsurf's rule activation modes (glob, model decision, manual) are not read."),
)

#: Windsurf's own facts.
OWN = {
    "id": "windsurf",
    "aliases": ("cascade", "codeium"),
    "bridge": None,
    "losses": OWN_LOSSES,
    "default_timeout_s": 30.0,
    "context_role": None,
    # Hooks of one event run in order, system → user → workspace (its docs).
    "concurrent": False,
    "shell": "sh",
    "project_dir_env": (),
    "hook_vars": (),
    "tools": (),
    "dedupes_commands": False,
    "clamps_event_timeouts": False,
    "handler_kinds": frozenset({"command"}),
    "http_losses": (),
    # A Windsurf hook has no matcher: every hook of an event runs for every occurrence.
    "matchers": MatcherEngine(engine="js-regex", names=None, names_events=None, match_all=()),
    "bad_matcher": "skips-hook",
    "exit2_blocks": True,
    "failure_denies": (),
    "plugin_host": False,
    "confidence": "documented",
    "rules": RULES,
    "plugin_runtime": ("Windsurf's workflows, memories and MCP servers are out of scope; only the command hooks "
                       "of .windsurf/hooks.json and its rules files are adapted."),
    "unserved": UNSERVED,
    "measured_on": None,
}
