"""Context in its role, and what a hook tells the person, in a real DeepSeek Harness 0.2.1 session.

Run the way users run it: the bundle added to a DSH home's profiles, the runtime booted by the
official Python SDK (the example ``examples/dsh/sdk_guard.py``) against a scripted model on
loopback; the workspace's own vendor files imported by the bundle under the user's trust store.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import trust_project, write_script

from compat_adapter.host.dsh.lane import lane, prepare_home
from compat_adapter.testing.models.anthropic import AnthropicServer
from compat_adapter.testing.models.base import ModelCall, ModelTurn

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.filterwarnings(
    "ignore:Exception ignored in. <_io.FileIO:pytest.PytestUnraisableExceptionWarning")

NOTICE = "plugin:compat-adapter/notice"


@pytest.fixture(scope="module")
def example() -> Any:
    """The lane, installed on first use by the project's script, and the SDK example as shipped,
    imported only then (collecting this module needs no lane; see test_dsh_sdk.py)."""
    done = subprocess.run(["bash", str(REPO / "scripts" / "dsh_lane.sh")], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, f"scripts/dsh_lane.sh failed:\n{done.stdout}\n{done.stderr}"
    importlib.invalidate_caches()
    sys.path.insert(0, str(REPO / "examples" / "dsh"))
    return importlib.import_module("sdk_guard")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, example: Any) -> Path:
    where = lane(Path(os.environ.get("COMPAT_ADAPTER_DSH_DIR") or REPO / ".cache" / "dsh"))
    return prepare_home(tmp_path_factory.mktemp("dsh-voice-home"), where=where, profiles=("sdk",))


def run(workspace: str, home: str, prompt: str, **options: Any) -> Any:
    """The example's ``run`` (imported by the ``example`` fixture, which ``home`` needs)."""
    return importlib.import_module("sdk_guard").run(workspace, home, prompt, **options)


def _claude(ws: Path, event: str, answer: dict[str, Any]) -> None:
    (ws / ".claude").mkdir(parents=True, exist_ok=True)
    hook = write_script(ws / ".claude" / f"{event}.sh", f"cat > /dev/null\nprintf '%s' '{json.dumps(answer)}'\n")
    settings = {"hooks": {event: [{"hooks": [{"type": "command", "command": str(hook)}]}]}}
    (ws / ".claude" / "settings.json").write_text(json.dumps(settings))


def _notices(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["data"] for e in events if e.get("type") == NOTICE]


def _turn_ends(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["data"]["reason"] for e in events if e.get("type") == "turn/end"]


def _session(ws: Path, home: Path, model: AnthropicServer, prompt: str = "go", **options: Any) -> Any:
    return run(str(ws), str(home), prompt, base_url=model.base_url, api_key="sk-scripted",
               initialize_timeout_seconds=120, **options)


def test_claude_prompt_context_is_system_text_of_that_turns_first_request_and_stays(home: Path,
                                                                                    tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _claude(ws, "UserPromptSubmit", {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                                            "additionalContext": "CTX-PROMPT-SYSTEM"}})
    trust_project("claude", ws)
    call = ModelCall("bash", {"command": "true", "description": "nothing"})
    with AnthropicServer((ModelTurn("looking", (call,)), ModelTurn("done"))).start() as model:
        result = _session(ws, home, model)
        requests = [r.body for r in model.main_requests]
    said = "UserPromptSubmit hook additional context: CTX-PROMPT-SYSTEM"
    # The turn's first request carries it as system text (Claude: a system message), and no user
    # message carries it; the tool continuation's request keeps it.
    assert said in requests[0]["system"]
    assert "CTX-PROMPT-SYSTEM" not in json.dumps(requests[0]["messages"])
    assert said in requests[1]["system"]
    assert result.final_response == "done"


