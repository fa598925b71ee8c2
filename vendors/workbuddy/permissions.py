"""CodeBuddy Code's permission rules: Claude Code's language (``permissions.allow / ask / deny`` in
``.codebuddy/settings.json`` and ``settings.local.json``), derived from Claude's unit, with what
CodeBuddy Code 2.163.0 does otherwise (measured with ``codebuddy -p``, the lane's ``perm_*`` cases):

* the refusal is framed ``Error: …`` and an Edit rule's names the file (``Error: Permission to edit
  src/a.txt has been denied.``); a pipeline's refusal names the whole command;
* a path is read as written: ``Read(./.env)`` and ``Read(/.env)`` let the project's ``.env`` be read
  (``Read(.env)``, ``Read(**/.env)`` and ``Read(//**/.env)`` refuse it: ``Error: Permission to read
  .env has been denied.``);
* a Read rule does not reach a shell command (``cat .env`` runs under ``Read(./.env)``);
* a command is not unwrapped: ``FOO=1 rm -rf build`` and ``timeout 5 rm -rf build`` run under
  ``Bash(rm -rf *)``, and a trailing `` *`` needs something after it (``rm -rf`` runs);
* a PreToolUse hook's allow lifts a deny or an ask rule (the call runs); a hook's deny stands;
* in ``-p`` a call an ask rule matches runs without asking (with or without ``--allowedTools``).
"""

from __future__ import annotations

from compat_adapter.vendor import Combination
from vendors.claude.pathrules import PathReading
from vendors.claude.permissions import ClaudeRules, Words
from vendors.claude.shellrules import ShellReading

__all__ = ("LANGUAGE",)

LANGUAGE = ClaudeRules(
    "workbuddy", "CodeBuddy Code",
    Combination(hooks_first=True, hook_allow_lifts_ask=True, hook_allow_lifts_deny=True, unattended_ask="run"),
    words=Words(command="Error: Permission to use Bash with command {command} has been denied.",
                path="Error: Permission to edit {path} has been denied.",
                read="Error: Permission to read {path} has been denied.",
                other="Error: Permission to use {tool} has been denied.", compound_ask=""),
    shell=ShellReading(unwraps=False, optional_tail=False, names_pipe_part=False, file_commands=False),
    paths=PathReading(dot_is_cwd=False, slash_is_project=False),
)
