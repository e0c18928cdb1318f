"""Report figures (matplotlib, headless).

Every function takes the tidy tables of :mod:`bnb_sim.analysis.tables` and returns a
:class:`matplotlib.figure.Figure`; :func:`to_png` renders one to PNG bytes. Figures are built
with the object API (``Figure``, not ``pyplot``), so nothing here touches pyplot's global
state or needs a display; the Agg backend is selected at import unless pyplot is already in
use (a notebook keeps its own backend).

Style rules: a title on every plot, axis labels with units ("XP", "turns", "win rate"),
legends where there is more than one series, constrained layout (no overlapping labels),
110 dpi.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Mapping, Sequence

import matplotlib

if "matplotlib.pyplot" not in sys.modules:
    matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import MaxNLocator, PercentFormatter  # noqa: E402

DPI = 110
WIDTH = 8.0
PALETTE = tuple(matplotlib.colormaps["tab10"].colors) + tuple(matplotlib.colormaps["Dark2"].colors)
_RC = {
    "axes.titlesize": 12,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def colors_for(names: Sequence[str]) -> dict[str, tuple]:
    """A stable colour per name (policies keep their colour across all plots)."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}


def new_figure(height: float, width: float = WIDTH, nrows: int = 1, ncols: int = 1, **kw):
    """A constrained-layout figure and its axes."""
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
        axes = fig.subplots(nrows, ncols, squeeze=False, **kw)
    return fig, axes


def to_png(fig: Figure, dpi: int = DPI) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def release(fig: Figure) -> None:
    """Empty a rendered figure (axes, artists). A figure is a reference cycle (figure,
    canvas), so its pixel buffers wait for the garbage collector; a report's 20 figures held
    about 150 MB that way, so the report collects after each one (Section.figure)."""
    fig.clear()


def _style(ax, title: str, xlabel: str | None = None, ylabel: str | None = None) -> None:
    ax.set_title(title, loc="left", fontsize=12, fontweight="bold")
    if xlabel:
        ax.set_xlabel(xlabel, fontsize=10)
    if ylabel:
        ax.set_ylabel(ylabel, fontsize=10)
    ax.tick_params(labelsize=9)
    ax.spines[["top", "right"]].set_visible(False)


def rate_bars(
    groups: Sequence[str],
    series: Mapping[str, pd.DataFrame],
    title: str,
    xlabel: str = "win rate",
    reference: float | None = None,
    reference_label: str | None = None,
    colors: Mapping[str, tuple] | None = None,
    group_title: str | None = None,
) -> Figure:
    """Horizontal bars of rates with 95% interval whiskers, one bar group per label.

    ``series`` maps a legend name to a frame with ``rate, lo, hi`` aligned to ``groups``
    (NaN rows are left empty). One series gives plain bars; several give grouped bars with a
    legend (e.g. policy x seat, "owns" vs "does not own").
    """
    n_groups, n_series = len(groups), max(len(series), 1)
    bar = 0.8 / n_series
    height = 1.4 + n_groups * (0.22 * n_series + 0.18) + (0.3 if n_series > 1 else 0)
    fig, axes = new_figure(min(max(height, 2.4), 14))
    ax = axes[0, 0]
    colors = colors or colors_for(list(series))
    y = np.arange(n_groups)
    top = 0.0
    for i, (name, df) in enumerate(series.items()):
        rate = df["rate"].to_numpy(dtype=float)
        lo = df["lo"].to_numpy(dtype=float)
        hi = df["hi"].to_numpy(dtype=float)
        pos = y - 0.4 + bar * (i + 0.5)
        err = np.vstack([rate - lo, hi - rate])
        ax.barh(
            pos,
            rate,
            height=bar * 0.92,
            color=colors.get(name),
            label=name if n_series > 1 else None,
        )
        ax.errorbar(rate, pos, xerr=err, fmt="none", ecolor="#333333", elinewidth=1, capsize=2)
        for p, r, h in zip(pos, rate, hi, strict=True):
            if np.isfinite(r):
                ax.text(h, p, f" {100 * r:.1f}%", va="center", fontsize=8 if n_series > 1 else 9)
        top = max(top, np.nanmax(hi, initial=0.0))
    if reference is not None:
        ax.axvline(reference, color="#888888", linestyle="--", linewidth=1, label=reference_label)
    ax.set_yticks(y, list(groups))
    ax.invert_yaxis()
    ax.set_xlim(0, min(1.0, top * 1.18 + 0.02) if top > 0 else 1.0)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    _style(ax, title, xlabel + " (bars: 95% CI)", group_title)
    if n_series > 1 or reference_label:
        # outside the axes, so that it never covers a bar
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def xp_distribution(hist: pd.DataFrame, means: Mapping[str, float], title: str) -> Figure:
    """Step histograms of final XP, one line per policy (``hist``: XP x policy shares)."""
    fig, axes = new_figure(4.4)
    ax = axes[0, 0]
    colors = colors_for(list(hist.columns))
    x = hist.index.to_numpy()
    for name in hist.columns:
        mean = means.get(name, np.nan)
        ax.step(
            x,
            hist[name].to_numpy(),
            where="mid",
            color=colors[name],
            linewidth=1.6,
            label=f"{name} (mean {mean:.1f})",
        )
        if np.isfinite(mean):
            ax.axvline(mean, color=colors[name], linestyle=":", linewidth=1)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=1))
    ax.set_ylim(bottom=0)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _style(ax, title, "final XP", "share of players")
    ax.legend(title="policy (dotted: mean)", loc="upper right")
    return fig


