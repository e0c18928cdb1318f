"""Who is best, tested (bnb_sim.analysis.leaders): "best" only when the gap to every other
entry excludes 0, Holm for selected comparisons, and the gaps' calibration."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from bnb_sim.analysis.leaders import (
    Gap,
    Leader,
    gaps_from_replicates,
    holm,
    leader_of,
    paired_gap,
    paired_ranking,
    rate_gaps_by_cluster,
)


def holm_reference(p):
    """Holm's procedure written out: reject H_(i) while p_(i) <= α/(m - i + 1); adjusted
    p values as the smallest α at which each is rejected (brute force over a grid of α)."""
    p = np.asarray(p, float)
    m = p.size
    order = np.argsort(p)
    out = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def test_holm_matches_the_step_down_procedure():
    rng = np.random.default_rng(1)
    for _ in range(200):
        p = rng.uniform(0, 0.2, size=rng.integers(1, 8))
        assert holm(p) == pytest.approx(holm_reference(p))
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    out = holm([0.02, math.nan])
    assert out[0] == pytest.approx(0.02) and math.isnan(out[1])  # NaN is not a test


def test_best_needs_every_gap_to_exclude_zero():
    sure = Gap(0.05, 0.02, 0.08, 1000)
    unsure = Gap(0.02, -0.01, 0.05, 1000)
    lead = leader_of(["a", "b", "c"], {"b": sure, "c": sure})
    assert lead.separated and lead.tied == () and lead.to_dict()["best"] == "a"
    assert lead.claim("wins most often").startswith("**a** wins most often (+5.0 pp")
    assert "ahead of the runner-up b" in lead.claim("wins most often")
    lead = leader_of(["a", "b", "c"], {"b": unsure, "c": sure})
    assert not lead.separated and lead.tied == ("b",) and lead.to_dict()["best"] is None
    text = lead.claim("wins most often")
    assert text.startswith("no detectable difference at the top: **a** is tied with b")
    assert "wins most often" not in text and "a − b: +2.0 pp [-1.0, +5.0]" in text
    # the runner-up separated but a third entry is not: still no "best"
    lead = leader_of(["a", "b", "c"], {"b": sure, "c": unsure})
    assert not lead.separated and lead.tied == ("c",)
    # a gap without an interval is no evidence either way
    lead = leader_of(["a", "b"], {"b": Gap(0.1, math.nan, math.nan, 1)})
    assert not lead.separated
    lead = leader_of(["a", "b"], {})
    assert "no interval to test" in lead.claim("wins")
    assert "no interval to test" in Leader.from_dict(lead.to_dict()).claim("wins")
    assert Leader.from_dict(leader_of(["a", "b", "c"], {"b": sure, "c": unsure}).to_dict()) == (
        leader_of(["a", "b", "c"], {"b": sure, "c": unsure})
    )


def test_worst_is_the_same_rule_from_the_bottom():
    ranking = paired_ranking({"a": [1, 1, 0, 1] * 200, "b": [1, 0, 1, 1] * 200,
                              "c": [0, 0, 0, 1] * 200})  # fmt: skip
    assert ranking.trailer.first == "c" and ranking.trailer.separated
    assert ranking.trailer.to_dict()["worst"] == "c"
    assert "against the next-to-last" in ranking.trailer.claim("wins least often")
    assert ranking.leader.first == "a" and not ranking.leader.separated  # a and b: equal means


def test_identical_entries_are_tied_with_a_valid_bound():
    """The review's HotV sweep: every variant played every game identically, yet one was
    said to win most often. Equal outcomes are a tie, with the constant-sample bound."""
    won = np.random.default_rng(3).random(2000) < 0.78
    ranking = paired_ranking({"components": won, "x=8": won.copy(), "x=10": won.copy()})
    lead = ranking.leader
    assert not lead.separated and set(lead.tied) == {"x=8", "x=10"}
    assert lead.gap.mean == 0 and lead.gap.lo < 0 < lead.gap.hi  # [-0.19, +0.19] pp
    assert all(d["p_holm"] == 1.0 for d in ranking.vs_top.values())


def test_paired_ranking_vs_top_is_the_paired_t_and_holm():
    rng = np.random.default_rng(7)
    base = rng.random(3000)
    data = {k: (base + rng.normal(0, 0.3, base.size) + shift > 0.6).astype(float)
            for k, shift in (("a", 0.05), ("b", 0.0), ("c", -0.03), ("d", -0.1))}  # fmt: skip
    ranking = paired_ranking(data)
    assert ranking.order[0] == "a" and ranking.comparisons == 3
    raw = []
    for k in ranking.order[1:]:
        t = sps.ttest_rel(data[k], data["a"])
        assert ranking.vs_top[k]["p_value"] == pytest.approx(t.pvalue, rel=1e-9)
        raw.append(t.pvalue)
    holm_p = [ranking.vs_top[k]["p_holm"] for k in ranking.order[1:]]
    assert holm_p == pytest.approx(holm_reference(raw))
    assert "Holm-adjusted over the 3 comparisons" in ranking.selected_note()


@pytest.mark.parametrize("k", [2, 5, 20])
def test_calibration_false_best_at_most_five_percent(k):
    """Entries with the same true rate, correlated through a shared per-game effect (the
    HotV pet teams' design): "best" is claimed in at most about 5% of 400 runs (the top
    gap is the largest of k−1 spacings only when k = 2; it is smaller for more entries)."""
    rng = np.random.default_rng(11 + k)
    claims = 0
    runs = 400
    for _ in range(runs):
        ease = rng.random(600)  # a game index's ease, shared by every entry
        outcomes = {f"t{i}": (rng.random(600) < 0.3 + 0.5 * ease) for i in range(k)}
        claims += paired_ranking(outcomes).leader.separated
    assert claims / runs <= 0.05 + 2.5 * math.sqrt(0.05 * 0.95 / runs)


def test_a_real_best_is_found():
    rng = np.random.default_rng(5)
    ease = rng.random(4000)
    outcomes = {f"t{i}": rng.random(4000) < 0.3 + 0.5 * ease for i in range(4)}
    outcomes["star"] = rng.random(4000) < 0.38 + 0.5 * ease
    lead = paired_ranking(outcomes).leader
    assert lead.first == "star" and lead.separated


def _policy_rows(rng, games, p_a, p_b, seats_a=1):
    """Games of one policy A (``seats_a`` seats) and one B seat, one winner per game."""
    rows = []
    for g in range(games):
        u = rng.random()
        winner = "A" if u < p_a else ("B" if u < p_a + p_b else "R")
        seat_winner = rng.integers(seats_a) if winner == "A" else -1
        for s in range(seats_a):
            rows.append((g, "A", winner == "A" and s == seat_winner))
        rows.append((g, "B", winner == "B"))
        rows.append((g, "R", winner == "R"))
    return pd.DataFrame(rows, columns=["game", "policy", "won"])


def test_rate_gap_by_cluster_is_the_difference_of_the_rates_with_a_paired_se(monkeypatch):
    rng = np.random.default_rng(2)
    seats = _policy_rows(rng, 1500, 0.4, 0.35, seats_a=2)
    gaps = rate_gaps_by_cluster(seats, "policy", "game", ["A", "B", "R"])
    rate = seats.groupby("policy")["won"].mean()
    assert gaps["B"].mean == pytest.approx(rate["A"] - rate["B"])
    # reference: per-game linearised differences, written out with pandas
    per = seats.groupby(["game", "policy"])["won"].agg(["sum", "count"]).unstack(fill_value=0)
    n_a, n_b = per[("count", "A")].sum(), per[("count", "B")].sum()
    r = (per[("sum", "A")] - rate["A"] * per[("count", "A")]) / n_a - (
        per[("sum", "B")] - rate["B"] * per[("count", "B")]
    ) / n_b
    g = len(per)
    se = math.sqrt(g / (g - 1) * float((r * r).sum()))
    half = sps.t.ppf(0.975, g - 1) * se
    assert (gaps["B"].lo, gaps["B"].hi) == pytest.approx((gaps["B"].mean - half,
                                                          gaps["B"].mean + half))  # fmt: skip
    # blocks of whole games give the same sums
    from bnb_sim.analysis import table_blocks

    monkeypatch.setattr(table_blocks, "BLOCK_ROWS", 37)
    again = rate_gaps_by_cluster(seats, "policy", "game", ["A", "B", "R"])
    for key in ("B", "R"):
        assert (again[key].lo, again[key].hi) == pytest.approx((gaps[key].lo, gaps[key].hi))


def test_rate_gap_by_cluster_calibration():
    """Coverage of the true gap (A with two seats per game against B), 300 runs."""
    rng = np.random.default_rng(9)
    covered = 0
    runs = 300
    for _ in range(runs):
        seats = _policy_rows(rng, 400, 0.45, 0.35, seats_a=2)
        gap = rate_gaps_by_cluster(seats, "policy", "game", ["A", "B"])["B"]
        # A's rate per seat is 0.45/2: two seats share one win
        covered += gap.lo <= 0.45 / 2 - 0.35 <= gap.hi
    assert abs(covered / runs - 0.95) < 3 * math.sqrt(0.05 * 0.95 / runs)


def test_gaps_from_replicates_percentile():
    rng = np.random.default_rng(4)
    reps = {"a": rng.normal(10, 0.5, 1000), "b": rng.normal(8, 0.5, 1000)}
    gap = gaps_from_replicates(["a", "b"], {"a": 10.0, "b": 8.0}, reps)["b"]
    diff = reps["a"] - reps["b"]
    assert (gap.lo, gap.hi) == pytest.approx(tuple(np.quantile(diff, [0.025, 0.975])))
    assert gap.mean == 2.0 and gap.excludes_zero and gap.unit == "Elo"
    assert gap.text().endswith("Elo") and gap.text().startswith("+2.0 [")
    assert Gap(3.6, -0.04, 7.2, 100, unit="Elo").text() == "+3.6 [0.0, +7.2] Elo"  # not -0


def test_paired_gap_bounds_a_constant_sample():
    gap = paired_gap(np.ones(500), np.ones(500))
    assert gap.mean == 0 and gap.lo < 0 < gap.hi and gap.note == "all differences equal"
