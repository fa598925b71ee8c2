"""How the ported-hook benchmark (``scripts/bench_port.py``) reads a hook's added time from the
gaps between a session's model requests: one mode (Codex's step) or two (Claude Code's)."""

from __future__ import annotations

import random
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from scripts.bench_port import added_times, ratio, ratio_band, split_modes  # noqa: E402

KINDS = ("bare", "native", "ported", "fast")
COST = {"bare": 0.0, "native": 6.0, "ported": 9.0, "fast": 9.0}


def _two_mode_rounds(rounds: int = 6, calls: int = 40) -> list[dict[str, list[float]]]:
    """Claude Code's shape: a step of about 30 or about 75 ms, and a hook that both adds its cost
    to every call and moves calls to the short mode (the shares measured: 15 % short with no hook,
    about 45 % with the ported one, none at all with the Python client's)."""
    draw = random.Random(5)
    short = {"bare": 0.15, "native": 0.3, "ported": 0.0, "fast": 0.45}
    out = []
    for _ in range(rounds):
        out.append({k: [(30.0 if draw.random() < short[k] else 75.0) + COST[k] + draw.gauss(0, 2.0)
                        for _ in range(calls)] for k in KINDS})
    return out


def _one_mode_rounds(rounds: int = 8, calls: int = 40) -> list[dict[str, list[float]]]:
    """Codex's shape: one mode whose level drifts by a few ms from session to session."""
    draw = random.Random(11)
    return [{k: [53.0 + drift + COST[k] + draw.gauss(0, 0.8) for _ in range(calls)]
             for k, drift in ((k, draw.uniform(-2.0, 3.0)) for k in KINDS)} for _ in range(rounds)]


def test_two_modes_are_read_within_each_mode_where_a_median_reads_the_shares() -> None:
    rounds = _two_mode_rounds()
    splits = {k: split_modes([g for r in rounds for g in r[k]]) for k in KINDS}
    assert splits["ported"] is None and all(splits[k] is not None for k in ("bare", "native", "fast"))
    added, how = added_times(rounds, KINDS)
    assert how["estimator"] == "two modes"
    # A kind whose gaps all fall in one mode is parted where the bare ones part, and read there.
    assert how["split_ms"]["ported"] == how["split_ms"]["bare"] and how["modes"]["ported"]["low"][1] == 0
    for kind in ("native", "ported", "fast"):
        assert abs(added[kind] - COST[kind]) < 1.0, (kind, added)
    # The reading it replaces: the median gap moves with the shares of the modes, not the cost.
    naive = statistics.median(statistics.median(r["fast"]) - statistics.median(r["bare"]) for r in rounds)
    assert abs(naive - COST["fast"]) > 5.0


def test_one_mode_is_read_round_by_round() -> None:
    rounds = _one_mode_rounds()
    assert all(split_modes([g for r in rounds for g in r[k]]) is None for k in KINDS)
    added, how = added_times(rounds, KINDS)
    assert how == {"estimator": "median of round differences"}
    expected = statistics.median(statistics.median(r["native"]) - statistics.median(r["bare"]) for r in rounds)
    assert added["native"] == expected


def test_the_band_holds_the_figure_and_widens_with_noisier_rounds() -> None:
    rounds = _one_mode_rounds()
    added, _ = added_times(rounds, KINDS)
    low, high = ratio_band(rounds, KINDS, "fast")
    assert low <= added["fast"] / added["native"] <= high
    # The native sessions' level moving by up to 6 ms from round to round.
    shifts = [random.Random(i).uniform(-6.0, 6.0) for i in range(len(rounds))]
    noisy = [{k: [g + shift for g in r[k]] if k == "native" else r[k] for k in KINDS}
             for shift, r in zip(shifts, rounds, strict=True)]
    noisy_low, noisy_high = ratio_band(noisy, KINDS, "fast")
    assert noisy_high - noisy_low > high - low


def test_a_hook_read_as_costing_nothing_or_less_gives_no_ratio() -> None:
    assert ratio(6.0, 4.0) == 1.5
    assert ratio(-3.0, 4.0) is None and ratio(6.0, -0.5) is None and ratio(6.0, 0.0) is None


def _paired_rounds(rounds: int = 12, calls: int = 30) -> tuple[list[dict[str, list[float]]],
                                                             list[dict[str, list[float]]]]:
    """Codex's shape with its inert call between the measured ones: each session's gaps, measured
    and inert alike, move by the session's own drift (a few ms), the measured ones also by the hook."""
    draw = random.Random(17)
    measured, inert = [], []
    for _ in range(rounds):
        drift = {k: draw.uniform(-3.0, 3.0) for k in KINDS}
        measured.append({k: [51.0 + drift[k] + COST[k] + draw.gauss(0, 0.8) for _ in range(calls)] for k in KINDS})
        inert.append({k: [16.0 + drift[k] + draw.gauss(0, 0.5) for _ in range(calls)] for k in KINDS})
    return measured, inert


def test_the_inert_calls_take_each_session_s_drift_out_of_the_reading() -> None:
    measured, inert = _paired_rounds()
    added, how = added_times(measured, KINDS, inert)
    assert how["estimator"] == "pooled median less the session's inert calls' median"
    for kind in ("native", "ported", "fast"):
        assert abs(added[kind] - COST[kind]) < 0.5, (kind, added)
    # Without them the same gaps are read with the sessions' drift in: further off, and a band
    # over resampled rounds several times as wide.
    plain, _ = added_times(measured, KINDS)
    off = {k: (abs(plain[k] - COST[k]), abs(added[k] - COST[k])) for k in ("native", "fast")}
    assert max(p for p, _ in off.values()) > max(a for _, a in off.values())
    low, high = ratio_band(measured, KINDS, "fast", inert=inert)
    plain_low, plain_high = ratio_band(measured, KINDS, "fast")
    assert low <= added["fast"] / added["native"] <= high
    assert (plain_high - plain_low) > 3 * (high - low)


def test_a_hook_that_slowed_the_inert_calls_too_would_be_read_as_cheaper_so_the_reading_shows_them() -> None:
    # The reference is only as good as the inert calls are untouched by the hook: the reading says
    # each kind's measured-less-inert figure, so a kind whose inert calls grew is seen in the record.
    measured, inert = _paired_rounds()
    slowed = [{k: [g + (1.0 if k == "fast" else 0.0) for g in r[k]] for k in KINDS} for r in inert]
    added, how = added_times(measured, KINDS, slowed)
    assert abs(added["fast"] - (COST["fast"] - 1.0)) < 0.5
    assert how["inert_ms"]["fast"] - how["inert_ms"]["bare"] > 0.7
