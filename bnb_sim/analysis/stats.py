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
    "seat_gap_test",
    "cluster_bootstrap_ci",
    "constant_sample_interval",
    "clustered_mean_ci",
    "clustered_rate",
    "clustered_wilson",
    "elo_from_score",
    "first_player_advantage",
    "mcnemar",
    "mean_ci",
    "num_digits",
    "paired_difference",
    "pct_digits",
    "rates_by",
    "rates_by_cluster",
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


def pct_digits(lo, hi, max_digits: int = 4) -> int:
    """Decimals for a rate shown in percent, chosen by the precision of its interval.

    The interval's width (in percentage points) is shown with at least two significant
    digits: a width of 2.0 pp gives 1 decimal (``52.3% [51.3, 53.3]``), 0.98 pp gives 2 and
    0.042 pp (16 wins in 40,000) gives 3 (``0.040% [0.023, 0.065]``), never ``0.0%``.
    Vectorised over arrays: the result is then the largest number of decimals any row needs,
    so one column of a table uses one format. Missing or zero widths count as 1 decimal.
    """
    return num_digits(100.0 * np.asarray(lo, float), 100.0 * np.asarray(hi, float), 1, max_digits)


def num_digits(lo, hi, min_digits: int = 2, max_digits: int = 4) -> int:
    """Decimals that show the width of the narrowest interval ``[lo, hi]`` with two
    significant digits, between ``min_digits`` and ``max_digits`` (see :func:`pct_digits`)."""
    width = np.asarray(hi, dtype=float) - np.asarray(lo, dtype=float)
    width = np.atleast_1d(width)
    width = width[np.isfinite(width) & (width > 0)]
    if width.size == 0:
        return min_digits
    digits = 1 - np.floor(np.log10(width.min()))
    return int(min(max(digits, min_digits), max_digits))


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

    def __repr__(self) -> str:
        return f"Rate({self})"

    def __str__(self) -> str:
        if self.n == 0:
            return "n/a [n/a] n=0"
        d = pct_digits(self.lo, self.hi)
        return (
            f"{100 * self.rate:.{d}f}% [{100 * self.lo:.{d}f}, {100 * self.hi:.{d}f}] n={self.n:,}"
        )

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
# clustered rates and means (rows of one game / seed are not independent)
# --------------------------------------------------------------------------------------------


