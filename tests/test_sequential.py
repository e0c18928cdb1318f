"""Tests for bnb_sim.analysis.sequential: SPRT bounds, LLR, error rates; precision stopping."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bnb_sim.analysis.sequential import (
    REASON_MAX_GAMES,
    REASON_PRECISION,
    REASON_SPRT_H0,
    REASON_SPRT_H1,
    SPRT,
    PrecisionStop,
)
from bnb_sim.analysis.stats import mean_ci, score_from_elo


def test_bounds():
    t = SPRT(0, 10)
    assert t.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944439)
    assert t.upper == pytest.approx(math.log(0.95 / 0.05)) == pytest.approx(2.944439)
    t = SPRT(0, 10, alpha=0.01, beta=0.1)
    assert t.lower == pytest.approx(math.log(0.1 / 0.99))
    assert t.upper == pytest.approx(math.log(0.9 / 0.01))
    with pytest.raises(ValueError):
        SPRT(10, 0)
    with pytest.raises(ValueError):
        SPRT(0, 10, alpha=0.0)


def test_llr_hand_checked():
    seq = [1, 0.5, 1, 0, 1, 1, 0.5, 1]
    t = SPRT(0, 100, min_n=1).update(seq)
    # n = 8, Σx = 6, Σx² = 5.5, var = 5.5/8 - 0.75² = 0.125
    s0, s1 = 0.5, 1 / (1 + 10 ** (-100 / 400))
    assert s1 == pytest.approx(0.640065, abs=1e-6)
    expected = (s1 - s0) * (2 * 6 - 8 * (s0 + s1)) / (2 * 0.125)
    assert t.n == 8
    assert t.llr == pytest.approx(expected)
    assert t.llr == pytest.approx(1.613257, abs=1e-6)
    assert t.decision is None and t.reason is None
    # two more pair wins: n = 10, Σx = 8, Σx² = 7.5, var = 0.75 - 0.64 = 0.11 -> 2.928 < 2.944
    t.update([1, 1])
    expected = (s1 - s0) * (2 * 8 - 10 * (s0 + s1)) / (2 * 0.11)
    assert t.llr == pytest.approx(expected) == pytest.approx(2.928218, abs=1e-6)
    assert t.decision is None
    # one more: n = 11, Σx = 9, Σx² = 8.5, var = 8.5/11 - (9/11)² -> 3.701 >= upper
    t.update(1.0)
    var = 8.5 / 11 - (9 / 11) ** 2
    expected = (s1 - s0) * (2 * 9 - 11 * (s0 + s1)) / (2 * var)
    assert t.llr == pytest.approx(expected) == pytest.approx(3.700929, abs=1e-6)
    assert t.decision == "H1" and t.decision_n == 11
    assert t.summary()["llr_at_decision"] == pytest.approx(t.llr)
    assert t.reason == "sprt: accepted H1 (elo >= 100)"


def test_accept_h0_min_n_and_reason_strings():
    seq = [0, 0.5, 0, 1, 0, 0, 0.5, 0]
    # without a minimum sample the normal approximation decides after 3 pairs: llr = -3.05
    early = SPRT(0, 100, min_n=1).update(seq)
    assert early.decision == "H0" and early.decision_n == 3
    assert early.summary()["llr_at_decision"] == pytest.approx(-3.050862, abs=1e-6)
    assert early.llr > early.lower  # later pairs moved it back; the decision stays
    assert early.reason == "sprt: accepted H0 (elo <= 0)"
    assert SPRT(0, 100, min_n=5).update(seq).decision is None
    assert REASON_SPRT_H1.format(elo1=2.5) == "sprt: accepted H1 (elo >= 2.5)"
    assert REASON_SPRT_H0.format(elo0=-5.0) == "sprt: accepted H0 (elo <= -5)"
    assert REASON_PRECISION == "precision reached"
    assert REASON_MAX_GAMES == "max games reached"


def test_min_n_variance_floor_and_sticky_decision():
    t = SPRT(0, 10)  # min_n = 20
    t.update(np.ones(5))
    assert t.decision is None and np.isfinite(t.llr) and t.llr > t.upper
    t.update(np.full(15, 1.0))
    assert t.decision == "H1" and t.decision_n == 20
    t.update(np.zeros(500))  # later data cannot undo a decision
    assert t.decision == "H1" and t.decision_n == 20 and t.n == 520
    assert t.llr < t.lower
    draws = SPRT(0, 10).update(np.full(50, 0.5))  # zero variance: floored, finite
    assert np.isfinite(draws.llr)
    assert SPRT(0, 10).update([1.0]).llr == 0.0  # fewer than two observations
    with pytest.raises(ValueError):
        SPRT(0, 10).update([1.5])


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=300),
    st.integers(1, 50),
)
def test_decision_independent_of_batching(scores, batch):
    whole = SPRT(-20, 40, min_n=5).update(scores)
    pieces = SPRT(-20, 40, min_n=5)
    for i in range(0, len(scores), batch):
        pieces.update(scores[i : i + batch])
    assert pieces.decision == whole.decision
    assert pieces.decision_n == whole.decision_n
    assert pieces.llr == pytest.approx(whole.llr)


def test_pentanomial_matches_scores():
    counts = [3, 10, 25, 14, 6]
    values = np.repeat([0, 0.25, 0.5, 0.75, 1], counts)
    a = SPRT(0, 30).update_pentanomial(counts)
    b = SPRT(0, 30).update(values)
    assert a.n == b.n == 58
    assert a.llr == pytest.approx(b.llr)
    with pytest.raises(ValueError):
        SPRT(0, 30).update_pentanomial([1, 2, 3])


def test_summary():
    t = SPRT(0, 20).update(np.r_[np.ones(40), np.zeros(30), np.full(30, 0.5)])
    s = t.summary()
    for key in ("n", "llr", "lower", "upper", "decision", "elo", "elo_lo", "elo_hi", "reason"):
        assert key in s
    assert s["n"] == 100 and s["mean_score"] == pytest.approx(0.55)
    assert s["elo_lo"] < s["elo"] < s["elo_hi"]
    assert "SPRT(" in repr(t)


def simulate_decisions(true_elo: float, reps: int, seed: int) -> dict[str | None, float]:
    """Run `reps` sequential tests SPRT(0, 20) on seat-swapped pair scores 0/½/1."""
    rng = np.random.default_rng(seed)
    s = float(score_from_elo(true_elo))
    p_half = 0.5
    probs = [1 - p_half - (s - p_half / 2), p_half, s - p_half / 2]
    counts: dict[str | None, int] = {"H0": 0, "H1": 0, None: 0}
    scores = rng.choice([0.0, 0.5, 1.0], size=(reps, 4000), p=probs)
    for row in scores:
        counts[SPRT(0, 20).update(row).decision] += 1
    return {key: value / reps for key, value in counts.items()}


def test_type_one_error_under_h0():
    """elo = elo0: H1 accepted in about α = 5% of 500 tests (measured 3.8%); allow up to 7.5%."""
    d = simulate_decisions(0.0, 500, seed=1)
    assert d["H1"] <= 0.075, d
    assert d[None] <= 0.01


def test_power_under_h1():
    """elo = elo1: H1 accepted in about 1 - β = 95% of 500 tests (measured 96%); require 92%."""
    d = simulate_decisions(20.0, 500, seed=2)
    assert d["H1"] >= 0.92, d
    # far beyond the bounds the decision is essentially certain
    assert simulate_decisions(60.0, 100, seed=3)["H1"] == 1.0
    assert simulate_decisions(-40.0, 100, seed=4)["H0"] == 1.0


# --------------------------------------------------------------------------------------------
# precision stopping
# --------------------------------------------------------------------------------------------


def test_precision_stop():
    rng = np.random.default_rng(9)
    x = rng.choice([0.0, 0.5, 1.0], size=5000, p=[0.25, 0.5, 0.25])
    stop = PrecisionStop(0.02, min_n=100)
    assert not stop.done and stop.half_width == math.inf
    stop.update(x[:50])
    assert not stop.done  # below min_n even if precise
    n_done = None
    for n in (100, 200, 400, 800, 1600, 3200):  # geometric chunk boundaries
        stop.update(x[stop.n : n])
        ci = mean_ci(x[:n])
        assert stop.half_width == pytest.approx((ci["hi"] - ci["lo"]) / 2)
        if stop.done and n_done is None:
            n_done = n
    # sd ≈ 0.354, so ±0.02 needs about (1.96 · 0.354 / 0.02)² ≈ 1200 pairs
    assert n_done == 1600
    s = stop.summary()
    assert s["done"] and s["reason"] == "precision reached" and s["n"] == 3200
    assert s["lo"] < s["mean"] < s["hi"]
    with pytest.raises(ValueError):
        PrecisionStop(0.0)
