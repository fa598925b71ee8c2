"""Crush (``@charmland/crush``): one hook event, PreToolUse, flat entries in ``crush.json``.

Data only: Crush's own facts, from which :mod:`vendors.crush.spec` derives its one row from Claude
Code's PreToolUse row (:mod:`vendors.claude.table`): Crush copies Claude's hook envelope (its docs:
"Hooks are Claude Code-compatible") and reads Claude's ``hookSpecificOutput`` beside its own.

Every row is ``confidence="documented"``: Crush is a Go binary that its npm package fetches from
GitHub at install (``postinstall: node install.js``), and this project's CI reaches only PyPI, npm
and Debian, so no Crush ran here. The rows follow Crush's source (``internal/hooks/runner.go``,
``input.go``, ``hooks.go``, ``internal/agent/hooked_tool.go``, ``internal/config/load.go``) and
``docs/hooks/README.md`` at charmbracelet/crush 37f36e938 (a nightly after v0.90.0; 0.96.1's own
source was not in reach), never a run.
"""

from compat_adapter.vendor import HookVar, MatcherEngine, RulesSpec, degrade
from vendors import shared

#: The npm release these rows are meant for, and the source they were read from.
RELEASE = "0.96.1"
SOURCE = "charmbracelet/crush 37f36e938"

#: Crush's hook events (``EventPreToolUse`` is the one constant of internal/hooks/hooks.go).
CRUSH_EVENTS = ("PreToolUse",)
NOT_CRUSH = ("Crush has one hook event, PreToolUse (docs/hooks: \"there's currently just one\"); a hook "
             "under any other name loads and never runs.")

_UNRUN = degrade(
    "own-translation",
    "No Crush binary runs here (its npm package downloads it from GitHub at install, which CI cannot "
    "reach), so this project speaks Crush's hook protocol itself as its source reads it: the payload, "
    "the Go regexp matcher, exit 2 and 49, the Crush and Claude envelopes. Nothing of it was compared "
    "with a running Crush.",
)
_SCRUB = degrade(
    "env-differs",
    "Crush hands a hook its whole environment (os.Environ) plus its CRUSH_* variables; here parent "
    "variables named like KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL, and every DSH_* one, are removed.",
)
_SHELL = degrade(
    "env-differs",
    "Crush runs a command in its embedded POSIX interpreter (mvdan.cc/sh) with its own builtins and "
    "coreutils; here it runs under /bin/sh -c, so a portable command behaves alike and one that leans "
    "on the interpreter's builtins may not.",
)
#: Crush's losses (the vendor's, on its one row).
OWN_LOSSES = (_UNRUN, _SCRUB, _SHELL)

_ALLOW = degrade(
    "decision-narrowed",
    "Crush's allow pre-approves the call and skips its permission prompt; here it lets the call through "
    "without skipping the host's own guards. Claude's ask and defer are no opinion, as Crush reads them.",
)
_TOOLS = degrade(
    "matcher-narrowed",
    "Host tools reach the hook under Crush's names (bash, view, write, edit, glob, grep, agent, todos, "
    "question); Crush's other tools (multiedit, ls, fetch, download, sourcegraph, lsp_*, job_*, mcp_*) "
    "never occur here, so matchers naming only them never fire.",
)
_TOP_LEVEL = degrade(
    "scope-differs",
    "Crush fires PreToolUse only for the top-level agent's calls (a sub-agent runs unhooked); this host "
    "fires it for every call its pre-execute point sees, a sub-agent's included.",
)
_HALT_WORDS = degrade(
    "message-provenance",
    "A halt (exit 49 or halt: true) blocks the call and ends the turn as in Crush, but the call's result "
    "reads \"Tool call blocked by hook. Reason: …\" where Crush writes \"Turn halted by hook. Reason: …\".",
)
_CONTEXT_PLACE = degrade(
    "message-provenance",
    "Crush appends a hook's context to the result of the call it let run (after a newline); this host "
    "cannot place pre-tool context in a result, so it reaches the model as a user message before the "
    "next model call.",
)
#: The row's own losses, in place of Claude's (vendors/crush/spec.py).
ROW_LOSSES = (_ALLOW, shared.REWRITE_NESTED, _TOOLS, _TOP_LEVEL, _HALT_WORDS, _CONTEXT_PLACE)

#: Crush's names (internal/agent/tools, *ToolName) of the host's tools; vendors/crush/spec.py takes
#: Claude's vocabulary entry of each host tool under that name (Crush's file tools name their path
#: file_path and the edit's strings old_string / new_string, as Claude's do).
TOOL_NAMES = {"bash": "bash", "read": "view", "write": "write", "edit": "edit", "glob": "glob", "grep": "grep",
              "subagent": "agent", "todo": "todos", "ask_user_question": "question"}

RULES = RulesSpec(
    default_sources=("CRUSH.md", "CRUSH.local.md", "crush.md", "AGENTS.md"),
    note=("Read byte for byte and injected as a sourced user message at every agent start: context, never "
          "policy. Crush also reads the other agents' files (CLAUDE.md, GEMINI.md, .cursorrules …); those "
          "are their own vendors' here."),
)

#: Crush's own facts over Claude's table (vendors/crush/spec.py derives the table from them).
OWN = {
    "id": "crush",
    "aliases": ("charm-crush",),
    "bridge": None,
    # BuildEnv (internal/hooks/input.go): the project root and the working directory, both the
    # session's folder here; the session id. The per-call variables come from the dialect (hook_env).
    "project_dir_env": ("CRUSH_PROJECT_DIR", "CRUSH_CWD"),
    "hook_vars": (HookVar(name="CRUSH_SESSION_ID", source="session"),),
    "shell": "sh",
    "default_timeout_s": 30.0,
    # Runner.Run: every matching hook at once, results composed in config order.
    "concurrent": True,
    "dedupes_commands": True,
    "clamps_event_timeouts": False,
    "handler_kinds": frozenset({"command"}),
    "http_losses": (),
    # Go's regexp (RE2 syntax, unanchored MatchString); "" matches every tool. Read here by the RE2
    # engine Codex's Rust matchers use: Go's perl classes are ASCII where Rust's are Unicode, which
    # no tool name (ASCII) can tell apart.
    "matchers": MatcherEngine(engine="rust-regex", names=None, names_events=None, match_all=()),
    # ValidateHooks (internal/config/load.go): a matcher that does not compile, or a hook without a
    # command, fails the whole config load, so Crush does not start.
    "bad_matcher": "refuses-config",
    "exit2_blocks": True,
    "failure_denies": (),
    "plugin_host": False,
    "confidence": "documented",
    "context_role": None,
    "rules": RULES,
    "plugin_runtime": ("Crush's skills, MCP servers, LSP settings and shell-config crushrc files are out of "
                       "scope; only the PreToolUse command hooks of a crush.json and its context files are "
                       "adapted."),
    "measured_on": None,
}
