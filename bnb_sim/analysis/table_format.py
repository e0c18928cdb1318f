"""Numbers as a report shows them: rates, differences and means with their intervals.

:func:`fmt_rate` (``30.8% [29.4, 32.3]``, with as many decimals as the interval needs),
:func:`fmt_signed_pp` (a difference in percentage points), :func:`fmt_mean`, :func:`fmt_sd`,
:func:`fmt_count`, the cells of a rate or mean table (:func:`rate_cells`, :func:`mean_cells`)
and :func:`display_rates` (a tidy rate table ready to print). What is shown when there is no
interval is said in words (:data:`NO_INTERVAL`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnb_sim.analysis.stats_intervals import pct_digits
from bnb_sim.analysis.table_columns import label

# --------------------------------------------------------------------------------------
# display


def _pct(value: float, digits: int, signed: bool = False) -> str:
    """``value`` (a fraction) in percent with ``digits`` decimals; never ``-0.00``."""
    text = f"{100 * value:{'+' if signed else ''}.{digits}f}"
    if float(text) == 0.0:  # -0.00 and +0.00 both mean "rounds to zero": print 0.00
        text = f"{0.0:.{digits}f}"
    return text


def _num(value: float, digits: int, signed: bool = False) -> str:
    """A plain number with ``digits`` decimals; never ``-0.00``."""
    text = f"{value:{'+' if signed else ''}.{digits}f}"
    if float(text) == 0.0:
        text = f"{0.0:.{digits}f}"
    return text


NO_INTERVAL = {
    "n < 2": "no interval: n < 2",
    "all values equal": "no interval: all values equal",
    "all differences equal": "no interval: all differences equal",
    "no variation between games": "no interval: no variation between games",
}


def no_interval_text(note: str | None) -> str:
    """Why a figure has no interval, for a table cell (``""`` when it has one)."""
    if not note:
        return "no interval"
    return NO_INTERVAL.get(note, f"no interval: {note}")


def fmt_rate(rate: float, lo: float, hi: float, digits: int | None = None) -> str:
    """``30.8% [29.4, 32.3]``; decimals from the interval's precision (stats.pct_digits)
    unless ``digits`` is given (a table column passes one value for all its rows)."""
    if not np.isfinite(rate):
        return "n/a"
    d = pct_digits(lo, hi) if digits is None else digits
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{_pct(rate, d)}% (no interval)"
    return f"{_pct(rate, d)}% [{_pct(lo, d)}, {_pct(hi, d)}]"


def fmt_signed_pp(
    value: float, lo: float, hi: float, digits: int | None = None, note: str | None = None
) -> str:
    """A difference of rates in percentage points: ``+4.1 pp [+2.0, +6.2]``.

    Without a finite interval the value is shown with the reason (``note``) instead of a
    zero-width or ``[-100, +100]`` interval; ``n/a`` when there is no value.
    """
    if not np.isfinite(value):
        return "n/a"
    d = pct_digits(lo, hi) if digits is None else digits
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{_pct(value, d, True)} pp ({no_interval_text(note)})"
    return f"{_pct(value, d, True)} pp [{_pct(lo, d, True)}, {_pct(hi, d, True)}]"


def fmt_mean(mean: float, lo: float, hi: float, digits: int = 2, note: str | None = None) -> str:
    if not np.isfinite(mean):
        return "n/a"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{_num(mean, digits)} ({no_interval_text(note)})"
    return f"{_num(mean, digits)} [{_num(lo, digits)}, {_num(hi, digits)}]"


def fmt_sd(sd: float, digits: int = 2) -> str:
    """A standard deviation, ``n/a`` when it is undefined (n < 2) rather than ``nan``."""
    return f"{sd:.{digits}f}" if np.isfinite(sd) else "n/a"


def fmt_count(value) -> str:
    value = float(value)
    return f"{int(value):,}" if value == int(value) else f"{value:,.1f}"


def rate_cells(df: pd.DataFrame, with_n: bool = False) -> list[str]:
    """:func:`fmt_rate` of each row of a frame with ``rate, lo, hi`` (and `` n=...``).

    Each cell has the decimals its own interval needs (stats.pct_digits): one narrow row (0
    purchases in 120,000, an interval 0.003 pp wide) must not force four decimals on every
    other row of its column ("21.6892% [21.4569, 21.9233]"); n stays next to the rate.
    """
    cells = [fmt_rate(r, lo, hi) for r, lo, hi in zip(df.rate, df.lo, df.hi, strict=True)]
    if with_n:
        cells = [f"{c} n={int(n):,}" if n else "–" for c, n in zip(cells, df.n, strict=True)]
    return cells


def mean_cells(df: pd.DataFrame, digits: int = 2) -> list[str]:
    """:func:`fmt_mean` of each row of a frame with ``mean, lo, hi`` (and ``note``)."""
    notes = df["note"] if "note" in df.columns else [""] * len(df)
    return [
        fmt_mean(m, lo, hi, digits, note)
        for m, lo, hi, note in zip(df["mean"], df.lo, df.hi, notes, strict=True)
    ]


def display_rates(
    df: pd.DataFrame,
    labels: dict[str, str],
    rate_title: str = "win rate [95% CI]",
    k_title: str = "wins",
    n_title: str = "n",
) -> pd.DataFrame:
    """A rate table for people: the label columns renamed, ``rate [lo, hi]``, k and n."""
    out = pd.DataFrame({title: df[col].map(label) for col, title in labels.items()})
    out[rate_title] = rate_cells(df)
    out[k_title] = df["k"].map(fmt_count)
    out[n_title] = df["n"].map(fmt_count)
    return out
