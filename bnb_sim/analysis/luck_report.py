"""The answer of ``bnb luck``: printed table, report sections, plot and summary.json.

The numbers come from :mod:`bnb_sim.analysis.luck` (estimators) over the designs of
:mod:`bnb_sim.runner.luck_play`. :func:`luck_sections` is the hook other reports use (a ladder
report can append them); :func:`build_luck_report` is the standalone report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots
from bnb_sim.analysis.figure_scope import renders_figures
from bnb_sim.analysis.luck import GroupShare, SkillShare
from bnb_sim.analysis.report_builder import Finding, ReportBuilder, Section

__all__ = [
    "LuckResult",
    "add_luck_to_report",
    "build_luck_report",
    "format_luck",
    "luck_sections",
    "luck_summary",
]

MEANING = (
    "What these numbers mean: 'alone' is how much of the game-to-game spread of the outcome "
    "one chance source explains by itself, for these bots (the part of the result you could "
    "predict from that source's draws and nothing else); 'with interactions' is how much of "
    "the spread would remain if only that source changed. What they do not mean: a small "
    "'alone' with a large 'with interactions' does not make a source unimportant; it matters "
    "in combination (the same cube helps one tile deal and hurts another), which is also why "
    "the 'alone' shares do not add up to 100%. They are not a verdict on people: human "
    "players decide differently, and the numbers change with the bot. Between equal bots "
    "every difference is luck by construction; skill shows only between rungs, head to head."
)


@dataclass
class LuckResult:
    """Shares per rung and source, the rest, and the head-to-head of adjacent rungs."""

    game: str
    title: str
    rungs: list[str]
    sources: list[tuple[str, str]]
    shares: dict[str, list[GroupShare]]  # alone (first-order)
    totals: dict[str, list[GroupShare]]  # with its interactions (total effect)
    rest: dict[str, tuple[float, float, float]]
    pairs: list[SkillShare]
    groups: int
    per_group: int
    pair_games: int
    n_boot: int
    outcome: tuple[str, str]
    seconds: dict[str, float] = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    total_games: int = 0

    def table(self) -> pd.DataFrame:
        """One row per rung and source: share, lo, hi, n (then one "rest" row per rung)."""
        rows = []
        for rung in self.rungs:
            for s in self.shares[rung]:
                rows.append({"rung": rung, "source": s.source, "share": s.share, "lo": s.lo,
                             "hi": s.hi, "n": s.n})  # fmt: skip
            est, lo, hi = self.rest[rung]
            rows.append({"rung": rung, "source": "rest", "share": est, "lo": lo, "hi": hi,
                         "n": sum(s.n for s in self.shares[rung])})  # fmt: skip
        return pd.DataFrame(rows, columns=["rung", "source", "share", "lo", "hi", "n"])

    def __repr__(self) -> str:
        return (f"<LuckResult {self.title}: rungs {', '.join(self.rungs)}; "
                f"{len(self.sources)} sources; {self.total_games:,} games>")  # fmt: skip


def _pct(x: float, digits: int = 1) -> str:
    if x is None or not math.isfinite(x):
        return "–"
    return f"{100 * min(max(x, 0.0), 1.0):.{digits}f}%"


def _ci(share: float, lo: float, hi: float, note: str | None = None) -> str:
    if note:
        return f"{_pct(share)} (by construction)"
    return f"{_pct(share)} [{_pct(lo)}, {_pct(hi)}]"


def _largest(result: LuckResult, rung: str, total: bool = False) -> GroupShare | None:
    shares = [s for s in (result.totals if total else result.shares)[rung]
              if math.isfinite(s.share) and not s.note]  # fmt: skip
    return max(shares, key=lambda s: s.share) if shares else None


def format_luck(result: LuckResult) -> str:
    """The printed answer: per rung the share of each source, then the rungs head to head."""
    key, text = result.outcome
    lines = [
        f"luck: {result.title}; outcome = {text}",
        f"{result.groups} groups of {result.per_group} games per design; alone = variance the "
        "source explains on its own (it is fixed in a group, the rest varies); with "
        "interactions = variance left when only it varies (every other source fixed); 95% "
        f"BCa bootstrap CI over groups ({result.total_games:,} games):",
    ]
    width = max(len(k) for k, _ in result.sources + [("rest (combinations)", "")])
    for rung in result.rungs:
        lines.append(f"  {rung}:".ljust(width + 6) + f"{'alone':>26}  {'with interactions':>26}")
        for s, t in zip(result.shares[rung], result.totals[rung], strict=True):
            lines.append(f"    {s.source.ljust(width)}  {_ci(s.share, s.lo, s.hi):>26}  "
                         f"{_ci(t.share, t.lo, t.hi, t.note):>26}  n={s.n + t.n:,}")  # fmt: skip
        lines.append(f"    {'rest (combinations)'.ljust(width)}  {_ci(*result.rest[rung]):>26}")
    if result.pairs:
        lines.append("rungs head to head (skill share = variance of a player's result explained "
                     "by which rung the player is; 95% bootstrap CI):")  # fmt: skip
        for p in result.pairs:
            lines.append(
                f"  {p.upper} vs {p.lower}: {p.upper} {_pct(p.p_upper)}, {p.lower} "
                f"{_pct(p.p_lower)} per {'team' if p.unit == 'deal' else 'player'}; weaker rung wins {_ci(p.weaker_wins, p.weaker_lo, p.weaker_hi)} "  # noqa: E501
                f"(equal rungs: {_pct(p.fair_share)}); skill share {_ci(p.share, p.lo, p.hi)}; "
                f"n={p.n:,} {p.unit}s"
            )
    lines.append(MEANING)
    return "\n".join(lines)


def _bars(ax, result: LuckResult, values: dict, labels: list[str], title: str,
          legend: bool = False) -> None:  # fmt: skip
    colors = plots.colors_for(result.rungs)
    n = len(result.rungs)
    bar = 0.8 / n
    y = np.arange(len(labels))
    for i, rung in enumerate(result.rungs):
        vals = values[rung]
        est = np.array([100 * min(max(v[0], 0.0), 1.0) if math.isfinite(v[0]) else np.nan
                        for v in vals])  # fmt: skip
        lo = np.array([100 * v[1] for v in vals], dtype=float)
        hi = np.array([100 * v[2] for v in vals], dtype=float)
        err = np.vstack([np.nan_to_num(np.maximum(est - lo, 0)),
                         np.nan_to_num(np.maximum(hi - est, 0))])  # fmt: skip
        pos = y - 0.4 + bar * (i + 0.5)
        ax.barh(pos, est, height=bar, color=colors[rung], label=rung)
        ax.errorbar(est, pos, xerr=err, fmt="none", ecolor="#333333", capsize=2, linewidth=1)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    if n > 1 and legend:  # below the axis: bars reach 100% at either end of the panel
        ax.legend(title="rung (every seat)", fontsize=8, title_fontsize=8, ncol=n,
                  loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)  # fmt: skip
    plots._style(ax, title, "% of the outcome's variance (95% CI)", None)


def shares_plot(result: LuckResult):
    """Two panels of grouped horizontal bars with 95% whiskers, one bar per rung: what each
    source explains alone (and the rest), then with its interactions."""
    keys = [k for k, _ in result.sources]
    height = 0.4 * (2 * len(keys) + 1) * max(1, len(result.rungs)) ** 0.5 + 2.2
    fig, axes = plots.new_figure(height, nrows=2)
    alone = {r: [(s.share, s.lo, s.hi) for s in result.shares[r]] + [result.rest[r]]
             for r in result.rungs}  # fmt: skip
    _bars(axes[0, 0], result, alone, keys + ["rest (combinations)"],
          "Luck: what each chance source decides on its own")  # fmt: skip
    total = {r: [(s.share, s.lo, s.hi) for s in result.totals[r]] for r in result.rungs}
    _bars(axes[1, 0], result, total, keys,
          "... and with its interactions (only this source varies)", legend=True)  # fmt: skip
    return fig


def _share_table(result: LuckResult) -> pd.DataFrame:
    data: dict[str, list[str]] = {"source": [f"{k}: {t}" for k, t in result.sources]
                                  + ["rest: only combinations of sources explain it"]}  # fmt: skip
    for rung in result.rungs:
        cells = [_ci(s.share, s.lo, s.hi) for s in result.shares[rung]]
        data[f"{rung}: alone [95% CI]"] = cells + [_ci(*result.rest[rung])]
        cells = [_ci(s.share, s.lo, s.hi, s.note) for s in result.totals[rung]]
        data[f"{rung}: with interactions [95% CI]"] = cells + ["–"]
    return pd.DataFrame(data)


def _pair_table(result: LuckResult) -> pd.DataFrame:
    return pd.DataFrame({
        "rungs": [f"{p.upper} vs {p.lower}" for p in result.pairs],
        "win rate per player (upper / lower)": [f"{_pct(p.p_upper)} / {_pct(p.p_lower)}"
                                                for p in result.pairs],
        "weaker rung wins [95% CI]": [_ci(p.weaker_wins, p.weaker_lo, p.weaker_hi)
                                      for p in result.pairs],
        "if equal": [_pct(p.fair_share) for p in result.pairs],
        "skill share [95% CI]": [_ci(p.share, p.lo, p.hi) for p in result.pairs],
        "n": [f"{p.n:,} {p.unit}s" for p in result.pairs],
    })  # fmt: skip


def luck_sections(result: LuckResult) -> list[Section]:
    """ "Luck and skill": the design, the shares (table and plot), the rungs head to head and
    what the numbers mean and do not mean."""
    key, text = result.outcome
    luck = Section("Luck and skill")
    luck.text(
        f"Outcome: {text}. For each rung every seat plays that bot. For each chance source, "
        f"{result.groups} groups of {result.per_group} games share that source's draws while "
        "every other source varies (each source has its own random stream, seeded from the "
        "group instead of the game): **alone** is the one-way random-effects ANOVA estimate "
        "of the variance between groups over the total (the intraclass correlation: the "
        "variance the source explains on its own). A second design fixes every *other* source "
        "in a group, so only this one varies: **with interactions** is the variance left "
        "inside the groups over the total (the source's total effect). 95% BCa bootstrap "
        f"intervals over groups ({result.n_boot:,} resamples). Rest: 1 minus the sum of the "
        "alone shares, the part only combinations of sources explain."
    )
    luck.table(_share_table(result))
    luck.figure("luck-shares", shares_plot(result),
                "Share of the outcome's variance each chance source explains on its own (top) "
                "and with its interactions (bottom), per rung, with 95% bootstrap intervals "
                "over groups.")  # fmt: skip
    if result.pairs:
        luck.heading("Skill: the rungs head to head")
        luck.text(
            "Each rung against the next one up. Skill share: the share of the variance of a "
            "player's result explained by which of the two rungs the player is (for two "
            "players (2p - 1)², p the stronger rung's win rate); the weaker rung's wins show "
            "how often luck overturns the difference. 95% percentile bootstrap intervals over "
            "games (deals, when both teams play each deal)."
        )
        luck.table(_pair_table(result))
    luck.heading("What these numbers mean and do not mean")
    luck.text(MEANING)
    return [luck]


def luck_summary(result: LuckResult) -> dict[str, Any]:
    """Machine-readable numbers (summary.json and --json)."""
    return {
        "kind": "luck",
        "game": result.game,
        "title": result.title,
        "outcome": result.outcome[0],
        "outcome_text": result.outcome[1],
        "rungs": result.rungs,
        "sources": [{"source": k, "what": t} for k, t in result.sources],
        "groups": result.groups,
        "per_group": result.per_group,
        "pair_games": result.pair_games,
        "bootstrap": result.n_boot,
        "n_games": result.total_games,
        "shares": {r: [s.to_dict() for s in result.shares[r]] for r in result.rungs},
        "totals": {r: [s.to_dict() for s in result.totals[r]] for r in result.rungs},
        "rest": {
            r: dict(
                zip(
                    ("share", "lo", "hi"),
                    (None if not math.isfinite(v) else v for v in result.rest[r]),
                    strict=True,
                )
            )
            for r in result.rungs
        },  # fmt: skip
        "pairs": [p.to_dict() for p in result.pairs],
        "seconds": result.seconds,
        "params": result.params,
        "meaning": MEANING,
    }


def luck_findings(result: LuckResult) -> list[Finding]:
    out = []
    for rung in result.rungs:
        top, whole = _largest(result, rung), _largest(result, rung, total=True)
        if top is None or whole is None:
            continue
        out.append(Finding(
            f"With {rung} in every seat, the chance source that decides most on its own is "
            f"{top.source}: {_ci(top.share, top.lo, top.hi)} of the outcome's variance; with "
            f"its interactions, {whole.source} touches {_ci(whole.share, whole.lo, whole.hi)} "
            f"(n = {top.n:,} games per design); {_ci(*result.rest[rung])} arises only from "
            "combinations of sources.",
            {"kind": "luck_top_source", "rung": rung, "alone": top.to_dict(),
             "with_interactions": whole.to_dict()},
        ))  # fmt: skip
    for p in result.pairs:
        out.append(Finding(
            f"{p.lower} still wins {_ci(p.weaker_wins, p.weaker_lo, p.weaker_hi)} against "
            f"{p.upper} (equal rungs: {_pct(p.fair_share)}); which rung a player is explains "
            f"{_ci(p.share, p.lo, p.hi)} of the variance of a player's result (n = {p.n:,}).",
            {"kind": "luck_skill_share", **p.to_dict()},
        ))  # fmt: skip
    return out


def add_luck_to_report(builder: ReportBuilder, result: LuckResult) -> ReportBuilder:
    """Append the luck sections, findings and ``summary["luck"]`` to another report (the hook
    for ``bnb ladder``'s report)."""
    for section in luck_sections(result):
        builder.add(section)
    builder.summary["luck"] = luck_summary(result)
    builder.findings += luck_findings(result)
    return builder


@renders_figures()
def build_luck_report(result: LuckResult) -> ReportBuilder:
    """The standalone report of ``bnb luck``."""
    builder = ReportBuilder(
        f"bnb-sim luck and skill: {result.title}",
        f"rungs {', '.join(result.rungs)} · {result.groups} groups of {result.per_group} per "
        f"source · {result.total_games:,} games",
    )
    for section in luck_sections(result):
        builder.add(section)
    builder.summary.update(luck_summary(result))
    builder.findings += luck_findings(result)
    return builder
