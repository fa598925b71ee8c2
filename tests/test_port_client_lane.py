"""A clone without the compiled client, judged by the real CLIs (offline, ``.cache/vendors``): the
ported Claude guard's entry names ``compat-adapter-shim``, which this machine lacks. Codex reads the
shell's exit 127 as a non-blocking error (the control: ``rm -rf build`` runs), so port writes the
entry to test for the client and exit 2 with the reason, and the real Codex, CodeBuddy and Qwen
refuse the call, the model reading the reason in each target's own words; Gemini refuses on the
127 itself."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from compat_adapter.hostface import SHIM_MARK
from compat_adapter.hostproto import EntrySpec
from compat_adapter.port.clientname import ABSENT_TEXT, guard_absent_client
from compat_adapter.port.fastclient import CLIENT_NAME
from compat_adapter.testing.lane.drivers import vendor_outcome
from compat_adapter.testing.lane.porting import guard_case, ported_case

pytestmark = pytest.mark.vendor

#: What the model reads in place of the refused call (tests/test_port_lane.py's measured words).
WORDS = {"codex": "Command blocked by PreToolUse hook: ", "workbuddy": "Error: ", "qwen": ""}
#: The guard's event on each target.
TARGET_EVENT = {"codex": "PreToolUse", "workbuddy": "PreToolUse", "qwen": "PreToolUse", "gemini": "BeforeTool"}


def _named_bare(value: Any, target: str, event: str, wrap: bool) -> Any:
    """The ported file with each entry's launcher replaced by the bare client name, as port writes it
    where the client is on PATH (and the guard's test for the client, with ``wrap``)."""
    if isinstance(value, dict):
        return {k: _named_bare(v, target, event, wrap) for k, v in value.items()}
    if isinstance(value, list):
        return [_named_bare(v, target, event, wrap) for v in value]
    if isinstance(value, str) and SHIM_MARK in value:
        bare = CLIENT_NAME + SHIM_MARK + value.split(SHIM_MARK, 1)[1]
        return guard_absent_client(target, [EntrySpec(event, bare, 60.0)])[0][0].command if wrap else bare
    return value


def _run(target: str, run: Path, wrap: bool, monkeypatch: pytest.MonkeyPatch,
         client: Path | None = None) -> tuple[Any, Any]:
    from dataclasses import replace

    # No folder of this PATH holds the client: the clone's machine; with ``client``, a folder
    # holding it by its name comes first (a machine where port placed it).
    path = [p for p in os.environ["PATH"].split(os.pathsep) if p and not (Path(p) / CLIENT_NAME).exists()]
    if client is not None:
        placed = run / "placed"
        placed.mkdir(parents=True)
        (placed / CLIENT_NAME).symlink_to(client)
        path.insert(0, str(placed))
    monkeypatch.setenv("PATH", os.pathsep.join(path))
    case, report = ported_case(guard_case(), target, run, guard_command="./guard.sh")
    files = dict(case.files)
    event = TARGET_EVENT[target]
    files[report["file"]] = json.dumps(_named_bare(json.loads(files[report["file"]]), target, event, wrap))
    assert CLIENT_NAME + SHIM_MARK in files[report["file"]]
    return vendor_outcome(replace(case, files=files), run), files[report["file"]]


def test_without_the_test_for_the_client_codex_lets_the_call_through(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The control, and the loss port guards against: exit 127 is a non-blocking error to Codex."""
    out, text = _run("codex", tmp_path, False, monkeypatch)
    assert "command -v" not in text
    assert out.error is None, out.error
    assert out.tool_ran and not (tmp_path / "proj" / "build").exists()


@pytest.mark.parametrize("target", sorted(WORDS))
def test_a_guard_whose_client_is_missing_refuses_under_the_real_target(target: str, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    out, text = _run(target, tmp_path, True, monkeypatch)
    assert f"command -v {CLIENT_NAME} " in text
    assert out.error is None, out.error
    assert not out.tool_ran and (tmp_path / "proj" / "build" / "keep.txt").exists()
    assert (out.tool_result or "").strip().startswith(WORDS[target] + ABSENT_TEXT), out.tool_result


@pytest.mark.parametrize("target", sorted(WORDS))
def test_a_guard_whose_client_is_there_runs_the_guard_under_the_real_target(target: str, tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The same entry on a machine where the client is on PATH: the shell's test passes, the shell
    becomes the client (``exec``), the client runs the team's guard, and the real target refuses
    the call with the guard's own reason in its words."""
    from compat_adapter.port.fastclient import install_build

    out, text = _run(target, tmp_path, True, monkeypatch, client=install_build())
    assert f"command -v {CLIENT_NAME} " in text and f"; exec {CLIENT_NAME} " in text
    assert out.error is None, out.error
    assert not out.tool_ran and (tmp_path / "proj" / "build" / "keep.txt").exists()
    result = (out.tool_result or "").strip()
    assert result.startswith(WORDS[target]) and "LANE-DENY-GUARD" in result and ABSENT_TEXT not in result, result


def test_gemini_refuses_on_the_shells_exit_127_itself_so_its_entry_is_left_as_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Gemini reads any exit above 1 with text on stderr as a refusal (its dialect, measured): the
    entry names the client with no test, and the real Gemini refuses with the shell's own words."""
    out, text = _run("gemini", tmp_path, True, monkeypatch)
    assert "command -v" not in text
    assert out.error is None, out.error
    assert not out.tool_ran and (tmp_path / "proj" / "build" / "keep.txt").exists()
    result = (out.tool_result or "").strip()
    assert result.startswith("Tool execution blocked: ") and f"{CLIENT_NAME}: " in result, result
