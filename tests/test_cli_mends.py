"""Small mends from the journey a team walks: a wrapper's script is pinned by trust, explain does not
call a real vendor tool a misspelling, and the docs say what really works."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from conftest import write_script

from compat_adapter.catalog import vendors

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compat_adapter.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=180, stdin=subprocess.DEVNULL)


def test_trust_pins_a_script_reached_through_a_wrappers_argument(tmp_path: Path) -> None:
    hooks = tmp_path / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    write_script(hooks / "hook.sh", 'exec "$(dirname "$0")/$1"\n')
    check = write_script(hooks / "safety-check.sh", "cat > /dev/null\n")
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/hook.sh safety-check.sh"}]}]}}))
    trusted = cli("trust", ".", "--yes", "--json", cwd=tmp_path)
    assert trusted.returncode == 0, trusted.stderr
    [file] = json.loads(trusted.stdout)["files"]
    assert file["hooks"][0]["files"] == [".claude/hooks/hook.sh", ".claude/hooks/safety-check.sh"]
    assert json.loads(cli("grade", ".", "--json", cwd=tmp_path).stdout)["rows"][0]["capability"] == "ADAPTED"
    check.write_text(check.read_text() + "exit 0\n")  # the wrapped script changes, the settings do not
    row = json.loads(cli("grade", ".", "--json", cwd=tmp_path).stdout)["rows"][0]
    assert row["capability"] == "UNSUPPORTED" and "safety-check.sh, which its hooks run, changed" in row["reason"]


def test_explain_does_not_call_claudes_web_tools_a_misspelling(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "WebSearch|WebFetch", "hooks": [{"type": "command", "command": "true"}]},
        {"matcher": "Bsh", "hooks": [{"type": "command", "command": "true"}]}]}}))
    done = cli("explain", "--vendor", "claude", "--tool", "Bash", "--input", "{}", "--json", "--trust-all",
               cwd=tmp_path)
    lints = {lint["text"] for lint in json.loads(done.stdout)["lints"] if lint["code"] == "matcher-matches-no-tool"}
    web = next(t for t in lints if "WebSearch" in t)
    assert "spelling" not in web and "may be claude tools this host does not have" in web
    assert any("Bsh (did you mean Bash?)" in t for t in lints)


def test_integration_md_names_the_dsh_release_the_lane_installs() -> None:
    lane = (ROOT / "scripts" / "dsh_lane.sh").read_text()
    sdk = re.search(r'SDK="deepseek-harness-sdk==([^"]+)"', lane)
    assert sdk
    text = (ROOT / "INTEGRATION.md").read_text()
    assert f"deepseek-harness-sdk=={sdk.group(1)}" in text and "0.1.0-rc.8" not in text
    assert "only command hooks run" not in text


def test_the_readme_says_how_a_preset_reaches_the_service_as_the_example_does() -> None:
    readme = (ROOT / "README.md").read_text()
    example = (ROOT / "examples" / "dsh" / "preset" / "preset.mjs").read_text()
    assert "ctx.get('compatAdapter')" in example and "ctx.get('compatAdapter')" in readme
    assert "ctx.compatAdapter" not in readme


def test_the_package_description_names_every_vendor() -> None:
    description = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["description"]
    names = ("Claude Code", "Codex", "WorkBuddy/CodeBuddy", "OpenCode", "GitHub Copilot", "Gemini CLI", "Qwen Code",
             "Cursor", "Factory Droid", "Continue", "Kimi Code", "Crush", "Windsurf", "Kilo", "Cline")
    assert all(name in description for name in names)
    assert len(names) == len(vendors())  # a new vendor needs its name here and there
