"""The ladder of a cooperative game: team policies, each rung's team win rate on the same
game indices, each step a paired difference (``bnb ladder --game hotv``).

In a cooperative game the players are one team against the game, so rungs never meet: every
rung plays the same game indices ``0 .. games-1`` (the same deal and dice for every rung),
and a step is the paired difference of the upper rung's and the lower rung's team wins on
those indices (docs/policies.md, "Ladder"):

* **Rung**: its team win rate with a 95% Wilson interval, n = games.
* **Step**: the mean of ``won_upper[i] - won_lower[i]`` over game indices with a 95% Student
  t interval (:func:`bnb_sim.analysis.stats.paired_difference`, bounded when every index went
  the same way) and the exact McNemar test of the discordant indices
  (:func:`bnb_sim.analysis.stats.mcnemar`): ``upper_only`` indices the upper rung won and the
  lower lost, ``lower_only`` the reverse.
* **Verdict**: *separated* when the interval lies above 0, *reversed* below 0, else *not
  separated*; the **skill depth** is the number of separated steps (as in the competitive
  ladder, :mod:`bnb_sim.analysis.ladder`).
* **Upset**: how often the weaker rung of a step wins a game the stronger one loses
  (``lower_only / n`` when the step is not reversed), Wilson interval.

The numbers come from the game (a ``team_play`` entry point, :mod:`bnb_sim.runner.team_ladder`);
nothing here names a game or imports numba.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots, table_format
from bnb_sim.analysis.figure_scope import renders_figures
from bnb_sim.analysis.report_builder import Finding, ReportBuilder, Section
from bnb_sim.analysis.stats_intervals import Rate
from bnb_sim.analysis.stats_paired import mcnemar, paired_difference

__all__ = [
    "TeamLadderResult",
    "analyse_team_ladder",
    "build_team_ladder_report",
    "format_team_ladder",
    "team_ladder_summary",
]

BOUNDS = (-1.0, 1.0)  # one paired difference of team wins lies in [-1, 1]
STEP_COLUMNS = [
    "step", "lower", "upper", "diff", "lo", "hi", "n", "separated", "reversed", "p_value",
    "upper_only", "lower_only", "weaker", "upset", "upset_lo", "upset_hi", "note",
]  # fmt: skip


@dataclass
class TeamLadderResult:
    """Rates per rung, paired steps and the skill depth of a cooperative ladder."""

    rungs: list[str]
    players: int
    games: int
    seed: int
    setting: str  # the game's setting in words (pets, difficulty, ...)
    title: str  # the game's title
    rates: pd.DataFrame  # rung, rate, lo, hi, n, seconds
    steps: pd.DataFrame  # STEP_COLUMNS, bottom first
    skill_depth: int
    params: dict = field(default_factory=dict)

    @property
    def n_games(self) -> int:
        return len(self.rungs) * self.games

    def __repr__(self) -> str:
        return (
            f"<TeamLadderResult {' < '.join(self.rungs)}: {self.players} players, "
            f"{self.games:,} games per rung; skill depth {self.skill_depth} of "
            f"{len(self.rungs) - 1} steps>"
        )


def _step(step: int, lower: str, upper: str, won_lo: np.ndarray, won_up: np.ndarray) -> dict:
    d = paired_difference(won_up.astype(float), won_lo.astype(float), bounds=BOUNDS)
    test = mcnemar(won_up, won_lo)
    lo, hi = float(d["lo"]), float(d["hi"])
    separated = math.isfinite(lo) and lo > 0.0
    reversed_ = math.isfinite(hi) and hi < 0.0
    weaker = lower if d["mean_diff"] > 0 else (upper if d["mean_diff"] < 0 else None)
    upset = Rate.of(test["b01"] if weaker == lower else test["b10"], int(d["n"]))
    return {
        "step": step, "lower": lower, "upper": upper, "diff": float(d["mean_diff"]),
        "lo": lo, "hi": hi, "n": int(d["n"]), "separated": separated, "reversed": reversed_,
        "p_value": float(test["p_value"]), "upper_only": int(test["b10"]),
        "lower_only": int(test["b01"]), "weaker": weaker,
        "upset": upset.rate if weaker else math.nan, "upset_lo": upset.lo if weaker else math.nan,
        "upset_hi": upset.hi if weaker else math.nan, "note": d.get("note"),
    }  # fmt: skip


def analyse_team_ladder(
    won: Mapping[str, Any],
    *,
    players: int,
    seed: int = 0,
    seconds: Sequence[float] | None = None,
    setting: str = "",
    title: str = "",
    params: dict | None = None,
) -> TeamLadderResult:
    """The rungs' rates and the paired steps of ``won`` (``{rung: team won per game index}``,
    the same indices for every rung, weakest rung first)."""
    names = [str(k) for k in won]
    arrays = [np.asarray(won[k]).astype(bool).ravel() for k in won]
    if len(arrays) < 2:
        raise ValueError("a ladder needs at least 2 rungs")
    if len({a.size for a in arrays}) != 1:
        raise ValueError("every rung must play the same game indices")
    secs = list(seconds) if seconds is not None else [math.nan] * len(names)
    rates = []
    for name, values, sec in zip(names, arrays, secs, strict=True):
        r = Rate.from_bools(values)
        rates.append({"rung": name, "rate": r.rate, "lo": r.lo, "hi": r.hi, "n": r.n,
                      "seconds": float(sec)})  # fmt: skip
    steps = pd.DataFrame(
        [_step(i, names[i], names[i + 1], arrays[i], arrays[i + 1]) for i in range(len(names) - 1)],
        columns=STEP_COLUMNS,
    )
    return TeamLadderResult(
        rungs=names,
        players=int(players),
        games=int(arrays[0].size),
        seed=int(seed),
        setting=setting,
        title=title,
        rates=pd.DataFrame(rates),
        steps=steps,
        skill_depth=int(steps["separated"].sum()),
        params=dict(params or {}),
    )


# --------------------------------------------------------------------------------------
# output


def _verdict(row) -> str:
    return "separated" if row.separated else ("reversed" if row.reversed else "not separated")


def _diff_text(row) -> str:
    return table_format.fmt_signed_pp(row.diff, row.lo, row.hi)


def _p_text(p: float) -> str:
    """An exact p value; one that underflows to 0 is shown as a bound, not as 0."""
    return "<1e-300" if p == 0.0 else f"{p:.2g}"


def _upset_text(row) -> str:
    if row.weaker is None:
        return "–"
    return f"{row.weaker}: {table_format.fmt_rate(row.upset, row.upset_lo, row.upset_hi)}"


def format_team_ladder(result: TeamLadderResult) -> str:
    """The printed table: each rung's team win rate, each step, the skill depth."""
    lines = [
        f"ladder ({result.title}): {len(result.rungs)} rungs, {result.setting}, "
        f"{result.games:,} games per rung on the same game indices, seed {result.seed}",
        "team win rate per rung (95% Wilson CI):",
    ]
    width = max(len(r) for r in result.rungs)
    for row in result.rates.itertuples():
        lines.append(
            f"  {row.rung.ljust(width)}  {table_format.fmt_rate(row.rate, row.lo, row.hi)}"
        )
    lines.append(
        "step = upper minus lower rung's team win rate on the same game indices (paired, "
        "95% t CI; McNemar exact p on the indices only one won); upset = games the weaker "
        "rung won and the stronger lost:"
    )
    pair_w = max(len(f"{r.upper} vs {r.lower}") for r in result.steps.itertuples())
    for row in result.steps.itertuples():
        pair = f"{row.upper} vs {row.lower}".ljust(pair_w)
        lines.append(
            f"  {pair}  {_diff_text(row):>24} n={row.n:,}  p={_p_text(row.p_value):<8} "
            f"{_verdict(row):<13}  upset {_upset_text(row)}"
        )
    lines.append(
        f"skill depth: {result.skill_depth} of {len(result.rungs) - 1} steps separated "
        "(lower bound above 0)"
    )
    return "\n".join(lines)


