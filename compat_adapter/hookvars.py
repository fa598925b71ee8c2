"""The variables a vendor gives a command hook, given here as the vendor gives them.

Each vendor's table lists them (``VendorSpec.project_dir_env`` and ``VendorSpec.hook_vars``, measured
on its CLI); each hook file's :class:`~compat_adapter.model.HookPlace` (read by its vendor's
importer) says where the file sits: its project folder and, for a plugin's hooks file, the plugin.
From the two, :func:`given` is what a hook gets when it runs, :func:`known` what preflight and the
trust review expand a command with before it runs, and :func:`losses` the listed loss of a hook
that reads a variable its vendor would give and this host cannot: never a silent empty value.
"""

from __future__ import annotations

import re
from pathlib import Path

from compat_adapter.model import Degradation, HookPlace, VendorSpec, degrade

__all__ = ("NO_PLACE", "SESSION_PLACEHOLDER", "given", "known", "losses", "plugin_data_dir", "reads")

#: A hook with no file behind it (registered from code): only the session's variables.
NO_PLACE = HookPlace()
_READ = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)|([A-Za-z_][A-Za-z0-9_]*))")
#: In a value the vendor fills in later, a stand-in for what only a running session knows.
SESSION_PLACEHOLDER = "<session-id>"


def reads(command: str) -> frozenset[str]:
    """The variable names a command line reads (``$V``, ``${V}``, ``${V:-x}``)."""
    return frozenset(a or b for a, b in _READ.findall(command))


def plugin_data_dir(vendor: str, name: str, *, create: bool = False) -> Path:
    """This host's persistent data folder of one plugin (the vendor keeps it under its own home,
    ``~/.claude/plugins/data/<name>-<source>``; here it is under the user's private state folder)."""
    # Imported here: grading reads which variables a hook is given, never a folder's place.
    from compat_adapter.statedir import private_dir, state_home

    leaf = f"{vendor}-{re.sub(r'[^A-Za-z0-9._-]', '_', name) or 'plugin'}"
    if not create:
        return state_home() / "plugin-data" / leaf
    base = private_dir("plugin-data")
    assert base is not None  # created
    (base / leaf).mkdir(mode=0o700, exist_ok=True)
    return base / leaf


def _value(spec: VendorSpec, source: str, place: HookPlace, cwd: str, session: str,
           create: bool) -> str | None:
    if source == "project":
        return cwd
    if source == "plugin-root":
        return place.plugin_root
    if source == "plugin-data":
        if place.plugin_root is None:
            return None
        return str(plugin_data_dir(spec.id, place.plugin_name or Path(place.plugin_root).name, create=create))
    if source == "hook-dir":
        return place.hook_dir
    if source == "session":
        return session
    return None


def _table(spec: VendorSpec, place: HookPlace, event: str, cwd: str, session: str,
           create: bool) -> dict[str, str]:
    out = dict.fromkeys(spec.project_dir_env, cwd)
    for var in spec.hook_vars:
        if var.events is not None and event not in var.events:
            continue
        value = _value(spec, var.source, place, cwd, session, create)
        if value is not None:
            out[var.name] = value
    return out


def given(spec: VendorSpec, place: HookPlace | None, *, event: str, cwd: str, session: str) -> dict[str, str]:
    """The variables one hook run gets, as its vendor gives them (a plugin's data folder is made)."""
    return _table(spec, place or NO_PLACE, event, cwd, session, create=True)


def known(spec: VendorSpec, place: HookPlace | None, *, event: str, root: Path) -> dict[str, str]:
    """What the vendor's variables will hold for a hook of ``place`` run in ``root``, before any run
    (nothing is created; a session id is a placeholder)."""
    return _table(spec, place or NO_PLACE, event, str(root), SESSION_PLACEHOLDER, create=False)


def losses(spec: VendorSpec, place: HookPlace | None, event: str, command: str, *,
           bridged: bool = False) -> tuple[Degradation, ...]:
    """What a hook that reads one of its vendor's variables loses here: a variable this host cannot
    give (``source="none"``), or, through the host's official bridge (which exports only the project
    folder), a plugin's variables."""
    place = place or NO_PLACE
    read = reads(command)
    out: list[Degradation] = []
    for var in spec.hook_vars:
        if var.name not in read or (var.events is not None and event not in var.events):
            continue
        if var.source == "none":
            out.append(degrade("env-differs", f"The command reads ${var.name}: {var.note}"))
        elif bridged and var.source.startswith("plugin") and place.plugin_root is not None:
            out.append(degrade("env-differs", f"The command reads ${var.name}, which {spec.id} sets for a plugin's "
                                              "hooks; the host's official bridge does not, so it expands to an "
                                              "empty string there."))
    return tuple(out)
