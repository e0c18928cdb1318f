"""Interval estimates and tests for simulation reports (docs/design.md, "Statistics").

Conventions
-----------
- Every rate is reported with its ``n`` and a confidence interval (:class:`Rate`); win rates use
  the Wilson score interval, never the Wald interval.
- Intervals for anything computed from per-seat rows are clustered by game (or by seed / seat-
  swapped pair): rows of one game are not independent, so resampling or variance estimates
  treat the game as the unit.
- Only numpy is imported at module level; pandas and scipy.special are imported inside the
  functions that need them, so ``import bnb_sim.analysis.stats`` stays cheap. No numba, no
  matplotlib.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "Rate",
    "balance_metric",
    "cluster_bootstrap_ci",
    "elo_from_score",
    "first_player_advantage",
    "mcnemar",
    "mean_ci",
    "paired_difference",
    "rates_by",
    "sample_size_for_halfwidth",
    "score_from_elo",
    "wilson_interval",
]

ELO_PER_LOG10 = 400.0

# The pattern bootstrap materialises (chunk x patterns) weight matrices; keep them below this
# many entries (about 16 MB of int64).
_MAX_WEIGHT_ENTRIES = 2_000_000


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def _check_confidence(confidence: float) -> float:
    confidence = float(confidence)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return confidence


def _z(confidence: float) -> float:
    """Two-sided standard normal quantile, e.g. 1.959964 for 0.95."""
    confidence = _check_confidence(confidence)
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def _t(confidence: float, dof: float) -> float:
    """Two-sided Student t quantile with ``dof`` degrees of freedom."""
    from scipy.special import stdtrit

    confidence = _check_confidence(confidence)
    return float(stdtrit(dof, 0.5 + confidence / 2.0))


def _as_float_1d(x: Any) -> np.ndarray:
    arr = np.asarray(x, dtype=float).ravel()
    return arr


def _scalar_or_array(x: np.ndarray, scalar: bool):
    return float(x) if scalar else x


# --------------------------------------------------------------------------------------------
# Wilson intervals and rates
# --------------------------------------------------------------------------------------------


def wilson_interval(k, n, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion ``k / n``.

    Vectorised: ``k`` and ``n`` broadcast against each other (numpy arrays or scalars); the
    result is ``(lo, hi)`` as floats for scalar input, arrays otherwise. ``k`` may be fractional
    (half-wins for ties). ``n == 0`` gives ``(nan, nan)``. ``k == 0`` gives ``lo == 0`` and
    ``k == n`` gives ``hi == 1`` exactly; the bounds never leave ``[0, 1]`` and always contain
    ``k / n``.

    Formula (Wilson 1927), with ``p = k/n`` and ``z`` the two-sided normal quantile::

        centre = (p + z²/2n) / (1 + z²/n)
        half   = z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n)

    Example: ``wilson_interval(3, 50)`` is about ``(0.0206, 0.1622)``.
    """
    z = _z(confidence)
    scalar = np.ndim(k) == 0 and np.ndim(n) == 0
    k_arr, n_arr = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    if np.any(np.isnan(k_arr)) or np.any(np.isnan(n_arr)):
        raise ValueError("wilson_interval: k and n must not be NaN")
    if np.any(n_arr < 0):
        raise ValueError("wilson_interval: n must be >= 0")
    if np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError("wilson_interval: need 0 <= k <= n")
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k_arr / n_arr
        z2n = z * z / n_arr
        denom = 1.0 + z2n
        centre = (p + z2n / 2.0) / denom
        half = z * np.sqrt(p * (1.0 - p) / n_arr + z2n / (4.0 * n_arr)) / denom
        lo = np.clip(np.minimum(centre - half, p), 0.0, 1.0)
        hi = np.clip(np.maximum(centre + half, p), 0.0, 1.0)
    lo = np.where(k_arr == 0, 0.0, lo)
    hi = np.where(k_arr == n_arr, 1.0, hi)
    empty = n_arr == 0
    lo = np.where(empty, np.nan, lo)
    hi = np.where(empty, np.nan, hi)
    return _scalar_or_array(lo, scalar), _scalar_or_array(hi, scalar)


