"""`compat-adapter grade .` on one project that holds a hook file of every registered vendor, side
by side, from the real corpus (``tests/fixtures/real-configs/``): each vendor's file is found by
discovery and graded as that vendor's, none is skipped and none is taken for another's (issue 25).

A vendor added to the registry adds its file to :data:`FILES`; the test fails until it does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from compat_adapter.catalog import units

REAL = Path(__file__).resolve().parent / "fixtures" / "real-configs"
#: Vendor id → (where the vendor reads it in a project, the corpus file copied there, or the config
#: written there where the corpus has none).
FILES: dict[str, tuple[str, str | dict[str, object]]] = {
    "claude": (".claude/settings.json", "claude/settings.hooks-mastery.json"),
    "codex": (".codex/hooks.json", "codex/hooks.ruff.json"),
    "workbuddy": (".codebuddy/settings.json", "codebuddy/settings.tgfx.json"),
    "opencode": (".opencode/plugins/guard.ts", "opencode/plugins/guard.ts"),
    "copilot": (".github/hooks/tool-guardian.json", "copilot/tool-guardian.json"),
    "gemini": (".gemini/settings.json", "gemini/nepocorp.json"),
    "cursor": (".cursor/hooks.json", "cursor/go-utils.json"),
    # No public Qwen Code hooks file is in the corpus yet: a guard in Qwen's documented shape.
    "qwen": (".qwen/settings.json", {"hooks": {"PreToolUse": [{"matcher": "run_shell_command", "hooks": [
        {"type": "command", "command": "python3 -c 'import sys; sys.exit(0)'", "timeout": 10}]}]}}),
    # The corpus's Droid file is in Claude's settings shape, which Droid never reads (its hooks are
    # refused with that reason): a guard in the flat event table Droid reads (measured, 0.215.0).
    "factory": (".factory/hooks.json", {"PreToolUse": [{"matcher": "Execute", "hooks": [
        {"type": "command", "command": "python3 -c 'import sys; sys.exit(0)'", "timeout": 10}]}]}),
    "continue": (".continue/settings.json", "continue/settings.picklejar.json"),
    # No public crush.json with hooks is in the corpus yet: a guard in Crush's documented flat shape.
    "crush": ("crush.json", {"hooks": {"PreToolUse": [{"name": "guard", "matcher": "^bash$",
                                                       "command": "python3 -c 'import sys; sys.exit(0)'", "timeout": 10}]}}),
    "windsurf": (".windsurf/hooks.json", "windsurf/agent-hooks.1password.json"),
    # Kilo loads OpenCode plugins from its own folder (.kilo/plugins), never from .opencode.
    "kilo": (".kilo/plugins/guard.ts", "opencode/plugins/guard.ts"),
    # Cline: a hook is a script named after its event (the Cline repository's own example).
    "cline": (".clinerules/hooks/PreToolUse", "cline/PreToolUse"),
}
#: Vendors that read hooks only from the user's own config, never from a project (Kimi Code: ~/.kimi/config.toml).
USER_ONLY = {"kimi"}


def test_grade_dot_grades_every_vendors_own_file(tmp_path: Path) -> None:
    registered = {u.spec.id for u in units()}
    assert registered - USER_ONLY <= set(FILES), f"add a file of {sorted(registered - USER_ONLY - set(FILES))} to FILES"
    for placed, source in FILES.values():
        (tmp_path / placed).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, dict):
            (tmp_path / placed).write_text(json.dumps(source))
        else:
            shutil.copyfile(REAL / source, tmp_path / placed)
    env = {**os.environ, "COMPAT_ADAPTER_STATE_HOME": str(tmp_path / ".state"), "COLUMNS": "200"}
    done = subprocess.run([sys.executable, "-m", "compat_adapter", "grade", "--json", "--trust-all", "."],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [r for r in json.loads(done.stdout)["rows"] if r["event"] != "rules"]
    by_file: dict[str, set[str]] = {}
    for row in rows:
        # An origin is the file, then `:place` (a JSON path) or `#export` (a plugin's).
        origin = Path(row["origin"].split("#", 1)[0].rsplit(":", 1)[0])
        shown = origin.relative_to(tmp_path) if origin.is_absolute() else origin
        by_file.setdefault(shown.as_posix(), set()).add(row["vendor"])
    for vendor, (placed, _) in FILES.items():
        assert by_file.get(placed) == {vendor}, (vendor, placed, by_file)
        graded = [r for r in rows if r["vendor"] == vendor]
        assert any(r["capability"] == "ADAPTED" for r in graded), (vendor, graded)
    assert not [r for r in rows if str(r.get("reason") or "").startswith("UNSUPPORTED_VENDOR")]
