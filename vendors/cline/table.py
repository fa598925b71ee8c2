"""Cline CLI: one hook file per event in a hooks folder, ``{cancel, contextModification, errorMessage}``.

Data only: Cline's own facts, from which :mod:`vendors.cline.spec` derives its table from Claude
Code's (:mod:`vendors.claude.table`): each Cline event is the Claude row of the moment it fires at
(TaskStart is Claude's SessionStart, TaskComplete its Stop …), renamed, with Cline's reading of an
answer. Read from the release (``cline`` 3.0.65: the Bun binary and ``@cline/core`` 0.0.86, the
file-hook runner ``core.hook_config_files``) and measured with the vendor lane (``cline --json``
against the scripted model):

- A hook is a file named after its event (``PreToolUse``, ``PreToolUse.sh``, ``.py`` …) in
  ``~/Documents/Cline/Hooks``, ``~/.cline/hooks``, ``<project>/.clinerules/hooks`` or
  ``<project>/.cline/hooks``; it runs by its shebang, else by its extension, else with bash.
- Only PreToolUse and PostToolUse are awaited. Their answer is the last ``HOOK_CONTROL<TAB>`` line of
  stdout, else the whole stdout, as JSON; the exit code and stderr are never read. ``cancel: true``
  ends the whole run (the call does not run); ``contextModification`` (or ``context``, or a lone
  ``errorMessage``) is context for the model; PreToolUse's ``overrideInput`` replaces the input.
- Every other event is started detached and never read: TaskStart, TaskComplete, TaskError (the CLI
  never sets ``blockingRunStartHooks``).
- A UserPromptSubmit hook file is found and never runs for a prompt: its runtime starts it on a user
  message its agent runtime adds mid-run (a completion reminder), and the session runtime hands the
  typed prompt in as the run's initial messages with an empty input (``run("")``), which adds none.
"""

from compat_adapter.vendor import MatcherEngine, RulesSpec, degrade
from vendors.claude.table import CLAUDE_ONLY

#: The release these rows follow (vendors/cline/lane.pin).
RELEASE = "3.0.65"

#: Cline's event → the Claude row of the same moment, which its row is derived from.
CLINE_EVENTS = {"TaskStart": "SessionStart", "PreToolUse": "PreToolUse", "PostToolUse": "PostToolUse",
                "TaskComplete": "Stop", "TaskError": "StopFailure"}
#: Cline's name for each event inside its payload (``hookName``: the runtime's own event names).
HOOK_NAMES = {"TaskStart": "agent_start", "TaskResume": "agent_resume", "TaskCancel": "agent_abort",
              "TaskComplete": "agent_end", "TaskError": "agent_error", "PreToolUse": "tool_call",
              "PostToolUse": "tool_result", "UserPromptSubmit": "prompt_submit",
              "SessionShutdown": "session_shutdown"}
#: The events whose answer Cline reads (awaited in turn); the rest it starts and forgets.
AWAITED = frozenset({"PreToolUse", "PostToolUse"})
#: The extensions a hook file may have (``""``: none); another makes the file no hook at all.
EXTENSIONS = ("", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".ps1")

OWN_UNSERVED = (
    ("TaskResume", "Cline runs it in place of TaskStart when a saved task is resumed (CLINE_HOOK_AGENT_RESUME); "
                   "the host resumes no Cline task, so no row serves it."),
    ("TaskCancel", "Cline runs it when a run is aborted or interrupted; a non-interactive run here is never "
                   "aborted by the person, so no row serves it yet."),
    ("SessionShutdown", "Cline's file-hook runner starts it only after an aborted run, beside TaskCancel; no row "
                        "serves it yet."),
    ("PreCompact", "Cline 3.0.65 finds a PreCompact hook file but maps it to no runtime event, so it never runs."),
    ("UserPromptSubmit", "Cline 3.0.65 never runs it for a prompt (measured, lane case cline:prompt_observe; read in "
                         "the release): it starts the hook on a user message its agent runtime adds during a run (a "
                         "completion reminder), and its session runtime hands the typed prompt in as the run's "
                         "initial messages (run(\"\")), which adds none, in a `cline \"<prompt>\"` run and a "
                         "session alike. The host adds no such message, so no row serves it: the hook never runs "
                         "here either."),
)
#: Why Claude's other events are no rows here.
NOT_CLINE = "Cline 3.0.65 has no such hook event, so a hook on it never runs."

