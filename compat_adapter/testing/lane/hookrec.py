"""A self-recording hook: log what the vendor sent, answer what the scenario scripted.

Copied into each run folder and named in the vendor's own hook config as the hook command itself
(never a wrapper around another command: Claude and CodeBuddy quote the command back to the model,
so a wrapper would change what the model reads). Standard library only; it runs under any python3.

    python3 hookrec.py --log FILE --event NAME [--stdout TEXT] [--stderr TEXT] [--exit N] [--once KEY]
                       [--label NAME] [--sleep SECONDS] [--kill SIGNAL]

``--once KEY`` answers only on the first call for KEY in this run (a Stop block that would
otherwise loop); later calls answer nothing and exit 0. ``--label`` is logged beside the event (a
case with several hooks of one event tells them apart); ``--sleep`` waits after logging and before
answering (a guard that outlives its timeout); ``--kill`` ends the hook by that signal after
writing its answer (a hook that crashes).
"""

import argparse
import json
import os
import sys
import time



def prefixes() -> tuple[str, ...]:
    """The prefixes of the variables logged: ``hookrec.json`` beside this file says (the lane writes
    it from each vendor unit's lane driver), else only this project's own."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hookrec.json")
    if not os.path.exists(here):
        return ("COMPAT",)
    with open(here, encoding="utf-8") as f:
        return tuple(json.load(f)["prefixes"])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--event", required=True)
    parser.add_argument("--stdout", default="")
    parser.add_argument("--stderr", default="")
    parser.add_argument("--exit", type=int, default=0)
    parser.add_argument("--once", default=None)
    parser.add_argument("--label", default=None)
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--kill", type=int, default=0)
    args = parser.parse_args()
    raw = sys.stdin.read()
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = raw
    out, err, code = args.stdout, args.stderr, args.exit
    if args.once:
        marker = os.path.join(os.path.dirname(os.path.abspath(args.log)), "once-" + args.once)
        if os.path.exists(marker):
            out, err, code = "", "", 0
        else:
            open(marker, "w").close()
    return record(args.log, args.event, payload, out, err, code, label=args.label, sleep=args.sleep, kill=args.kill)


def record(log: str, event: str, payload: object, out: str, err: str, code: int, *, label: str | None = None,
           sleep: float = 0.0, kill: int = 0, **extra: object) -> int:
    """Log one call (what it was sent, what it answers, its folder and its vendor variables), then
    answer it: ``out`` on stdout, ``err`` on stderr; returns the exit status to give."""
    env = {k: v for k, v in os.environ.items() if k.startswith(prefixes())}
    entry = {"event": event, "t": time.time(), "stdin": payload, "stdout": out, "stderr": err, "exit": code,
             "cwd": os.getcwd(), "env": env, **extra}
    if label:
        entry["label"] = label
    with open(log, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")
    if sleep:
        time.sleep(sleep)
    sys.stdout.write(out)
    sys.stderr.write(err)
    if kill:
        sys.stdout.flush()
        sys.stderr.flush()
        os.kill(os.getpid(), kill)
    return code


if __name__ == "__main__":
    sys.exit(main())