def team_ladder_plot(result: TeamLadderResult):
    """Two panels: each rung's team win rate with its 95% interval (the separated steps
    joined by solid lines); below, each step's paired difference with its interval against 0."""
    rates, steps = result.rates, result.steps
    n = len(rates)
    fig, axes = plots.new_figure(6.4, nrows=2)
    ax, bx = axes[0, 0], axes[1, 0]
    x = np.arange(n)
    rate = 100 * rates["rate"].to_numpy(dtype=float)
    err = np.vstack([rate - 100 * rates["lo"].to_numpy(float),
                     100 * rates["hi"].to_numpy(float) - rate])  # fmt: skip
    for row in steps.itertuples():
        i = int(row.step)
        ax.plot([i, i + 1], [rate[i], rate[i + 1]], "-" if row.separated else ":",
                color="#4477aa", linewidth=1.5)  # fmt: skip
    ax.errorbar(x, rate, yerr=np.nan_to_num(err), fmt="o", color="#222222", capsize=4)
    for xi, v in zip(x, rate, strict=True):
        ax.annotate(f"{v:.1f}%", (xi, v), textcoords="offset points", xytext=(6, -4), fontsize=8)
    ax.set_xticks(x, list(rates["rung"]), rotation=20, ha="right")
    plots._style(ax, f"Ladder: skill depth {result.skill_depth} of {n - 1} steps",
                 "rung (solid line: step separated, dotted: not)",
                 "team win rate %, 95% CI")  # fmt: skip
    mid = steps["step"].to_numpy(dtype=float) + 0.5
    diff = 100 * steps["diff"].to_numpy(dtype=float)
    d_err = np.vstack([diff - 100 * steps["lo"].to_numpy(float),
                       100 * steps["hi"].to_numpy(float) - diff])  # fmt: skip
    colors = ["#228833" if r.separated else ("#cc3311" if r.reversed else "#888888")
              for r in steps.itertuples()]  # fmt: skip
    bx.axhline(0.0, color="#888888", linewidth=1, linestyle="--")
    bx.errorbar(mid, diff, yerr=np.nan_to_num(d_err), fmt="none", ecolor="#333333", capsize=4)
    bx.scatter(mid, diff, c=colors, zorder=3)
    for axis in (ax, bx):  # a step sits between its two rungs of the panel above
        axis.set_xlim(-0.5, n - 0.5)
    bx.set_xticks(mid, [f"{int(r.step) + 1}" for r in steps.itertuples()])
    plots._style(bx, "Each step: upper minus lower rung's team win rate, paired",
                 "step (between its two rungs above; green: separated, red: reversed)",
                 "difference, pp (95% CI)")  # fmt: skip
    return fig