def test_codex_session_start_context_is_system_text_of_the_first_request(home: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".codex").mkdir(parents=True)
    hook = write_script(ws / ".codex" / "start.sh", "cat > /dev/null\nprintf '%s' '" + json.dumps(
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "CTX-CODEX-START"}}) + "'\n")
    (ws / ".codex" / "hooks.json").write_text(json.dumps(
        {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": str(hook)}]}]}}))
    trust_project("codex", ws)
    with AnthropicServer((ModelTurn("hi"),)).start() as model:
        _session(ws, home, model)
        first = model.main_requests[0].body
    assert "CTX-CODEX-START" in first["system"]
    assert "CTX-CODEX-START" not in json.dumps(first["messages"])


def test_a_blocked_prompt_shows_its_reason_to_the_person_and_never_reaches_the_model(home: Path,
                                                                                   tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _claude(ws, "UserPromptSubmit", {"decision": "block", "reason": "NO-PROMPTS-ON-FRIDAY"})
    trust_project("claude", ws)
    with AnthropicServer((ModelTurn("never"),)).start() as model:
        result = _session(ws, home, model, prompt="deploy it")
        asked = len(model.main_requests)
    shown = "UserPromptSubmit operation blocked by hook:\nNO-PROMPTS-ON-FRIDAY\n\nOriginal prompt: deploy it"
    assert asked == 0
    assert [(n["kind"], n["text"]) for n in _notices(result.events)] == [("blocked", shown)]
    # The turn ends in the same words: the SDK's finish reason and turn/end (which `dsh headless
    # --json` prints as its turn_end status) carry them.
    assert _turn_ends(result.events)[-1] == {"kind": "aborted", "reason": {"kind": "hook", "reason": shown}}
    assert result.finish_reason == "aborted"


def test_a_system_message_and_a_stop_reason_reach_the_person(home: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _claude(ws, "PreToolUse", {"continue": False, "stopReason": "STOP-FOR-REVIEW",
                               "systemMessage": "SYSMSG-FOR-YOU"})
    trust_project("claude", ws)
    marker = tmp_path / "ran"
    call = ModelCall("bash", {"command": f"touch {marker}", "description": "touch"})
    with AnthropicServer((ModelTurn("working", (call,)), ModelTurn("never"))).start() as model:
        result = _session(ws, home, model)
    notices = [(n["kind"], n["text"]) for n in _notices(result.events)]
    # In Claude Code's words, as its terminal UI draws them (measured on 2.1.332, a PreToolUse hook
    # answering both: the message, then the stop).
    assert notices == [("message", "PreToolUse:Bash says: SYSMSG-FOR-YOU"),
                       ("stopped", "PreToolUse:Bash hook stopped Claude\nSTOP-FOR-REVIEW")]
    stopped = "PreToolUse:Bash hook stopped Claude\nSTOP-FOR-REVIEW"
    assert _turn_ends(result.events)[-1] == {"kind": "aborted", "reason": {"kind": "hook", "reason": stopped}}


def test_an_untrusted_hook_file_is_announced_at_session_start(home: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _claude(ws, "UserPromptSubmit", {"decision": "block", "reason": "never runs"})
    with AnthropicServer((ModelTurn("hi"),)).start() as model:
        result = _session(ws, home, model)
    held = [n for n in _notices(result.events) if n["kind"] == "held"]
    settings = ws / ".claude" / "settings.json"
    assert len(held) == 1 and held[0]["origin"] == str(settings)
    assert f"compat-adapter trust {settings}" in held[0]["text"]
    assert result.final_response == "hi"


def _counting_context(ws: Path) -> None:
    """A UserPromptSubmit hook whose context changes every prompt: CTX-TURN-1, CTX-TURN-2 …"""
    (ws / ".claude").mkdir(parents=True, exist_ok=True)
    answer = ('{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CTX-TURN-%s"}}')
    hook = write_script(ws / ".claude" / "count.sh", (
        "cat > /dev/null\n"
        f"n=$(( $(cat '{ws}/.count' 2>/dev/null || echo 0) + 1 )); echo $n > '{ws}/.count'\n"
        f"printf '{answer}' $n\n"))
    settings = {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": str(hook)}]}]}}
    (ws / ".claude" / "settings.json").write_text(json.dumps(settings))


@pytest.mark.parametrize("route", ["deepseek-v4-flash", "deepseek-flash"])
def test_what_each_new_context_costs_on_each_route(home: Path, tmp_path: Path, route: str) -> None:
    """The measurement behind the ``context-cost`` loss (host/dsh/surface.py): kept context is
    cumulative, and a change either starts a new request series (the prompt cache of the whole
    conversation is lost) or appends a whole copy of the rendered prompt."""
    from deepseek_harness import DeepSeekHarness

    ws = tmp_path / "ws"
    _counting_context(ws)
    trust_project("claude", ws)
    with AnthropicServer((ModelTurn("one"), ModelTurn("two"))).start() as model:
        with DeepSeekHarness(cwd=str(ws), dsh_home=str(home), base_url=model.base_url, api_key="sk-scripted",
                             model=route, initialize_timeout_seconds=120) as harness:
            session = harness.start_session()
            session.run("first prompt")
            second = session.run("second prompt")
        first_request, second_request = (r.body for r in model.main_requests)
    one, two = "hook additional context: CTX-TURN-1", "hook additional context: CTX-TURN-2"
    assert one in first_request["system"] and two not in first_request["system"]
    headers = [e["data"] for e in second.events if e.get("type") == "request/header"]
    copies = [m for m in second_request["messages"] if m.get("role") == "system"]
    if route == "deepseek-v4-flash":
        # No in-history updates: the head is rewritten with both, and a new series begins.
        assert one in second_request["system"] and two in second_request["system"]
        assert [h.get("reason") for h in headers] == ["series"] and not copies, [{k: v for k, v in h.items() if k != "header"} for h in headers]
    else:
        # In-history updates: the head stays; a whole prompt copy with both follows the new prompt.
        assert two not in second_request["system"] and not [h for h in headers if h.get("reason") == "series"]
        [copy] = copies
        text = json.dumps(copy)
        assert one in text and two in text and "DeepSeek Harness" in text


def test_kept_context_survives_a_resumed_session(home: Path, tmp_path: Path) -> None:
    """The plugin's memory goes with its process; the context it was given is in the log (a plugin
    record), so a session resumed by a new runtime still carries the first prompt's context."""
    from deepseek_harness import DeepSeekHarness

    ws = tmp_path / "ws"
    _counting_context(ws)
    trust_project("claude", ws)
    with AnthropicServer((ModelTurn("one"), ModelTurn("two"))).start() as model:
        options = dict(cwd=str(ws), dsh_home=str(home), base_url=model.base_url, api_key="sk-scripted",
                       initialize_timeout_seconds=120)
        with DeepSeekHarness(**options) as harness:  # type: ignore[arg-type]
            session = harness.start_session()
            session.run("first prompt")
        with DeepSeekHarness(**options) as harness:  # type: ignore[arg-type]
            harness.resume_session(session.id).run("second prompt")
        resumed = model.main_requests[1].body
    assert "hook additional context: CTX-TURN-1" in resumed["system"]
    assert "hook additional context: CTX-TURN-2" in resumed["system"]
