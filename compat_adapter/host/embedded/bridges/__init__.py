"""The embedded host's own "official" hook bridges.

They belong to the host, not to the adapter: the adapter writes a Claude ``settings.json`` or a
Codex ``hooks.json`` and asks the host to mount the package on it, exactly as it would ask DSH to
mount ``@deepseek-ai/dsh-hooks-claude-code`` or ``@deepseek-ai/dsh-hooks-codex``. They behave like
those published bridges (``dsh-seams.md`` §4–5, ≥0.1.7 / 0.2.0-rc.2 column), not like the vendors.

The config file is read once, at mount. A file that cannot be read or parsed — an invalid matcher
anywhere in a parsed group included — is reported through ``host.log`` and registers nothing; the
mount still succeeds, as DSH boot does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from types import MappingProxyType

import anyio

from compat_adapter.errors import ConfigParseError, MountFailed
from compat_adapter.host.embedded.bridges.bridge import BridgeOptions, Dialect, MountedBridge
from compat_adapter.host.embedded.bridges.claude_code import CLAUDE_CODE
from compat_adapter.host.embedded.bridges.codex import CODEX
from compat_adapter.host.embedded.bridges.protocol import (
    DEFAULT_HOOK_TIMEOUT_S,
    DEFAULT_STDERR_SUMMARY_MAX_CHARS,
    HookConfig,
    parse_config,
)
from compat_adapter.host.protocol import Host

__all__ = ("PACKAGES", "BridgeOptions", "Dialect", "MountedBridge", "load_config", "mount")

#: Package name → the bridge it mounts.
PACKAGES: Mapping[str, Dialect] = MappingProxyType({
    CLAUDE_CODE.package: CLAUDE_CODE,
    CODEX.package: CODEX,
})


async def load_config(dialect: Dialect, config_path: Path, options: BridgeOptions) -> HookConfig:
    """Read and parse a hooks file; raises ``OSError``, ``ValueError`` or ``ConfigParseError``."""
    text = await anyio.Path(config_path).read_text(encoding="utf-8")
    return parse_config(json.loads(text), dialect.parse_options(options))


async def mount(host: Host, package: str, config_path: str | PathLike[str], *,
                project_dir: Path | None = None, plugin_root: Path | None = None,
                model: str = "", default_timeout_s: float = DEFAULT_HOOK_TIMEOUT_S,
                stderr_summary_max_chars: int = DEFAULT_STDERR_SUMMARY_MAX_CHARS) -> MountedBridge:
    """Mount ``package`` on ``host`` with the hooks in ``config_path``.

    :param project_dir: Claude only: ``${CLAUDE_PROJECT_DIR}`` and the exported variable
        (default: each session's cwd).
    :param plugin_root: Claude only: ``${CLAUDE_PLUGIN_ROOT}``.
    :param model: Codex only: the ``model`` field of every payload.
    :raises MountFailed: unknown package or invalid bridge options.
    """
    dialect = PACKAGES.get(package)
    if dialect is None:
        raise MountFailed(f"no official bridge package {package!r} on this host; known: "
                          f"{', '.join(sorted(PACKAGES))}", package=package)
    if isinstance(stderr_summary_max_chars, bool) or not isinstance(stderr_summary_max_chars, int) \
            or stderr_summary_max_chars <= 0:
        raise MountFailed("stderr_summary_max_chars must be a positive integer", package=package)
    if not default_timeout_s > 0:
        raise MountFailed("default_timeout_s must be positive", package=package)
    options = BridgeOptions(project_dir=project_dir, plugin_root=plugin_root, model=model,
                            default_timeout_s=default_timeout_s,
                            stderr_summary_max_chars=stderr_summary_max_chars)
    path = Path(config_path)
    config: HookConfig | None
    try:
        config = await load_config(dialect, path, options)
    except (OSError, ValueError, RecursionError, ConfigParseError) as exc:
        reason = (exc.message if isinstance(exc, ConfigParseError)
                  else f"{type(exc).__name__}: {exc}")
        host.log("warning", f'{dialect.label}: could not load hook config "{path}": {reason} '
                 "— no hooks registered", package=package, config_path=str(path))
        config = None
    else:
        for warning in config.warnings:
            host.log("warning", warning, package=package, config_path=str(path))
    bridge = MountedBridge(host, dialect, path, config, options)
    bridge.subscribe()
    return bridge
