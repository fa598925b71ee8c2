"""Run one vendor CLI next to a scripted model, offline by construction.

``python -m compat_adapter.testing.lane.sandbox JOB.json`` reads a job (the wire API, the model
turns, the CLI's argv, env and cwd, a port, an output folder) and runs it. With ``"netns": true`` it
expects to be the first process of a fresh network and mount namespace (``unshare -n -m``, as root):
it brings loopback up, binds a private ``resolv.conf`` over ``/etc/resolv.conf`` that points at a
DNS sink on 127.0.0.1:53 answering NXDOMAIN at once (and logging the name), and so nothing but
loopback is reachable. The model server and the CLI run inside; the request log and the result are
written to the output folder for the driver outside.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from compat_adapter.testing.lane.hookserver import serve_hooks
from compat_adapter.testing.models import serve_model

__all__ = ("OFFLINE_ENV", "isolate", "main", "run_job")


def _nxdomain(query: bytes) -> tuple[bytes, str]:
    """The NXDOMAIN answer to a DNS query, and the name it asked for."""
    labels, i = [], 12
    while i < len(query) and query[i]:
        n = query[i]
        labels.append(query[i + 1:i + 1 + n].decode("ascii", "replace"))
        i += 1 + n
    end = i + 5  # the zero label, QTYPE, QCLASS
    flags = 0x8180 | 3  # response, recursion desired + available, RCODE 3 (name error)
    header = query[:2] + flags.to_bytes(2, "big") + query[4:6] + b"\0\0\0\0\0\0"
    return header + query[12:end], ".".join(labels)


def _dns_sink(lookups: list[str]) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 53))

    def serve() -> None:
        while True:
            try:
                query, peer = sock.recvfrom(4096)
            except OSError:
                return
            if len(query) < 17:
                continue
            answer, name = _nxdomain(query)
            lookups.append(name)
            sock.sendto(answer, peer)

    threading.Thread(target=serve, name="dns-sink", daemon=True).start()
    return sock


#: What every process in the namespace is told, so that a tool which retries a registry it can never
#: reach fails at once, as a lookup does here: npm retries a failed fetch with a back-off of about
#: 70 s (fetch-retries 2, 10 s then 60 s), so each `npx <package>` a real config runs (claude-flow's
#: hooks) took 72 s to fail, and a scenario with three such hooks outlived the lane's timeouts on both
#: sides. With no retry it still asks the registry once and fails as before (exit 1), in 3 s.
OFFLINE_ENV = {"npm_config_fetch_retries": "0"}


def isolate(out: Path) -> None:
    """Inside a fresh network and mount namespace: loopback up, lookups answered by a local sink
    (or refused at once when none listens), so that nothing but loopback is reachable; the process
    environment gets :data:`OFFLINE_ENV`."""
    os.environ.update(OFFLINE_ENV)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    resolv = out / "resolv.conf"
    resolv.write_text("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
    subprocess.run(["mount", "--bind", str(resolv), "/etc/resolv.conf"], check=True)


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    out = Path(job["out"])
    out.mkdir(parents=True, exist_ok=True)
    lookups: list[str] = []
    sink = None
    if job.get("netns"):
        isolate(out)
        sink = _dns_sink(lookups)
    server = serve_model(job["api"], job["turns"], port=int(job["port"]), log_path=out / "requests.jsonl",
                         side_markers=tuple(job.get("side_markers") or ()))
    hooks = ExitStack()
    if job.get("http_server"):  # the case's web server for its http hooks, in the same namespace
        hooks.enter_context(serve_hooks(job["http_server"], out / "http-hooks.jsonl"))
    started = time.monotonic()
    timed_out = False
    try:
        env = {**job["env"], **OFFLINE_ENV} if job.get("netns") else job["env"]
        proc = subprocess.Popen(job["argv"], cwd=job["cwd"], env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=float(job.get("timeout", 120)))
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, 9)
            stdout, stderr = proc.communicate()
    finally:
        hooks.close()
        server.close()
        if sink is not None:
            sink.close()
    result = {"rc": proc.returncode, "timed_out": timed_out, "duration_s": round(time.monotonic() - started, 2),
              "stdout": stdout.decode("utf-8", "replace"), "stderr": stderr.decode("utf-8", "replace"),
              "netns": bool(job.get("netns")), "dns_lookups": sorted(set(lookups))}
    (out / "result.json").write_text(json.dumps(result))
    return result


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    job = json.loads(Path(args[0]).read_text())
    run_job(job)
    return 0


if __name__ == "__main__":
    sys.exit(main())
