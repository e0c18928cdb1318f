"""How the games went: the sections of a simulate-run report about play, one per concern.

XP and its sources (:func:`xp_section`), game length, margins and comebacks, scoring
choices, fights, ownership, play style and rule hits (:func:`rule_hits_section`), each built
from the ``seats`` / ``games`` frames with the tidy tables of
:mod:`bnb_sim.analysis.tables`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from bnb_sim.analysis import plots, table_blocks, table_choices, table_columns, table_format, tables
from bnb_sim.analysis.report_builder import Section
from bnb_sim.analysis.stats_intervals import num_digits


def xp_section(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> Section:
    """Final XP per policy (mean with CI, distribution) and XP by source."""
    section = Section("Experience points (XP)")
    stats = tables.xp_by_policy(seats, policy_order)
    shown = pd.DataFrame(
        {
            "policy": stats["policy"],
            "mean XP [95% CI]": table_format.mean_cells(stats),
            "sd": stats["sd"].map(table_format.fmt_sd),
            "median": stats["median"].map("{:g}".format),
            "5th–95th pct": [
                f"{a:g}–{b:g}" for a, b in zip(stats["p5"], stats["p95"], strict=True)
            ],
            "min–max": [f"{a}–{b}" for a, b in zip(stats["min"], stats["max"], strict=True)],
            "n": stats["n"].map("{:,}".format),
        }
    )
    section.table(
        shown,
        "Final XP per player and game (Student t interval for the mean, clustered by game).",
    )
    hist = tables.xp_histogram(seats, policy_order)
    section.figure(
        "xp-distribution",
        plots.xp_distribution(
            hist,
            dict(zip(stats["policy"], stats["mean"], strict=True)),
            f"Final XP per policy (all {len(seats):,} player results)",
        ),
        "Distribution of final XP per policy (share of that policy's results at each XP).",
    )
    sources = tables.xp_sources_by_policy(seats, policy_order)
    label = {c: table_columns.source_label(c) for c in sources.columns}
    source_ci = tables.means_by_policy(seats, list(sources.columns), policy_order)
    section.heading("XP by source")
    section.table(
        _means_wide(source_ci, label, stats.set_index("policy")["n"]),
        "Mean XP per player and game from each source, 95% interval clustered by game; the "
        "sources add up to the final XP above.",
    )
    section.figure(
        "xp-by-source",
        plots.stacked_bars(sources, "Mean XP by source per policy", "mean XP per game", label),
        "Where each policy's XP comes from (means per player and game).",
    )
    section.summary["xp"] = {
        "by_policy": stats[["policy", "mean", "lo", "hi", "n", "sd", "median"]].to_dict(
            orient="records"
        ),
        "by_source": {p: row.to_dict() for p, row in sources.iterrows()},
        "by_source_ci": source_ci.to_dict(orient="records"),
    }
    return section


def game_length_section(games: pd.DataFrame) -> Section:
    """Turns per game and when the scoring rounds were triggered."""
    section = Section("Game length")
    length = tables.game_length(games)
    section.table(
        pd.DataFrame(
            [
                (
                    "mean turns [95% CI]",
                    table_format.fmt_mean(
                        length["mean"], length["lo"], length["hi"], 2, length["note"]
                    ),
                ),
                ("sd", table_format.fmt_sd(length["sd"])),
                ("median", f"{length['median']:g}"),
                ("5th–95th percentile", f"{length['p5']:g}–{length['p95']:g}"),
                ("min–max", f"{length['min']}–{length['max']}"),
                ("games", f"{length['n']:,}"),
            ],
            columns=["turns per game (all players)", "value"],
        )
    )
    section.figure(
        "game-length",
        plots.integer_histogram(
            table_blocks.value_counts_int(games["turns"].to_numpy()),
            f"Game length ({len(games):,} games)",
            "turns per game (all players)",
            "games",
        ),
        "Number of games by length in turns (turns of all players together).",
    )
    rounds = tables.round_trigger_turns(games)
    if len(rounds):
        section.table(
            pd.DataFrame(
                {
                    "scoring round": rounds["round"],
                    "triggered in turn, mean [95% CI]": table_format.mean_cells(rounds),
                    "sd": rounds["sd"].map(table_format.fmt_sd),
                    "n": rounds["n"].map("{:,}".format),
                }
            ),
            "When each scoring round was triggered (R-SCORE-1).",
        )
    section.summary["turns"] = length
    return section


def margins_section(seats: pd.DataFrame, policy_order: Sequence[str] | None = None):
    """How close games are (the winner's XP lead over the next best) and how often the
    leader after scoring round A, and B, goes on to win (R-SCORE-2, R-END-2). None for runs
    without whole games of two or more players."""
    margin = tables.winning_margin(seats)
    if margin is None:
        return None
    section = Section("Margins and comebacks", anchor="margins")
    n = int(margin["n"])
    section.text(
        "The **winning margin** is the winner's XP minus the next best player's XP, per game "
        "(0: the most XP was shared and the tie-break on blocks decided, or the win was shared, "
        "R-END-2). A **comeback** is a game that the player leading right after a scoring round "
        "does not win."
    )
    bins = margin["bins"]
    section.table(
        pd.DataFrame(
            [
                ("mean XP [95% CI]", table_format.fmt_mean(margin["mean"], margin["lo"],
                                                           margin["hi"], 2, margin["note"])),
                ("median", f"{margin['median']:g}"),
                ("90th percentile", f"{margin['p90']:g}"),
                *((f"{r['margin']} XP", f"{table_format.fmt_rate(r['rate'], r['lo'], r['hi'])}")
                  for r in bins.to_dict("records")),
                ("games", f"{n:,}"),
            ],
            columns=["winning margin", "value (share of games [95% CI])"],
        ),
        "Winning margin: mean with a t interval over games; the share of games in each band "
        "with Wilson intervals.",
    )  # fmt: skip
    section.figure(
        "winning-margin",
        plots.integer_histogram(
            margin["counts"],
            f"Winning margin ({n:,} games)",
            "winner's XP minus the next best player's XP",
            "games",
        ),
        "Number of games by the winner's lead in XP.",
    )
    summary: dict[str, Any] = {
        "winning_margin": {
            k: margin[k] for k in ("mean", "lo", "hi", "n", "sd", "note", "median", "p90")
        },
        "winning_margin_bins": bins.to_dict("records"),
    }
    summary["winning_margin"]["bins"] = summary.pop("winning_margin_bins")
    leads = tables.leader_wins(seats, policy_order)
    if not len(leads):
        section.text(
            "Comebacks: this run has no `total_xp_after_a`/`total_xp_after_b` columns (it was "
            "written by an older bnb-sim), so the leader after each round is not known."
        )
        section.summary.update(summary)
        return section
    players = int(margin["players"])
    overall = leads[leads["leader"] == "all"]
    section.table(
        pd.DataFrame(
            {
                "leader after round": leads["round"],
                "leader": leads["leader"],
                "goes on to win [95% CI]": table_format.rate_cells(leads),
                "n (games with a sole leader)": leads["n"].map("{:,}".format),
                "shared lead (left out)": leads["shared_lead"].map(
                    lambda v: "" if pd.isna(v) else f"{int(v):,}"
                ),
            }
        ),
        "How often the player with the most XP right after scoring round A (and B) wins the "
        f"game, alone or sharing the win (Wilson intervals over games; a player wins 1 game in "
        f"{players} on average). Games where several players shared the lead are left out.",
    )
    section.figure(
        "comebacks",
        plots.rate_bars(
            [f"after round {r}" for r in overall["round"]],
            {"leader wins": overall.reset_index(drop=True)},
            "Does the leader after a scoring round win?",
            "share of games the leader wins",
            reference=1 / players if players else None,
            reference_label=f"1 in {players}" if players else None,
        ),
        "Share of games won by the player leading right after scoring round A and B, with 95% "
        "intervals; the dashed line is one game in as many as there are players.",
    )
    summary["leader_wins"] = leads.to_dict("records")
    section.summary.update(summary)
    return section


def choices_section(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> Section:
    """Which value each policy chose in scoring rounds A, B and C."""
    section = Section("Scoring-round choices")
    shares = table_choices.choice_shares(seats, policy_order)
    rounds = list(dict.fromkeys(shares["round"]))
    if not rounds:
        section.text("This run has no `choice_*` columns.")
        return section
    wides = {r: table_choices.choice_share_wide(shares, r, policy_order) for r in rounds}
    for rnd in wides:
        part = shares[shares["round"] == rnd].rename(columns={"share": "rate"})
        cells = part.assign(cell=table_format.rate_cells(part)).pivot(
            index="policy", columns="value", values="cell"
        )
        cells = cells.reindex(index=list(wides[rnd].index), columns=list(wides[rnd].columns))
        cells = cells.fillna("–")
        cells.columns = [table_columns.label(c) for c in cells.columns]
        cells.insert(0, "n", [f"{int(n):,}" for n in part.groupby("policy")["n"].first()
                              .reindex(cells.index)])  # fmt: skip
        section.table(
            cells.reset_index(),
            f"Round {rnd}: share of each value chosen, per policy, 95% interval (clustered by "
            "game); n = that policy's player results.",
        )
    section.figure(
        "scoring-choices",
        plots.choice_panels(wides, "Values chosen in the scoring rounds"),
        "Share of the values each policy chose in rounds A (biome), B (material), C (type).",
    )
    section.summary["choices"] = shares.to_dict(orient="records")
    return section


def fights_section(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> Section:
    """Fights per mob species: attempts, win rate with interval; also per policy."""
    section = Section("Fights by mob")
    fights = tables.fights_by_mob(seats)
    if not len(fights):
        section.text("This run has no `fights_<mob>` / `wins_<mob>` columns.")
        return section
    shown = table_format.display_rates(
        fights, {"mob": "mob"}, rate_title="fights won [95% CI]", k_title="won", n_title="attempts"
    )
    shown.insert(
        1,
        "attempts per player-game [95% CI]",
        [
            table_format.fmt_mean(m, lo, hi, 3)
            for m, lo, hi in zip(
                fights["per_seat_game"],
                fights["per_seat_game_lo"],
                fights["per_seat_game_hi"],
                strict=True,
            )
        ],
    )
    section.table(
        shown,
        "All seats together; fights of one player in one game are not independent, so the "
        "intervals are approximate."
        + (
            " **Pooled over policies**: bots fight different mobs, so compare mobs in the "
            "per-policy table below."
            if seats["policy"].nunique() > 1
            else ""
        ),
    )
    section.figure(
        "fights-by-mob",
        plots.rate_bars(
            [table_columns.label(m) for m in fights["mob"]],
            {"fights won": fights},
            "Fight win rate per mob",
            xlabel="fights won",
        ),
        "Share of fight attempts won against each mob species, 95% Wilson intervals.",
    )
    per_policy = tables.fights_by_mob_and_policy(seats, policy_order)
    cells = per_policy.assign(cell=table_format.rate_cells(per_policy, with_n=True)).pivot(
        index="mob", columns="policy", values="cell"
    )
    cells = cells.reindex(index=list(fights["mob"]))
    cells = cells[[p for p in (policy_order or cells.columns) if p in cells.columns]]
    cells.index = [table_columns.label(m) for m in cells.index]
    section.table(cells.rename_axis("mob").reset_index(), "Fights won per mob and policy.")
    section.summary["fights"] = fights.to_dict(orient="records")
    return section


def _by_policy(seats: pd.DataFrame, columns: Sequence[str], policy_order=None):
    """``(policy, frame)`` for each policy, the frame holding only ``columns`` (no wide copy
    of the seat rows); one ``("all", ...)`` pair when the run has a single policy."""
    order = [p for p in (policy_order or table_columns.policies_in(seats))]
    if len(order) <= 1:
        yield (order[0] if order else "all"), seats[list(columns)]
        return
    codes, names = table_blocks._narrow_codes(seats["policy"])  # no 4,000,000 strings
    for policy in order:
        if policy not in names:
            continue
        mask = codes == names.index(policy)
        if mask.any():
            yield policy, seats.loc[mask, list(columns)]


def ownership_section(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> Section:
    """Win rate of players who own at least one tile of each mob species / building type,
    split by policy (pooling strong and weak bots would mostly say which bot collects what:
    Simpson's paradox)."""
    section = Section("Win rate by what players own")
    section.text(
        "Win rate of the player results that own at least one tile of a kind (`defeated_<mob>` "
        "> 0, `built_<type>` > 0) next to those that own none, **per policy**: pooled over "
        "different bots, a kind that weak bots collect would look bad. This is a correlation, "
        "not an effect: stronger players also collect more."
    )
    for prefix, what, key in (
        ("defeated_", "mob", "owning_mob"),
        ("built_", "building type", "owning_building"),
    ):
        names = table_columns.prefixed(seats.columns, prefix)
        if not names:
            continue
        columns = ["won", *(f"{prefix}{n}" for n in names)]
        parts, owners_series, records = [], {}, []
        for policy, rows in _by_policy(seats, columns, policy_order):
            table = tables.win_rate_when_owning(rows, prefix)
            without = table[[f"{c}_without" for c in table_columns.RATE_COLUMNS]]
            without.columns = table_columns.RATE_COLUMNS
            parts.append(
                pd.DataFrame(
                    {
                        "policy": policy,
                        what: table["name"].map(table_columns.label),
                        "owners": [f"{100 * s:.1f}%" for s in table["owner_share"]],
                        "win rate if owned [95% CI]": table_format.rate_cells(table),
                        "n owned": table["n"].map("{:,}".format),
                        "win rate if not [95% CI]": table_format.rate_cells(without),
                        "n not": without["n"].map("{:,}".format),
                    }
                )
            )
            owners_series[policy] = table
            records += [{"policy": policy, **r} for r in table.to_dict(orient="records")]
        section.heading(f"Per {what}")
        section.table(
            pd.concat(parts, ignore_index=True),
            "Per policy: owners = share of that policy's player results owning at least one.",
        )
        section.figure(
            f"win-rate-owning-{what}",
            plots.rate_bars(
                [table_columns.label(n) for n in names],
                owners_series,
                f"Win rate of players owning each {what}, per policy",
                colors=plots.colors_for(list(owners_series)),
            ),
            f"Win rate of the player results owning at least one of each {what}, per policy, "
            "95% Wilson intervals.",
        )
        # pooled numbers stay under the old key (machine readers); the split is new
        section.summary[key] = tables.win_rate_when_owning(seats, prefix).to_dict(orient="records")
        section.summary[f"{key}_by_policy"] = records
    return section


def play_style_section(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> Section:
    """Mean counts per game (mobs defeated, buildings built, weapons, TNT, ...) per policy."""
    section = Section("Play style")
    style = tables.play_style(seats, policy_order)
    if not len(style.columns):
        section.text("This run has no count columns.")
        return section
    style_ci = tables.means_by_policy(seats, list(style.columns), policy_order)
    n_rows = table_blocks.group_sizes(seats)
    section.table(
        _means_wide(style_ci, {c: table_columns.label(c) for c in style.columns}, n_rows),
        "Mean per player and game, 95% interval clustered by game; n = player results.",
    )
    section.summary["play_style"] = {p: row.to_dict() for p, row in style.iterrows()}
    section.summary["play_style_ci"] = style_ci.to_dict(orient="records")
    return section


def rule_hits_section(seats: pd.DataFrame, meta: Mapping) -> Section | None:
    """Per priority-list bot: how often each rule decided (columns ``rule_hits_<i>`` of the
    run, labels from the policy specs in run.json); None when the run has no bot."""
    if "rule_hits_fallback" not in seats.columns:
        return None
    specs = (meta.get("params", {}) or {}).get("policy_specs", []) or []
    bots = {s["label"]: s.get("rules", []) for s in specs if s.get("kind") == "bot"}
    section = Section("Bot rules")
    section.text(
        "Which rule of each priority-list bot made its decisions (docs/bots.md): total "
        "decisions per rule over the run, mean per player and game, and the share of the "
        "bot's decisions. A rule that never fires is listed with 0."
    )
    summary = {}
    for label, rules in bots.items():
        mine = seats[seats["policy"].astype(str) == label]
        if mine.empty:
            continue
        columns = [f"rule_hits_{r}" for r in range(len(rules))] + ["rule_hits_fallback"]
        totals = mine[columns].sum().to_numpy()
        all_decisions = max(int(totals.sum()), 1)
        table = pd.DataFrame(
            {
                "rule": list(rules) + ["fallback"],
                "decisions": totals.astype(int),
                "per game": [f"{t / len(mine):,.2f}" for t in totals],
                "share": [f"{100 * t / all_decisions:.1f}%" for t in totals],
            }
        )
        section.table(table, f"{label}: n = {len(mine):,} player results.")
        summary[label] = dict(zip(table["rule"], table["decisions"].tolist(), strict=True))
    section.summary["rule_hits"] = summary
    return section


def _means_wide(long: pd.DataFrame, label: Mapping[str, str], n: pd.Series) -> pd.DataFrame:
    """Policy x column table of ``mean [lo, hi]`` cells from :func:`tables.means_by_policy`,
    with an ``n`` column (player results per policy)."""
    cells = long.assign(cell="")
    for _, part in long.groupby("column", sort=False):  # one format per column
        digits = num_digits(part["lo"].to_numpy(float), part["hi"].to_numpy(float))
        cells.loc[part.index, "cell"] = table_format.mean_cells(part, digits)
    cells = cells.pivot(index="policy", columns="column", values="cell")
    columns = list(dict.fromkeys(long["column"]))
    cells = cells.reindex(index=list(dict.fromkeys(long["policy"])), columns=columns)
    cells.columns = [label.get(c, c) for c in columns]
    cells["n"] = [f"{int(n.get(p, 0)):,}" for p in cells.index]
    return cells.rename_axis("policy").reset_index()
