"""How a real vendor CLI is set up for one offline run: its files, env, argv, wire API, tool.

Each vendor's :class:`VendorCli` is part of its unit (``vendors/<id>/lane.py``, named by the unit's
``lane``), following the vendor lane's measured configuration (reference/vendor-lane): scratch
``HOME``, the vendor's own project config file for hooks, the scripted model at
``http://127.0.0.1:<port>``, trust flags so that project hooks load in a non-interactive run.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from compat_adapter.testing.lane.scenarios import SHOWN_MARKERS, EDIT_TEXT, Case, Scenario, cases, claude_shaped_config

__all__ = ("PROJECT", "NoCli", "VendorCli", "base_env", "cases_for", "cli_for", "cli_less", "lane_dir", "lane_vendors",
           "link_plugin_package", "prepare")

#: In a scripted call's arguments, the run's project folder (known only when the run starts).
PROJECT = "{lane-project}"


#: Where ``scripts/vendor_lane.sh`` installs the CLIs (override: COMPAT_ADAPTER_VENDOR_DIR).
def lane_dir() -> Path:
    given = os.environ.get("COMPAT_ADAPTER_VENDOR_DIR")
    if given:
        return Path(given)
    return Path(__file__).resolve().parents[3] / ".cache" / "vendors"


@dataclass(frozen=True, slots=True)
class VendorCli:
    """One vendor's CLI: where its binary is, which wire API it speaks, how it names the shell tool."""

    vendor: str
    """compat-adapter's vendor id (``workbuddy`` for CodeBuddy)."""
    cli: str
    version: str
    binary: str
    """Relative to the lane folder."""
    api: str
    shell_tool: str
    hooks_file: str
    """The project file the hook config is written to (relative to the project)."""
    shell_arg: str = "command"
    extra_args: Mapping[str, Any] = field(default_factory=dict)
    read_tool: tuple[str, str] | None = None
    """The file-read tool and its path argument, for the vendors whose scenarios read a file."""
    env_prefixes: tuple[str, ...] = ()
    """The prefixes of the variables the vendor sets for its hooks (the recorder logs them)."""
    write_tool: tuple[str, str, str] | None = None
    """The file-write tool, its path and its content argument, for the vendors whose scenarios edit a file."""
    destructive: str | None = None
    """The real-config lane's destructive command for a CLI that refuses the standard one by itself,
    before any hook decides (measured; the lane compares hooks, not the vendors' own checks)."""
    side_requests: tuple[str, ...] = ()
    """Texts that mark a model request the CLI makes for itself, beside the session, though it offers
    tools: the scripted model answers it as a side request (no turn taken, no model call counted)."""
    package_version: str | None = None
    """The registry release ``scripts/vendor_lane.sh`` pins when it is not ``version``, the CLI's own
    (CodeBuddy Code 2.163.0 ships in the codebuddy-agent-sdk wheel 0.3.274)."""
    absolute_write: bool = False
    """The file tools take only an absolute path (Qwen Code's write_file refuses ``tool-ran.txt``
    with "File path must be absolute" before any hook runs, and read_file refuses ``.env`` so): the
    call names the file under the run's project (:data:`PROJECT`, filled in when the run's folder is
    known)."""
    inert_call: Mapping[str, Any] | None = None
    """A tool call that changes nothing and that no tool hook sees (Codex's ``update_plan``: its
    PreToolUse covers Bash, apply_patch and MCP tools), for a step that costs the CLI's own time
    alone: ``scripts/bench_port.py`` alternates it with the measured calls, as each session's own
    reference."""
    terminal_ui: bool = False
    """The release has an interactive terminal UI that the lane can drive offline (:meth:`interactive`):
    where it draws what a hook tells the person, the ``shown`` facet is read off its screen."""

    def binary_path(self, lane: Path | None = None) -> Path:
        return (lane or lane_dir()) / self.binary

    def shown(self, result: Mapping[str, Any]) -> tuple[str, ...] | None:
        """What the run showed the person that a hook said (texts carrying a ``SHOWN_MARKERS`` mark),
        read from the CLI's output the way its user reads it. A driver that has not been taught to
        read its CLI's output answers None, not observed (no ``shown`` facet is compared): its JSON or
        its debug lines carry tool results and hook command lines that are no message to the person."""
        return None

    def interactive(self, argv: list[str], run: Path, env: dict[str, str]) -> list[str] | None:
        """The argv of the same run in the CLI's interactive terminal UI, from the non-interactive
        ``argv`` that :meth:`setup` made (writing what a first start would ask about under ``run``,
        changing ``env`` as a terminal session has it); None where the release has no such UI here."""
        return None

    def screen_notices(self, screen: str) -> tuple[str, ...]:
        """What the terminal UI drew that a hook said: its blocks carrying a ``SHOWN_MARKERS`` mark."""
        from compat_adapter.testing.lane.screen import notices_on

        return notices_on(screen, SHOWN_MARKERS)

    def shown_lines(self, result: Mapping[str, Any]) -> tuple[str, ...]:
        """Each line of the CLI's plain output (stdout, then stderr) that carries a mark."""
        return tuple(line.strip() for stream in ("stdout", "stderr") for line in str(result.get(stream) or "").splitlines()
                     if any(m in line for m in SHOWN_MARKERS))

    def ends_nonzero(self, case: Case) -> bool:
        """Whether the CLI's run of ``case`` ends non-zero by design, not as a failed run: a blocked
        prompt ends some CLIs' run so (Copilot exits 1), natively or ported."""
        return case.kind.endswith("prompt_block")

    def port_source(self, case: Case) -> Case:
        """``case`` as the port lane's source file: its hooks as the scenario has them (most vendors'
        cases hold the scenario's own hook only), the same file for the source run and the port."""
        return case

    def tool_text(self, text: str) -> str:
        """A tool result as the model read it, without the framing the CLI puts on every result
        whatever a hook says (Kimi Code prefixes each with its wall time); as is by default."""
        return text

    def call(self, command: str) -> dict[str, Any]:
        """The tool call the scripted model makes to run ``command`` in this vendor's shell tool."""
        return {"name": self.shell_tool, "arguments": {self.shell_arg: command, **self.extra_args}}

    def read(self, path: str) -> dict[str, Any]:
        """The tool call the scripted model makes to read ``path`` with this vendor's read tool."""
        if self.read_tool is None:
            raise ValueError(f"no read tool is set up for {self.vendor}")
        name, argument = self.read_tool
        return {"name": name, "arguments": {argument: f"{PROJECT}/{path}" if self.absolute_write else path}}

    def write(self, path: str) -> dict[str, Any]:
        """The tool call the scripted model makes to write ``path`` (a fixed text) with its write tool."""
        if self.write_tool is None:
            raise ValueError(f"no write tool is set up for {self.vendor}")
        name, where, what = self.write_tool
        return {"name": name, "arguments": {where: f"{PROJECT}/{path}" if self.absolute_write else path,
                                            what: EDIT_TEXT}}

    def inert(self, _value: str) -> dict[str, Any]:
        """The tool call that no hook sees (:attr:`inert_call`)."""
        if self.inert_call is None:
            raise ValueError(f"no inert call is set up for {self.vendor}")
        return {"name": self.inert_call["name"], "arguments": dict(self.inert_call["arguments"])}

    def setup(self, run: Path, base: str, prompt: str, env: dict[str, str], *, binary: str, lane: Path,
              options: Mapping[str, Any]) -> list[str]:
        """Write the vendor's home files under ``run``, add its variables to ``env``; its argv.
        ``base`` is the scripted model's URL."""
        raise NotImplementedError(f"{self.vendor}: its lane driver sets up no run")

    def scenarios(self) -> Mapping[str, Scenario]:
        """Its standard scenarios by kind (see :mod:`compat_adapter.testing.lane.scenarios`)."""
        raise NotImplementedError(f"{self.vendor}: its lane driver has no scenarios")

    def hook_config(self, case: Case, run: Path) -> dict[str, Any]:
        """The vendor-native hook config of ``case``: Claude's shape unless the vendor's is its own."""
        return claude_shaped_config(case, run)

    @property
    def folder(self) -> str:
        """Its folder in the lane (the first part of ``binary``), as ``vendor_lane.sh`` names it."""
        return self.binary.split("/", 1)[0]

    def release_events(self, folder: Path) -> tuple[tuple[str, ...], str]:
        """Every hook event the release installed in ``folder`` knows, read from what the vendor
        ships (schemas, type definitions, the event table compiled into its binary), never from our
        tables; and where they were read (relative to ``folder``). Empty when nothing was found."""
        raise NotImplementedError(f"{self.vendor}: its lane driver cannot read a release's events")

    def write_hooks(self, case: Case, run: Path, target: Path) -> None:
        """Write the case's hooks where the vendor reads them (``hooks_file``)."""
        target.write_text(json.dumps(self.hook_config(case, run), indent=1))