def stacked_bars(
    table: pd.DataFrame,
    title: str,
    xlabel: str,
    labels: Mapping[str, str] | None = None,
    percent: bool = False,
    total_fmt: str | None = "{:.1f}",
) -> Figure:
    """Horizontal stacked bars: one bar per row of ``table``, one segment per column."""
    rows, cols = list(table.index), list(table.columns)
    height = 1.6 + 0.45 * len(rows) + 0.25 * ((len(cols) + 3) // 4)
    fig, axes = new_figure(max(height, 2.6))
    ax = axes[0, 0]
    colors = colors_for(cols)
    left = np.zeros(len(rows))
    y = np.arange(len(rows))
    # A segment is labelled only where it is wide *on the axis* (not just a big share of a
    # short bar): short bars of weak bots had their labels run into each other.
    span = 1.0 if percent else float(table.to_numpy(dtype=float).sum(axis=1).max(initial=0))
    for col in cols:
        values = table[col].to_numpy(dtype=float)
        name = (labels or {}).get(col, str(col))
        ax.barh(y, values, left=left, color=colors[col], label=name, height=0.7)
        for yi, (lft, v) in enumerate(zip(left, values, strict=True)):
            if span > 0 and v / span >= 0.06:
                text = f"{100 * v:.0f}%" if percent else f"{v:.1f}"
                ax.text(lft + v / 2, yi, text, ha="center", va="center", fontsize=8)
        left += values
    if total_fmt and not percent:
        for yi, total in enumerate(left):
            ax.text(total, yi, " " + total_fmt.format(total), va="center", fontsize=9)
        ax.set_xlim(0, left.max() * 1.1 if left.size else 1)
    if percent:
        ax.set_xlim(0, 1)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_yticks(y, [str(r) for r in rows])
    ax.invert_yaxis()
    _style(ax, title, xlabel)
    ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, -0.18 - 0.02 * len(rows)),
        ncol=min(len(cols), 4),
        frameon=False,
    )
    return fig


def integer_histogram(counts: pd.Series, title: str, xlabel: str, ylabel: str) -> Figure:
    """Bars at each integer value (``counts`` indexed by value)."""
    fig, axes = new_figure(3.8)
    ax = axes[0, 0]
    ax.bar(counts.index.to_numpy(), counts.to_numpy(), width=0.9, color=PALETTE[0])
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    _style(ax, title, xlabel, ylabel)
    return fig


def choice_panels(wides: Mapping[str, pd.DataFrame], title: str) -> Figure:
    """One panel per scoring round: stacked share bars per policy of the values chosen."""
    n = len(wides)
    n_policies = max((len(w) for w in wides.values()), default=1)
    panel = 0.9 + 0.38 * n_policies
    fig, axes = new_figure(panel * n + 0.6, nrows=max(n, 1))
    for ax, (rnd, wide) in zip(axes[:, 0], wides.items(), strict=False):
        rows, cols = list(wide.index), list(wide.columns)
        colors = colors_for(cols)
        left = np.zeros(len(rows))
        y = np.arange(len(rows))
        for col in cols:
            values = wide[col].to_numpy(dtype=float)
            ax.barh(y, values, left=left, color=colors[col], label=str(col).replace("_", " "))
            for yi, (lft, v) in enumerate(zip(left, values, strict=True)):
                if v >= 0.08:
                    ax.text(
                        lft + v / 2, yi, f"{100 * v:.0f}%", ha="center", va="center", fontsize=8
                    )
            left += values
        ax.set_yticks(y, [str(r) for r in rows])
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        _style(ax, f"Round {rnd}", "share of the policy's choices")
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    fig.suptitle(title, fontsize=12, fontweight="bold", x=0.01, ha="left")
    return fig
