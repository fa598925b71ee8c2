"""Real-world Claude hook files (tests/fixtures/handlers/real, provenance beside them): every handler
kind and field they use is read, and each handler is graded ADAPTED or UNSUPPORTED for a reason that
names what this host lacks, never refused as unknown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import trust

from compat_adapter.grading import grade
from compat_adapter.handlers.rules import parse_rule, rule_matches
from compat_adapter.host.surfaces import EMBEDDED_SURFACE
from compat_adapter.importers import import_files
from compat_adapter.model import Capability, CommandHandler

REAL = Path(__file__).parent / "fixtures" / "handlers" / "real"
FILES = sorted(REAL.glob("*.json"))
WITH_MODEL = EMBEDDED_SURFACE.model_copy(update={"services": EMBEDDED_SURFACE.services | {"model"}})


def imported(name: str):  # noqa: ANN201 - an ImportResult
    path = REAL / name
    trust("claude", path)
    return import_files("claude", [path])


def test_every_real_handler_is_read_and_none_refused() -> None:
    for path in FILES:
        result = imported(path.name)
        assert result.refused == (), path.name
        assert result.hooks, path.name


def test_security_guidance_plugin_keeps_its_if_and_rewake_fields() -> None:
    hooks = [h.declared.handler for h in imported("plugin-security-guidance.hooks.json").hooks]
    rewaking = [h for h in hooks if isinstance(h, CommandHandler) and h.rewake]
    assert [h.if_rule for h in rewaking] == ["Bash(git commit:*)", "Bash(git push:*)", None]
    assert all(h.run_async and h.rewake_message and h.ignored == ("rewakeSummary",) for h in rewaking)
    commit = parse_rule("Bash(git commit:*)")
    assert commit is not None
    assert rule_matches(commit, "Bash", {"command": "git add -A && git commit -m 'x'"}, "/p")
    assert not rule_matches(commit, "Bash", {"command": "git status"}, "/p")


def test_cdk_guards_match_the_commands_they_were_written_for() -> None:
    rules = {h.declared.handler.if_rule: h for h in imported("settings.cdk-real-drift.json").hooks
             if h.declared.handler.if_rule}
    assert len(rules) == 7
    cases = {"Bash(*git*commit*)": "git commit -m wip", "Bash(*gh*pr*create*)": "gh pr create --fill",
             "Bash(*gh*pr*merge*)": "gh pr merge 12 --squash", "Bash(*git*push*)": "git push -u origin HEAD",
             "Bash(*deploy*)": "npx cdk deploy --all", "Bash(*create-stack*)": "aws cloudformation create-stack x",
             "Bash(*update-stack*)": "aws cloudformation update-stack x"}
    for text, command in cases.items():
        rule = parse_rule(text)
        assert rule is not None and rule_matches(rule, "Bash", {"command": command}, "/p"), text
        assert not rule_matches(rule, "Bash", {"command": "ls -la"}, "/p"), text


def test_each_real_handler_is_adapted_or_names_what_the_host_lacks() -> None:
    for path in FILES:
        for hook in imported(path.name).hooks:
            result = grade(hook.declared, WITH_MODEL)
            if result.capability is Capability.UNSUPPORTED:
                # Only a route this handler's kind or fields cannot take (the host's official bridge runs
                # plain commands), or a machine without pwsh.
                assert "official bridge" in (result.reason or "") or "pwsh" in (result.reason or ""), \
                    (hook.origin, result.reason)
            else:
                assert result.capability is Capability.ADAPTED and result.degradations


def test_grade_cli_counts_a_configured_model(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"hooks": {"PostToolUseFailure": [{"hooks": [
        {"type": "prompt", "prompt": "Should the agent retry? $ARGUMENTS"}]}]}}))
    trust("claude", path)
    base = [sys.executable, "-m", "compat_adapter.cli", "grade", "--vendor", "claude", "--json", str(path)]

    def row(env: dict[str, str]) -> dict[str, object]:
        out = subprocess.run(base, capture_output=True, text=True, env=env, check=True).stdout
        [only] = json.loads(out[out.index("{"):])["rows"]
        return only

    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPAT_ADAPTER_MODEL")}
    without = row(env)
    assert without["capability"] == "UNSUPPORTED" and "no model" in str(without["reason"])
    configured = row({**env, "COMPAT_ADAPTER_MODEL_URL": "http://127.0.0.1:9"})
    assert configured["capability"] == "ADAPTED"
    assert any(str(loss).startswith("model-differs") for loss in configured["losses"])  # type: ignore[attr-defined]