@dataclass(frozen=True, slots=True)
class NoCli:
    """What a unit's test-support module names as its lane driver when the vendor has no CLI that runs
    here (its module still holds the live speaker, ``LIVE``): the vendor has no lane cases, for ``reason``."""

    vendor: str
    reason: str


def _driver(vendor: str) -> VendorCli | NoCli:
    from compat_adapter.catalog import unit_of

    unit = unit_of(vendor)
    if unit.lane is None:
        raise ValueError(f"{unit.spec.id} has no vendor-lane driver (its unit names no test-support module)")
    module, _, attr = unit.lane.partition(":")
    cli = getattr(importlib.import_module(module), attr)
    if not isinstance(cli, VendorCli | NoCli) or cli.vendor != unit.spec.id:
        raise TypeError(f"{unit.lane} is not the lane driver of {unit.spec.id}")
    return cli


def cli_for(vendor: str) -> VendorCli:
    """The lane driver of a vendor id or alias: the one its unit names (``module:attr``)."""
    cli = _driver(vendor)
    if isinstance(cli, NoCli):
        raise ValueError(f"{cli.vendor} has no vendor-lane driver: {cli.reason}")
    return cli


def cases_for(vendor: str) -> tuple[Case, ...]:
    """The vendor's lane cases: its driver's scenarios, the standard kinds first; none for a vendor
    whose test support has no CLI (:func:`cli_less` says why)."""
    cli = _driver(vendor)
    if isinstance(cli, NoCli):
        return ()
    return cases(cli.vendor, cli.scenarios())


