"""Paired comparisons: two policies or settings played on the same games.

:func:`paired_difference` (a t interval on per-game differences, bounded when every
difference is equal) and :func:`mcnemar` (an exact test on the discordant games).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bnb_sim.analysis.stats_intervals import _as_float_1d, constant_sample_interval, mean_ci


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
    without, ``lo``/``hi`` are NaN. ``note`` says which (``"all differences equal"``). With
    ``bounds`` the interval never leaves them (few extreme pairs can put a t end outside).

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
    if bounds is not None and not (math.isnan(lo) or math.isnan(hi)):
        # the mean of differences in [b0, b1] lies in [b0, b1]: an end of the t interval
        # outside (few pairs, all far apart) is cut there, which changes no coverage
        lo, hi = max(lo, float(bounds[0])), min(hi, float(bounds[1]))
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
