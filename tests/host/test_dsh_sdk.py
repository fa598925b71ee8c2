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
    assert command.count("\n") == 0 and "dsh plugin --profile $p add" in command and "in sdk headless web;" in command
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
    for profile in ("headless", "web"):
        assert "compat-adapter-dsh" in json.loads((home / "profiles" / profile / "package.json").read_text())[
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


def _noisy_workspace(tmp_path: Path) -> Path:
    """A repository whose trusted Claude prompt hook blocks with a reason and says a systemMessage,
    and whose Codex hooks file nobody trusted (held back)."""
    ws = tmp_path / "noisy"
    (ws / ".claude").mkdir(parents=True)
    hook = write_script(ws / ".claude" / "prompt.sh", "cat > /dev/null\nprintf '%s' '" + json.dumps(
        {"decision": "block", "reason": "NO-DEPLOYS-ON-FRIDAY", "systemMessage": "SYSMSG-TO-YOU"}) + "'\n")
    (ws / ".claude" / "settings.json").write_text(json.dumps(
        {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": str(hook)}]}]}}))
    trust_project("claude", ws)
    (ws / ".codex").mkdir()
    (ws / ".codex" / "hooks.json").write_text(json.dumps(
        {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}))
    return ws


#: The words each notice of the noisy workspace carries, by kind.
NOISY = {"held": "compat-adapter trust", "message": "SYSMSG-TO-YOU", "blocked": "NO-DEPLOYS-ON-FRIDAY"}


def _said(kinds_texts: list[tuple[str, str]]) -> None:
    assert sorted(k for k, _ in kinds_texts) == sorted(NOISY), kinds_texts
    for kind, text in kinds_texts:
        assert NOISY[kind] in text, (kind, text)


def test_headless_json_prints_each_notice_on_its_stdout(where: Any, home: Path, tmp_path: Path) -> None:
    """`dsh headless --json` prints only the run's own events; each notice is a `notice` line of
    that stream, in session order, and the blocked turn's turn_end carries the block's words."""
    ws = _noisy_workspace(tmp_path)
    with AnthropicServer((ModelTurn("never"),)).start() as model:
        done = subprocess.run([*where.runtime(), "--profile", "headless", "--json", "deploy it"], cwd=ws,
                              env={**where.env(home), "DEEPSEEK_BASE_URL": model.base_url, "DEEPSEEK_API_KEY": "sk-x"},
                              capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        asked = len(model.main_requests)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 1 and asked == 0, done.stdout[-2000:] + done.stderr[-2000:]  # a blocked turn fails the run
    notices = [line for line in lines if line["type"] == "notice"]
    assert all(n["source"] == "compat-adapter" for n in notices)
    _said([(n["kind"], n["text"]) for n in notices])
    assert lines[0]["type"] == "session" and lines.index(notices[0]) > 0
    [end] = [line for line in lines if line.get("phase") == "turn_end"]
    assert end["reason"]["kind"] == "aborted" and "NO-DEPLOYS-ON-FRIDAY" in end["reason"]["reason"]["reason"]
    assert lines.index(notices[-1]) < lines.index(end)


# The browser's side of a served client module, in node: DSH's module loader, React's
# createElement, and the two client services the module uses, given the session's events.
_BROWSER = r"""
const fs = require('fs')
const [script, eventsFile] = process.argv.slice(1)
let mod
globalThis.window = { __ModuleLoader__: { load: (m) => { mod = m } } }
new Function(fs.readFileSync(script, 'utf8'))()
const react = { createElement: (type, props, ...children) => ({ type, props, children }) }
const definitions = [], views = {}
const face = mod.factory((name) => { if (name === 'react') return react; throw new Error('no module ' + name) })
face.apply({
  uiConversation: { events: { register: (d) => definitions.push(d) } },
  slots: { inject: (_name, make) => make(), register: (o, view) => { views[o.name + ':' + o.key] = view } },
})
const text = (n) => typeof n === 'string' ? n : (n.children || []).map(text).join('')
const drawn = []
for (const event of JSON.parse(fs.readFileSync(eventsFile, 'utf8'))) {
  for (const d of definitions) {
    const found = typeof d.match === 'function' ? d.match(event) : d.match[event.type]?.(event)
    if (!found) continue
    const match = { event, role: found.role, location: { kind: 'turn' } }
    const context = { key: d.kind + ':' + found.id, id: found.id, start: match, matches: [match] }
    context.state = d.start(context, match)
    const node = d.buildViewNode(context)
    const view = views['conversation.chat.node:' + node.kind]
    drawn.push({ kind: node.kind, target: node.target, anchorSeq: node.anchorSeq, notice: node.data.kind,
                 text: text(view({ node })) })
  }
}
console.log(JSON.stringify(drawn))
"""


def test_the_web_ui_serves_the_notice_view_and_it_draws_each_notice(dsh: Any, where: Any, home: Path,
                                                                     tmp_path: Path) -> None:
    """The web profile composes the bundle's web half into its page (DSH's client-module graph) and
    serves it; run as the page runs it, over a real session's events, it draws each notice's words
    in the chat. (No browser here: the page itself is not driven.)"""
    import http.cookiejar
    import re
    import urllib.request

    web = subprocess.Popen([*where.runtime(), "--profile", "web", "--no-open", "--host", "127.0.0.1", "--port", "0"],
                           cwd=tmp_path, env={**where.env(home), "DSH_TELEMETRY_DISABLED": "1"},
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, stdin=subprocess.DEVNULL)
    try:
        url = None
        for line in web.stdout:  # type: ignore[union-attr]
            found = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", line)
            if found:
                url = found.group(0)
                break
        assert url, "dsh web printed no address"
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = browser.open(url, timeout=60).read().decode()
        [served] = set(re.findall(r"plugins/\?\?compat-adapter-dsh/client\.js&(?:amp;)?rev=\w+", page))
        script = browser.open(url.split("?")[0] + served.replace("&amp;", "&"), timeout=60).read().decode()
    finally:
        web.terminate()
        web.wait(30)
    assert (BUNDLE_DIR / "client.js").read_text() in script  # the module as shipped (DSH appends a source name)
    (tmp_path / "client.js").write_text(script)

    ws = _noisy_workspace(tmp_path)
    with AnthropicServer((ModelTurn("never"),)).start() as model:
        result: Any = dsh.run(str(ws), str(home), "deploy it", base_url=model.base_url, api_key="sk-scripted",
                              initialize_timeout_seconds=120)
    (tmp_path / "events.json").write_text(json.dumps(result.events))
    drawn = subprocess.run(["node", "-e", _BROWSER, str(tmp_path / "client.js"), str(tmp_path / "events.json")],
                           capture_output=True, text=True, timeout=60, check=True)
    nodes = json.loads(drawn.stdout)
    records = [e for e in result.events if e.get("type") == "plugin:compat-adapter/notice"]
    assert [n["anchorSeq"] for n in nodes] == [e["seq"] for e in records] and len(nodes) == 3
    assert {(n["kind"], n["target"]) for n in nodes} == {("compat-adapter-notice", "chat")}
    _said([(n["notice"], n["text"]) for n in nodes])