@dataclass(frozen=True)
class Rate:
    """A proportion with its sample size and Wilson interval.

    ``k`` may be fractional (ties counted as ½). ``str(rate)`` gives e.g.
    ``"52.3% [51.3, 53.3] n=10,000"``; print rates this way (never without ``n`` and the
    interval).
    """

    k: float
    n: int
    rate: float
    lo: float
    hi: float
    confidence: float = 0.95

    @classmethod
    def of(cls, k: float, n: int, confidence: float = 0.95) -> Rate:
        n_int = int(n)
        if n_int != n:
            raise ValueError(f"n must be an integer count, got {n!r}")
        lo, hi = wilson_interval(float(k), n_int, confidence)
        rate = float(k) / n_int if n_int > 0 else math.nan
        return cls(float(k), n_int, rate, lo, hi, float(confidence))

    @classmethod
    def from_bools(cls, values: Any, confidence: float = 0.95) -> Rate:
        """Rate of a boolean (or 0/½/1) Series or array; missing values (NaN/NA) are dropped."""
        try:  # pandas nullable booleans: NA -> NaN
            arr = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            import pandas as pd

            arr = pd.Series(values).astype("Float64").to_numpy(dtype=float, na_value=np.nan)
        arr = arr.ravel()
        arr = arr[~np.isnan(arr)]
        if np.any((arr < 0) | (arr > 1)):
            raise ValueError("Rate.from_bools: values must lie in [0, 1]")
        return cls.of(float(arr.sum()), int(arr.size), confidence)

    def __str__(self) -> str:
        if self.n == 0:
            return "n/a [n/a] n=0"
        return f"{100 * self.rate:.1f}% [{100 * self.lo:.1f}, {100 * self.hi:.1f}] n={self.n:,}"

    def to_dict(self) -> dict[str, float]:
        return {
            "k": self.k,
            "n": self.n,
            "rate": self.rate,
            "lo": self.lo,
            "hi": self.hi,
            "confidence": self.confidence,
        }


def rates_by(
    df: pd.DataFrame, by: str | list[str], column: str = "won", confidence: float = 0.95
) -> pd.DataFrame:
    """Group-by rates with Wilson intervals.

    Returns a DataFrame with columns ``[*by, "k", "n", "rate", "lo", "hi"]``, one row per group
    (sorted by the group keys). ``column`` holds booleans or 0/½/1; missing values are not
    counted in ``n``. Example: ``rates_by(seats, ["policy", "seat"])``.

    The intervals treat rows as independent, which is right for one row per game and group (win
    rate per policy when each policy has one seat per game). When a group has several rows per
    game, use :func:`cluster_bootstrap_ci` clustered by game.
    """
    import pandas as pd

    keys = [by] if isinstance(by, str) else list(by)
    values = pd.to_numeric(df[column].astype("Float64"), errors="raise").astype(float)
    tmp = df[keys].copy()
    tmp["_v"] = values.to_numpy()
    grouped = tmp.groupby(keys, observed=True, sort=True, dropna=False)["_v"]
    out = grouped.agg(k="sum", n="count").reset_index()
    out["n"] = out["n"].astype("int64")
    k = out["k"].to_numpy(dtype=float)
    n = out["n"].to_numpy(dtype=float)
    lo, hi = wilson_interval(k, n, confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["rate"] = np.where(n > 0, k / np.where(n > 0, n, 1), np.nan)
    out["lo"] = lo
    out["hi"] = hi
    return out[[*keys, "k", "n", "rate", "lo", "hi"]]


# --------------------------------------------------------------------------------------------
# means and paired comparisons
# --------------------------------------------------------------------------------------------


def mean_ci(x: Any, confidence: float = 0.95) -> dict[str, float]:
    """Mean with a Student t interval: ``mean ± t_{n-1}·sd/√n`` (NaNs dropped).

    Returns ``dict(mean, lo, hi, n, sd)``; ``sd`` uses ``ddof=1``. With ``n < 2`` the interval
    is ``nan``; with ``sd == 0`` it collapses to the mean. Valid for independent observations
    (one per seed/game); for rows clustered within games use :func:`cluster_bootstrap_ci`.
    """
    arr = _as_float_1d(x)
    arr = arr[~np.isnan(arr)]
    n = int(arr.size)
    if n == 0:
        return {"mean": math.nan, "lo": math.nan, "hi": math.nan, "n": 0, "sd": math.nan}
    mean = float(arr.mean())
    if n < 2:
        return {"mean": mean, "lo": math.nan, "hi": math.nan, "n": n, "sd": math.nan}
    sd = float(arr.std(ddof=1))
    half = _t(confidence, n - 1) * sd / math.sqrt(n)
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "n": n, "sd": sd}


