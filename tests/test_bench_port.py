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
