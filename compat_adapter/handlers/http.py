"""``http`` hooks: the hook input POSTed as JSON, the response read like a command's stdout.

Claude's rules: a 2xx answer is the hook's output (an empty body is a plain success); a non-2xx
status, a connection failure or a timeout is a non-blocking error (the action goes ahead); a status
code alone never blocks. Header values may name environment variables as ``$VAR`` or ``${VAR}``,
and only those listed in ``allowedEnvVars`` are filled in: any other reference becomes empty.
Redirects are not followed and proxy variables are not read, so the request goes where the URL
says and nowhere else. A vendor that refuses some addresses (`HttpHandler.refused_networks`) has
the URL's host resolved first: an address in a refused range fails the run as unreachable, with no
connection made.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import time
from collections.abc import Mapping

import anyio
import httpx

from compat_adapter.handlers.outcome import UNREACHABLE, answered, failed, timed_out
from compat_adapter.model import HttpHandler
from compat_adapter.runtime.outcome import ProcessOutcome

__all__ = ("interpolate", "run_http")

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def interpolate(value: str, allowed: tuple[str, ...], environ: Mapping[str, str]) -> str:
    """A header value with allowed variables filled in and every other reference emptied."""
    def one(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        return environ.get(name, "") if name in allowed else ""
    return _REFERENCE.sub(one, value)


async def _refused_address(handler: HttpHandler) -> str | None:
    """The first address of the URL's host that lies in one of the handler's refused ranges."""
    host = httpx.URL(handler.url).host
    if host.lower() in handler.refused_hosts:
        return host
    try:
        found = await anyio.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return None  # unresolved: the request fails on its own, as unreachable
    networks = [ipaddress.ip_network(n) for n in handler.refused_networks]
    for *_, sockaddr in found:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        plain = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
        if any(a in n for a in (address, plain) if a is not None for n in networks if a.version == n.version):
            return f"::ffff:{plain}" if plain is not None else str(address)  # as Copilot writes it
    return None


async def run_http(handler: HttpHandler, body: bytes, *, timeout_s: float, limit: int,
                   environ: Mapping[str, str]) -> ProcessOutcome:
    started = time.perf_counter()
    headers = {k: interpolate(v, handler.allowed_env, environ) for k, v in handler.headers
               # Claude works the length out from the body itself.
               if k.lower() not in ("content-length", "transfer-encoding")}
    if not any(k.lower() == "content-type" for k in headers):
        headers["Content-Type"] = "application/json"
    blocked = None
    if handler.refused_networks or handler.refused_hosts:
        # The lookup is part of the hook's time: a resolver that never answers is a timeout.
        with anyio.move_on_after(timeout_s) as lookup:
            blocked = await _refused_address(handler)
        if lookup.cancelled_caught:
            return timed_out(f"http hook: no answer from {handler.url} within {timeout_s:g} s", started, timeout_s)
    if blocked is not None:
        return failed(f"http hook: URL {handler.url!r} resolves to blocked address {blocked}", started, UNREACHABLE)
    try:
        left = max(0.001, timeout_s - (time.perf_counter() - started))  # the lookup's share is spent
        async with httpx.AsyncClient(timeout=left, follow_redirects=False, trust_env=False) as client:
            response = await client.post(handler.url, content=body, headers=headers)
    except httpx.TimeoutException:
        return timed_out(f"http hook: no answer from {handler.url} within {timeout_s:g} s", started, timeout_s)
    except httpx.TransportError as exc:
        # Nothing answered at all (unresolved name, refused or broken connection): a vendor may
        # read that apart from a status that says no (Copilot's preToolUse does).
        return failed(f"http hook: {handler.url}: {type(exc).__name__}: {exc}", started, UNREACHABLE)
    except httpx.HTTPError as exc:
        return failed(f"http hook: {handler.url}: {type(exc).__name__}: {exc}", started)
    if not 200 <= response.status_code < 300:
        return failed(f"http hook: {handler.url} answered HTTP {response.status_code}", started)
    return answered(response.text, started, limit)