def team_ladder_sections(result: TeamLadderResult) -> list[Section]:
    design = Section("Ladder design")
    design.text(
        f"{result.title}, {result.setting}: the players are one team against the game, so "
        f"the {len(result.rungs)} rungs (team policies, weakest first) never meet. Every rung "
        f"plays the same {result.games:,} game indices (the same deal and dice), "
        f"{result.n_games:,} games in all, seed {result.seed}; each step compares two rungs "
        "on those indices (paired), so luck cancels within a step."
    )
    rungs = Section("Rungs")
    rungs.text("Team win rate of each rung with its 95% Wilson interval; n = games.")
    r = result.rates
    rungs.table(
        pd.DataFrame({
            "rung": r["rung"],
            "team win rate [95% CI]": [table_format.fmt_rate(a, lo, hi) for a, lo, hi in
                                       zip(r["rate"], r["lo"], r["hi"], strict=True)],
            "games": r["n"].map("{:,}".format),
            "seconds": r["seconds"].map(lambda v: f"{v:,.1f}" if math.isfinite(v) else "–"),
        })
    )  # fmt: skip
    steps = Section("Steps")
    steps.text(
        "Upper minus lower rung's team win rate on the same game indices: the mean paired "
        "difference with its 95% Student t interval over game indices (a bound when every "
        "index went the same way) and n = game indices; the exact McNemar p value tests the "
        "indices only one of the two won. A step is separated when the interval lies above "
        "0 (reversed: below). Upset: the share of games the weaker rung won and the stronger "
        f"lost (95% Wilson interval). Skill depth: **{result.skill_depth}** of "
        f"{len(result.rungs) - 1} steps separated."
    )
    s = result.steps
    steps.table(
        pd.DataFrame({
            "step": [f"{u} vs {lo}" for u, lo in zip(s["upper"], s["lower"], strict=True)],
            "difference [95% CI]": [_diff_text(row) for row in s.itertuples()],
            "n": s["n"].map("{:,}".format),
            "only upper won / only lower won": [f"{a:,} / {b:,}" for a, b in
                                                zip(s["upper_only"], s["lower_only"],
                                                    strict=True)],
            "McNemar p": s["p_value"].map(_p_text),
            "verdict": [_verdict(row) for row in s.itertuples()],
            "weaker rung wins, stronger loses [95% CI]": [_upset_text(row) for row in
                                                          s.itertuples()],
        })
    )  # fmt: skip
    steps.figure(
        "ladder-rates",
        team_ladder_plot(result),
        "Team win rate of each rung with its 95% interval (solid line: the step is separated), "
        "and each step's paired difference with its 95% interval.",
    )
    return [design, rungs, steps]


def team_ladder_summary(result: TeamLadderResult) -> dict[str, Any]:
    """Machine-readable numbers (summary.json and --json): the keys of the competitive
    ladder's summary where they mean the same, ``rates`` per rung instead of an Elo scale."""
    return {
        "kind": "ladder",
        "outcome": "cooperative",
        "rungs": result.rungs,
        "players": result.players,
        "games": result.games,
        "seed": result.seed,
        "n_games": result.n_games,
        "skill_depth": result.skill_depth,
        "steps": result.steps.to_dict(orient="records"),
        "rates": result.rates.to_dict(orient="records"),
        "params": result.params,
    }


def team_ladder_findings(result: TeamLadderResult) -> list[Finding]:
    s = result.steps
    sep = ", ".join(f"{r.upper} > {r.lower} ({_diff_text(r)})" for r in s.itertuples()
                    if r.separated) or "none"  # fmt: skip
    return [
        Finding(
            f"Skill depth {result.skill_depth} of {len(result.rungs) - 1} steps: the separated "
            f"steps (team win rate higher, paired, 95% lower bound above 0) are {sep}; n = "
            f"{result.games:,} game indices per rung.",
            {"kind": "skill_depth", "skill_depth": result.skill_depth,
             "steps": len(result.rungs) - 1, "n": result.games},
        )
    ]  # fmt: skip


@renders_figures()
def build_team_ladder_report(result: TeamLadderResult) -> ReportBuilder:
    """The report of a cooperative ladder (``bnb ladder --game hotv``)."""
    builder = ReportBuilder(
        f"bnb-sim ladder: {' < '.join(result.rungs)}",
        f"{result.title} · {result.setting} · {result.games:,} games per rung · seed {result.seed}",
    )
    for section in team_ladder_sections(result):
        builder.add(section)
    builder.summary.update(team_ladder_summary(result))
    builder.findings += team_ladder_findings(result)
    return builder
