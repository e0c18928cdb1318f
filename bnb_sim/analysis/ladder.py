"""A ladder of play strength: each rung against the next on paired seeds, one Elo scale.

Design (``bnb ladder``, docs/policies.md "Ladder"):

* **Rungs** are policies in the order the user expects them to grow in strength (default
  :data:`DEFAULT_RUNGS`). Only adjacent rungs meet: step ``i`` plays rung ``i`` against rung
  ``i + 1`` as a two-policy round robin in every cyclic seating on the same game indices
  (:mod:`bnb_sim.runner.ladder_play`), so seat and deal cancel within a step.
* **Step score**: the score of the upper rung against the lower one over their meetings
  (better rank wins, equal ranks ½; with two players the mean pair score of the seats-swapped
  pair), with n = meetings and the 95% percentile bootstrap interval over seeds of
  :func:`bnb_sim.analysis.tournament.analyse_tournament` (a seed carries every game of every
  step played on it, so the dependence the shared deals create stays inside the unit).
* **Scale**: the same function's Bradley-Terry fit over all steps (a chain is connected, so
  every rung gets an Elo), anchored to ``random`` when it is a rung, with bootstrap intervals.
* **Skill depth**: the number of steps whose interval lies wholly above 50% (the upper rung is
  separated from the one below it); a step wholly below 50% is *reversed* (the rung is weaker
  than the one under it) and never counts.
* **Upsets**: how often the weaker rung of a step (the one scoring under 50%) still wins a
  game of the step, per seat and game, with a Wilson interval clustered by seed
  (:func:`bnb_sim.analysis.stats.rates_by_cluster`).

Nothing here imports numba.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots, table_format
from bnb_sim.analysis.figure_scope import renders_figures
from bnb_sim.analysis.ratings import _fmt_elo
from bnb_sim.analysis.report_builder import Finding, ReportBuilder, Section
from bnb_sim.analysis.report_provenance import readings_text
from bnb_sim.analysis.stats_clustered import rates_by_cluster
from bnb_sim.analysis.stats_intervals import pct_digits
from bnb_sim.analysis.tournament_analysis import TournamentResult, analyse_tournament

__all__ = [
    "DEFAULT_RUNGS",
    "LadderResult",
    "analyse_ladder",
    "build_ladder_report",
    "format_ladder",
    "ladder_summary",
    "separated_steps",
]

#: random; the heuristic blind to the board's scoring (XP now, blocks, weapons: a player who
#: ignores the scoring cards); the one-step bots; search; the trained bot. Each was measured
#: clearly above the one before (docs/policies.md, "Ladder"); `ismcts` at 16 iterations was
#: dropped (no better than `heuristic`), and `strong` beats `ismcts` at 64 iterations, so it
#: is the top
DEFAULT_RUNGS = (
    "random",
    "heuristic:board=0",
    "greedy",
    "heuristic",
    "ismcts:iterations=64",
    "strong",
)

STEP_COLUMNS = [
    "step", "lower", "upper", "score", "lo", "hi", "n", "separated", "reversed", "weaker",
    "upset", "upset_lo", "upset_hi", "upset_n", "seconds",
]  # fmt: skip


def separated_steps(lo: Sequence[float], hi: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """``(separated, reversed)`` masks of the steps: the upper rung's score interval lies
    wholly above 50% (separated) or wholly below it (reversed). A missing bound is neither."""
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    with np.errstate(invalid="ignore"):
        return (np.isfinite(lo) & (lo > 0.5)), (np.isfinite(hi) & (hi < 0.5))


@dataclass
class LadderResult:
    """The steps, the Elo scale and the skill depth of a ladder."""

    rungs: list[str]
    players: int
    seeds: int
    seed: int
    steps: pd.DataFrame  # STEP_COLUMNS, one row per adjacent pair, bottom first
    scale: pd.DataFrame  # rung, elo, lo, hi, games (rung order, bottom first)
    skill_depth: int
    n_games: int
    anchor: str | None
    n_boot: int
    tournament: TournamentResult = field(repr=False)
    params: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return (
            f"<LadderResult {' < '.join(self.rungs)}: {self.players} players, {self.seeds:,} "
            f"seeds, {self.n_games:,} games; skill depth {self.skill_depth} of "
            f"{len(self.rungs) - 1} steps>"
        )


def _upsets(seats: pd.DataFrame, weaker: Sequence[str | None]) -> list[dict]:
    """Win rate of the weaker rung in the games of its step (Wilson, clustered by seed)."""
    out = []
    for step, name in enumerate(weaker):
        if name is None:
            out.append({"upset": math.nan, "upset_lo": math.nan, "upset_hi": math.nan,
                        "upset_n": 0})  # fmt: skip
            continue
        rows = seats.loc[(seats["step"] == step) & (seats["policy"] == name)]
        rate = rates_by_cluster(rows[["policy", "seed_index", "won"]], "policy", "seed_index")
        r = rate.iloc[0]
        out.append({"upset": float(r["rate"]), "upset_lo": float(r["lo"]),
                     "upset_hi": float(r["hi"]), "upset_n": int(r["n"])})  # fmt: skip
    return out


def analyse_ladder(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    *,
    rungs: Sequence[str],
    players: int,
    seed: int = 0,
    n_boot: int = 1000,
    combos: Sequence[Sequence[str]] | None = None,
    seconds: Sequence[float] | None = None,
    params: dict | None = None,
) -> LadderResult:
    """Steps, scale and skill depth of a ladder's frames (see the module doc).

    ``seats`` needs the tournament columns (``game, seed_index, seat, policy, rank, won``)
    and ``step`` (the index of the lower rung of the pair the game belongs to).
    """
    names = list(rungs)
    result = analyse_tournament(
        seats,
        games,
        policies=names,
        players=players,
        seed=seed,
        n_boot=n_boot,
        anchor="auto",
        combos=combos,
        params=params,
        name="ladder",
    )
    rows = []
    for step, (lower, upper) in enumerate(zip(names, names[1:], strict=False)):
        n = int(result.h2h_n.loc[upper, lower])
        score = float(result.h2h_score.loc[upper, lower]) if n else math.nan
        rows.append({"step": step, "lower": lower, "upper": upper, "score": score,
                     "lo": float(result.h2h_lo.loc[upper, lower]) if n else math.nan,
                     "hi": float(result.h2h_hi.loc[upper, lower]) if n else math.nan,
                     "n": n})  # fmt: skip
    steps = pd.DataFrame(rows, columns=["step", "lower", "upper", "score", "lo", "hi", "n"])
    sep, rev = separated_steps(steps["lo"], steps["hi"])
    steps["separated"], steps["reversed"] = sep, rev
    weaker = [
        None if not math.isfinite(s) or s == 0.5 else (lo if s > 0.5 else up)
        for s, lo, up in zip(steps["score"], steps["lower"], steps["upper"], strict=True)
    ]
    steps["weaker"] = weaker
    upsets = pd.DataFrame(_upsets(seats, weaker), index=steps.index)
    steps = pd.concat([steps, upsets], axis=1)
    secs = list(seconds) if seconds is not None else [math.nan] * len(steps)
    steps["seconds"] = [float(s) for s in secs]
    scale = (
        result.ratings.set_index("policy")
        .reindex(names)
        .reset_index()
        .rename(columns={"policy": "rung"})
    )
    return LadderResult(
        rungs=names,
        players=int(players),
        seeds=result.seeds,
        seed=int(seed),
        steps=steps[STEP_COLUMNS],
        scale=scale,
        skill_depth=int(sep.sum()),
        n_games=result.n_games,
        anchor=result.anchor,
        n_boot=int(n_boot),
        tournament=result,
        params=dict(params or {}),
    )


# --------------------------------------------------------------------------------------
# output


def _step_cells(steps: pd.DataFrame) -> tuple[list[str], list[str]]:
    digits = pct_digits(steps["lo"].to_numpy(float), steps["hi"].to_numpy(float))
    scores = [table_format.fmt_rate(s, lo, hi, digits) for s, lo, hi in
              zip(steps["score"], steps["lo"], steps["hi"], strict=True)]  # fmt: skip
    upsets = [
        "–" if w is None else f"{w}: {table_format.fmt_rate(u, lo, hi)}"
        for w, u, lo, hi in zip(
            steps["weaker"], steps["upset"], steps["upset_lo"], steps["upset_hi"], strict=True
        )
    ]
    return scores, upsets


def _verdict(row) -> str:
    return "separated" if row.separated else ("reversed" if row.reversed else "not separated")


def format_ladder(result: LadderResult) -> str:
    """The printed table: each step, the scale, the skill depth."""
    lines = [
        f"ladder: {len(result.rungs)} rungs, {result.players} players, {result.seeds:,} seeds "
        f"per seating, {result.n_games:,} games",
        "step score = the upper rung's score against the lower one (win 1, tie ½), 95% "
        "bootstrap CI over seeds, n = meetings; upset = the weaker rung's win rate in the "
        "step's games (95% CI clustered by seed):",
    ]
    scores, upsets = _step_cells(result.steps)
    width = max(len(f"{r.upper} vs {r.lower}") for r in result.steps.itertuples())
    for row, score, upset in zip(result.steps.itertuples(), scores, upsets, strict=True):
        pair = f"{row.upper} vs {row.lower}".ljust(width)
        lines.append(f"  {pair}  {score:>24} n={row.n:,}  {_verdict(row):<13}  upset {upset}")
    zero = f"{result.anchor} = 0" if result.anchor else "mean 0"
    lines.append(f"Bradley-Terry Elo ({zero}), 95% bootstrap CI over seeds:")
    rung_w = max(len(r) for r in result.rungs)
    for row in result.scale.itertuples():
        lines.append(f"  {row.rung.ljust(rung_w)}  {_fmt_elo(row.elo, row.lo, row.hi):>22}")
    lines.append(
        f"skill depth: {result.skill_depth} of {len(result.rungs) - 1} steps separated "
        "(lower bound above 50%)"
    )
    return "\n".join(lines)


def scale_plot(result: LadderResult):
    """Two panels: the Elo of each rung (bottom first) with 95% bootstrap whiskers, the
    separated steps drawn solid; below, each step's score with its interval against 50%
    (the scale's intervals carry the uncertainty of every step below a rung, the step
    intervals only their own)."""
    scale, steps = result.scale, result.steps
    n = len(scale)
    fig, axes = plots.new_figure(6.4, nrows=2)
    ax, bx = axes[0, 0], axes[1, 0]
    x = np.arange(n)
    elo = scale["elo"].to_numpy(dtype=float)
    lo = scale["lo"].to_numpy(dtype=float)
    hi = scale["hi"].to_numpy(dtype=float)
    err = np.vstack([np.nan_to_num(elo - lo), np.nan_to_num(hi - elo)])
    for row in steps.itertuples():
        i = int(row.step)
        style = "-" if row.separated else ":"
        ax.plot([i, i + 1], [elo[i], elo[i + 1]], style, color="#4477aa", linewidth=1.5)
    ax.errorbar(x, elo, yerr=err, fmt="o", color="#222222", ecolor="#333333", capsize=4)
    for xi, e in zip(x, elo, strict=True):
        ax.annotate(f"{e:+.0f}", (xi, e), textcoords="offset points", xytext=(6, -4),
                    fontsize=8)  # fmt: skip
    ax.set_xticks(x, list(scale["rung"]), rotation=20, ha="right")
    zero = f"{result.anchor} = 0" if result.anchor else "mean = 0"
    plots._style(
        ax,
        f"Ladder: skill depth {result.skill_depth} of {n - 1} steps",
        "rung (solid line: step separated, dotted: not)",
        f"Elo ({zero}), 95% CI",
    )
    mid = steps["step"].to_numpy(dtype=float) + 0.5
    score = 100 * steps["score"].to_numpy(dtype=float)
    s_err = np.vstack([
        np.nan_to_num(score - 100 * steps["lo"].to_numpy(dtype=float)),
        np.nan_to_num(100 * steps["hi"].to_numpy(dtype=float) - score),
    ])  # fmt: skip
    colors = ["#228833" if r.separated else ("#cc3311" if r.reversed else "#888888")
              for r in steps.itertuples()]  # fmt: skip
    bx.axhline(50.0, color="#888888", linewidth=1, linestyle="--")
    bx.errorbar(mid, score, yerr=s_err, fmt="none", ecolor="#333333", capsize=4)
    bx.scatter(mid, score, c=colors, zorder=3)
    for axis in (ax, bx):  # a step sits between its two rungs of the panel above
        axis.set_xlim(-0.5, n - 0.5)
    bx.set_xticks(mid, [f"{int(r.step) + 1}" for r in steps.itertuples()])
    bx.set_ylim(0, 100)
    plots._style(
        bx,
        "Each step: the upper rung's score against the one below",
        "step (between its two rungs above; green: separated, red: reversed)",
        "score % (95% CI)",
    )
    return fig


def ladder_sections(result: LadderResult) -> list[Section]:
    design = Section("Ladder design")
    design.text(
        f"{len(result.rungs)} rungs, {result.players} players. Each rung plays the next one "
        f"in every seating of every table of the two (seats rotated) on the same "
        f"{result.seeds:,} seeds, {result.n_games:,} games in all; a seed deals the same "
        "cubes, tiles and dice at every step, so seat and luck cancel within a step."
    )
    design.text(f"Rule readings: {readings_text(result.params)}.")
    steps = Section("Steps")
    steps.text(
        "Score of the upper rung against the lower one over their meetings (better rank wins, "
        "equal ranks score ½) with its 95% percentile bootstrap interval over seeds and n = "
        "meetings; a step is separated when the interval lies above 50%. Upset: how often the "
        "weaker rung of the step still wins a game (per seat and game, 95% Wilson interval "
        f"clustered by seed; fair share {100 / result.players:.0f}%)."
    )
    scores, upsets = _step_cells(result.steps)
    s = result.steps
    steps.table(
        pd.DataFrame({
            "step": [f"{u} vs {lo}" for u, lo in zip(s["upper"], s["lower"], strict=True)],
            "score [95% CI]": scores,
            "n": s["n"].map("{:,}".format),
            "verdict": [_verdict(r) for r in s.itertuples()],
            "weaker rung's win rate [95% CI]": upsets,
            "seconds": s["seconds"].map(lambda v: f"{v:,.1f}" if math.isfinite(v) else "–"),
        })
    )  # fmt: skip
    scale = Section("Scale")
    zero = f"`{result.anchor}` is pinned to 0" if result.anchor else "the ratings have mean 0"
    scale.text(
        "Bradley–Terry ratings on the Elo scale fitted to every result of every step; "
        f"{zero}; 95% percentile bootstrap intervals over seeds ({result.n_boot:,} "
        f"resamples). Skill depth: **{result.skill_depth}** of {len(result.rungs) - 1} steps "
        "separated."
    )
    c = result.scale
    scale.table(
        pd.DataFrame({
            "rung": c["rung"],
            "Elo [95% CI]": [_fmt_elo(e, lo, hi) for e, lo, hi in
                             zip(c["elo"], c["lo"], c["hi"], strict=True)],
            "games": c["games"].map("{:,}".format),
        })
    )  # fmt: skip
    scale.figure(
        "ladder-scale",
        scale_plot(result),
        "Elo of each rung with its 95% bootstrap interval over seeds (solid line: the step "
        "is separated).",
    )
    return [design, steps, scale]


def ladder_summary(result: LadderResult) -> dict[str, Any]:
    """Machine-readable numbers of a ladder (for summary.json and --json)."""
    return {
        "kind": "ladder",
        "rungs": result.rungs,
        "players": result.players,
        "seeds": result.seeds,
        "seed": result.seed,
        "n_games": result.n_games,
        "anchor": result.anchor,
        "bootstrap": result.n_boot,
        "skill_depth": result.skill_depth,
        "steps": result.steps.to_dict(orient="records"),
        "scale": result.scale.to_dict(orient="records"),
        "params": result.params,
    }


def ladder_findings(result: LadderResult) -> list[Finding]:
    s = result.steps
    sep = ", ".join(f"{r.upper} > {r.lower}" for r in s.itertuples() if r.separated) or "none"
    return [
        Finding(
            f"Skill depth {result.skill_depth} of {len(result.rungs) - 1} steps: the separated "
            f"steps (95% lower bound above 50%) are {sep}; {result.n_games:,} games on "
            f"{result.seeds:,} seeds.",
            {"kind": "skill_depth", "skill_depth": result.skill_depth,
             "steps": len(result.rungs) - 1, "n": result.n_games},
        )
    ]  # fmt: skip


@renders_figures()
def build_ladder_report(result: LadderResult) -> ReportBuilder:
    """A standalone ladder report (``bnb ladder``)."""
    builder = ReportBuilder(
        f"bnb-sim ladder: {' < '.join(result.rungs)}",
        f"{result.players} players · {result.seeds:,} seeds · {result.n_games:,} games · "
        f"seed {result.seed}",
    )
    for section in ladder_sections(result):
        builder.add(section)
    builder.summary.update(ladder_summary(result))
    builder.findings += ladder_findings(result)
    return builder
