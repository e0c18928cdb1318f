"""What a tournament's report shows: its sections (ratings, head-to-head heat map, win rates,
XP, strength against budget), its JSON summary, its findings and the Elo leader.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots, tables
from bnb_sim.analysis.budget_series import budget_section, budget_summary
from bnb_sim.analysis.estimated import add_estimated_warning
from bnb_sim.analysis.figure_scope import renders_figures
from bnb_sim.analysis.ratings import _fmt_elo
from bnb_sim.analysis.report import ReportBuilder, Section, readings_text
from bnb_sim.analysis.tournament_analysis import TournamentResult


def elo_plot(ratings: pd.DataFrame, title: str, anchor: str | None):
    """Horizontal Elo bars with 95% bootstrap whiskers."""
    n = len(ratings)
    fig, axes = plots.new_figure(max(2.4, 1.3 + 0.45 * n))
    ax = axes[0, 0]
    y = np.arange(n)
    elo = ratings["elo"].to_numpy(dtype=float)
    lo = ratings["lo"].to_numpy(dtype=float)
    hi = ratings["hi"].to_numpy(dtype=float)
    colors = plots.colors_for(list(ratings["policy"]))
    ax.barh(y, elo, color=[colors[p] for p in ratings["policy"]], height=0.6)
    err = np.vstack([np.nan_to_num(elo - lo), np.nan_to_num(hi - elo)])
    ax.errorbar(elo, y, xerr=err, fmt="none", ecolor="#333333", elinewidth=1, capsize=3)
    for yi, (e, h) in enumerate(zip(elo, hi, strict=True)):
        right = h if math.isfinite(h) else e
        ax.text(max(right, e, 0.0), yi, f" {e:+.0f}", va="center", fontsize=9)
    ax.axvline(0.0, color="#888888", linewidth=1)
    ax.set_yticks(y, list(ratings["policy"]))
    ax.invert_yaxis()
    left, right = np.nanmin(np.append(lo, 0.0)), np.nanmax(np.append(hi, 0.0))
    pad = 0.12 * max(right - left, 1.0)
    ax.set_xlim(left - pad, right + 2 * pad)
    zero = f"{anchor} = 0" if anchor else "mean = 0"
    plots._style(ax, title, f"Elo rating ({zero}; bars: 95% bootstrap CI over seeds)")
    return fig


def h2h_heatmap(score: pd.DataFrame, n: pd.DataFrame, title: str):
    """Heat map of the head-to-head score of each row policy against each column policy."""
    names = list(score.index)
    k = len(names)
    size = max(3.2, 1.6 + 0.9 * k)
    fig, axes = plots.new_figure(size, width=max(4.8, size + 1.6))
    ax = axes[0, 0]
    values = score.to_numpy(dtype=float)
    image = ax.imshow(np.ma.masked_invalid(values), cmap="RdBu", vmin=0.0, vmax=1.0)
    for i in range(k):
        for j in range(k):
            if math.isfinite(values[i, j]):
                ax.text(
                    j,
                    i,
                    f"{100 * values[i, j]:.0f}%\nn={int(n.iloc[i, j]):,}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if abs(values[i, j] - 0.5) > 0.3 else "black",
                )
            elif i == j:
                ax.text(j, i, "–", ha="center", va="center", color="#888888")
    ax.set_xticks(range(k), names, rotation=30, ha="right")
    ax.set_yticks(range(k), names)
    cbar = fig.colorbar(image, ax=ax, shrink=0.85)
    cbar.set_label("score of row vs column (win = 1, tie = ½)")
    plots._style(ax, title, "opponent (column)", "policy (row)")
    ax.spines[["top", "right"]].set_visible(True)
    return fig


def _prefix(name: str | None) -> str:
    return f"{name}: " if name else ""


def tournament_sections(result: TournamentResult, name: str | None = None) -> list[Section]:
    """Report sections of a tournament: design, ratings, strength against budget (only when
    entrants are one search bot at several budgets), head-to-head, win rates and XP."""
    name = name if name is not None else result.name
    pre = _prefix(name)
    slug = (name or "tournament").lower()
    design = Section(f"{pre}Tournament design" if name else "Tournament design")
    seatings_per = result.players
    n_combos = len(result.combos)
    design.text(
        f"{len(result.policies)} policies, {result.players} players: {n_combos} "
        f"table{'s' if n_combos != 1 else ''} (every combination of {result.players} policies"
        f"{', with repetition' if len(result.policies) < result.players else ''}), each played "
        f"in its {seatings_per} cyclic seatings on the same {result.seeds:,} seeds (game "
        f"indices), {result.n_games:,} games in all. The seatings of one seed share the deal "
        "and the dice of every seat (common random numbers), so seat and luck cancel."
    )
    design.text(f"Rule readings: {readings_text(result.params)}.")
    if result.params.get("options"):  # a game's own options, e.g. the points to win
        shown = ", ".join(f"{k}={v}" for k, v in result.params["options"].items())
        design.text(f"Game options: {shown}.")
    design.table(
        pd.DataFrame(
            {
                "table": [f"{i + 1}" for i in range(n_combos)],
                "policies (seating 0, seat 0 first)": [", ".join(c) for c in result.combos],
                "games": [f"{seatings_per * result.seeds:,}"] * n_combos,
            }
        )
    )
    rows = [
        ("policies", ", ".join(result.policies)),
        ("players", str(result.players)),
        ("seeds per seating", f"{result.seeds:,}"),
        ("games", f"{result.n_games:,}"),
        ("master seed", str(result.seed)),
        ("bootstrap resamples (over seeds)", f"{result.n_boot:,}"),
    ]
    if result.tie_rate:
        t = result.tie_rate
        rows.append(
            ("shared wins (ties)", f"{tables.fmt_rate(t['rate'], t['lo'], t['hi'])} n={t['n']:,}")
        )
    design.table(pd.DataFrame(rows, columns=["", "value"]))

    ratings = Section(f"{pre}Ratings")
    zero = f"`{result.anchor}` is pinned to 0" if result.anchor else "the ratings have mean 0"
    ratings.text(
        "Bradley–Terry ratings on the Elo scale (400 Elo = odds of 10:1) fitted to every "
        "pairwise result (better rank wins, equal ranks score ½), with a small L2 prior so "
        f"perfect records stay finite; {zero}. 95% intervals: percentile bootstrap over seeds "
        f"({result.n_boot:,} resamples), each seed carrying all of its games."
    )
    r = result.ratings
    ratings.table(
        pd.DataFrame(
            {
                "rank": [str(i + 1) for i in range(len(r))],
                "policy": r["policy"],
                "Elo [95% CI]": [
                    _fmt_elo(e, lo, hi)
                    for e, lo, hi in zip(r["elo"], r["lo"], r["hi"], strict=True)
                ],
                "games": r["games"].map("{:,}".format),
            }
        )
    )
    ratings.figure(
        f"{slug}-elo",
        elo_plot(r, f"{pre}Bradley–Terry ratings", result.anchor),
        "Elo rating per policy with its 95% bootstrap interval over seeds.",
    )

    h2h = Section(f"{pre}Head-to-head")
    h2h.text(
        "Score of the row policy against the column policy over all the games where both "
        "played (a win = 1, a shared rank = ½), with the 95% bootstrap interval over seeds and "
        "n = the number of meetings. Row + column scores add up to 100%."
    )
    names = result.policies
    cells = []
    for a in names:
        row = {"policy": a}
        for b in names:
            s = result.h2h_score.loc[a, b]
            if a == b or not math.isfinite(s):
                row[b] = "–"
            else:
                row[b] = (
                    f"{tables.fmt_rate(s, result.h2h_lo.loc[a, b], result.h2h_hi.loc[a, b])} "
                    f"n={int(result.h2h_n.loc[a, b]):,}"
                )
        cells.append(row)
    h2h.table(pd.DataFrame(cells), "Row vs column score [95% CI] n=meetings.")
    h2h.figure(
        f"{slug}-head-to-head",
        h2h_heatmap(result.h2h_score, result.h2h_n, f"{pre}Head-to-head score"),
        "Score of each row policy against each column policy (blue: the row wins more).",
    )

    wins = Section(f"{pre}Tournament win rates")
    fair = 1.0 / result.players
    wins.text(
        f"Share of its games each policy won (shared wins count for every tied winner; the "
        f"fair share is {100 * fair:.1f}%), with 95% Wilson intervals clustered by seed (all "
        "the games of a seed share its deal) and n = games played"
        + (
            "; a policy playing several seats of one game counts once per seat."
            if len(result.policies) < result.players
            else "."
        )
    )
    wins.table(tables.display_rates(result.win_rates, {"policy": "policy"}))
    wins.figure(
        f"{slug}-win-rates",
        plots.rate_bars(
            list(result.win_rates["policy"]),
            {"win rate": result.win_rates},
            f"{pre}Win rate per policy",
            reference=fair,
            reference_label="fair share",
        ),
        "Win rate per policy with 95% Wilson intervals; dashed: fair share 1/players.",
    )
    by_seat = result.win_rates_by_seat
    wide = by_seat.assign(cell=tables.rate_cells(by_seat, with_n=True)).pivot(
        index="policy", columns="seat", values="cell"
    )
    wide = wide.reindex([p for p in names if p in wide.index]).fillna("–")
    wide.columns = [f"seat {c}" for c in wide.columns]
    wins.table(wide.reset_index(), "Win rate [95% CI] of each policy in each seat.")
    if len(result.xp):
        x = result.xp
        wins.table(
            pd.DataFrame(
                {
                    "policy": x["policy"],
                    "mean XP [95% CI]": tables.mean_cells(x),
                    "sd": x["sd"].map(tables.fmt_sd),
                    "n": x["n"].map("{:,}".format),
                    "seeds": x["n_clusters"].map("{:,}".format),
                }
            ),
            "Final XP per player and game (Student t interval clustered by seed).",
        )
    sections = [design, ratings, h2h, wins]
    budget = budget_section(result, pre, slug)
    if budget is not None:  # only when entrants are one search bot at several budgets
        sections.insert(2, budget)
    return sections


def _records(df: pd.DataFrame) -> list[dict]:
    return df.to_dict(orient="records")


def tournament_summary(result: TournamentResult) -> dict[str, Any]:
    """Machine-readable numbers of a tournament (for summary.json)."""
    names = result.policies
    h2h = {
        a: {
            b: {
                "score": result.h2h_score.loc[a, b],
                "lo": result.h2h_lo.loc[a, b],
                "hi": result.h2h_hi.loc[a, b],
                "n": int(result.h2h_n.loc[a, b]),
            }
            for b in names
            if b != a
        }
        for a in names
    }
    return {
        "kind": "tournament",
        "policies": names,
        "players": result.players,
        "seeds": result.seeds,
        "seed": result.seed,
        "n_games": result.n_games,
        "tables": [list(c) for c in result.combos],
        "anchor": result.anchor,
        "bootstrap": result.n_boot,
        "ratings": _records(result.ratings),
        "head_to_head": h2h,
        "win_rate": _records(result.win_rates),
        "win_rate_by_seat": _records(result.win_rates_by_seat),
        "xp": _records(result.xp),
        "tie_rate": result.tie_rate,
        "params": result.params,
        "strength_vs_budget": budget_summary(result),
    }


@renders_figures()
def build_tournament_report(result: TournamentResult, title: str | None = None) -> ReportBuilder:
    """A standalone tournament report (``bnb tournament``)."""
    title = title or f"bnb-sim tournament: {', '.join(result.policies)}"
    subtitle = (
        f"{result.players} players · {result.seeds:,} seeds per seating · "
        f"{result.n_games:,} games · seed {result.seed}"
    )
    builder = ReportBuilder(title, subtitle)
    for section in tournament_sections(result):
        builder.add(section)
    add_estimated_warning(builder.sections[0], result.params.get("estimated"))
    builder.summary.update(tournament_summary(result))
    builder.findings += tournament_findings(result)
    return builder


def tournament_findings(result: TournamentResult, prefix: str = "") -> list:
    """Key findings of a tournament: the top-rated policy (Elo and win rate with their
    intervals and n) and how it fared against the runner-up head to head."""
    from bnb_sim.analysis.report import Finding

    found = []
    if not len(result.ratings):
        return found
    top = result.ratings.iloc[0]
    rates = result.win_rates.set_index("policy")
    anchor = f"{result.anchor} = 0" if result.anchor else "mean 0"
    rate = rates.loc[top["policy"]] if top["policy"] in rates.index else None
    rate_text = (
        f", win rate {tables.fmt_rate(rate['rate'], rate['lo'], rate['hi'])} "
        f"(n = {int(rate['n']):,})"
        if rate is not None
        else ""
    )
    lead = elo_leader(result)
    claim = lead.claim(f"rates highest: Elo {_fmt_elo(top['elo'], top['lo'], top['hi'])} "
                       f"({anchor}){rate_text}")  # fmt: skip
    if not lead.separated:  # the tied sentence names no Elo: show the two at the top
        r = result.ratings.iloc[:2]
        claim += "; Elo " + ", ".join(f"{x.policy} {_fmt_elo(x.elo, x.lo, x.hi)}"
                                       for x in r.itertuples()) + f" ({anchor})"  # fmt: skip
    found.append(
        Finding(
            f"{prefix}{claim[0].upper()}{claim[1:]}, over {result.n_games:,} games.",
            {"kind": "best_policy", "policy": top["policy"], "elo": top["elo"],
             "lo": top["lo"], "hi": top["hi"], "n": result.n_games,
             "best": lead.to_dict()["best"], "gap": lead.to_dict()["gap_to_runner_up"]},
        )
    )  # fmt: skip
    if len(result.ratings) > 1:
        a, b = top["policy"], result.ratings.iloc[1]["policy"]
        score = result.h2h_score.loc[a, b]
        lo, hi, n = result.h2h_lo.loc[a, b], result.h2h_hi.loc[a, b], int(result.h2h_n.loc[a, b])
        if n and math.isfinite(score):
            found.append(
                Finding(
                    f"{prefix}Head to head, {a} scores "
                    f"{tables.fmt_rate(score, lo, hi)} against {b} (n = {n:,} games "
                    "at the same tables).",
                    {"kind": "head_to_head", "a": a, "b": b, "score": score, "lo": lo,
                     "hi": hi, "n": n},
                )
            )  # fmt: skip
    return found


def elo_leader(result: TournamentResult):
    """The top-rated policy and its Elo gaps to the others, from the same seed bootstrap as
    the ratings (:func:`bnb_sim.analysis.leaders.gaps_from_replicates`): "rates highest"
    only when every gap excludes 0."""
    from bnb_sim.analysis.leaders import gaps_from_replicates, leader_of

    order = [str(p) for p in result.ratings["policy"]]
    elo = dict(zip(order, result.ratings["elo"].astype(float), strict=True))
    reps = result.elo_replicates
    if reps is None or len(order) < 2:
        return leader_of(order, {})
    columns = {name: reps[:, i] for i, name in enumerate(result.policies)}
    return leader_of(order, gaps_from_replicates(order, elo, columns))