def _laned() -> tuple[VendorCli | NoCli, ...]:
    from compat_adapter.catalog import units

    return tuple(_driver(u.spec.id) for u in units() if u.lane is not None)


def lane_vendors() -> tuple[str, ...]:
    """The vendors with a lane driver whose CLI runs here, by id (the suite's order)."""
    return tuple(sorted(c.vendor for c in _laned() if isinstance(c, VendorCli)))


def cli_less() -> Mapping[str, str]:
    """The vendors whose test support has a live speaker and no CLI, each with the reason it has none."""
    return MappingProxyType({c.vendor: c.reason for c in sorted(_laned(), key=lambda c: c.vendor)
                             if isinstance(c, NoCli)})



def base_env(run: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(run / "home"), "TERM": "xterm",
            "LANG": "C.UTF-8", "SHELL": "/bin/bash", "NO_COLOR": "1", "CI": "1", "TMPDIR": str(run / "tmp")}


def prepare(cli: VendorCli, run: Path, port: int, prompt: str, *, lane: Path | None = None,
            options: Mapping[str, Any] | None = None) -> tuple[list[str], dict[str, str]]:
    """Write the vendor's home and project files under ``run``; the argv and env of the run."""
    lane = lane or lane_dir()
    env = base_env(run)
    argv = cli.setup(run, f"http://127.0.0.1:{port}", prompt, env, binary=str(cli.binary_path(lane)), lane=lane,
                     options=dict(options or {}))
    return argv, env


def link_plugin_package(installed: Path, folder: Path) -> None:
    """Give an OpenCode config folder the lane's installed plugin package, at the version installed
    (the pin, or the release a drift run installed beside it), so that OpenCode installs nothing."""
    folder.mkdir(parents=True, exist_ok=True)
    plugin = json.loads((installed / "node_modules/@opencode-ai/plugin/package.json").read_text())
    (folder / "package.json").write_text(json.dumps({"dependencies": {"@opencode-ai/plugin": plugin["version"]}}))
    shutil.copyfile(installed / "package-lock.json", folder / "package-lock.json")
    link = folder / "node_modules"
    if not link.exists():
        link.symlink_to(installed / "node_modules")
