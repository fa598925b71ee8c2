"""Claude's ``if`` field: one permission rule (``Bash(git *)``, ``Edit(src/**)``) a tool call must match.

Written from what Claude Code 2.1.328 does (its binary, read in the vendor lane; the lane's ``if``
cases agree on 2.1.332):

* ``if`` is evaluated only on PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest and
  PermissionDenied; on any other event a handler with ``if`` never runs;
* the rule's tool name must be the call's tool name (exact, case-sensitive); a rule without
  ``(…)`` matches every call of that tool;
* Bash: the command is split into its simple commands, and the rule matches when one of them
  does. ``prefix:*`` matches a command equal to the prefix or starting with it and a space
  (case-insensitively); anything else is a wildcard pattern where ``*`` is any text, ``\\*`` a
  literal star, runs of blanks are one space, and a single trailing `` *`` also matches nothing
  (``git *`` matches ``git``); case-insensitive. A command that cannot be parsed matches every
  rule;
* any other tool: a rule with content does not match here (Claude asks the tool's own matcher;
  tools without one never match, and WebFetch's ``domain:`` matcher is not reproduced — graded);
* Edit, Write, Read, NotebookEdit: gitignore-style path patterns, relative to the project
  (``//abs`` from the filesystem root, ``~/`` from home); a pattern that starts with ``*`` or has
  no wildcard is also tried as a whole-string glob on the absolute path.

Claude parses Bash with its own shell parser; here :func:`shlex.shlex` in punctuation mode splits
on ``;``, ``&&``, ``||``, ``|``, ``&`` and newlines, and leading ``VAR=value`` words are dropped.
That difference is listed as a loss on every Bash ``if``.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ("FILE_TOOLS", "IF_EVENTS", "PermissionRule", "parse_rule", "rule_matches", "subcommands", "subject_of",
           "wildcard")

#: The events whose tool call Claude evaluates ``if`` against.
IF_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest",
                       "PermissionDenied"})
FILE_TOOLS = {"Edit": "file_path", "Write": "file_path", "Read": "file_path", "MultiEdit": "file_path",
               "NotebookEdit": "notebook_path"}
_RULE = re.compile(r"^(?P<tool>[^()]+?)(?:\((?P<content>.*)\))?$", re.DOTALL)
_SEPARATORS = {";", "&&", "||", "|", "&", "\n", ";;", "|&"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True, slots=True)
class PermissionRule:
    tool: str
    content: str | None


def parse_rule(text: str) -> PermissionRule | None:
    """``Tool`` or ``Tool(content)``; None when the text is no rule at all."""
    m = _RULE.match(text.strip())
    if m is None or not m.group("tool").strip():
        return None
    content = m.group("content")
    return PermissionRule(m.group("tool").strip(), content if content else None)


def rule_matches(rule: PermissionRule, tool_name: str, tool_input: Mapping[str, Any], project_dir: str) -> bool:
    """Whether Claude would run a handler with this ``if`` on this tool call."""
    if rule.tool != tool_name:
        return False
    if rule.content is None:
        return True
    if tool_name == "Bash":
        return _bash_matches(rule.content, str(tool_input.get("command", "")))
    key = FILE_TOOLS.get(tool_name)
    if key is not None:
        return _path_matches(rule.content, str(tool_input.get(key, "")), project_dir)
    # Claude asks the tool's own permission matcher; a tool without one never matches a rule with
    # content. The others' matchers (WebFetch domain:…) are not reproduced: graded as a loss.
    return False


def subcommands(command: str) -> list[str] | None:
    """The simple commands of a shell command line, ``name arg …`` each; None if it cannot be read."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|")
    lexer.whitespace = " \t\r"  # a newline separates commands: keep it as a token
    lexer.whitespace_split = True
    lexer.commenters = "#"
    out: list[str] = []
    words: list[str] = []
    try:
        for token in lexer:
            if token in _SEPARATORS:
                if words:
                    out.append(" ".join(words))
                words = []
                continue
            if not words and _ASSIGNMENT.match(token):
                continue  # FOO=1 git push: the command is git push
            words.append(token)
    except ValueError:  # an unclosed quote
        return None
    if words:
        out.append(" ".join(words))
    return out


def _bash_matches(content: str, command: str) -> bool:
    commands = subcommands(command.replace("\\\n", " "))
    if commands is None:
        return True  # Claude: a command its parser cannot read matches every rule
    prefix = content[:-2] if content.endswith(":*") and len(content) > 2 else None
    for sub in commands:
        if prefix is not None:
            if sub.lower() == prefix.lower() or sub.lower().startswith(prefix.lower() + " "):
                return True
        elif wildcard(content, sub, fold_case=True, squeeze=True):
            return True
    return False


def wildcard(pattern: str, text: str, *, fold_case: bool, squeeze: bool = False) -> bool:
    """Claude's permission wildcard: whole-string, ``*`` any text (newlines too), ``\\*`` a star."""
    if "\0" in pattern:
        return False
    pattern = pattern.strip()
    if squeeze:
        pattern, text = re.sub(r"[ \t]+", " ", pattern), re.sub(r"[ \t]+", " ", text)
    parts: list[str] = []
    stars = 0
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern) and pattern[i + 1] in "*\\":
            parts.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if c == "*":
            stars += 1
            parts.append(".*")
        else:
            parts.append(re.escape(c))
        i += 1
    regex = "".join(parts)
    if stars == 1 and regex.endswith(r"\ .*"):
        regex = regex[: -len(r"\ .*")] + r"(\ .*)?"  # `git *` also matches a bare `git`
    flags = re.DOTALL | (re.IGNORECASE if fold_case else 0)
    return re.fullmatch(regex, text, flags) is not None


def _path_matches(content: str, path: str, project_dir: str) -> bool:
    if not path:
        return False
    pattern = content.strip()
    if pattern.startswith("//"):
        root, pattern = "/", pattern[1:]
    elif pattern.startswith("~/"):
        root, pattern = os.path.expanduser("~"), pattern[1:]
    else:
        root = project_dir
    absolute = os.path.normpath(path if os.path.isabs(path) else os.path.join(project_dir, path))
    relative = os.path.relpath(absolute, root)
    if not relative.startswith(".."):
        # Imported here: only a path rule needs it, and at module level it would add its import
        # to every declaration (declare -> handlers.grade -> here).
        import pathspec

        spec = pathspec.GitIgnoreSpec.from_lines([pattern])
        if spec.match_file(relative):
            return True
    has_star = any(c == "*" and (i == 0 or pattern[i - 1] != "\\") for i, c in enumerate(pattern))
    if content.strip().startswith("*") or not has_star:
        return wildcard(content, path, fold_case=False)
    return False


def subject_of(payload: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]] | None:
    """The tool call a payload is about: (tool name, tool input), or None."""
    name = payload.get("tool_name")
    if not isinstance(name, str):
        return None
    tool_input = payload.get("tool_input")
    return name, tool_input if isinstance(tool_input, Mapping) else {}
