"""Who is best, tested: the top entry of a ranking against the others (docs/statistics.md).

A ranking by point estimates always has a first entry, even when every entry played every
game identically. Every "best" (or "worst") that bnb-sim states goes through this module:

* **best only when separated.** The first entry is called best only when its paired gap to
  the runner-up, and to every other entry it was compared with, excludes 0 at 95%. That is an
  intersection-union test: "best" is wrongly claimed at most 5% of the time whatever the
  number of entries, so the comparisons need no multiplicity adjustment. Otherwise the
  first entry is *tied with* every entry whose gap does not exclude 0 ("no detectable
  difference"). The worst entry is treated the same way from the bottom.
* **selected comparisons.** A "vs best" column compares every entry with an entry chosen as
  the best on the same data: its intervals are unadjusted 95% intervals that lean toward the
  best (selected), and its p values are Holm-adjusted over the comparisons (:func:`holm`).

The gaps come from paired designs (:class:`Gap`): per-game differences of entries played on
the same game indices (:func:`paired_ranking`), cluster-robust differences of two rates whose
rows share games (:func:`rate_gaps_by_cluster`), or bootstrap replicates that resampled the
same seeds for every entry (:func:`gaps_from_replicates`). Numpy only at import.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "Gap",
    "Leader",
    "Ranking",
    "gaps_from_replicates",
    "holm",
    "largest_of",
    "leader_of",
    "paired_gap",
    "paired_ranking",
    "rate_gaps_by_cluster",
]

SELECTED_NOTE = (
    "the best is chosen on these same games, so these intervals are unadjusted 95% intervals "
    "that lean toward it (a selected comparison); the p values are Holm-adjusted over the {k} "
    "comparisons"
)


def largest_of(effects: Sequence[float]) -> str:
    """A finding that reports the largest of several effects says so (a selected comparison
    whose interval is unadjusted)."""
    k = int(np.isfinite(np.asarray(effects, dtype=float)).sum())
    return f"the largest of {k} effects, an unadjusted 95% interval" if k > 1 else "one effect"


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p values (NaN stays NaN and counts as no test).

    The i-th smallest of m p values becomes ``max_{j<=i} min(1, (m - j + 1) p_(j))``; a
    hypothesis is rejected at level α when its adjusted p value is at most α, which controls
    the family-wise error rate over the m comparisons.
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out


@dataclass(frozen=True)
class Gap:
    """The estimate of ``first − other`` with its 95% interval, n and p value.

    ``unit`` is ``"pp"`` for rate differences (stored as fractions, shown in percentage
    points), ``"Elo"``, or a free text unit (``"score"``); ``method`` says how the interval
    was made."""

    mean: float
    lo: float
    hi: float
    n: int
    p_value: float = math.nan
    unit: str = "pp"
    method: str = ""
    note: str = ""

    @property
    def excludes_zero(self) -> bool:
        """Whether the 95% interval lies wholly on one side of 0."""
        return bool(
            (math.isfinite(self.lo) and self.lo > 0) or (math.isfinite(self.hi) and self.hi < 0)
        )

    def text(self) -> str:
        """``+2.3 pp [-0.8, +5.4]``, ``+3 [-4, +9] Elo``, ``+0.80 [-1.21, +2.82] score``."""
        if self.unit == "pp":
            from bnb_sim.analysis.table_format import fmt_signed_pp

            return fmt_signed_pp(self.mean, self.lo, self.hi, note=self.note or None)
        digits = 1 if self.unit == "Elo" else 2
        if not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            return f"{_signed(self.mean, digits)} {self.unit} (no interval)"
        ends = f"{_signed(self.lo, digits)}, {_signed(self.hi, digits)}"
        return f"{_signed(self.mean, digits)} [{ends}] {self.unit}"

    def to_dict(self) -> dict[str, Any]:
        return {"mean_diff": self.mean, "lo": self.lo, "hi": self.hi, "n": self.n,
                "p_value": self.p_value, "unit": self.unit, "method": self.method,
                "excludes_zero": self.excludes_zero}  # fmt: skip


def _signed(value: float, digits: int) -> str:
    """``+1.5``, ``-0.4``, and ``0.0`` for a value that rounds to zero (never ``-0.0``)."""
    text = f"{value:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


@dataclass(frozen=True)
class Leader:
    """The first entry of a ranking and its gaps to the others (``first − other``).

    ``first`` is the best (or, with ``side="worst"``, the worst) entry by point estimate;
    ``others`` the rest in rank order (the runner-up first). :attr:`separated` says whether
    the data tell the first apart from every other entry; :attr:`tied` lists the entries
    they do not."""

    first: str
    others: tuple[str, ...]
    gaps: Mapping[str, Gap]
    side: str = "best"

    @property
    def runner_up(self) -> str | None:
        return self.others[0] if self.others else None

    @property
    def gap(self) -> Gap | None:
        """The gap to the runner-up."""
        return self.gaps.get(self.runner_up) if self.runner_up is not None else None

    @property
    def separated(self) -> bool:
        """True when every gap excludes 0 (in the ranking's direction): the first is then
        the best (worst) one; False when any other entry may be as good (as bad)."""
        if not self.others:
            return False
        sign = 1.0 if self.side == "best" else -1.0
        return all(
            g is not None and g.excludes_zero and sign * g.mean > 0
            for g in (self.gaps.get(o) for o in self.others)
        )

    @property
    def tied(self) -> tuple[str, ...]:
        """Entries not told apart from the first (empty when :attr:`separated`)."""
        if self.separated:
            return ()
        out = tuple(o for o in self.others if o in self.gaps and not self.gaps[o].excludes_zero)
        return out or tuple(o for o in self.others[:1])

    def claim(self, verb: str, name: Callable[[str], str] | None = None) -> str:
        """A sentence that says "best" only when the data do.

        ``verb`` completes "X ..." (``"wins most often"``, ``"rates highest"``): separated,
        ``"**X** wins most often (+4.9 pp [+3.1, +6.7] ahead of the runner-up Y)"``; not,
        ``"no detectable difference at the top: **X** is tied with Y (X − Y: +2.3 pp
        [-0.8, +5.4])"``. ``name`` formats an entry (default ``**name**``)."""
        show = name or (lambda s: f"**{s}**")
        gap = self.gap
        if gap is None:
            if self.runner_up is None:
                return f"{show(self.first)} {verb}"
            return (f"{show(self.first)} is ranked {'first' if self.side == 'best' else 'last'} "
                    f"(no interval to test its gap to {self.runner_up})")  # fmt: skip
        where = "the top" if self.side == "best" else "the bottom"
        if self.separated:
            other = "ahead of the runner-up" if self.side == "best" else "against the next-to-last,"
            return f"{show(self.first)} {verb} ({gap.text()} {other} {self.runner_up})"
        tied = self.tied
        names = ", ".join(tied[:4]) + (f" and {len(tied) - 4} more" if len(tied) > 4 else "")
        return (
            f"no detectable difference at {where}: {show(self.first)} is tied with {names} "
            f"({self.first} − {self.runner_up}: {gap.text()})"
        )

    def label(self) -> str:
        """The first entry's cell in a ranking table: ``"(best)"`` or ``"(first; tied)"``."""
        if self.separated:
            return f"({self.side})"
        return "(ranked first; tied)" if self.side == "best" else "(ranked last; tied)"

    def to_dict(self) -> dict[str, Any]:
        """For summary.json: ``best`` (or ``worst``) is null unless separated; ``gaps`` has
        every gap (``first − other``) in rank order; :meth:`from_dict` reads it back."""
        return {
            self.side: self.first if self.separated else None,
            "side": self.side,
            "ranked_first": self.first,
            "separated": self.separated,
            "runner_up": self.runner_up,
            "others": list(self.others),
            "tied_with": list(self.tied),
            "gap_to_runner_up": self.gap.to_dict() if self.gap is not None else None,
            "gaps": {o: self.gaps[o].to_dict() for o in self.others if o in self.gaps},
            "rule": f"{self.side} only when the paired 95% interval of the gap to every other "
            "entry excludes 0",
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Leader:
        """The :class:`Leader` of :meth:`to_dict` (a report's summary)."""

        def num(x: Any) -> float:
            return math.nan if x is None else float(x)

        gaps = {
            str(o): Gap(num(g["mean_diff"]), num(g["lo"]), num(g["hi"]), int(g["n"] or 0),
                        num(g.get("p_value")), g.get("unit", "pp"), g.get("method", ""))
            for o, g in (data.get("gaps") or {}).items()
        }  # fmt: skip
        side = data.get("side", "best")
        others = tuple(str(o) for o in data.get("others") or gaps)
        return cls(str(data["ranked_first"]), others, gaps, side)


def leader_of(order: Sequence[str], gaps: Mapping[str, Gap], side: str = "best") -> Leader:
    """The :class:`Leader` of ``order`` (best first; for ``side="worst"`` worst first) from
    the gaps ``first − other`` of the entries compared."""
    order = [str(o) for o in order]
    return Leader(order[0], tuple(order[1:]), dict(gaps), side)


# --------------------------------------------------------------------------------------------
# gaps


def paired_gap(a: Any, b: Any, bounds: tuple[float, float] = (-1.0, 1.0)) -> Gap:
    """``mean(a − b)`` over paired game indices: Student t interval on the per-game
    differences; when they are all equal, the bound of
    :func:`~bnb_sim.analysis.stats.constant_sample_interval` for differences in ``bounds``."""
    from bnb_sim.analysis.stats_paired import paired_difference

    d = paired_difference(a, b, bounds=bounds)
    return Gap(d["mean_diff"], d["lo"], d["hi"], int(d["n"]), d["p_value"], "pp",
               "paired t over game indices", d["note"])  # fmt: skip


@dataclass
class Ranking:
    """Entries ranked by their mean outcome on the same game indices, with each entry's
    paired difference from the top (``entry − top``, Holm-adjusted p values) and the
    verdicts on the top and the bottom."""

    order: list[str]
    means: dict[str, float]
    vs_top: dict[str, dict[str, Any]]  # entry -> paired_difference dict + "p_holm"
    leader: Leader
    trailer: Leader
    n: int
    comparisons: int = field(default=0)

    def selected_note(self) -> str:
        return SELECTED_NOTE.format(k=self.comparisons)


def paired_ranking(
    outcomes: Mapping[str, Any], bounds: tuple[float, float] = (-1.0, 1.0)
) -> Ranking:
    """Rank ``{label: per-game outcomes}`` (the same game indices in every array) by mean.

    Every entry's paired difference from the top (entry − top, t interval, bound when all
    differences are equal) and Holm-adjusted p values over those ``K − 1`` comparisons; the
    :class:`Leader` of the top (gaps top − entry) and of the bottom (bottom − entry).
    Equal means keep the order of ``outcomes``."""
    from bnb_sim.analysis.stats_paired import paired_difference

    arrays = {str(k): np.asarray(v, dtype=float) for k, v in outcomes.items()}
    means = {k: float(np.nanmean(v)) if v.size else math.nan for k, v in arrays.items()}
    labels = list(arrays)
    order = sorted(labels, key=lambda k: (-means[k], labels.index(k)))
    top, bottom = order[0], order[-1]
    vs_top = {k: paired_difference(arrays[k], arrays[top], bounds=bounds) for k in order[1:]}
    adjusted = holm([vs_top[k]["p_value"] for k in order[1:]])
    for k, p in zip(order[1:], adjusted, strict=True):
        vs_top[k]["p_holm"] = float(p)
    best = {k: paired_gap(arrays[top], arrays[k], bounds) for k in order[1:]}
    worst = {k: paired_gap(arrays[bottom], arrays[k], bounds) for k in order[-2::-1]}
    n = int(next(iter(arrays.values())).size) if arrays else 0
    return Ranking(
        order=order,
        means=means,
        vs_top=vs_top,
        leader=leader_of(order, best, "best"),
        trailer=leader_of(order[::-1], worst, "worst"),
        n=n,
        comparisons=len(order) - 1,
    )


def gaps_from_replicates(
    order: Sequence[str],
    estimates: Mapping[str, float],
    replicates: Mapping[str, np.ndarray],
    unit: str = "Elo",
    confidence: float = 0.95,
    method: str = "percentile bootstrap over seeds",
) -> dict[str, Gap]:
    """Gaps ``first − other`` from bootstrap replicates that resampled the same units for
    every entry (``replicates[label][r]``): percentile interval of the replicate gaps, p value
    ``2·min(share <= 0, share >= 0)``. The first entry is ``order[0]``."""
    first = order[0]
    out = {}
    tail = (1.0 - confidence) / 2.0
    for other in order[1:]:
        reps = np.asarray(replicates[first], float) - np.asarray(replicates[other], float)
        reps = reps[np.isfinite(reps)]
        mean = float(estimates[first] - estimates[other])
        if reps.size < 2:
            out[other] = Gap(mean, math.nan, math.nan, int(reps.size), math.nan, unit, method)
            continue
        lo, hi = np.quantile(reps, [tail, 1.0 - tail])
        p = min(1.0, 2.0 * min(float(np.mean(reps <= 0)), float(np.mean(reps >= 0))))
        out[other] = Gap(mean, float(lo), float(hi), int(reps.size), p, unit, method)
    return out


def rate_gaps_by_cluster(
    df: Any,
    by: str,
    cluster: str,
    order: Sequence[str],
    column: str = "won",
    confidence: float = 0.95,
) -> dict[str, Gap]:
    """Gaps ``rate(order[0]) − rate(other)`` of the groups ``df[by]`` whose rows share the
    clusters ``df[cluster]`` (a policy's win rate over its seats, clustered by game).

    Each group's rate is the ratio ``Σ_g Y_g / Σ_g M_g`` of its rows in cluster ``g``. The
    difference of two such ratios is linearised per cluster,
    ``r_g = (Y_ag − p_a M_ag)/N_a − (Y_bg − p_b M_bg)/N_b``, so the rows of one game (where
    both policies sat: the comparison is paired) stay together: ``se² = G/(G−1)·Σ r_g²`` and
    the interval is ``gap ± t_{G−1}·se``. When ``se = 0`` (no game told them apart) the
    bound of :func:`~bnb_sim.analysis.stats.constant_sample_interval` over the ``G`` clusters
    is used (a difference lies in [−1, 1]). The sums are taken block by block of whole
    games (:func:`~bnb_sim.analysis.tables.game_blocks`), so memory stays bounded.
    """
    from scipy.special import stdtr

    from bnb_sim.analysis import table_blocks
    from bnb_sim.analysis.stats_intervals import _t, constant_sample_interval

    codes, names = table_blocks._narrow_codes(df[by])
    index = {name: i for i, name in enumerate(names)}
    values = np.asarray(df[column], dtype=float)
    clusters = np.asarray(df[cluster])
    ok = ~np.isnan(values)
    k = len(names)
    totals = np.bincount(codes[ok].astype(np.int64), weights=values[ok], minlength=k)
    counts = np.bincount(codes[ok].astype(np.int64), minlength=k).astype(float)
    first = index.get(str(order[0]))
    others = [(str(o), index.get(str(o))) for o in order[1:]]
    ss = np.zeros(len(others))
    g = 0
    for rows in table_blocks.game_blocks(clusters):
        c = table_blocks._game_codes(clusters[rows])
        keep = ok[rows]
        c, pol, v = c[keep], codes[rows][keep].astype(np.int64), values[rows][keep]
        if not c.size:
            continue
        c = np.unique(c, return_inverse=True)[1]
        n_c = int(c.max()) + 1
        g += n_c
        y = np.bincount(c * k + pol, weights=v, minlength=n_c * k).reshape(n_c, k)
        m = np.bincount(c * k + pol, minlength=n_c * k).reshape(n_c, k).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            resid = (y - (totals / counts) * m) / counts  # (clusters, groups)
        for j, (_, i) in enumerate(others):
            if first is not None and i is not None:
                r = resid[:, first] - resid[:, i]
                ss[j] += float(r @ r)
    out = {}
    method = "difference of rates, cluster-robust t by game"
    for j, (label, i) in enumerate(others):
        if first is None or i is None or not counts[first] or not counts[i] or g < 2:
            out[label] = Gap(math.nan, math.nan, math.nan, g, math.nan, "pp", method)
            continue
        gap = float(totals[first] / counts[first] - totals[i] / counts[i])
        se = math.sqrt(g / (g - 1.0) * ss[j])
        if se > 1e-15:
            half = _t(confidence, g - 1) * se
            p = float(2.0 * stdtr(g - 1, -abs(gap / se)))
            out[label] = Gap(gap, gap - half, gap + half, g, p, "pp", method)
        else:
            lo, hi = constant_sample_interval(gap, g, (-1.0, 1.0), confidence)
            p = 1.0 if lo <= 0.0 <= hi else 0.0
            out[label] = Gap(gap, lo, hi, g, p, "pp", method, "all differences equal")
    return out
