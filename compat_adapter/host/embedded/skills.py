"""The embedded host's ``skill`` tool: ``{name}`` loads one skill's instructions, found and worded as
DeepSeek Harness 0.2.1-rc.2 (``dsh-tool-skill`` over ``dsh-skill-filesystem``) finds and words them.

A skill is a folder ``<root>/<name>/SKILL.md`` (a kebab-case name; YAML front matter, then the
instructions). The roots, the first that has the name winning: the project's ``.dsh/skills`` and
``.agents/skills`` (the project is the nearest folder at or above the session cwd that holds
``.git``, else the cwd), then the user's ``~/.dsh/skills`` and ``~/.agents/skills``. A skill whose
front matter says ``disable-model-invocation: true`` is not loaded for the model. The result is
DSH's ``<skill_content>`` block, its base folder named for the resources the skill mentions.

Where DSH does more: it tells the model which skills exist (a catalog of names and descriptions
published before a step, when there are any) and watches the roots for changes; here the model
learns a skill's name only from the conversation, and the roots are read at each call.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

from compat_adapter.host.protocol import ToolResult

__all__ = ("SKILL_FILE", "load_skill", "skill_roots")

SKILL_FILE = "SKILL.md"
#: DSH's public skill-name grammar.
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_TRUE = frozenset({"true", "yes", "on", "1"})


def _project(cwd: Path) -> Path:
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def skill_roots(cwd: Path, home: Path) -> tuple[Path, ...]:
    """Where skills are looked for, the winning root first."""
    project = _project(cwd.resolve())
    return (project / ".dsh" / "skills", project / ".agents" / "skills", home / ".dsh" / "skills",
            home / ".agents" / "skills")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _split(text: str) -> tuple[dict[str, str], str]:
    """The front matter's plain ``key: value`` lines and the instructions after it."""
    found = _FRONT.match(text)
    if found is None:
        return {}, text
    fields = {}
    for line in found.group(1).splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip() and not key.startswith((" ", "\t")):
            fields[key.strip()] = value.strip().strip("'\"")
    return fields, text[found.end():]


def _read(cwd: Path, home: Path, name: str) -> tuple[Path, str] | None:
    for root in skill_roots(cwd, home):
        path = root / name / SKILL_FILE
        if path.is_file():
            return path, path.read_text(encoding="utf-8")
    return None


async def load_skill(cwd: Path, arguments: Mapping[str, Any]) -> ToolResult:
    """The ``skill`` tool."""
    name = arguments.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        return ToolResult(True, f'Error: invalid skill name "{name}"')
    home = Path(os.environ.get("HOME") or Path.home())
    found = await anyio.to_thread.run_sync(_read, cwd, home, name)
    if found is None:
        return ToolResult(True, f'Error: skill "{name}" is unknown or no longer available')
    path, text = found
    fields, body = _split(text)
    if fields.get("disable-model-invocation", "").lower() in _TRUE:
        return ToolResult(True, f'Error: skill "{name}" is not available for model invocation')
    base = str(path.parent)
    shown = "\n".join((
        f'<skill_content name="{name}">', "<skill_resources>", f"Base directory for this skill: {_escape(base)}",
        "Resolve relative paths mentioned by this skill against the base directory before using them. Load "
        "referenced resources only as needed.", "</skill_resources>", "", "<skill_instructions>", body.strip("\n"),
        "</skill_instructions>", "</skill_content>"))
    value = {"name": name, "provider": "filesystem", "resourceBase": {"kind": "directory", "path": base},
             "content": body}
    return ToolResult(False, shown, value)
