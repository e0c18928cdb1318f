"""Calibration of the luck estimators (bnb_sim.analysis.luck) on synthetic data whose
variance components are known: the share estimates are unbiased to within their noise and
the 95% intervals cover the true share 93-97% of the time."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bnb_sim.analysis.luck import (
    anova_share,
    group_share,
    rest_share,
    skill_share,
    skill_share_value,
    total_share,
)

GROUPS, PER_GROUP = 200, 25  # the default design of `bnb luck`


def _binary_groups(rng, share: float, mean: float = 0.5, groups=GROUPS, per_group=PER_GROUP):
    """Win/loss outcomes whose group win chances are Beta-distributed with
    Var(p) = share * mean * (1 - mean): the true first-order share is ``share``."""
    var = share * mean * (1 - mean)
    k = mean * (1 - mean) / var - 1
    p = rng.beta(mean * k, (1 - mean) * k, groups)[:, None]
    return (rng.random((groups, per_group)) < p).astype(float)


def test_anova_share_recovers_a_known_share():
    rng = np.random.default_rng(1)
    y = rng.normal(0, math.sqrt(0.3), (4000, 1)) + rng.normal(0, math.sqrt(0.7), (4000, 10))
    assert anova_share(y) == pytest.approx(0.3, abs=0.02)
    assert anova_share(np.zeros((5, 4))) != anova_share(np.zeros((5, 4)))  # NaN: no spread


def test_anova_share_rejects_too_small_designs():
    with pytest.raises(ValueError):
        anova_share(np.zeros((1, 5)))
    with pytest.raises(ValueError):
        anova_share(np.zeros((5, 1)))


@pytest.mark.parametrize(("share", "mean"), [(0.02, 0.5), (0.1, 0.5), (0.05, 0.3)])
def test_share_interval_covers_95_percent(share, mean):
    """600 synthetic designs each: coverage within 93-97%, estimates unbiased."""
    rng = np.random.default_rng(int(share * 1000) + int(mean * 10))
    hits, estimates = 0, []
    reps = 600
    for _ in range(reps):
        g = group_share("x", _binary_groups(rng, share, mean), n_boot=500, rng=rng)
        hits += g.lo <= share <= g.hi
        estimates.append(g.share)
    coverage = hits / reps
    assert 0.93 <= coverage <= 0.97, coverage
    spread = np.std(estimates) / math.sqrt(reps)
    assert abs(np.mean(estimates) - share) < 3 * spread


def test_share_of_a_source_that_does_not_matter_is_near_zero():
    rng = np.random.default_rng(3)
    y = (rng.random((GROUPS, PER_GROUP)) < 0.5).astype(float)
    g = group_share("none", y, n_boot=500, rng=rng)
    assert g.lo == 0.0 and g.hi < 0.03
    assert g.n == GROUPS * PER_GROUP and g.to_dict()["n"] == g.n


def test_rest_share_sums_independent_replicates():
    rng = np.random.default_rng(4)
    parts = [group_share(s, _binary_groups(rng, v), n_boot=400, rng=rng)
             for s, v in (("a", 0.2), ("b", 0.1))]  # fmt: skip
    est, lo, hi = rest_share(parts)
    assert est == pytest.approx(1 - parts[0].share - parts[1].share)
    assert lo < est < hi and 0.6 < est < 0.8


def test_skill_share_of_two_players_is_2p_minus_1_squared():
    for p in (0.5, 0.6, 0.732, 0.99):
        assert skill_share_value(p, 1 - p, 0.5) == pytest.approx((2 * p - 1) ** 2)
    assert math.isnan(skill_share_value(1.0, 1.0, 0.5))  # nobody ever loses: no variance


def test_skill_share_matches_its_definition_by_simulation():
    """Players whose rung is drawn with chance u: the variance of a player's result that the
    rung explains, computed from simulated players, is the closed form."""
    rng = np.random.default_rng(5)
    u, pu, pl = 0.25, 0.55, 0.3
    upper = rng.random(2_000_000) < u
    won = rng.random(upper.size) < np.where(upper, pu, pl)
    between = u * (1 - u) * (won[upper].mean() - won[~upper].mean()) ** 2
    assert between / won.var() == pytest.approx(skill_share_value(pu, pl, u), rel=0.02)


@pytest.mark.parametrize("p", [0.5, 0.7])
def test_skill_share_interval_covers_95_percent(p):
    """1,000 head-to-heads of 2,000 two-player games: coverage 93-97%, also at p = 0.5 where
    the true share is 0 (the interval is squared from the signed root's)."""
    rng = np.random.default_rng(int(p * 100))
    truth = (2 * p - 1) ** 2
    hits, reps = 0, 1000
    for _ in range(reps):
        upper_won = (rng.random(2000) < p).astype(float)
        s = skill_share("a", "b", upper_won, 1 - upper_won, 0.5, 1 - upper_won, 0.5,
                        n_boot=400, rng=rng)  # fmt: skip
        hits += s.lo <= truth <= s.hi
    assert 0.93 <= hits / reps <= 0.97, hits / reps


def test_total_share_is_one_minus_the_share_of_the_rest_fixed():
    """Only the source varies inside a group: what varies there is its total effect."""
    rng = np.random.default_rng(6)
    y = rng.normal(0, math.sqrt(0.6), (GROUPS, 1)) + rng.normal(0, math.sqrt(0.4),
                                                                (GROUPS, PER_GROUP))  # fmt: skip
    g = group_share("rest", y, n_boot=300, rng=np.random.default_rng(0))
    t = total_share("s", y, n_boot=300, rng=np.random.default_rng(0))
    assert t.share == pytest.approx(1 - g.share) and t.share == pytest.approx(0.4, abs=0.06)
    assert (t.lo, t.hi) == pytest.approx((1 - g.hi, 1 - g.lo))


def test_a_share_below_zero_never_gets_a_zero_width_interval():
    """Groups that spread less than chance (a negative ANOVA estimate, the whole bootstrap
    interval below 0) used to print 0.0% [0.0%, 0.0%]; the upper bound is now the
    estimator's noise level."""
    rng = np.random.default_rng(11)
    seen = 0
    for _ in range(60):
        y = (rng.random((GROUPS, PER_GROUP)) < 0.5).astype(float)
        g = group_share("none", y, n_boot=300, rng=rng)
        assert g.hi - g.lo > 0.001, g  # never [0.0%, 0.0%]
        seen += g.share < 0
    assert seen > 10  # the case happened