def _cluster_sums(values: np.ndarray, clusters: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster sums ``Y_g`` of the non-NaN values and their counts ``M_g``."""
    import pandas as pd

    values = _as_float_1d(values)
    clusters = np.asarray(clusters).ravel()
    if clusters.shape != values.shape:
        raise ValueError("values and clusters must have the same length")
    if clusters.dtype.kind in "iu" and clusters.size and np.all(clusters[1:] >= clusters[:-1]):
        # sorted integers (a run's games): codes from the changes, no hash table; the same
        # cluster order as pd.factorize
        codes = np.zeros(clusters.size, np.int64)
        np.cumsum(clusters[1:] != clusters[:-1], out=codes[1:])
    else:
        codes, _ = pd.factorize(clusters, sort=False)
    nan = np.isnan(values)
    if nan.any() or (codes < 0).any():
        ok = ~nan & (codes >= 0)
        codes, values = codes[ok], values[ok]
    n_clusters = int(codes.max()) + 1 if codes.size else 0
    sums = np.bincount(codes, weights=values, minlength=n_clusters)
    counts = np.bincount(codes, minlength=n_clusters).astype(float)
    keep = counts > 0
    return sums[keep], counts[keep]


def _integer_cluster_moments(values: Any, clusters: Any):
    """``(n, G, ΣY, ΣY², ΣYM, ΣM², sd)`` of :func:`clustered_mean_ci` for integer values in
    clusters that are sorted integers (a run's counts by game), block by block of whole
    clusters: no float64 copy of the rows, and exact, since every sum is of integers (``sd``
    from the exact integer ``Σx`` and ``Σx²``). None for other input (the general path)."""
    if not isinstance(values, np.ndarray) or not isinstance(clusters, np.ndarray):
        return None
    if values.ndim != 1 or values.dtype.kind not in "iub" or clusters.dtype.kind not in "iu":
        return None
    if values.shape != clusters.shape or not values.size:
        return None
    if np.any(clusters[1:] < clusters[:-1]):
        return None
    from bnb_sim.analysis.tables import game_blocks

    g, total, yy, ym, mm, sx, sxx = 0, 0.0, 0.0, 0.0, 0.0, 0, 0
    for rows in game_blocks(clusters):
        part, block = values[rows], clusters[rows]
        codes = np.zeros(block.size, np.int64)
        np.cumsum(block[1:] != block[:-1], out=codes[1:])
        y = np.bincount(codes, weights=part)
        m = np.bincount(codes).astype(float)
        g += y.size
        total += float(y.sum())
        yy, ym, mm = yy + float(y @ y), ym + float(y @ m), mm + float(m @ m)
        wide = part.astype(np.int64)
        sx += int(wide.sum())
        sxx += int((wide * wide).sum())
    n = int(values.size)
    sd = math.sqrt(max(n * sxx - sx * sx, 0) / (n * (n - 1))) if n > 1 else math.nan
    return n, g, total, yy, ym, mm, sd


def _ratio_se(sums, counts, sumsq, sumym, summ2, n_clusters) -> np.ndarray:
    """Linearised (cluster-robust) standard error of ``Σ Y_g / Σ M_g`` from moment sums.

    With ``p = ΣY/ΣM`` the estimator is linearised as ``Σ_g (Y_g - p M_g) / ΣM``, so
    ``var = G/(G-1) · Σ_g (Y_g - p M_g)² / (ΣM)²``, where ``Σ(Y - pM)² = ΣY² - 2pΣYM + p²ΣM²``.
    Vectorised over groups; ``G < 2`` gives NaN.
    """
    sums, counts = np.asarray(sums, float), np.asarray(counts, float)
    g = np.asarray(n_clusters, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = sums / counts
        ss = np.maximum(sumsq - 2.0 * p * sumym + p * p * summ2, 0.0)
        var = np.where(g > 1, g / (g - 1.0) * ss / (counts * counts), np.nan)
    return np.sqrt(var)


def clustered_wilson(k, n, se, n_clusters, multi, confidence: float = 0.95):
    """Wilson interval for a rate whose rows come in clusters (games, seeds), vectorised.

    ``k / n`` is the rate over rows, ``se`` its cluster-robust standard error (for example
    from :func:`clustered_rate`), ``n_clusters`` the clusters and ``multi`` whether any cluster
    holds more than one row of the group. Groups with one row per cluster get the plain Wilson
    interval (the rows are independent). For the others the Wilson interval is computed at the
    *effective* sample size ``n_eff = p(1-p) / se²`` (Kish's design effect), which keeps the
    Wilson shape near 0 and 1 but uses the clustered variance: narrower than the row interval
    when the rows of a game are negatively correlated (one winner per game), wider when they
    are positively correlated. Where the clustered variance is 0 (the rate is 0 or 1, or every
    cluster has exactly the same share) it is no guide, so the interval is the row Wilson
    interval or, if that is narrower, Wilson on the clusters (``k/n`` of ``n_clusters``):
    the conservative choice.
    """
    k, n, se = (np.asarray(v, dtype=float) for v in (k, n, se))
    g = np.asarray(n_clusters, dtype=float)
    multi = np.asarray(multi, dtype=bool)
    lo, hi = wilson_interval(k, n, confidence)
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / np.where(n > 0, n, 1.0), np.nan)
        usable = multi & np.isfinite(se) & (se > 0) & (p > 0) & (p < 1)
        n_eff = np.where(usable, p * (1.0 - p) / np.where(usable, se * se, 1.0), 1.0)
    e_lo, e_hi = wilson_interval(np.where(usable, p * n_eff, 0.0), n_eff, confidence)
    g_safe = np.maximum(g, 1.0)
    c_lo, c_hi = wilson_interval(np.where(n > 0, p, 0.0) * g_safe, g_safe, confidence)
    flat = multi & ~usable & (n > 0)
    lo = np.where(usable, e_lo, np.where(flat, np.minimum(lo, c_lo), lo))
    hi = np.where(usable, e_hi, np.where(flat, np.maximum(hi, c_hi), hi))
    return lo, hi


def clustered_rate(values: Any, clusters: Any, confidence: float = 0.95) -> Rate:
    """Rate of 0/½/1 ``values`` (one per row) with a Wilson interval clustered by ``clusters``.

    ``k`` and ``n`` are the row counts (``n`` rows, ``k`` their sum); the interval is
    :func:`clustered_wilson` with the cluster-robust (linearised) standard error of the ratio
    ``Σ_g Y_g / Σ_g M_g``. With one row per cluster this is exactly the Wilson interval.
    Example: the win rate of a policy that plays two seats of every game, clustered by game.
    """
    sums, counts = _cluster_sums(values, clusters)
    k, n, g = float(sums.sum()), float(counts.sum()), sums.size
    se = _ratio_se(k, n, (sums * sums).sum(), (sums * counts).sum(), (counts * counts).sum(), g)
    lo, hi = clustered_wilson(k, n, se, g, bool(np.any(counts > 1)), confidence)
    return Rate(k, int(n), k / n if n else math.nan, float(lo), float(hi), float(confidence))


def clustered_mean_ci(values: Any, clusters: Any, confidence: float = 0.95) -> dict[str, Any]:
    """Mean of ``values`` over rows with a t interval clustered by ``clusters`` (NaNs dropped).

    The mean is the ratio ``Σ_g Y_g / Σ_g M_g`` (``Y_g`` the sum and ``M_g`` the number of rows
    of cluster ``g``); its standard error is the linearised cluster-robust one (see
    :func:`_ratio_se`) and the interval is ``mean ± t_{G-1}·se`` with ``G`` clusters. Use it
    for rows that share a game or a seed: a policy in two seats, every game of one seed in a
    tournament. Returns ``dict(mean, lo, hi, n, sd, se, n_clusters, note)`` like
    :func:`mean_ci` (``n`` rows, ``sd`` their standard deviation); ``note`` says why there
    is no interval (``"n < 2"``, ``"all values equal"``) and is ``""`` otherwise.
    """
    moments = _integer_cluster_moments(values, clusters)
    if moments is None:
        arr = _as_float_1d(values)
        sums, counts = _cluster_sums(arr, clusters)
        clean = arr[~np.isnan(arr)]
        n, g = int(counts.sum()), int(sums.size)
        total, yy, ym, mm = (
            sums.sum(),
            (sums * sums).sum(),
            (sums * counts).sum(),
            (counts * counts).sum(),
        )
        sd = float(clean.std(ddof=1)) if n > 1 else math.nan
    else:
        n, g, total, yy, ym, mm, sd = moments
    out: dict[str, Any] = {
        "mean": float(total / n) if n else math.nan,
        "lo": math.nan,
        "hi": math.nan,
        "n": n,
        "sd": sd,
        "se": math.nan,
        "n_clusters": g,
        "note": "",
    }
    if g < 2:
        out["note"] = "n < 2"
        return out
    se = float(_ratio_se(total, n, yy, ym, mm, g))
    out["se"] = se
    if not se > 0:
        out["note"] = "all values equal"
        return out
    half = _t(confidence, g - 1) * se
    out.update(lo=out["mean"] - half, hi=out["mean"] + half)
    return out


def rates_by_cluster(
    df: pd.DataFrame,
    by: str | list[str],
    cluster: str,
    column: str = "won",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """:func:`rates_by` with intervals clustered by ``cluster`` (a game or seed column).

    Same columns as :func:`rates_by` plus ``n_clusters``. A group with at most one row per
    cluster keeps its exact Wilson interval; a group with several rows in some cluster (a
    policy in several seats of a game) gets :func:`clustered_wilson`. Vectorised: one
    group-by over (group, cluster), then moment sums per group.
    """
    import pandas as pd

    keys = [by] if isinstance(by, str) else list(by)
    values = pd.to_numeric(df[column].astype("Float64"), errors="raise").astype(float)
    tmp = df[keys].copy()
    tmp["_c"] = df[cluster].to_numpy()
    tmp["_v"] = values.to_numpy()
    tmp = tmp[~np.isnan(tmp["_v"].to_numpy())]
    per = tmp.groupby([*keys, "_c"], observed=True, sort=True, dropna=False)["_v"].agg(
        y="sum", m="count"
    )
    per["yy"] = per["y"] ** 2
    per["ym"] = per["y"] * per["m"]
    per["mm"] = per["m"] ** 2
    per["multi"] = per["m"] > 1
    out = (
        per.groupby(level=list(range(len(keys))), observed=True, sort=True)
        .agg(
            k=("y", "sum"),
            n=("m", "sum"),
            yy=("yy", "sum"),
            ym=("ym", "sum"),
            mm=("mm", "sum"),
            n_clusters=("y", "size"),
            multi=("multi", "any"),
        )
        .reset_index()
    )
    out["n"] = out["n"].astype("int64")
    k = out["k"].to_numpy(dtype=float)
    n = out["n"].to_numpy(dtype=float)
    g = out["n_clusters"].to_numpy(dtype=float)
    se = _ratio_se(k, n, out["yy"].to_numpy(), out["ym"].to_numpy(), out["mm"].to_numpy(), g)
    lo, hi = clustered_wilson(k, n, se, g, out["multi"].to_numpy(), confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["rate"] = np.where(n > 0, k / np.where(n > 0, n, 1), np.nan)
    out["lo"] = lo
    out["hi"] = hi
    out["n_clusters"] = out["n_clusters"].astype("int64")
    return out[[*keys, "k", "n", "rate", "lo", "hi", "n_clusters"]]


# --------------------------------------------------------------------------------------------
# means and paired comparisons
# --------------------------------------------------------------------------------------------


def mean_ci(x: Any, confidence: float = 0.95) -> dict[str, Any]:
    """Mean with a Student t interval: ``mean ± t_{n-1}·sd/√n`` (NaNs dropped).

    Returns ``dict(mean, lo, hi, n, sd, note)``; ``sd`` uses ``ddof=1``. There is no interval
    (``lo`` and ``hi`` are NaN) when it would be meaningless, and ``note`` says why: ``"n < 2"``,
    or ``"all values equal"`` when ``sd == 0`` (a zero-width "interval" is not a 95%
    interval: it only says that the sample showed no variation). Valid for independent
    observations (one per seed/game); for rows clustered within games use
    :func:`clustered_mean_ci`.
    """
    arr = _as_float_1d(x)
    arr = arr[~np.isnan(arr)]
    n = int(arr.size)
    if n == 0:
        return {"mean": math.nan, "lo": math.nan, "hi": math.nan, "n": 0, "sd": math.nan,
                "note": "n < 2"}  # fmt: skip
    mean = float(arr.mean())
    if n < 2:
        return {"mean": mean, "lo": math.nan, "hi": math.nan, "n": n, "sd": math.nan,
                "note": "n < 2"}  # fmt: skip
    sd = float(arr.std(ddof=1))
    if sd == 0.0:
        return {"mean": mean, "lo": math.nan, "hi": math.nan, "n": n, "sd": 0.0,
                "note": "all values equal"}  # fmt: skip
    half = _t(confidence, n - 1) * sd / math.sqrt(n)
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "n": n, "sd": sd, "note": ""}


def constant_sample_interval(
    value: float, n: int, bounds: tuple[float, float], confidence: float = 0.95
) -> tuple[float, float]:
    """A valid interval for the mean of a bounded variable when all ``n`` observations equal
    ``value``.

    The sample cannot tell how often a value other than ``value`` occurs; the Wilson upper
    bound ``u`` for 0 such observations out of ``n`` (``z²/(n + z²)``, about 3/n) bounds that
    frequency, and a different observation lies in ``bounds``. So the mean lies in
    ``[value - (value - low)·u, value + (high - value)·u]``. Example: 128 seeds on which two
    policies never differed give a win-rate difference in ``[-2.9, +2.9]`` pp, not ``[0, 0]``.
    """
    low, high = (float(b) for b in bounds)
    _, u = wilson_interval(0, int(n), confidence)
    return value - (value - low) * u, value + (high - value) * u


def paired_difference(
    a: Any, b: Any, confidence: float = 0.95, bounds: tuple[float, float] | None = None
) -> dict[str, Any]:
    """Paired comparison of per-seed outcomes ``a[i]`` and ``b[i]`` (same seed/game index).

    Method: a one-sample Student t interval and two-sided t test on the differences
    ``d = a - b`` (pairs with a NaN on either side are dropped). With common random numbers
    the differences have a much smaller variance than a two-sample comparison would assume,
    which is the whole point of the paired design. For 0/1 outcomes the t interval relies on
    the central limit theorem (fine for the hundreds-plus of seeds we run; for exact small-
    sample inference on 0/1 outcomes use :func:`mcnemar`).

    When every difference is the same (often: no seed changed at all) the t interval has zero
    width and is no interval. With ``bounds`` (the range a single difference can take, e.g.
    ``(-1, 1)`` for win shares) the interval is then :func:`constant_sample_interval`;
    without, ``lo``/``hi`` are NaN. ``note`` says which (``"all differences equal"``).

    Returns ``dict(mean_diff, lo, hi, n, p_value, sd, note)``.
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
    lo, hi, note = ci["lo"], ci["hi"], ci["note"]
    if n < 2:
        p_value = math.nan
    elif sd == 0.0:
        p_value = 1.0 if mean == 0.0 else 0.0
        note = "all differences equal"
        if bounds is not None:
            lo, hi = constant_sample_interval(mean, n, bounds, confidence)
            p_value = 1.0 if lo <= 0.0 <= hi else p_value
    else:
        t_stat = mean / (sd / math.sqrt(n))
        p_value = float(2.0 * stdtr(n - 1, -abs(t_stat)))
    return {
        "mean_diff": mean,
        "lo": lo,
        "hi": hi,
        "n": n,
        "p_value": p_value,
        "sd": sd,
        "note": note,
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
    """Per-game won (y) and present (m) matrices, shape (games, seats), and the seat labels.

    Counted with ``np.bincount`` on one flat (game, seat) index: ``np.add.at`` on factorized
    codes held about 250 MB of temporaries for 4,000,000 rows."""
    import pandas as pd

    game = seats_df["game"].to_numpy()
    if game.dtype.kind in "iu" and game.size and np.all(game[1:] >= game[:-1]):
        # a run's rows are sorted by game: codes from the changes, no hash table
        game_codes = np.zeros(game.size, np.int64)
        np.cumsum(game[1:] != game[:-1], out=game_codes[1:])
    else:
        game_codes = pd.factorize(game, sort=True)[0].astype(np.int64, copy=False)
    seat_codes, seat_labels = pd.factorize(seats_df["seat"], sort=True)
    won = seats_df["won"]
    if won.dtype == bool:
        values, ok = won.to_numpy(), None
    else:
        values = won.astype("Float64").to_numpy(dtype=float, na_value=np.nan)
        ok = ~np.isnan(values)
    n_games = int(game_codes.max()) + 1 if game_codes.size else 0
    n_seats = len(seat_labels)
    flat = game_codes
    flat *= n_seats
    flat += seat_codes
    del seat_codes
    if ok is not None:
        flat, values = flat[ok], values[ok]
    size = n_games * n_seats
    y = np.bincount(flat, weights=values, minlength=size).reshape(n_games, n_seats)
    m = np.bincount(flat, minlength=size).astype(float).reshape(n_games, n_seats)
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

    With one game, or when the standard error is 0, there is no interval: ``lo``/``hi`` are
    NaN and ``note`` says why (never a zero-width or ``[-100, +100]`` "interval").

    Returns ``dict(value, lo, hi, se, n_games, confidence, method, seats, note)`` where
    ``seats`` maps each seat to its :class:`Rate` (the per-seat Wilson intervals are per row,
    which is right because a seat appears once per game).
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
        "note": "",
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
    dev = m * r  # (y - r m) / M in place: one (games, seats) temporary instead of three
    np.subtract(y, dev, out=dev)
    dev /= big_m
    zg = dev @ coef
    del dev
    se = math.sqrt(n_games / (n_games - 1) * float(zg @ zg)) if n_games > 1 else math.nan
    result["value"] = value
    result["se"] = se
    if not se > 0:  # one game, or no variation at all: no interval (not a zero-width one)
        result["note"] = "n < 2" if n_games < 2 else "no variation between games"
        return result
    result.update(lo=max(-1.0, value - z * se), hi=min(1.0, value + z * se))
    return result


def _seat_rates_and_cov(y: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Seat win rates ``r_s = Y_s / M_s`` and their covariance, delta method clustered by game.

    Linearisation: ``z_gs = (y_gs - r_s m_gs) / M_s``; ``cov = G/(G-1) Σ_g z_g z_gᵀ``.
    """
    big_y, big_m = y.sum(axis=0), m.sum(axis=0)
    r = big_y / big_m
    z = m * r  # (y - r m) / M in place: one (games, seats) temporary instead of three
    np.subtract(y, z, out=z)
    z /= big_m
    g = y.shape[0]
    cov = g / (g - 1) * (z.T @ z) if g > 1 else np.full((y.shape[1],) * 2, np.nan)
    return r, cov


def seat_gap_test(y: np.ndarray, m: np.ndarray) -> dict[str, float]:
    """Wald test that every seat wins equally often, clustered by game.

    The contrasts ``r_s - r_0`` (``s = 1..S-1``) with their delta-method covariance ``V``
    (clustered by game, so shared wins and one-winner-per-game dependence are accounted
    for) give ``W = dᵀ V⁻¹ d``, asymptotically χ² with ``S-1`` degrees of freedom under
    equal seat rates. Returns ``dict(chi2, df, p_value)`` (NaN when it cannot be computed).
    """
    from scipy.special import chdtrc

    s = y.shape[1]
    out = {"chi2": math.nan, "df": s - 1, "p_value": math.nan}
    if s < 2 or y.shape[0] < 2:
        return out
    r, cov = _seat_rates_and_cov(y, m)
    contrast = np.hstack([-np.ones((s - 1, 1)), np.eye(s - 1)])
    d = contrast @ r
    v = contrast @ cov @ contrast.T
    if not np.all(np.isfinite(v)) or np.linalg.matrix_rank(v) < s - 1:
        return out
    chi2 = float(d @ np.linalg.solve(v, d))
    out.update(chi2=chi2, p_value=float(chdtrc(s - 1, chi2)))
    return out


def _max_gap_quantile(cov: np.ndarray, confidence: float, n_sim: int, seed: int) -> float:
    """``c`` with ``P(max_{i<j} |Z_i - Z_j| / sd_ij <= c) = confidence`` for ``Z ~ N(0, cov)``.

    The simultaneous critical value for all pairwise seat differences (Tukey-style, with the
    estimated correlation), by Monte Carlo from a fixed seed.
    """
    s = cov.shape[0]
    i, j = np.triu_indices(s, 1)
    contrast = np.zeros((i.size, s))
    contrast[np.arange(i.size), i] = 1.0
    contrast[np.arange(i.size), j] = -1.0
    dcov = contrast @ cov @ contrast.T
    sd = np.sqrt(np.diag(dcov))
    keep = sd > 0
    if not np.any(keep):
        return math.nan
    dcov = dcov[np.ix_(keep, keep)] / np.outer(sd[keep], sd[keep])
    vals, vecs = np.linalg.eigh(dcov)
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    draws = np.random.default_rng(seed).standard_normal((n_sim, root.shape[0])) @ root.T
    return float(np.quantile(np.abs(draws).max(axis=1), confidence))


def balance_metric(
    seats_df: pd.DataFrame, confidence: float = 0.95, n_sim: int = 20_000, seed: int = 0
) -> dict[str, Any]:
    """Balance = 1 - (largest gap between seat win rates), with an interval valid up to 1.

    1 means every seat wins equally often. The estimate is biased low near balance (the
    largest of several noisy gaps is never below 0), so a bootstrap of it cannot reach the
    truth of a balanced game. The interval here is instead the projection of simultaneous
    intervals for all pairwise seat differences ``d_ij = r_i - r_j``: each is
    ``d_ij ± c·se_ij`` (delta method clustered by game), with ``c`` the simultaneous 95%
    critical value of ``max |d_ij| / se_ij`` under the estimated correlation (a Tukey-style
    constant, by Monte Carlo from a fixed seed, so the result is deterministic). When all of
    them hold, the true largest gap lies between ``max_ij max(0, |d_ij| - c·se_ij)`` and
    ``max_ij (|d_ij| + c·se_ij)``, so the balance interval covers the truth at least 95% of
    the time, and its upper end is exactly 1 whenever the data cannot exclude equal seats.

    The matching test of equal seat rates is :func:`seat_gap_test` (χ², p value).

    Returns ``dict(value, lo, hi, n_games, confidence, rates, chi2, df, p_value, method,
    note)`` with ``rates`` the per-seat win rates (a dict seat -> rate). With fewer than two
    games, or no variation, ``lo``/``hi`` are NaN and ``note`` says why.
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
        "chi2": math.nan,
        "df": max(len(labels) - 1, 0),
        "p_value": math.nan,
        "method": "simultaneous pairwise seat differences, delta method clustered by game",
        "note": "",
    }
    if n_games == 0 or len(labels) < 1 or np.any(m.sum(axis=0) == 0):
        out["note"] = "no games"
        return out
    r = y.sum(axis=0) / m.sum(axis=0)
    out["value"] = float(1.0 - (r.max() - r.min()))
    out["rates"] = {int(s): float(v) for s, v in zip(labels, r, strict=True)}
    if len(labels) < 2:
        out["note"] = "one seat"
        return out
    if n_games < 2:
        out["note"] = "n < 2"
        return out
    out.update(seat_gap_test(y, m))
    _, cov = _seat_rates_and_cov(y, m)
    c = _max_gap_quantile(cov, confidence, n_sim, seed)
    if not math.isfinite(c):
        out["note"] = "no variation between games"
        return out
    i, j = np.triu_indices(len(labels), 1)
    gap = np.abs(r[i] - r[j])
    se = np.sqrt(np.maximum(cov[i, i] + cov[j, j] - 2.0 * cov[i, j], 0.0))
    top = float(np.max(gap + c * se))
    bottom = float(np.max(np.maximum(gap - c * se, 0.0)))
    out.update(lo=max(0.0, 1.0 - top), hi=min(1.0, 1.0 - bottom))
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
