"""The embedded side of a real-config case, run inside the lane's sandbox: a fresh network and mount
namespace with loopback only (``unshare -n -m``, as root), as the vendor side runs, so that a
third-party command a real config runs (``npx …``, ``pnpm fix``) reaches nothing but loopback.

    python -m compat_adapter.testing.realconfig.isolated JOB.pickle

The job is the case and its run folder; the outcome is written beside it as a pickle (the same
code on both ends: this is one process tree of one checkout).
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import anyio

from compat_adapter.testing.lane.drivers import embedded_outcome
from compat_adapter.testing.lane.outcome import Outcome
from compat_adapter.testing.lane.run import isolation
from compat_adapter.testing.lane.sandbox import isolate
from compat_adapter.testing.lane.scenarios import Case
from compat_adapter.testing.realconfig.procwatch import traced

__all__ = ("main", "run_isolated")


def run_isolated(case: Case, run: Path, *, timeout: float = 180.0) -> Outcome:
    """``embedded_outcome(case, run)`` in a loopback-only namespace where the machine gives one."""
    run.mkdir(parents=True, exist_ok=True)
    job = run / "embedded-job.pickle"
    job.write_bytes(pickle.dumps((case, run)))
    netns, _ = isolation()
    # The same process observer as in front of the vendor CLI (run.py's ``wrap``): what hook
    # processes this side starts is read from outside it.
    argv = traced([sys.executable, "-m", "compat_adapter.testing.realconfig.isolated", str(job)],
                  run / "procs.strace")
    if netns:
        argv = ["unshare", "-n", "-m", "--", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    result = run / "embedded-outcome.pickle"
    if done.returncode != 0 or not result.exists():
        raise RuntimeError(f"{case.name}: the embedded side failed (rc {done.returncode}): {done.stderr[-2000:]}")
    outcome: Outcome = pickle.loads(result.read_bytes())
    return outcome


def main(argv: list[str] | None = None) -> int:
    job = Path((sys.argv[1:] if argv is None else argv)[0])
    case, run = pickle.loads(job.read_bytes())
    if isolation()[0]:
        (run / "isolation").mkdir(parents=True, exist_ok=True)
        isolate(run / "isolation")
    outcome = anyio.run(embedded_outcome, case, run)
    (run / "embedded-outcome.pickle").write_bytes(pickle.dumps(outcome))
    return 0


if __name__ == "__main__":
    sys.exit(main())
