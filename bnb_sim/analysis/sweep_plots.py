"""Plots of a balance sweep (:mod:`bnb_sim.analysis.sweep`): one line per policy over the
variants with 95% interval whiskers, and tick labels in percentage points."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.ticker import Formatter

from bnb_sim.analysis import plots, table_format

__all__ = ["PpFormatter", "effect_plot", "pp_text"]


def _short(names: Sequence[str], paths: Sequence[str]) -> list[str]:
    """Variant labels for axes: paths shortened to their last part."""
    out = []
    for name in names:
        label = name
        for path in paths:
            label = label.replace(f"{path}=", f"{path.rsplit('.', 1)[-1]}=")
        out.append(label.replace(" (baseline)", "\n(baseline)"))
    return out


def pp_text(value: float, digits: int) -> str:
    """A change in rates in percentage points, ``+1.5 pp``; ``0 pp`` at (or rounding to)
    zero, never ``-0.0 pp``."""
    text = table_format._num(100 * value, digits, True)
    return "0 pp" if float(text) == 0.0 else f"{text} pp"


class PpFormatter(Formatter):
    """Matplotlib tick labels in percentage points with as many decimals as the tick step
    needs (ticks 0.01 pp apart do not all read ``+0.0 pp``), and ``0 pp`` for zero."""

    ticks: Sequence[float] = ()

    def set_locs(self, locs) -> None:
        self.ticks = list(locs)

    def __call__(self, x, pos=None):
        locs = np.sort(np.asarray(self.ticks, dtype=float)) * 100
        step = float(np.min(np.diff(locs))) if locs.size > 1 else 1.0
        digits = min(4, max(0, math.ceil(-math.log10(step) - 1e-9))) if step > 0 else 1
        return pp_text(x, digits)


def effect_plot(
    table: pd.DataFrame,
    variants: Sequence[str],
    policies: Sequence[str],
    paths: Sequence[str],
    title: str,
    ylabel: str,
    percent: bool,
    value: str | None = None,
    zero_line: bool = False,
):
    """One line per policy over the variants, with 95% interval whiskers.

    ``table`` has ``variant, policy`` and the value column (``rate``, ``mean`` or
    ``mean_diff``) with ``lo, hi``.
    """
    from matplotlib.ticker import PercentFormatter

    n = len(variants)
    fig, axes = plots.new_figure(4.4, width=max(7.0, 2.0 + 1.1 * n))
    ax = axes[0, 0]
    colors = plots.colors_for(list(policies))
    x = np.arange(n)
    k = max(len(policies), 1)
    for i, policy in enumerate(policies):
        part = table[table["policy"] == policy].set_index("variant").reindex(variants)
        value_col = value or ("rate" if "rate" in part.columns else "mean")
        y = part[value_col].to_numpy(dtype=float)
        lo = part["lo"].to_numpy(dtype=float)
        hi = part["hi"].to_numpy(dtype=float)
        offset = (i - (k - 1) / 2) * 0.06
        err = np.vstack([np.nan_to_num(y - lo), np.nan_to_num(hi - y)])
        ax.errorbar(
            x + offset,
            y,
            yerr=err,
            color=colors[policy],
            marker="o",
            markersize=5,
            capsize=3,
            linewidth=1.5,
            label=policy,
        )
    ax.set_xticks(x, _short(variants, paths))
    ax.set_xlim(-0.5, n - 0.5)
    if zero_line:
        ax.axhline(0.0, color="#888888", linestyle="--", linewidth=1)
        if percent:
            ax.yaxis.set_major_formatter(PpFormatter())
    elif percent:
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    plots._style(ax, title, "component variant", ylabel)
    # outside the axes: inside, "best" still covered a line when the lines are flat
    ax.legend(title="policy", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig
