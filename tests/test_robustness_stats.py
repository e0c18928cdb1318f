"""``bnb robustness``'s estimator (bnb_sim.analysis.robustness): paired differences between
rungs and the verdicts, with calibration on synthetic games whose truth is known."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bnb_sim.analysis.robustness import (
    CHANGES_SIGN,
    CHANGES_SIZE,
    HOLDS,
    analyse_findings,
    mean_sample,
    pair_differences,
)
from bnb_sim.analysis.robustness_findings import item_findings, seat_findings


def _winners(u: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The winning seat of each game from a uniform per game (inverse CDF of ``p``)."""
    return np.minimum(np.searchsorted(np.cumsum(p), u), len(p) - 1)


def synthetic_rungs(rng, probs: dict[str, np.ndarray], games: int, share: float = 0.5):
    """One seats frame per rung: seat win probabilities ``probs[rung]``; with probability
    ``share`` a game's outcome comes from the same uniform at every rung (the same deal
    decides it), else from a fresh one: outcomes correlated across rungs, as paired games."""
    common = rng.random(games)
    out = {}
    for rung, p in probs.items():
        u = np.where(rng.random(games) < share, common, rng.random(games))
        winner = _winners(u, np.asarray(p))
        seats = len(p)
        out[rung] = pd.DataFrame({
            "game": np.repeat(np.arange(games), seats),
            "seat": np.tile(np.arange(seats), games),
            "won": (np.tile(np.arange(seats), games) == np.repeat(winner, seats)),
        })  # fmt: skip
    return out


def _fpa(p) -> float:
    p = np.asarray(p)
    return float(p[0] - p[1:].mean())


def _analyse(frames, key="first_player_advantage", **kw):
    by_rung = {r: [s for s in seat_findings(f) if s.key == key] for r, f in frames.items()}
    n = len(next(iter(frames.values()))) // 4
    return analyse_findings(by_rung, players=4, games=n, n_sim=4000, **kw)


GREEDY = np.array([0.316, 0.237, 0.229, 0.218])  # fpa +8.6 pp
HEURISTIC = np.array([0.358, 0.253, 0.213, 0.176])  # fpa +14.2 pp
STRONG = np.array([0.345, 0.245, 0.215, 0.195])


def test_difference_interval_and_verdict_calibration():
    """Coverage of the between-rung difference (each pair, and all pairs at once) on 4-seat
    games with a known first-player advantage at three rungs: 93-97%."""
    rng = np.random.default_rng(99)
    probs = {"greedy": GREEDY, "heuristic": HEURISTIC, "strong": STRONG}
    truth = {("greedy", "heuristic"): _fpa(HEURISTIC) - _fpa(GREEDY),
             ("greedy", "strong"): _fpa(STRONG) - _fpa(GREEDY),
             ("heuristic", "strong"): _fpa(STRONG) - _fpa(HEURISTIC)}  # fmt: skip
    reps, marginal, together = 1000, {k: 0 for k in truth}, 0
    for _ in range(reps):
        diffs = _analyse(synthetic_rungs(rng, probs, 800)).differences
        every = True
        for row in diffs.itertuples():
            t = truth[(row.lower, row.upper)]
            marginal[(row.lower, row.upper)] += row.lo <= t <= row.hi
            every &= row.sim_lo <= t <= row.sim_hi
        together += every
    for pair, hits in marginal.items():
        assert 0.93 <= hits / reps <= 0.97, (pair, hits / reps)
    assert 0.93 <= together / reps <= 0.97, together / reps


def test_verdict_error_rate_when_the_finding_holds():
    """Three rungs with the same truth: the verdict says "holds" in 93-97% of analyses (the
    simultaneous intervals; three separate 95% intervals would err in about 12%)."""
    rng = np.random.default_rng(2027)
    probs = {"a": HEURISTIC, "b": HEURISTIC, "c": HEURISTIC}
    reps = 1000
    holds = sum(
        _analyse(synthetic_rungs(rng, probs, 800)).verdict("first_player_advantage")["verdict"]
        == HOLDS
        for _ in range(reps)
    )
    assert 0.93 <= holds / reps <= 0.97, holds / reps


def test_designer_case_changes_size():
    """Greedy +8.6 pp against heuristic +14.2 pp with 10,000 paired games: "changes size",
    the difference quoted with an interval that holds the truth and excludes 0."""
    rng = np.random.default_rng(5)
    frames = synthetic_rungs(rng, {"greedy": GREEDY, "heuristic": HEURISTIC}, 10_000)
    v = _analyse(frames).verdict("first_player_advantage")
    assert v["verdict"] == CHANGES_SIZE
    assert (v["lower"], v["upper"]) == ("greedy", "heuristic")
    assert 0 < v["sim_lo"] <= 0.056 <= v["sim_hi"]


def test_changes_sign():
    rng = np.random.default_rng(6)
    flipped = HEURISTIC[[3, 1, 2, 0]]  # seat 0 now the weakest
    frames = synthetic_rungs(rng, {"a": HEURISTIC, "b": flipped}, 4000)
    assert _analyse(frames).verdict("first_player_advantage")["verdict"] == CHANGES_SIGN


def test_paired_games_give_a_narrower_difference_than_independent_ones():
    """The pairing is used: outcomes shared across rungs shrink the difference's interval."""
    probs = {"a": GREEDY, "b": HEURISTIC}
    paired = _analyse(synthetic_rungs(np.random.default_rng(8), probs, 5000, share=0.9))
    apart = _analyse(synthetic_rungs(np.random.default_rng(8), probs, 5000, share=0.0))
    width = lambda r: float(r.differences["hi"].iloc[0] - r.differences["lo"].iloc[0])  # noqa: E731
    assert width(paired) < 0.6 * width(apart)


def test_seat_rates_match_the_report_estimators():
    """The rung values are the run report's: first_player_advantage and Wilson seat rates."""
    from bnb_sim.analysis.stats import first_player_advantage

    frame = synthetic_rungs(np.random.default_rng(9), {"a": HEURISTIC}, 3000)["a"]
    samples = {s.key: s for s in seat_findings(frame)}
    fpa = first_player_advantage(frame)
    assert samples["first_player_advantage"].value == pytest.approx(fpa["value"])
    assert samples["first_player_advantage"].se == pytest.approx(fpa["se"], rel=1e-9)
    assert samples["win_rate_seat_0"].reference == 0.25


def test_item_effect_is_buyers_minus_non_buyers():
    frame = pd.DataFrame({
        "game": np.repeat(np.arange(200), 2), "seat": np.tile([0, 1], 200),
        "won": np.tile([True, False], 200), "item_bed": np.tile([1, 0], 200),
    })  # fmt: skip
    (effect,) = item_findings(frame)
    assert effect.key == "item_effect_bed" and effect.value == 1.0 and effect.group == "items"
    assert item_findings(frame.assign(item_bed=0)) == []  # nobody bought it: no finding


def test_no_variation_gives_no_interval_and_holds():
    games = np.arange(50)
    by_rung = {r: [mean_sample("length", "Length", "mean", games, np.full(50, 30.0))]
               for r in ("a", "b")}  # fmt: skip
    result = analyse_findings(by_rung, players=2, games=50)
    row = result.differences.iloc[0]
    assert row["diff"] == 0 and math.isnan(row["lo"]) and not row["separated"]
    assert result.verdict("length")["verdict"] == HOLDS


def test_pair_differences_are_upper_minus_lower():
    games = np.arange(100)
    rng = np.random.default_rng(1)
    a = mean_sample("x", "x", "mean", games, rng.normal(0, 1, 100))
    b = mean_sample("x", "x", "mean", games, rng.normal(3, 1, 100))
    row = pair_differences([a, b], ["low", "high"]).iloc[0]
    assert row["diff"] == pytest.approx(b.value - a.value) and row["separated"]


def test_a_rate_of_zero_still_has_an_interval():
    """0 wins in 200 games at both rungs: Wilson [0, 1.9%] per rung and about ±1.9 pp for the
    difference (never a zero-width interval, docs/statistics.md)."""
    games = np.arange(200)
    by_rung = {r: [mean_sample("w", "Win rate", "rate", games, np.zeros(200))] for r in "ab"}
    result = analyse_findings(by_rung, players=2, games=200)
    assert (result.values["lo"] == 0).all() and (result.values["hi"] > 0.015).all()
    row = result.differences.iloc[0]
    assert row["lo"] < 0 < row["hi"] and not row["separated"]
    assert result.verdict("w")["verdict"] == HOLDS


def test_balance_difference_calibration_with_clear_gaps():
    """Balance is linearised at the two seats furthest apart: where they are clear (the
    designer's rates), the simultaneous difference intervals cover the truth 93-97%."""
    rng = np.random.default_rng(5)
    probs = {"greedy": GREEDY, "heuristic": HEURISTIC, "strong": STRONG}
    truth = {k: 1 - (p.max() - p.min()) for k, p in probs.items()}
    reps, together = 600, 0
    for _ in range(reps):
        diffs = _analyse(synthetic_rungs(rng, probs, 1500), key="balance").differences
        together += all(
            r.sim_lo <= truth[r.upper] - truth[r.lower] <= r.sim_hi for r in diffs.itertuples()
        )
    assert 0.93 <= together / reps <= 0.97, together / reps
