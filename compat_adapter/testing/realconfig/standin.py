"""The stand-in for a script a real config runs that is not in the corpus (its repository does not
have it, or its licence does not let the corpus keep it): it records its call the way the lane's
recorder does, and answers as the script's documented contract says, in one of a few behaviours.

    python3 standin.py BEHAVIOUR LABEL      # stdin: the vendor's payload

* ``observe``: answers nothing, exit 0 (a logger, a formatter, a rules engine with no rules);
* ``guard``: refuses a shell command holding ``rm -rf`` with exit 2 and the reason on stderr
  (Claude's deny by exit code), lets the rest through;
* ``guard-exit1``: the same refusal with exit 1 and plain text (awesome-copilot's tool-guardian in
  block mode);
* ``context``: on a session start, prints one line of context for the model.

Standard library only; it runs under any python3. The lane copies it into each run's project
(``.lane/standin.py``); every stand-in script, whatever its language, runs it.
"""

import json
import os
import runpy
import sys

__all__ = ("main",)

MARK_DENY = "LANE-DENY"
MARK_CONTEXT = "LANE-CTX-SESSION"


def _command(payload: object) -> str:
    """The shell command of a tool call, in any of the vendors' payload shapes."""
    if not isinstance(payload, dict):
        return ""
    tool_input = payload.get("tool_input") or payload.get("toolArgs") or {}
    if isinstance(tool_input, str):
        try:
            tool_input = json.loads(tool_input)
        except ValueError:
            return tool_input
    if isinstance(tool_input, dict):
        return str(tool_input.get("command") or tool_input.get("cmd") or "")
    return ""


def _event(payload: object) -> str:
    if isinstance(payload, dict):
        return str(payload.get("hook_event_name") or payload.get("hookEventName") or "hook")
    return "hook"


def answer(behaviour: str, label: str, payload: object) -> tuple[str, str, int]:
    """(stdout, stderr, exit status) of one behaviour for one payload."""
    event = _event(payload)
    if behaviour in ("guard", "guard-exit1") and "rm -rf" in _command(payload):
        return "", f"{MARK_DENY} {label}: refusing rm -rf", 2 if behaviour == "guard" else 1
    if behaviour == "context" and event.lower() == "sessionstart":
        return f"{MARK_CONTEXT} {label}\n", "", 0
    return "", "", 0


def main() -> int:
    behaviour, label = sys.argv[1], sys.argv[2]
    raw = sys.stdin.read()
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = raw
    out, err, code = answer(behaviour, label, payload)
    run = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # <run>/proj/.lane/..
    # The lane's own recorder, copied into every run (<run>/bin/hookrec.py), logs it in its shape;
    # which stand-in answered is kept beside it (a recorder label would rename the hook by it).
    record = runpy.run_path(os.path.join(run, "bin", "hookrec.py"))["record"]
    return int(record(os.path.join(run, "state", "hooks.jsonl"), _event(payload), payload, out, err, code, standin=label))


if __name__ == "__main__":
    sys.exit(main())