def paired_difference(a: Any, b: Any, confidence: float = 0.95) -> dict[str, float]:
    """Paired comparison of per-seed outcomes ``a[i]`` and ``b[i]`` (same seed/game index).

    Method: a one-sample Student t interval and two-sided t test on the differences
    ``d = a - b`` (pairs with a NaN on either side are dropped). With common random numbers
    the differences have a much smaller variance than a two-sample comparison would assume,
    which is the whole point of the paired design. For 0/1 outcomes the t interval relies on
    the central limit theorem (fine for the hundreds-plus of seeds we run; for exact small-
    sample inference on 0/1 outcomes use :func:`mcnemar`).

    Returns ``dict(mean_diff, lo, hi, n, p_value, sd)``.
    """
    from scipy.special import stdtr

    a_arr = _as_float_1d(a)
    b_arr = _as_float_1d(b)
    if a_arr.shape != b_arr.shape:
        raise ValueError(f"paired_difference: lengths differ ({a_arr.size} vs {b_arr.size})")
    d = a_arr - b_arr
    d = d[~np.isnan(d)]
    ci = mean_ci(d, confidence)
    n, mean, sd = ci["n"], ci["mean"], ci["sd"]
    if n < 2:
        p_value = math.nan
    elif sd == 0.0:
        p_value = 1.0 if mean == 0.0 else 0.0
    else:
        t_stat = mean / (sd / math.sqrt(n))
        p_value = float(2.0 * stdtr(n - 1, -abs(t_stat)))
    return {
        "mean_diff": mean,
        "lo": ci["lo"],
        "hi": ci["hi"],
        "n": n,
        "p_value": p_value,
        "sd": sd,
    }


def mcnemar(a_bool: Any, b_bool: Any) -> dict[str, float]:
    """Exact McNemar test for paired binary outcomes (e.g. A won / B won on the same seed).

    ``b01`` counts pairs where ``a`` is False and ``b`` is True, ``b10`` the reverse. The p value
    is the exact two-sided binomial test of ``b01`` vs ``b10`` with p = ½ (conditional on the
    number of discordant pairs); the exact test is used at every size, which is also right for
    the small discordant counts where the chi-square version is not. No discordant pairs gives
    ``p_value == 1``. Also returns ``n`` (pairs).
    """
    from scipy.special import bdtr

    a = np.asarray(a_bool).ravel().astype(bool)
    b = np.asarray(b_bool).ravel().astype(bool)
    if a.shape != b.shape:
        raise ValueError(f"mcnemar: lengths differ ({a.size} vs {b.size})")
    b01 = int(np.count_nonzero(~a & b))
    b10 = int(np.count_nonzero(a & ~b))
    m = b01 + b10
    if m == 0:
        p_value = 1.0
    else:
        p_value = min(1.0, 2.0 * float(bdtr(min(b01, b10), m, 0.5)))
    return {"b01": b01, "b10": b10, "p_value": p_value, "n": int(a.size)}


# --------------------------------------------------------------------------------------------
# cluster bootstrap
# --------------------------------------------------------------------------------------------


