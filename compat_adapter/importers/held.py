"""The hooks a project's files hold that will not run here although their vendor would run them,
as the sentences a session announces at its start (``Notice`` kind ``held``): an untrusted file,
one changed since it was trusted (each naming ``compat-adapter trust <path>``), a hook this host
cannot start, an unusable file.
"""

from __future__ import annotations

from collections.abc import Iterable

from compat_adapter.importers.common import Refused

__all__ = ("ANNOUNCED", "held_back")

#: Refusal codes a session announces. The others (the vendor itself would not run the hook, an
#: event the vendor does not have) change nothing the team's vendor does, so they stay in ``grade``.
ANNOUNCED = frozenset({"UNTRUSTED", "INVALID_HANDLER", "UNSERVED_EVENT", "UNSUPPORTED_CONFIG", "PLUGIN_RUNTIME",
                       "SOURCE_MISSING", "REMOTE_SOURCE"})


def held_back(refused: Iterable[Refused], unusable: Iterable[tuple[str, str]] = ()) -> tuple[tuple[str, str], ...]:
    """(sentence, file) for each held-back file or hook, one sentence per reason (a file's hooks
    share theirs). ``unusable``: (file, why) of files that could not be read at all."""
    out: dict[str, str] = {}
    counts: dict[str, int] = {}
    for r in refused:
        if r.code not in ANNOUNCED:
            continue
        counts[r.reason] = counts.get(r.reason, 0) + 1
        out.setdefault(r.reason, r.origin.rsplit(":", 1)[0] if ":" in r.origin else r.origin)
    said = [(f"compat-adapter held back {n} hook(s): {why}", out[why]) for why, n in counts.items()]
    said += [(f"compat-adapter could not read {file}: {why}", file) for file, why in unusable]
    return tuple(said)
