"""`compat-adapter dsh-model`: the profile patch that picks a DSH session's model (no DSH needed:
what the patch does in a real DSH is tests/host/test_dsh_sdk.py's README and example tests)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from compat_adapter.errors import BadArgument
from compat_adapter.host.dsh.model import KEY_ENV, LOCAL_PROVIDER, model_route, patch_rows, write_patch


def _cli(*args: str, state: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compat_adapter", "dsh-model", *args], capture_output=True,
                          text=True, env={"COMPAT_ADAPTER_STATE_HOME": str(state), "PATH": "/usr/bin:/bin"})


def test_a_local_openai_address_becomes_a_pi_ai_route_and_the_default_model(tmp_path: Path) -> None:
    done = _cli("--openai", "http://127.0.0.1:8080/v1/", "--model", "qwen3-coder", state=tmp_path)
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    assert path.parent == tmp_path / "dsh-models"
    pi, default = json.loads(path.read_text())
    route = pi["config"]["providers"][LOCAL_PROVIDER]
    assert pi["id"] == "llm-pi-ai" and route["api"] == "openai-completions"
    assert route["baseURL"] == "http://127.0.0.1:8080/v1" and route["apiKeyEnv"] == KEY_ENV
    assert [m["id"] for m in route["models"]] == ["qwen3-coder"]
    assert default == {"id": "agent-default-model", "config": {"provider": LOCAL_PROVIDER, "model": "qwen3-coder"}}
    # The same choice, the same file: a second call finds it.
    again = _cli("--openai", "http://127.0.0.1:8080/v1/", "--model", "qwen3-coder", state=tmp_path)
    assert again.stdout == done.stdout


def test_an_anthropic_address_and_another_key_variable() -> None:
    route = model_route(anthropic="http://localhost:4000", model="claude-local", key_env="LOCAL_KEY")
    pi, _ = patch_rows(route)
    assert pi["config"]["providers"][LOCAL_PROVIDER]["api"] == "anthropic-messages"  # type: ignore[index]
    assert pi["config"]["providers"][LOCAL_PROVIDER]["apiKeyEnv"] == "LOCAL_KEY"  # type: ignore[index]


def test_no_address_is_deepseek_by_key() -> None:
    assert patch_rows(model_route()) == [
        {"id": "agent-default-model", "config": {"provider": "deepseek-official", "model": "deepseek-flash"}}]
    rows = patch_rows(model_route(model="deepseek-v4-pro", key_env="MY_DEEPSEEK_KEY"))
    assert rows[0] == {"id": "llm-deepseek", "config": {"apiKeyEnv": "MY_DEEPSEEK_KEY"}}


@pytest.mark.parametrize(("options", "says"), [
    ({"openai": "127.0.0.1:8080"}, "http(s) address"),
    ({"openai": "http://a/v1", "anthropic": "http://b"}, "not both"),
    ({"anthropic": "http://127.0.0.1:1"}, "needs --model"),
    ({"key_env": "NOT A NAME"}, "variable's name"),
])
def test_bad_choices_are_refused_with_a_stable_code(options: dict[str, str], says: str) -> None:
    with pytest.raises(BadArgument) as caught:
        model_route(**options)
    assert says in str(caught.value) and caught.value.code == "BAD_ARGUMENT"


def test_the_command_line_refuses_with_its_code(tmp_path: Path) -> None:
    done = _cli("--anthropic", "ftp://x", "--model", "m", state=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("BAD_ARGUMENT:")
    assert not (tmp_path / "dsh-models").exists()


def test_the_address_cannot_write_yaml(tmp_path: Path) -> None:
    """The patch is JSON: a model name holding YAML syntax stays a string (DSH's loader reads JSON)."""
    route = model_route(openai="http://127.0.0.1:1/v1", model="m\n- id: evil\n  disabled: true")
    rows = json.loads(write_patch(route, tmp_path).read_text())
    assert [r["id"] for r in rows] == ["llm-pi-ai", "agent-default-model"]
