"""Qwen Code's permission rules: Claude Code's language (``permissions.allow / ask / deny`` in
``.qwen/settings.json``, deny before ask before allow), derived from Claude's unit, with Qwen Code
0.24.4's own reading (its ``PermissionManager``, ``parseRule`` and ``matchesRule``, read in the
installed CLI and measured with ``qwen -p --yolo``, the lane's ``perm_*`` cases):

* a rule may name a tool by Qwen's own name or by an alias (``Bash``, ``Shell`` →
  ``run_shell_command``; ``Read`` → ``read_file``, which covers reading, grep, glob and listing;
  ``Edit`` → ``edit``, which covers writing too; ``WebFetch`` → ``web_fetch``);
* the rules are weighed *before* the PreToolUse hooks: a call a rule refuses fires no hook;
* a command specifier with no wildcard is a prefix (``Bash(rm -rf build)`` refuses ``rm -rf build
  x``), every `` *`` may match nothing, ``:*`` is `` *``; variable prefixes are taken off, process
  wrappers are not (``timeout 5 rm -rf build`` runs under ``Bash(rm -rf *)``);
* a path specifier is anchored where it starts (``x`` and ``./x`` at the session folder, ``/x`` at
  the project, ``//x`` at ``/``) and matched with picomatch: no gitignore any-depth names, and a
  folder does not cover what is inside it;
* a Read or Edit rule reaches the files a shell command reads or writes (``cat .env`` under
  ``Read(.env)`` is refused, naming the Read rule);
* the refusal the model reads names the tool and the rule: ``This "run_shell_command" invocation
  was denied by permission rules. Matching deny rule: "Bash(rm -rf *)". Other uses of this tool are
  still permitted.``;
* an ask nobody can answer is declined: ``Qwen Code requires permission to use "run_shell_command",
  but that permission was declined (non-interactive mode cannot prompt for confirmation).`` (its
  default approval mode in ``-p``, measured: lane cases ``qwen:perm_ask`` and ``perm_ask_hook_allow``);
  under ``--yolo`` the call runs unasked (a listed loss of every ask rule);
* ``.qwen/settings.local.json`` is not read (measured: its deny lets the call run); the importer
  skips it, naming why.
"""

from __future__ import annotations

from types import MappingProxyType

from compat_adapter.vendor import Combination
from vendors.claude.pathrules import PathReading
from vendors.claude.permissions import ClaudeRules, Tools, Words
from vendors.claude.shellrules import ShellReading

__all__ = ("LANGUAGE",)

_SHELL, _READ, _EDIT = "run_shell_command", "read_file", "edit"

TOOLS = Tools(
    aliases=MappingProxyType({
        "Bash": _SHELL, "Shell": _SHELL, "ShellTool": _SHELL,
        "Read": _READ, "ReadFile": _READ, "ReadFileTool": _READ,
        "Edit": _EDIT, "EditTool": _EDIT,
        "Write": "write_file", "WriteFile": "write_file", "WriteFileTool": "write_file",
        "Grep": "grep_search", "GrepTool": "grep_search", "SearchFiles": "grep_search",
        "search_file_content": "grep_search",
        "Glob": "glob", "GlobTool": "glob", "FindFiles": "glob",
        "ListFiles": "list_directory", "ReadFolder": "list_directory",
        "WebFetch": "web_fetch", "WebFetchTool": "web_fetch", "WebSearch": "web_search",
        "Agent": "agent", "AgentTool": "agent", "Task": "agent", "task": "agent",
        "TodoWrite": "todo_write", "TodoList": "todo_write",
        "NotebookEdit": "notebook_edit",
    }),
    shell=(_SHELL, "monitor"),
    read_rule=_READ, read=(_READ, "grep_search", "glob", "list_directory", "zoom_image"),
    edit_rule=_EDIT, edit=(_EDIT, "write_file", "notebook_edit"),
    read_deny_covers_edits=False, web="web_fetch", agents=("agent",), skill="skill",
)

_DENIED = 'This "{tool}" invocation was denied by permission rules. Matching deny rule: "{rule}".'

LANGUAGE = ClaudeRules(
    "qwen", "Qwen Code",
    Combination(hooks_first=False, hook_allow_lifts_ask=False),
    words=Words(command=_DENIED + " Other uses of this tool are still permitted.",
                path=_DENIED + " Other uses of this tool are still permitted.",
                read=_DENIED + " Other uses of this tool are still permitted.",
                read_write=_DENIED + " Other uses of this tool are still permitted.",
                # A bare rule takes the tool out of the model's list, and a call to it is declined.
                disabled='Qwen Code requires permission to use "{tool}", but that permission was declined. '
                         'Matching deny rule: "{rule}".',
                other=_DENIED + " Other uses of this tool are still permitted.",
                # Its non-interactive decline of a call that needs approval (read in 0.24.4, measured
                # in the lane's default-mode permission cases).
                unasked='Qwen Code requires permission to use "{tool}", but that permission was declined '
                        '(non-interactive mode cannot prompt for confirmation).',
                compound_ask=""),
    # Its own shell analysis (extractShellOperations: `cat` → Read …) is read with Claude's list of
    # commands (measured: `cat .env` under Read(.env) is refused, naming the Read rule); a path
    # rule lists what that list leaves out.
    shell=ShellReading(unwraps=False, assignments=True, optional_spaces=True, bare_is_prefix=True,
                       names_pipe_part=False),
    paths=PathReading(bare_any_depth=False, folder_covers=False),
    tools=TOOLS,
    settings=("autoMode",),
    ask_loss=("Under Qwen Code's yolo approval mode (--yolo, as its non-interactive runs are often started) a "
              "call an ask rule matches runs without asking (measured); here the host's approval decides, and the "
              "call is refused when nobody answers."),
)
