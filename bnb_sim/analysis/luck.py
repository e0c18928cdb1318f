"""Luck and skill: how much of a game's outcome each chance source decides (``bnb luck``).

Estimators only (numpy; no game, no numba). The design that feeds them lives in
:mod:`bnb_sim.runner.luck_play`; docs/statistics.md ("Luck and skill") explains both.

**Share of one chance source.** Every game draws each chance source from its own random
stream. A *fixed-source design* plays ``S`` groups of ``m`` games: inside a group one source
(say the cube) is the same in every game while every other source varies; across groups the
source varies too. With ``Y`` the outcome of a game (player 0's share of the win, or the
team's win) the one-way random-effects ANOVA gives

* ``MSB = m Σ_j (ȳ_j - ȳ)² / (S - 1)``, ``MSW = Σ_j Σ_i (y_ij - ȳ_j)² / (S (m - 1))``,
* ``σ²_between = (MSB - MSW) / m`` (unbiased for ``Var(E[Y | source])``), ``σ²_within = MSW``,
* share ``= σ²_between / (σ²_between + σ²_within)``: the intraclass correlation, which here is
  the first-order (main-effect) variance share of the source, ``Var(E[Y|source]) / Var(Y)``.

Its 95% interval is the percentile interval of the same estimator over groups resampled with
replacement (a group is the independent unit; games inside it share the source). Estimates may
fall slightly below 0 when a source matters little; they are kept as they are for the interval
and shown clipped to 0 (clipping a bound at 0 never loses a true share, which is ≥ 0).

**Total share of one source.** The mirror design fixes every source *but* one in each
group, so inside a group only that source varies: ``1 - ICC`` of that design estimates
``E[Var(Y | every other source)] / Var(Y)``, the source's total-effect share (alone plus every
interaction it takes part in; Sobol's total index). Its interval is ``1 -`` the ICC's.

**Interactions.** The shares of single sources need not add to 1: what is left is the part of
the variance that only combinations of sources explain (for deterministic bots nothing else is
left; a bot's own random choices are a source of their own, ``policy``). Each source's design
uses its own games, so the bootstrap replicates of different sources are independent and the
interval of the rest, ``1 - Σ shares``, comes from summing replicates.

**Skill between two rungs.** With ``p_upper`` and ``p_lower`` the win rates per player of the
stronger and the weaker rung (or of the two teams, in a cooperative game) and ``u`` the chance
that a given player is of the stronger rung, the first-order share of "which rung a player
is" in the variance of that player's result is ``u (1-u) (p_upper - p_lower)² / (q (1-q))``
with ``q = u p_upper + (1-u) p_lower``; for two players this is ``(2p - 1)²``, ``p`` the
stronger rung's head-to-head win rate. Its interval bootstraps the games (or the deals).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "GroupShare",
    "SkillShare",
    "anova_share",
    "group_share",
    "known_share",
    "rest_share",
    "skill_share",
    "skill_share_value",
    "total_share",
]

DEFAULT_BOOT = 1000
LEVEL = 0.95


def anova_share(values: np.ndarray) -> float:
    """The one-way random-effects ANOVA share ``σ²_b / (σ²_b + σ²_w)`` of an ``(S, m)``
    array (``S ≥ 2`` groups of ``m ≥ 2`` outcomes); NaN when the outcome never varies."""
    y = np.asarray(values, dtype=float)
    return float(_shares_from_stats(*_group_stats(y), y.shape[1])[0])


def _group_stats(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if y.ndim != 2 or y.shape[0] < 2 or y.shape[1] < 2:
        raise ValueError(f"need an (groups, games) array with both at least 2, got {y.shape}")
    means = y.mean(axis=1)
    within = ((y - means[:, None]) ** 2).sum(axis=1)
    return means, within


def _shares_from_stats(means: np.ndarray, within: np.ndarray, m: int) -> np.ndarray:
    """Shares for each row of ``means``/``within`` (``(..., S)`` arrays of group means and
    within-group sums of squares); the last axis holds the groups."""
    means = np.atleast_2d(means)
    within = np.atleast_2d(within)
    s = means.shape[-1]
    msb = m * means.var(axis=-1, ddof=1)
    msw = within.sum(axis=-1) / (s * (m - 1))
    between = (msb - msw) / m
    total = between + msw
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, between / np.where(total > 0, total, 1.0), np.nan)


@dataclass
class GroupShare:
    """The share of one source: estimate, 95% bootstrap interval and the design's size."""

    source: str
    share: float
    lo: float
    hi: float
    groups: int
    per_group: int
    mean: float  # mean outcome over the design's games
    variance: float  # estimated Var(Y) = σ²_b + σ²_w
    replicates: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    note: str | None = None  # a share known without playing (no interval), and why

    @property
    def n(self) -> int:
        return self.groups * self.per_group

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "share": _num(self.share),
            "lo": _num(self.lo),
            "hi": _num(self.hi),
            "groups": self.groups,
            "per_group": self.per_group,
            "n": self.n,
            "mean_outcome": _num(self.mean),
            "variance": _num(self.variance),
            "note": self.note,
        }


