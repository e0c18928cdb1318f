"""Rates, means and their intervals: the unit every report number is built on.

:func:`wilson_interval` and :class:`Rate` (a rate with its ``n`` and Wilson interval, never
Wald), :func:`rates_by` per group, :func:`mean_ci` (t interval),
:func:`constant_sample_interval` (the bound used when every sample is equal, never
zero-width), :func:`sample_size_for_halfwidth`, and the helpers that pick how many decimals
show an interval (:func:`pct_digits`, :func:`num_digits`). Rows here are independent; the
clustered versions are in :mod:`bnb_sim.analysis.stats_clustered`.

Only numpy is imported at module level; scipy.special is imported inside the functions that
need it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


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