_OWN = degrade(
    "own-translation",
    "No Cline bridge exists on the host, so this project speaks Cline's hook protocol itself, read from its "
    "release (the file-hook runner of @cline/core 0.0.86 in cline 3.0.65): each row is the Claude Code row of "
    "the same moment, and its losses are worded as Claude's where Cline reads the answer the same way.",
)
_PAYLOAD = degrade(
    "payload-field-missing",
    "Cline sends clineVersion (empty unless CLINE_VERSION is set), userId ($CLINE_USER_ID, else $USER), its own "
    "agent and task ids, the project's latest git commit and branch in workspaceInfo, each tool's startedAt and "
    "endedAt, and its output in its own shape (run_commands: a list of {query, result, success}); this dialect "
    "sends the host's ids, userId \"unknown\", no git facts or call times, and the host's output text.",
)
_DETACHED = degrade(
    "timing-differs",
    "Cline starts this hook detached and does not wait for it or read it (measured, 3.0.65: the run ended "
    "before a slow hook had logged), where this host waits for each: a slow hook here delays the session.",
)
_HALTS = degrade(
    "decision-narrowed",
    "Cline has no per-call deny: cancel: true ends the whole run with the hook's errorMessage as its error, and "
    "the model is not called again (measured, lane case cline:pre_cancel); this host stops the agent the same "
    "way, so a hook meant to refuse one command ends the session instead.",
)
_NO_MATCHER = degrade(
    "matcher-narrowed",
    "A Cline hook has no matcher: its file runs for every call of every tool, and filters inside the script.",
)
_REWRITE = degrade(
    "approximate",
    "Cline runs the call with a PreToolUse hook's overrideInput in place of the model's input, and so does "
    "this host; an overrideInput of run_commands with several commands runs here as one script (one command "
    "a line), where Cline runs each in turn and reports each result apart.",
)
_CONTEXT_FRAME = degrade(
    "message-provenance",
    "Cline hands the model a tool hook's context as <hook_context source=… tool_name=… tool_call_id=…> in one "
    "user message after the tool's result, every hook of the call joined in it; this host words it the same, "
    "the tool by Cline's name of the host's tool and the call by the host's call id, which is the model's own "
    "only where the host keeps the model's ids.",
)

#: Cline's tools (those `cline --json` offers the model, 3.0.65): vendor name, host name, and the
#: vendor's argument names for the host's; the first name listed for a host tool is the one a payload carries.
TOOL_NAMES = (("run_commands", "bash", (("commands", "command"),)), ("read_files", "read", (("files", "path"),)),
               ("editor", "edit", (("path", "path"), ("old_text", "old"), ("new_text", "new"))),
               ("editor", "write", (("path", "path"), ("new_text", "content"))),
               ("search_codebase", "grep", (("queries", "pattern"),)), ("fetch_web_content", "web_fetch", ()),
               ("ask_question", "ask_user_question", ()), ("spawn_agent", "subagent", ()))

RULES = RulesSpec(
    default_sources=(".clinerules/*.md", "AGENTS.md"),
    note="Read byte for byte and injected as a sourced user message at every agent start: context, never policy.",
)

#: Cline's own facts over Claude's table (vendors/cline/spec.py derives the table from them).
OWN = {
    "id": "cline",
    "aliases": ("cline-cli",),
    **CLAUDE_ONLY,
    "project_dir_env": (),
    "shell": "sh",
    # Awaited hooks run with a 120 s limit (toolCallTimeoutMs ?? 120000); a hook has no timeout of its own.
    "default_timeout_s": 120.0,
    # One after another, in the order of their paths (jV over the sorted hook files).
    "concurrent": False,
    "handler_kinds": frozenset({"command"}),
    "http_losses": (),
    "matchers": MatcherEngine(engine="js-regex", names=None, names_events=None, match_all=("",)),
    "bad_matcher": "skips-hook",
    "dedupes_commands": True,
    "exit2_blocks": False,
    "rules": RULES,
    "plugin_runtime": ("Cline plugins, skills, workflows and MCP servers are out of scope; only the hook files of "
                       "its hooks folders and its rules are adapted."),
    "measured_on": RELEASE,
    # Measured: tool-hook context reaches the model as a user message of its own.
    "context_role": "user",
}
OWN_LOSSES = (_OWN, _PAYLOAD)
#: Row losses of Cline's own, by event.
OWN_ROW_LOSSES = {
    "TaskStart": (_DETACHED,), "TaskComplete": (_DETACHED,), "TaskError": (_DETACHED,),
    "PreToolUse": (_HALTS, _NO_MATCHER, _REWRITE, _CONTEXT_FRAME), "PostToolUse": (_NO_MATCHER, _CONTEXT_FRAME),
}
#: What each row's answer can do under Cline: nothing where the hook is started and forgotten.
OWN_BLOCKING = {"TaskStart": "observe", "TaskComplete": "observe",
                "TaskError": "observe", "PreToolUse": "verdict", "PostToolUse": "context"}
#: Claude's losses about what a hook's answer does, moot where Cline reads nothing of it.
ANSWER_LOSSES = frozenset({"message-provenance", "output-field-ignored", "output-rewrite-ignored",
                           "decision-narrowed", "input-rewrite-ignored", "scope-differs", "matcher-narrowed"})
