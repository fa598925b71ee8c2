"""compat-adapter in a real DeepSeek Harness 0.2.1, installed and run the way DSH users do.

The bundle is added with ``dsh plugin --profile <p> add file:<bundle>`` (pnpm from the lane), the
runtime is booted by the official Python SDK (``deepseek_harness.DeepSeekHarness``, profile
``sdk``) against a scripted Anthropic-shaped model on loopback, and the plugin spawns
``compat-adapter serve --stdio`` from this environment by itself. Nothing here holds the service:
what the tests see is what a user's session does.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from collections.abc import Callable
from typing import Any

import pytest
from conftest import trust_project, write_script

from compat_adapter.host.dsh.bundle import BUNDLE_DIR
from compat_adapter.host.dsh.lane import PROFILES, lane, prepare_home
from compat_adapter.testing.models.anthropic import AnthropicServer
from compat_adapter.testing.models.base import ModelCall, ModelServer, ModelTurn
from compat_adapter.testing.models.chat import ChatServer

REPO = Path(__file__).resolve().parents[2]


# The SDK 0.2.1rc2's close() reaps the runtime but never closes its stdout/stderr pipes; the
# example uses the SDK as its users do, so those two unclosed files are the SDK's, reported here.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Exception ignored in. <_io.FileIO:pytest.PytestUnraisableExceptionWarning")


@pytest.fixture(scope="module")
def dsh() -> Any:
    """The DSH lane, installed on first use by the project's own script (a no-op check when it is
    there), and the example as shipped, imported only then: collecting this module never needs
    the lane (the README's test command on a fresh clone). Never a skip."""
    done = subprocess.run(["bash", str(REPO / "scripts" / "dsh_lane.sh")], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, f"scripts/dsh_lane.sh failed:\n{done.stdout}\n{done.stderr}"
    importlib.invalidate_caches()  # the lane may have installed the SDK into this very environment
    sys.path.insert(0, str(REPO / "examples" / "dsh"))
    return importlib.import_module("sdk_guard")


@pytest.fixture(scope="module")
def where(dsh: Any) -> Any:
    return lane(Path(os.environ.get("COMPAT_ADAPTER_DSH_DIR") or REPO / ".cache" / "dsh"))


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, where: Any) -> Path:
    """A fresh DSH home with the bundle added to the sdk, headless and web profiles."""
    return prepare_home(tmp_path_factory.mktemp("dsh-home"), where=where)


@pytest.mark.parametrize("profile", PROFILES)
def test_dsh_plugin_add_makes_the_bundle_a_layer_of_each_profile(home: Path, profile: str) -> None:
    manifest = json.loads((home / "profiles" / profile / "package.json").read_text())
    assert manifest["dependencies"]["compat-adapter-dsh"] == f"file:{BUNDLE_DIR}"
    assert "compat-adapter-dsh" in manifest["dsh"]["profile"]["bundles"]
    installed = home / "profiles" / profile / "node_modules" / "compat-adapter-dsh"
    assert (installed / "plugin.mjs").read_text() == (BUNDLE_DIR / "plugin.mjs").read_text()


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    (ws / ".claude").mkdir(parents=True)
    guard = write_script(ws / ".claude" / "guard.sh", (
        f"cat > '{tmp_path}/guard.stdin'\n"
        "printf '%s' '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\","
        "\"permissionDecisionReason\":\"no deleting in this repo\"}}'\n"))
    context = write_script(ws / ".claude" / "context.sh", (
        "cat > /dev/null\n"
        "printf '%s' '{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\","
        "\"additionalContext\":\"CTX-FROM-THE-WORKSPACE\"}}'\n"))
    settings = {"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": str(guard)}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": str(context)}]}]}}
    (ws / ".claude" / "settings.json").write_text(json.dumps(settings))
    return ws, ws / "removed"


def _model(marker: Path) -> AnthropicServer:
    call = ModelCall("bash", {"command": f"touch {marker}", "description": "remove the build folder"})
    return AnthropicServer((ModelTurn("removing", (call,)), ModelTurn("could not"))).start()


def _tool_results(events: list[dict[str, Any]]) -> list[tuple[bool, str]]:
    out = []
    for e in events:
        if e.get("type") == "tool/result":
            m = e["data"]["message"]
            out.append((bool(m.get("isError")), "".join(b.get("text", "") for b in m["content"])))
    return out


def test_a_workspace_claude_guard_denies_a_real_bash_call_in_an_sdk_session(dsh: Any, home: Path,
                                                                               tmp_path: Path) -> None:
    ws, marker = _workspace(tmp_path)
    trust_project("claude", ws)
    with _model(marker) as model:
        result: Any = dsh.run(str(ws), str(home), "remove the build folder",
                          base_url=model.base_url, api_key="sk-scripted", initialize_timeout_seconds=120)
        requests = [r.body for r in model.main_requests]
    assert not marker.exists(), "the denied command must not have run"
    assert json.loads((tmp_path / "guard.stdin").read_text())["tool_input"]["command"] == f"touch {marker}"
    assert _tool_results(result.events) == [(True, "PreToolUse:Bash hook error: no deleting in this repo")]
    assert result.final_response == "could not"
    # The prompt hook's context reached the first request, in Claude's words and Claude's role:
    # system text (the bundle puts it in the system prompt; see bundle/voice.mjs).
    assert "UserPromptSubmit hook additional context: CTX-FROM-THE-WORKSPACE" in requests[0]["system"]
    assert "CTX-FROM-THE-WORKSPACE" not in json.dumps(requests[0]["messages"])


def test_an_untrusted_workspace_guard_is_reported_and_never_run(dsh: Any, home: Path, tmp_path: Path) -> None:
    ws, marker = _workspace(tmp_path)
    with _model(marker) as model:
        result: Any = dsh.run(str(ws), str(home), "remove the build folder",
                          base_url=model.base_url, api_key="sk-scripted", initialize_timeout_seconds=120)
    assert not (tmp_path / "guard.stdin").exists(), "an untrusted hook must never run"
    assert marker.exists() and _tool_results(result.events)[0][0] is False


def test_a_js_preset_calls_the_compatadapter_service_and_its_hook_runs(dsh: Any, where: Any, tmp_path: Path,
                                                                      tmp_path_factory: pytest.TempPathFactory) -> None:
    preset = REPO / "examples" / "dsh" / "preset"
    home = prepare_home(tmp_path_factory.mktemp("dsh-preset-home"), where=where, profiles=("sdk",))
    added = subprocess.run([*where.runtime(), "plugin", "--profile", "sdk", "add", f"file:{preset}"],
                           capture_output=True, text=True, env=where.env(home), timeout=300, stdin=subprocess.DEVNULL)
    assert added.returncode == 0, added.stdout + added.stderr
    ws = tmp_path / "ws"
    ws.mkdir()
    guard = write_script(tmp_path / "guard.sh", (
        f"cat > '{tmp_path}/preset.stdin'\n"
        "printf '%s' '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\","
        "\"permissionDecisionReason\":\"the preset says no\"}}'\n"))
    marker = ws / "ran"
    report = tmp_path / "report.json"
    with _model(marker) as model:
        result: Any = dsh.run(str(ws), str(home), "go", base_url=model.base_url, api_key="sk-scripted",
                          initialize_timeout_seconds=120,
                          env={"COMPAT_ADAPTER_PRESET_GUARD": str(guard), "COMPAT_ADAPTER_PRESET_REPORT": str(report)})
    said = json.loads(report.read_text())
    assert said["result"]["capability"] == "ADAPTED" and said["result"]["route"] == "native-translate"
    assert said["frozen"] is True and said["hooks"] == 1
    assert (tmp_path / "preset.stdin").exists() and not marker.exists()
    assert _tool_results(result.events) == [(True, "PreToolUse:Bash hook error: the preset says no")]


def test_the_readme_command_adds_compat_adapter_to_a_users_dsh(where: Any, tmp_path: Path) -> None:
    import re

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## In DSH"):]
    command = re.search(r"```sh\n(.*?)\n```", section, re.S).group(1)  # type: ignore[union-attr]
    assert command.count("\n") == 0 and "dsh plugin --profile $p add" in command and "in sdk headless;" in command
    # The README's one line, word for word, with the user's home swapped for a scratch one.
    home = tmp_path / "user-dsh"
    env = {**where.env(home)}
    env.pop("DSH_HOME")
    done = subprocess.run(["bash", "-c", command.replace("~/.dsh", str(home))], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    manifest = json.loads((home / "profiles" / "sdk" / "package.json").read_text())
    assert manifest["dependencies"]["compat-adapter-dsh"] == f"file:{BUNDLE_DIR}"
    assert "compat-adapter-dsh" in manifest["dsh"]["profile"]["bundles"]
    assert "compat-adapter-dsh" in json.loads((home / "profiles" / "headless" / "package.json").read_text())[
        "dsh"]["profile"]["bundles"]

    # The README's session commands, word for word, in a repository whose trusted Claude hook gives
    # context and a systemMessage: on DeepSeek by key (DeepSeek's address pointed at a local
    # scripted model of its wire), on a local OpenAI-compatible address, and with `--anthropic`.
    sessions = re.findall(r"```sh\n(.*?)\n```", section, re.S)[1:]
    assert len(sessions) == 2 and all(c.count("\n") == 0 and "dsh --profile headless" in c for c in sessions)
    repo = tmp_path / "repo"
    (repo / ".claude").mkdir(parents=True)
    hook = write_script(repo / ".claude" / "context.sh", "cat > /dev/null\nprintf '%s' '" + json.dumps(
        {"systemMessage": "SYSMSG-README", "hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                                                 "additionalContext": "CTX-README"}}) + "'\n")
    (repo / ".claude" / "settings.json").write_text(json.dumps(
        {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": str(hook)}]}]}}))
    trust_project("claude", repo)
    deepseek, local = (c.replace("~/.dsh", str(home)) for c in sessions)
    local_address = "http://127.0.0.1:8080/v1"
    assert "--openai " + local_address in local and "--model qwen3-coder" in local
    cases: list[tuple[str, type[ModelServer], str, str, Callable[[dict[str, Any]], str]]] = [
        # (command, server, the key it must carry, the model name it must ask for, its system text)
        (deepseek.replace("sk-your-key", "sk-scripted"), AnthropicServer, "sk-scripted", "deepseek-flash",
         lambda body: json.dumps(body["system"])),
        (local, ChatServer, "sk-local", "qwen3-coder",
         lambda body: json.dumps([m for m in body["messages"] if m["role"] == "system"])),
        (local.replace("--openai " + local_address, "--anthropic {anthropic}"), AnthropicServer, "sk-local",
         "qwen3-coder", lambda body: json.dumps(body["system"]))]
    for command, server, key, name, system_of in cases:
        with server((ModelTurn("all green"),)).start() as model:
            command = command.replace(local_address, model.base_url + "/v1").replace("{anthropic}", model.base_url)
            extra = {"DEEPSEEK_BASE_URL": model.base_url} if server is AnthropicServer and "dsh-model)" in command else {}
            done = subprocess.run(["bash", "-c", command], cwd=repo, env={**env, **extra}, capture_output=True,
                                  text=True, timeout=300, stdin=subprocess.DEVNULL)
            first = model.main_requests[0].body if model.main_requests else {}
            keys = set(model.keys)
        assert done.returncode == 0, command + "\n" + done.stdout[-2000:] + done.stderr[-2000:]
        assert json.loads(done.stdout.splitlines()[-1]) == {"type": "final", "text": "all green"}, command
        assert first["model"] == name and keys == {key}, (command, first.get("model"), keys)
        assert "UserPromptSubmit hook additional context: CTX-README" in system_of(first), command
        assert "CTX-README" not in json.dumps([m for m in first["messages"] if m["role"] != "system"]), command
        assert "compat-adapter: SYSMSG-README" in done.stderr, command


def test_the_sdk_example_takes_the_readme_model_options(dsh: Any, home: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    ws, marker = _workspace(tmp_path)
    trust_project("claude", ws)
    with _model(marker) as model:
        assert dsh.main([str(ws), "remove the build folder", "--home", str(home), "--base-url", model.base_url,
                     "--api-key", "sk-scripted", "--model", "deepseek-flash"]) == 0
        config = model.main_requests[0].body
    assert not marker.exists()
    assert capsys.readouterr().out.strip() == "could not"
    assert config["model"] == "deepseek-flash"


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_the_sdk_example_runs_on_a_local_model_address(dsh: Any, home: Path, tmp_path: Path, wire: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The example's `--openai` / `--anthropic`: the same workspace guard and context, on a local
    model of that wire, named by `--model`, with the key from `--api-key`."""
    ws, marker = _workspace(tmp_path)
    trust_project("claude", ws)
    call = ModelCall("bash", {"command": f"touch {marker}", "description": "remove the build folder"})
    server: type[ModelServer] = ChatServer if wire == "openai" else AnthropicServer
    with server((ModelTurn("removing", (call,)), ModelTurn("could not"))).start() as model:
        address = model.base_url + ("/v1" if wire == "openai" else "")
        assert dsh.main([str(ws), "remove the build folder", "--home", str(home), f"--{wire}", address,
                         "--model", "my-local-model", "--api-key", "sk-local"]) == 0
        first = model.main_requests[0].body
        paths = {r.path.split("?")[0] for r in model.main_requests}
        keys = set(model.keys)
    assert not marker.exists(), "the denied command must not have run"
    assert capsys.readouterr().out.strip() == "could not"
    assert first["model"] == "my-local-model" and keys == {"sk-local"}
    assert paths == ({"/v1/chat/completions"} if wire == "openai" else {"/v1/messages"})
    system = (json.dumps([m for m in first["messages"] if m["role"] == "system"]) if wire == "openai"
              else json.dumps(first["system"]))
    assert "UserPromptSubmit hook additional context: CTX-FROM-THE-WORKSPACE" in system