def _num(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def group_share(
    source: str,
    values: np.ndarray,
    *,
    n_boot: int = DEFAULT_BOOT,
    rng: np.random.Generator | None = None,
    level: float = LEVEL,
) -> GroupShare:
    """:func:`anova_share` of an ``(S, m)`` outcome array with its percentile bootstrap
    interval over groups. Bounds are clipped to [0, 1]; the point estimate is kept as
    estimated (it may be slightly negative)."""
    y = np.asarray(values, dtype=float)
    means, within = _group_stats(y)
    s, m = y.shape
    estimate = float(_shares_from_stats(means, within, m)[0])
    msw = within.sum() / (s * (m - 1))
    variance = float(m * means.var(ddof=1) - msw) / m + msw
    reps = np.zeros(0)
    lo = hi = math.nan
    if n_boot > 0:
        rng = rng if rng is not None else np.random.default_rng(0)
        idx = rng.integers(0, s, size=(int(n_boot), s))
        reps = _shares_from_stats(means[idx], within[idx], m)
        lo, hi = _bca_interval(estimate, reps, _jackknife(means, within, m), level)
        lo, hi = _not_zero_width(estimate, lo, hi, reps)
    return GroupShare(
        source=source,
        share=estimate,
        lo=lo,
        hi=hi,
        groups=s,
        per_group=m,
        mean=float(y.mean()),
        variance=variance,
        replicates=reps,
    )


def known_share(source: str, share: float, note: str) -> GroupShare:
    """A share fixed by the design itself (no games played, no interval)."""
    nan = math.nan
    return GroupShare(source, share, nan, nan, 0, 0, nan, nan, note=note)


def total_share(source: str, values: np.ndarray, **kwargs) -> GroupShare:
    """The total share of ``source`` from a design that fixes every *other* source in each
    group (only ``source`` varies inside a group): ``1 - ICC``, the expected variance left
    when everything but the source is known, over the total (the total-effect index: the
    source alone plus every interaction it takes part in). Interval: ``1 -`` the ICC's."""
    g = group_share(source, values, **kwargs)
    g.share = 1.0 - g.share
    g.lo, g.hi = 1.0 - g.hi, 1.0 - g.lo
    g.replicates = 1.0 - g.replicates
    return g


def _not_zero_width(estimate: float, lo: float, hi: float, reps: np.ndarray):
    """A share estimated at or below 0 can have its whole bootstrap interval below 0, which
    the clipping turns into [0, 0] (or nearly): a zero-width interval only says the sample
    showed nothing. The upper bound of such a share is at least 1.96 x the bootstrap standard
    error (the noise level of the estimator at this design)."""
    finite = reps[np.isfinite(reps)]
    if math.isfinite(lo) and math.isfinite(hi) and estimate <= 0 and finite.size > 1:
        hi = min(1.0, max(hi, 1.96 * float(finite.std(ddof=1))))
    return lo, hi


def _jackknife(means: np.ndarray, within: np.ndarray, m: int) -> np.ndarray:
    """The share with each group left out in turn (for the BCa acceleration)."""
    s = means.shape[0]
    keep = ~np.eye(s, dtype=bool)
    rows = np.broadcast_to(np.arange(s), (s, s))[keep].reshape(s, s - 1)
    return _shares_from_stats(means[rows], within[rows], m)


def _bca_interval(
    estimate: float, reps: np.ndarray, jack: np.ndarray, level: float
) -> tuple[float, float]:
    """Bias-corrected and accelerated bootstrap interval (Efron 1987), bounds clipped to
    [0, 1]. The plain percentile interval of a variance share undercovers (about 92% in the
    calibration at shares of 2-10%): the estimator is skewed and biased near 0."""
    from scipy.stats import norm

    reps = reps[np.isfinite(reps)]
    jack = jack[np.isfinite(jack)]
    if not reps.size or not math.isfinite(estimate):
        return math.nan, math.nan
    below = (np.sum(reps < estimate) + 0.5 * np.sum(reps == estimate)) / reps.size
    z0 = float(norm.ppf(min(max(below, 1e-6), 1 - 1e-6)))
    d = jack.mean() - jack
    denom = 6.0 * float(np.sum(d**2)) ** 1.5
    a = float(np.sum(d**3)) / denom if denom > 0 else 0.0
    z = norm.ppf([(1 - level) / 2, (1 + level) / 2])
    adjusted = norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
    lo, hi = (float(v) for v in np.quantile(reps, adjusted))
    return min(max(lo, 0.0), 1.0), min(max(hi, 0.0), 1.0)


def rest_share(shares: Sequence[GroupShare], level: float = LEVEL) -> tuple[float, float, float]:
    """``1 - Σ shares`` (what no single source explains) with a 95% interval from summing
    the sources' independent bootstrap replicates (equal counts; NaN replicates dropped)."""
    shares = list(shares)
    if not shares:
        return math.nan, math.nan, math.nan
    estimate = 1.0 - sum(s.share for s in shares)
    counts = {len(s.replicates) for s in shares}
    if len(counts) != 1 or 0 in counts:
        return estimate, math.nan, math.nan
    total = 1.0 - np.sum([s.replicates for s in shares], axis=0)
    total = total[np.isfinite(total)]
    if not total.size:
        return estimate, math.nan, math.nan
    alpha = (1 - level) / 2
    lo, hi = np.quantile(total, [alpha, 1 - alpha])
    return estimate, min(max(float(lo), 0.0), 1.0), min(max(float(hi), 0.0), 1.0)


# --------------------------------------------------------------------------------------
# skill between two rungs


def skill_share_value(p_upper: float, p_lower: float, u: float) -> float:
    """First-order share of "which rung a player is" in the variance of a player's result
    (see the module doc); NaN when the result never varies."""
    q = u * p_upper + (1 - u) * p_lower
    if not 0 < q < 1:
        return math.nan
    return u * (1 - u) * (p_upper - p_lower) ** 2 / (q * (1 - q))


@dataclass
class SkillShare:
    """Two adjacent rungs: win rates, how often the weaker rung wins, and the skill share."""

    lower: str
    upper: str
    p_upper: float
    p_lower: float
    upper_fraction: float  # u: the chance that a given player is of the upper rung
    share: float
    lo: float
    hi: float
    weaker_wins: float  # share of the games (or deals) the weaker rung wins
    weaker_lo: float
    weaker_hi: float
    fair_share: float  # what the weaker rung would win if the rungs were equal
    n: int
    unit: str = "game"  # the bootstrap unit: a game, or a deal both teams played

    def to_dict(self) -> dict:
        out = {k: getattr(self, k) for k in ("lower", "upper", "n", "unit")}
        for k in ("p_upper", "p_lower", "upper_fraction", "share", "lo", "hi",
                  "weaker_wins", "weaker_lo", "weaker_hi", "fair_share"):  # fmt: skip
            out[k] = _num(getattr(self, k))
        return out


def skill_share(
    lower: str,
    upper: str,
    y_upper: np.ndarray,
    y_lower: np.ndarray,
    u: float,
    weaker: np.ndarray,
    fair_share: float,
    *,
    n_boot: int = DEFAULT_BOOT,
    rng: np.random.Generator | None = None,
    level: float = LEVEL,
) -> SkillShare:
    """Skill share and weaker-rung win rate from independent units (games, or deals played by
    both teams): ``y_upper``/``y_lower`` are each unit's mean result per player of the upper
    and lower rung, ``weaker`` each unit's count of weaker-rung wins (0..1). The intervals are
    percentile bootstraps over the units."""
    yu = np.asarray(y_upper, dtype=float)
    yl = np.asarray(y_lower, dtype=float)
    wk = np.asarray(weaker, dtype=float)
    n = yu.shape[0]
    pu, pl = float(yu.mean()), float(yl.mean())
    share = skill_share_value(pu, pl, u)
    lo = hi = wlo = whi = math.nan
    if n_boot > 0 and n >= 2:
        rng = rng if rng is not None else np.random.default_rng(0)
        idx = rng.integers(0, n, size=(int(n_boot), n))
        bu, bl, bw = yu[idx].mean(axis=1), yl[idx].mean(axis=1), wk[idx].mean(axis=1)
        q = u * bu + (1 - u) * bl
        with np.errstate(invalid="ignore", divide="ignore"):
            root = (bu - bl) * np.sqrt(u * (1 - u) / (q * (1 - q)))  # signed √share
        root = root[np.isfinite(root)]
        alpha = (1 - level) / 2
        if root.size:  # the interval of the signed root, squared: 0 when it spans 0
            r_lo, r_hi = (float(v) for v in np.quantile(root, [alpha, 1 - alpha]))
            lo = 0.0 if r_lo <= 0 <= r_hi else min(r_lo**2, r_hi**2)
            hi = max(r_lo**2, r_hi**2)
        wlo, whi = (float(v) for v in np.quantile(bw, [alpha, 1 - alpha]))
    return SkillShare(
        lower=lower, upper=upper, p_upper=pu, p_lower=pl, upper_fraction=float(u),
        share=share, lo=lo, hi=hi, weaker_wins=float(wk.mean()), weaker_lo=wlo,
        weaker_hi=whi, fair_share=float(fair_share), n=n,
    )  # fmt: skip