def _unique_patterns(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``values`` (clusters x m) and how often each occurs.

    Rows of small non-negative integers (win flags, seat presence, ranks, policy codes) are
    packed into one int64 key first, which is much faster than ``np.unique(axis=0)``.
    """
    v = np.asarray(values, dtype=float)
    if v.ndim == 2 and v.size and np.all(v >= 0) and np.all(v == np.rint(v)):
        iv = v.astype(np.int64)
        radix = iv.max(axis=0) + 1
        if float(np.sum(np.log2(radix))) < 62:
            mult = np.cumprod(np.concatenate(([1], radix[:-1]))).astype(np.int64)
            key = (iv * mult).sum(axis=1)
            _, first, counts = np.unique(key, return_index=True, return_counts=True)
            return v[first], counts
    patterns, counts = np.unique(v, axis=0, return_counts=True)
    return patterns, counts


def _pattern_bootstrap(
    patterns: np.ndarray,
    counts: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    n_boot: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Bootstrap replicates of a statistic of cluster *sums*.

    Resampling ``C = counts.sum()`` clusters with replacement is the same, in distribution, as
    drawing how many copies of each distinct cluster pattern are taken from a multinomial
    ``(C, counts / C)``. So when the statistic only depends on column sums over clusters
    (rates, means, win matrices), a replicate is ``weights @ patterns`` and the whole bootstrap
    is a few matrix products, however many clusters there are. ``statistic`` maps a
    ``(B, m)`` array of column sums to ``B`` values (or ``(B, ...)``).

    With few distinct patterns (win/loss data) the weights come from ``rng.multinomial``; when
    most clusters are distinct (continuous data) drawing ``C`` cluster indices and counting them
    per pattern is faster and has the same distribution.
    """
    n_clusters = int(counts.sum())
    k = patterns.shape[0]
    by_index = 5 * k > n_clusters
    if by_index:
        pattern_of = np.repeat(np.arange(k), counts)
        chunk = max(1, min(n_boot, _MAX_WEIGHT_ENTRIES // max(n_clusters, 1)))
    else:
        pvals = counts / n_clusters
        chunk = max(1, min(n_boot, _MAX_WEIGHT_ENTRIES // max(k, 1)))
    out = []
    done = 0
    while done < n_boot:
        size = min(chunk, n_boot - done)
        if by_index:
            picks = pattern_of[rng.integers(0, n_clusters, size=(size, n_clusters))]
            picks += (np.arange(size) * k)[:, None]
            weights = np.bincount(picks.ravel(), minlength=size * k).reshape(size, k)
        else:
            weights = rng.multinomial(n_clusters, pvals, size=size)
        out.append(statistic(weights.astype(float) @ patterns))
        done += size
    return np.concatenate(out, axis=0)


def _percentile(reps: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = 1.0 - _check_confidence(confidence)
    with np.errstate(invalid="ignore"):
        reps = np.where(np.isfinite(reps), reps, np.nan)
    lo, hi = np.nanquantile(reps, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return lo, hi


def cluster_bootstrap_ci(
    df: pd.DataFrame,
    cluster: str,
    statistic: str | Callable[[pd.DataFrame], float],
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, float]:
    """Percentile bootstrap interval, resampling whole clusters (games, seeds, seat-swapped pairs).

    ``statistic`` is either

    - a column name: the statistic is the mean of that column over all rows (a ratio estimator,
      ``sum / count`` over the resampled clusters; NaN values are ignored). This path is fully
      vectorised: a replicate is a multinomial weighting of the distinct per-cluster
      ``(sum, count)`` patterns, which has exactly the distribution of resampling clusters with
      replacement, so millions of games cost a few matrix products; or
    - a callable ``f(df) -> float`` applied to each resampled DataFrame. Resampled clusters are
      relabelled ``0..C-1`` in the ``cluster`` column so a cluster drawn twice counts as two
      clusters if ``f`` groups by it. This path costs one DataFrame copy per replicate.

    Deterministic for a given ``seed`` (numpy ``default_rng``). Returns
    ``dict(estimate, lo, hi, n_clusters)``; ``estimate`` is the statistic on the original data.

    Known behaviour: the percentile bootstrap has no small-sample (t) correction, so with few
    clusters (< ~50) it undercovers somewhat; with a hundred or more clusters and a smooth
    statistic it is close to nominal (see ``tests/test_stats.py`` for the calibration check).
    Statistics like a maximum gap are biased near a boundary; see :func:`balance_metric`.
    """
    _check_confidence(confidence)
    if n_boot < 1:
        raise ValueError("n_boot must be >= 1")
    rng = np.random.default_rng(seed)
    if isinstance(statistic, str):
        return _bootstrap_mean_column(df, cluster, statistic, n_boot, confidence, rng)
    return _bootstrap_callable(df, cluster, statistic, n_boot, confidence, rng)


def _bootstrap_mean_column(df, cluster, column, n_boot, confidence, rng) -> dict[str, float]:
    import pandas as pd

    values = pd.to_numeric(df[column].astype("Float64")).astype(float)
    tmp = pd.DataFrame({"c": df[cluster].to_numpy(), "v": values.to_numpy()})
    agg = tmp.groupby("c", sort=True, dropna=False)["v"].agg(["sum", "count"])
    sums = agg.to_numpy(dtype=float)
    n_clusters = int(sums.shape[0])
    total = sums.sum(axis=0)
    estimate = total[0] / total[1] if total[1] > 0 else math.nan
    if n_clusters == 0:
        return {"estimate": math.nan, "lo": math.nan, "hi": math.nan, "n_clusters": 0}
    patterns, counts = _unique_patterns(sums)

    def stat(s: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return s[:, 0] / s[:, 1]

    reps = _pattern_bootstrap(patterns, counts, stat, n_boot, rng)
    lo, hi = _percentile(reps, confidence)
    return {"estimate": float(estimate), "lo": float(lo), "hi": float(hi), "n_clusters": n_clusters}


def _bootstrap_callable(df, cluster, statistic, n_boot, confidence, rng) -> dict[str, float]:
    import pandas as pd

    codes, _ = pd.factorize(df[cluster], sort=True)
    n_clusters = int(codes.max()) + 1 if codes.size else 0
    estimate = float(statistic(df))
    if n_clusters == 0:
        return {"estimate": estimate, "lo": math.nan, "hi": math.nan, "n_clusters": 0}
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=n_clusters)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    cluster_pos = df.columns.get_loc(cluster)
    reps = np.empty(n_boot)
    for b in range(n_boot):
        pick = rng.integers(0, n_clusters, size=n_clusters)
        sz = sizes[pick]
        total = int(sz.sum())
        offsets = np.arange(total) - np.repeat(np.cumsum(sz) - sz, sz)
        rows = order[np.repeat(starts[pick], sz) + offsets]
        sample = df.iloc[rows].copy()
        sample.iloc[:, cluster_pos] = np.repeat(np.arange(n_clusters), sz)
        reps[b] = float(statistic(sample))
    lo, hi = _percentile(reps, confidence)
    return {"estimate": estimate, "lo": float(lo), "hi": float(hi), "n_clusters": n_clusters}


# --------------------------------------------------------------------------------------------
# seat effects
# --------------------------------------------------------------------------------------------


def _game_seat_matrix(seats_df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-game won (y) and present (m) matrices, shape (games, seats), and the seat labels."""
    import pandas as pd

    game_codes, _ = pd.factorize(seats_df["game"], sort=True)
    seat_codes, seat_labels = pd.factorize(seats_df["seat"], sort=True)
    won = seats_df["won"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    ok = ~np.isnan(won)
    n_games = int(game_codes.max()) + 1 if game_codes.size else 0
    y = np.zeros((n_games, len(seat_labels)))
    m = np.zeros((n_games, len(seat_labels)))
    np.add.at(y, (game_codes[ok], seat_codes[ok]), won[ok])
    np.add.at(m, (game_codes[ok], seat_codes[ok]), 1.0)
    return y, m, np.asarray(seat_labels)


def first_player_advantage(seats_df: pd.DataFrame, confidence: float = 0.95) -> dict[str, Any]:
    """First-player advantage: win rate of seat 0 minus the mean win rate of the other seats.

    With ``r_s`` the win rate of seat ``s``, ``value = r_0 - mean(r_1, ..., r_{S-1})`` (the
    unweighted mean over the other seats), in probability units: 0 means seat 0 wins as often
    as the average other seat. Ties count as wins for every tied winner (the ``won`` column).

    Interval: delta method clustered by game. Each ``r_s`` is a ratio ``Y_s / M_s`` of sums over
    games, so ``value`` is linearised as a sum of per-game terms
    ``z_g = Σ_s c_s (y_gs - r_s m_gs) / M_s`` (``c_0 = 1``, ``c_s = -1/(S-1)``) and
    ``var ≈ G/(G-1) Σ_g z_g²``; the interval is ``value ± z·se``, clipped to ``[-1, 1]``. When
    every game has every seat this is exactly the normal interval for the mean of the per-game
    differences ``won_0 - mean(won_other)``; it is deterministic and costs O(rows).

    Returns ``dict(value, lo, hi, se, n_games, confidence, method, seats)`` where ``seats`` maps
    each seat to its :class:`Rate` (the per-seat Wilson intervals are per row, which is right
    because a seat appears once per game).
    """
    z = _z(confidence)
    y, m, labels = _game_seat_matrix(seats_df)
    seats = {
        int(s): Rate.of(y[:, i].sum(), int(m[:, i].sum()), confidence) for i, s in enumerate(labels)
    }
    result: dict[str, Any] = {
        "value": math.nan,
        "lo": math.nan,
        "hi": math.nan,
        "se": math.nan,
        "n_games": int(y.shape[0]),
        "confidence": confidence,
        "method": "delta method, clustered by game",
        "seats": seats,
    }
    if 0 not in seats or len(seats) < 2:
        return result
    big_y, big_m = y.sum(axis=0), m.sum(axis=0)
    if np.any(big_m == 0):
        return result
    r = big_y / big_m
    coef = np.full(len(labels), -1.0 / (len(labels) - 1))
    coef[list(labels).index(0)] = 1.0
    value = float(coef @ r)
    n_games = y.shape[0]
    zg = ((y - r * m) / big_m) @ coef
    se = math.sqrt(n_games / (n_games - 1) * float(zg @ zg)) if n_games > 1 else math.nan
    result.update(
        value=value,
        se=se,
        lo=max(-1.0, value - z * se),
        hi=min(1.0, value + z * se),
    )
    return result


def balance_metric(
    seats_df: pd.DataFrame, n_boot: int = 1000, confidence: float = 0.95, seed: int = 0
) -> dict[str, Any]:
    """Balance = 1 - (largest gap between seat win rates), with a cluster-bootstrap interval.

    1 means every seat wins equally often. The interval is a percentile bootstrap over games
    (vectorised through the distinct per-game win patterns, see :func:`cluster_bootstrap_ci`),
    deterministic for ``seed``.

    Caveat: the largest gap is a maximum of noisy differences, so the estimate of the gap is
    biased upward (Balance biased downward) when seats are nearly equal, and the percentile
    interval can then miss a true Balance close to 1. When seats differ clearly (the gap is
    many standard errors) the interval behaves normally. Compare against the per-seat Wilson
    intervals in :func:`first_player_advantage` before concluding a game is unbalanced.

    Returns ``dict(value, lo, hi, n_games, confidence, rates)`` with ``rates`` the per-seat
    win rates (a dict seat -> rate).
    """
    _check_confidence(confidence)
    y, m, labels = _game_seat_matrix(seats_df)
    n_games = int(y.shape[0])
    out: dict[str, Any] = {
        "value": math.nan,
        "lo": math.nan,
        "hi": math.nan,
        "n_games": n_games,
        "confidence": confidence,
        "rates": {},
    }
    if n_games == 0 or len(labels) < 1:
        return out
    n_seats = len(labels)

    def stat(s: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = s[:, :n_seats] / s[:, n_seats:]
        return 1.0 - (np.max(rates, axis=1) - np.min(rates, axis=1))

    values = np.concatenate([y, m], axis=1)
    value = float(stat(values.sum(axis=0)[None, :])[0])
    patterns, counts = _unique_patterns(values)
    reps = _pattern_bootstrap(patterns, counts, stat, n_boot, np.random.default_rng(seed))
    lo, hi = _percentile(reps, confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = y.sum(axis=0) / m.sum(axis=0)
    out.update(
        value=value,
        lo=float(lo),
        hi=float(hi),
        rates={int(s): float(r) for s, r in zip(labels, rates, strict=True)},
    )
    return out


# --------------------------------------------------------------------------------------------
# sample sizes and the Elo scale
# --------------------------------------------------------------------------------------------


def sample_size_for_halfwidth(h: float, p: float = 0.5, confidence: float = 0.95) -> int:
    """Games needed for a normal-approximation half-width ``h`` at rate ``p``.

    ``ceil(z² p (1-p) / h²)``: at 95% and p = 0.5, ±2 pp needs 2,401, ±1 pp 9,604, ±0.5 pp
    38,415 and ±0.1 pp 960,365 (docs/design.md, "Statistics").
    """
    if not h > 0:
        raise ValueError("h must be > 0")
    if not 0.0 <= p <= 1.0:
        raise ValueError("p must be in [0, 1]")
    z = _z(confidence)
    return int(math.ceil(z * z * p * (1.0 - p) / (h * h)))


def elo_from_score(s):
    """Elo difference for an expected score ``s``: ``400·log10(s / (1 - s))``.

    Vectorised; ``s = 0`` gives ``-inf`` and ``s = 1`` gives ``+inf``. 0.51 is about 7 Elo,
    0.55 about 35 and 0.60 about 70.
    """
    scalar = np.ndim(s) == 0
    arr = np.asarray(s, dtype=float)
    if np.any((arr < 0) | (arr > 1)):
        raise ValueError("elo_from_score: scores must be in [0, 1]")
    with np.errstate(divide="ignore"):
        out = ELO_PER_LOG10 * (np.log10(arr) - np.log10(1.0 - arr))
    return _scalar_or_array(out, scalar)


def score_from_elo(elo):
    """Expected score for an Elo difference: ``1 / (1 + 10^(-elo/400))`` (vectorised)."""
    scalar = np.ndim(elo) == 0
    arr = np.asarray(elo, dtype=float)
    out = 1.0 / (1.0 + np.power(10.0, -arr / ELO_PER_LOG10))
    return _scalar_or_array(out, scalar)
