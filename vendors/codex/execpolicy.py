"""Codex execution policy (``.rules`` files, ``prefix_rule``) read and evaluated as Codex does.

In Codex a ``.rules`` file is not context: it decides whether a shell command runs (``allow``),
asks first (``prompt``) or is refused (``forbidden``). The file is Starlark; the rules language is
the ``prefix_rule(pattern, decision, justification, match, not_match)`` subset, which is also valid
Python syntax, so it is read with :mod:`ast` and never executed: anything other than top-level
``prefix_rule`` calls with literal arguments is refused with the line it is on.

Matching (Codex's ``execpolicy``): ``pattern`` is an exact prefix of the command's argument list,
each element a word or a list of alternative words; several matching rules give the strictest
decision (forbidden > prompt > allow). ``match`` / ``not_match`` examples are checked at load, as
Codex checks them. A shell script is split into its commands only when it is plain words joined by
``&&``, ``||``, ``;`` or ``|``; anything else (redirection, substitution, variables, globs) is judged
as one whole ``bash -lc <script>`` command.
"""

from __future__ import annotations

import ast
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeGuard

from compat_adapter.vendor import InvalidDeclaration

__all__ = ("PrefixRule", "Ruling", "commands_of", "evaluate", "parse_rules")

PolicyDecision = Literal["allow", "prompt", "forbidden"]
_RANK = {"allow": 0, "prompt": 1, "forbidden": 2}
_PERMISSION = {"forbidden": "deny", "prompt": "ask", "allow": "allow"}
_FIELDS = frozenset({"pattern", "decision", "justification", "match", "not_match"})


@dataclass(frozen=True, slots=True)
class PrefixRule:
    pattern: tuple[frozenset[str], ...]
    """Per argument position, the words that match there."""
    decision: PolicyDecision
    justification: str | None
    source: str
    """File and line, for messages."""

    def matches(self, argv: Sequence[str]) -> bool:
        return len(argv) >= len(self.pattern) and all(a in words for a, words in zip(argv, self.pattern, strict=False))

    @property
    def permission(self) -> str:
        """The decision in permission words (forbidden denies, prompt asks)."""
        return _PERMISSION[self.decision]

    @property
    def shown(self) -> str:
        return "prefix_rule(" + " ".join("|".join(sorted(words)) for words in self.pattern) + ")"


@dataclass(frozen=True, slots=True)
class Ruling:
    """The strictest decision the rules give a command, and the rule that gave it."""

    decision: PolicyDecision
    rule: PrefixRule


def _literal(node: ast.expr, where: str) -> object:
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise InvalidDeclaration(f"{where}: only literal strings and lists are allowed in a prefix_rule",
                                 source=where) from None


def _words(value: object, where: str) -> frozenset[str]:
    if isinstance(value, str):
        return frozenset((value,))
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return frozenset(value)
    raise InvalidDeclaration(f"{where}: a pattern element is a string or a non-empty list of strings",
                             source=where)


def _example(value: object, where: str) -> list[str]:
    if isinstance(value, str):
        return shlex.split(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise InvalidDeclaration(f"{where}: an example is a command string or a list of words", source=where)


def _is_decision(value: object) -> TypeGuard[PolicyDecision]:
    return isinstance(value, str) and value in _RANK  # an unhashable value is no decision either


def _examples(value: object, key: str, where: str) -> list[object] | tuple[object, ...]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return value
    raise InvalidDeclaration(f"{where}: {key} must be a list of examples", source=where)


def _rule(call: ast.Call, where: str) -> PrefixRule:
    if call.args:
        raise InvalidDeclaration(f"{where}: prefix_rule takes keyword arguments only", source=where)
    given = {k.arg: _literal(k.value, where) for k in call.keywords if k.arg is not None}
    unknown = set(given) - _FIELDS
    if unknown or len(given) != len(call.keywords):
        raise InvalidDeclaration(f"{where}: prefix_rule has no argument {sorted(unknown)}", source=where)
    pattern = given.get("pattern")
    if not isinstance(pattern, list) or not pattern:
        raise InvalidDeclaration(f"{where}: pattern must be a non-empty list", source=where)
    decision = given.get("decision", "allow")
    if not _is_decision(decision):
        raise InvalidDeclaration(f"{where}: decision {decision!r} is not allow, prompt or forbidden",
                                 source=where)
    justification = given.get("justification")
    if justification is not None and not isinstance(justification, str):
        raise InvalidDeclaration(f"{where}: justification must be a string", source=where)
    rule = PrefixRule(tuple(_words(p, where) for p in pattern), decision, justification, where)
    # Codex checks the examples when it loads the file: a rule that contradicts them is an error.
    for example in _examples(given.get("match"), "match", where):
        if not rule.matches(_example(example, where)):
            raise InvalidDeclaration(f"{where}: the example {example!r} does not match the pattern",
                                     source=where)
    for example in _examples(given.get("not_match"), "not_match", where):
        if rule.matches(_example(example, where)):
            raise InvalidDeclaration(f"{where}: the example {example!r} matches the pattern", source=where)
    return rule


def parse_rules(text: str, path: str) -> tuple[PrefixRule, ...]:
    """The prefix rules of one ``.rules`` file; raises INVALID_DECLARATION outside the subset."""
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        raise InvalidDeclaration(f"{path}:{exc.lineno}: not a rules file: {exc.msg}", source=path) from None
    rules = []
    for stmt in tree.body:
        where = f"{path}:{stmt.lineno}"
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "prefix_rule"):
            raise InvalidDeclaration(f"{where}: only prefix_rule(...) calls are read here", source=where)
        rules.append(_rule(call, where))
    return tuple(rules)


# ── shell scripts → commands ────────────────────────────────────────────────────────────────────

_OPERATORS = ("&&", "||", ";", "|")
#: Characters that make a script more than plain words: it is then judged whole.
_SPECIAL = frozenset("$`\\<>()&*?[]{}~#!\n=")


def _plain_words(script: str) -> list[list[str]] | None:
    commands: list[list[str]] = [[]]
    word: list[str] | None = None
    i = 0
    while i < len(script):
        c = script[i]
        op = next((o for o in _OPERATORS if script.startswith(o, i)), None)
        if op is not None:
            if word is not None:
                commands[-1].append("".join(word))
                word = None
            if not commands[-1]:
                return None  # an operator with no command before it
            commands.append([])
            i += len(op)
            continue
        if c in " \t":
            if word is not None:
                commands[-1].append("".join(word))
                word = None
        elif c in "'\"":
            end = script.find(c, i + 1)
            inner = script[i + 1:end] if end > 0 else None
            if inner is None or (c == '"' and any(ch in inner for ch in "$`\\")):
                return None
            word = (word or []) + [inner]
            i = end
        elif c in _SPECIAL and not (c == "=" and commands[-1]):
            # `=` is plain inside arguments; before the first word it is an assignment.
            return None
        else:
            word = (word or []) + [c]
        i += 1
    if word is not None:
        commands[-1].append("".join(word))
    if not commands[-1]:
        return None
    return commands


def commands_of(script: str) -> list[list[str]]:
    """The argument lists Codex judges for a shell script run as ``bash -lc <script>``."""
    return _plain_words(script) or [["bash", "-lc", script]]


def evaluate(rules: Sequence[PrefixRule], script: str) -> Ruling | None:
    """The strictest ruling over every command of the script; None when no rule matches any."""
    best: Ruling | None = None
    for argv in commands_of(script):
        for rule in rules:
            if rule.matches(argv) and (best is None or _RANK[rule.decision] > _RANK[best.decision]):
                best = Ruling(rule.decision, rule)
    return best
