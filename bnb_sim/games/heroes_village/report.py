"""The report sections of a Heroes of the Village run, as protocol data.

``bnb report`` of a run of this game is the shared report (:mod:`bnb_sim.analysis.
protocol_report`): its team win rate section, then these sections (the game's
``report_sections``, :class:`~bnb_sim.core.protocol.ReportSection` data): the run, win rates
with n and 95% intervals (by difficulty, player count, policy, buildings), the pet teams
ranked with paired differences on the same seeds, each pet's paired effect, why games are
lost (turn of loss, the Illager's track over the rounds), fights against the exact odds, and
what the players did; the key findings (team win rate, best and worst pet team, pet effects)
ride on the sections. Built with :mod:`bnb_sim.analysis.stats`; no numba.

**The unit is the game index.** With ``--pets all`` every game index is played by every pet
team on the same tiles, mobs, draws and dice, so the teams' outcomes on one index are
correlated (about 0.5): pooled figures (overall, by difficulty, players, policy, buildings,
the losses) are clustered by game index (:func:`~bnb_sim.analysis.stats.rates_by_cluster`,
:func:`~bnb_sim.analysis.stats.clustered_mean_ci`); a figure of one team has one row per
index and keeps its exact Wilson interval.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots
from bnb_sim.analysis.leaders import paired_ranking
from bnb_sim.analysis.numbers import fmt_p
from bnb_sim.analysis.report_provenance import readings_text
from bnb_sim.analysis.stats_clustered import clustered_mean_ci, clustered_rate, rates_by_cluster
from bnb_sim.analysis.stats_intervals import rates_by
from bnb_sim.analysis.stats_paired import paired_difference
from bnb_sim.analysis.table_format import fmt_mean, fmt_rate, fmt_signed_pp
from bnb_sim.core.protocol import ReportBlock, ReportSection
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village.findings import hotv_findings

TRACK_PREFIX = "illager_r"


CLUSTER = "game"  # the game index: every pet team of a --pets all run plays it
UNIT_TEXT = (
    "With several pet teams every game index is played by every team on the same draws, so "
    "the teams' results on one index are correlated: pooled rates are clustered by game "
    "index (the Wilson interval at the effective sample size of the per-index results); a "
    "group with one game per index has its exact Wilson interval."
)


class SectionDraft:
    """A section being written: the blocks of a :class:`ReportSection` in their order, and
    its ``summary`` (the calls of the shared report's sections, so the code reads the same)."""

    def __init__(self, title: str):
        self.title = title
        self.blocks: list[ReportBlock] = []
        self.summary: dict[str, Any] = {}

    def text(self, text: str) -> None:
        self.blocks.append(ReportBlock("text", text=text))

    def table(self, df: pd.DataFrame, caption: str | None = None) -> None:
        rows = tuple(df.to_dict(orient="records"))
        self.blocks.append(ReportBlock("table", rows=rows, caption=caption or ""))

    def figure(self, name: str, fig, caption: str) -> None:
        self.blocks.append(ReportBlock("figure", name=name, figure=fig, caption=caption))

    def warning(self, title: str, text: str) -> None:
        self.blocks.append(ReportBlock("warning", title=title, text=text))

    def data(self) -> ReportSection:
        return ReportSection(self.title, summary=self.summary, blocks=tuple(self.blocks))


def pooled_rate(games: pd.DataFrame, column: str = "won"):
    """The rate of ``column`` over all rows, its interval clustered by game index (a
    :class:`~bnb_sim.analysis.stats.Rate`; exact Wilson with one pet team)."""
    return clustered_rate(games[column].to_numpy(dtype=float), games[CLUSTER].to_numpy())


def _rate_table(df: pd.DataFrame, key: str, label: str) -> pd.DataFrame:
    table = rates_by_cluster(df, key, CLUSTER)
    return pd.DataFrame(
        {
            label: table[key].astype(str),
            "games": [f"{int(n):,}" for n in table["n"]],
            "game indices": [f"{int(n):,}" for n in table["n_clusters"]],
            "win rate [95% CI]": [
                fmt_rate(r, lo, hi)
                for r, lo, hi in zip(table.rate, table.lo, table.hi, strict=True)
            ],
        }
    ), table


def overview_section(games: pd.DataFrame, meta: Mapping) -> ReportSection:
    sec = SectionDraft("Run")
    comps = meta.get("components", {})
    params = meta.get("params", {})
    sec.text(
        f"**{len(games):,}** games of Minecraft: Heroes of the Village: "
        f"{params.get('players')} players, difficulty **{params.get('difficulty')}** (the "
        f"Illager starts on space {params.get('start_space')}), buildings "
        f"`{params.get('buildings')}`, "
        f"policies {', '.join(dict.fromkeys(params.get('policies', [])))}, "
        f"seed {params.get('seed')}, "
        f"{params.get('teams', 1)} pet team(s) on the same game indices."
    )
    sec.text(f"Rule readings: {readings_text(params)} (`bnb readings --game hotv`).")
    sec.summary["readings"] = params.get("readings")
    if comps.get("estimates"):
        sec.warning(
            "Estimated component data",
            f"{comps['estimates']} values of the component data are estimates (the sixth "
            "Fight-die face, mob values, world tiles, building costs...): the rates depend on "
            "them. `bnb components show --game hotv` lists them with their reasons.",
        )
    overall = pooled_rate(games)  # said in the shared "Team win rate" section; kept here
    indices = int(games[CLUSTER].nunique())  # for the key finding and summary.json
    sec.summary["win_rate"] = {**overall.to_dict(), "game_indices": indices,
                               "interval": "clustered by game index"}  # fmt: skip
    sec.summary["games"] = int(len(games))
    return sec.data()


def win_rate_section(games: pd.DataFrame) -> ReportSection:
    sec = SectionDraft("Win rates")
    sec.text(f"Every row is one game of one pet team. {UNIT_TEXT} Pet teams list the pets "
             "in seat order.")  # fmt: skip
    for key, label in (
        ("difficulty", "difficulty"),
        ("n_players", "players"),
        ("policy", "policies"),
        ("buildings", "buildings"),
    ):
        shown, table = _rate_table(games, key, label)
        if key == "buildings" and len(table) > 12:
            shown = shown.iloc[np.argsort(-table["n"].to_numpy())[:12]]
        sec.table(shown, caption=f"Win rate by {label}")
        sec.summary[f"win_rate_by_{key}"] = {
            str(getattr(row, key)): {
                "rate": row.rate,
                "lo": row.lo,
                "hi": row.hi,
                "n": int(row.n),
                "game_indices": int(row.n_clusters),
            }
            for row in table.itertuples()
        }
    return sec.data()


def pet_team_section(games: pd.DataFrame, source=None) -> ReportSection:
    from bnb_sim.analysis.value_report import value_hook

    sec = SectionDraft("Pet teams")
    value_hook(sec, source, "pet:")  # the pets' values of bnb value --attach, if saved here
    table = rates_by(games, "pets").sort_values("rate", ascending=False).reset_index(drop=True)
    sec.summary["win_rate_by_pets"] = {
        str(r.pets): {"rate": r.rate, "lo": r.lo, "hi": r.hi, "n": int(r.n)}
        for r in table.itertuples()
    }
    if len(table) == 1:
        sec.text(f"One pet team: `{table.pets[0]}`. Use `--pets all` to compare every team.")
        return sec.data()
    wide = games.pivot_table(index="game", columns="pets", values="won", observed=True)
    wide = wide.dropna().astype(float)
    ranking = paired_ranking({str(c): wide[c] for c in table.pets.astype(str)})
    leader, trailer = ranking.leader, ranking.trailer
    by_team = table.set_index(table.pets.astype(str))
    rows = []
    for team in ranking.order:
        r = by_team.loc[team]
        row = {"rank": len(rows) + 1, "pets": team, "games": f"{int(r.n):,}",
               "win rate [95% CI]": fmt_rate(r.rate, r.lo, r.hi)}  # fmt: skip
        if team == leader.first:
            row["vs best, paired [95% CI]"], row["p (Holm)"] = leader.label(), ""
        else:
            d = ranking.vs_top[team]
            row["vs best, paired [95% CI]"] = fmt_signed_pp(d["mean_diff"], d["lo"], d["hi"])
            row["p (Holm)"] = fmt_p(d["p_holm"])
        rows.append(row)
    sec.text(
        f"Every team played the same {len(wide):,} game indices (the same tiles, mobs, draws "
        "and dice streams), so the differences are paired: a one-sample t interval on the "
        f"per-game differences. The first row is ranked first on these games: "
        f"{ranking.selected_note()}. {_ranking_sentence(leader, trailer)}"
    )
    sec.table(pd.DataFrame(rows), caption="Pet teams ranked by win rate")
    sec.summary["best_team"] = leader.to_dict()["best"]
    sec.summary["worst_team"] = trailer.to_dict()["worst"]
    sec.summary["pet_ranking"] = {"best": leader.to_dict(), "worst": trailer.to_dict()}
    top = table.head(20)
    sec.figure(
        "pet-teams",
        plots.rate_bars(list(top.pets.astype(str)), {"win rate": top}, "Win rate by pet team"),
        "Win rate by pet team (95% Wilson intervals: one game per index and team)",
    )
    # each pet's paired effect: teams with it minus teams without it, per game index
    effects = []
    for pet in L.PET_NAMES:
        has = [c for c in wide.columns if pet in str(c).split(",")]
        lacks = [c for c in wide.columns if pet not in str(c).split(",")]
        if not has or not lacks:
            continue
        # means of team wins lie in [0, 1]: their difference in [-1, 1]
        d = paired_difference(wide[has].mean(axis=1), wide[lacks].mean(axis=1), bounds=(-1, 1))
        effects.append((pet, d))
    if effects:
        effects.sort(key=lambda x: -x[1]["mean_diff"])
        sec.table(
            pd.DataFrame(
                {
                    "pet": [p for p, _ in effects],
                    "teams with it minus teams without [95% CI]": [
                        fmt_signed_pp(d["mean_diff"], d["lo"], d["hi"]) for _, d in effects
                    ],
                    "games": [f"{d['n']:,}" for _, d in effects],
                }
            ),
            caption="Which pet helps most (paired on the game index)",
        )
        sec.summary["pet_effects"] = {p: d for p, d in effects}
    return sec.data()


def _ranking_sentence(leader, trailer) -> str:
    """Best and worst team in words: named only when the paired gap to every other team
    excludes 0 (:mod:`bnb_sim.analysis.leaders`)."""
    best = leader.claim("wins most often", name=lambda s: f"`{s}`")
    worst = trailer.claim("wins least often", name=lambda s: f"`{s}`")
    return f"{best[0].upper()}{best[1:]}. {worst[0].upper()}{worst[1:]}."


def losses_section(games: pd.DataFrame) -> ReportSection:
    sec = SectionDraft("Why games are lost")
    lost = games[~games["won"]]
    rate = pooled_rate(games.assign(lost=~games["won"].astype(bool)), "lost")
    sec.text(f"Lost games: {rate} (intervals clustered by game index).")
    sec.summary["lost"] = rate.to_dict()
    if len(lost):
        m = clustered_mean_ci(lost["turns"].to_numpy(dtype=float), lost[CLUSTER].to_numpy())
        sec.text(
            f"A lost game lasts {fmt_mean(m['mean'], m['lo'], m['hi'], 1)} turns on average; "
            f"{pooled_rate(lost, 'lost_in_fight')} of the losses came from an Illager face "
            "of the Fight die, the rest from the Illagers die at the end of a turn. Buildings "
            "completed at the loss: "
            + ", ".join(
                f"{int(b)}: {n:,}"
                for b, n in lost["buildings_completed"].value_counts().sort_index().items()
            )
            + "."
        )
        counts = lost["turns"].value_counts().sort_index()
        sec.figure(
            "turn-of-loss",
            plots.integer_histogram(counts, "Turn of the loss", "turn", "lost games"),
            "The turn in which the Illager reached the village",
        )
        sec.summary["loss_turn"] = m
    track = [c for c in games.columns if c.startswith(TRACK_PREFIX)]
    if track:
        fig, axes = plots.new_figure(3.6)
        ax = axes[0, 0]
        for label, part in (("won", games[games["won"]]), ("lost", lost)):
            if len(part) == 0:
                continue
            values = part[track].to_numpy(dtype=float)
            values[values < 0] = np.nan
            alive = (~np.isnan(values)).sum(axis=0)
            keep = alive >= max(20, 0.01 * len(part))
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # rounds no game reached
                mean = np.nanmean(values, axis=0)
            rounds = np.arange(1, len(track) + 1)
            ax.plot(rounds[keep], mean[keep], marker="o", ms=3, label=f"{label} games")
        ax.set_xlabel("round")
        ax.set_ylabel("Illager space (0 = village)")
        ax.set_title("The Illager's track: mean space after each round", loc="left")
        ax.legend()
        sec.figure(
            "illager-track", fig, "Mean Illager space after each round (games still running)"
        )
    return sec.data()


def fight_share(k_g: np.ndarray, n_g: np.ndarray, z: float = 1.959963984540054):
    """A ratio K/N of per-cluster counts with a cluster-robust (linearised) normal interval,
    clipped to [0, 1]: fights within a game index are not independent across pet teams."""
    n = float(n_g.sum())
    p = float(k_g.sum()) / n
    se = float(np.sqrt(np.sum((k_g - p * n_g) ** 2))) / n
    return p, max(0.0, p - z * se), min(1.0, p + z * se)


def fights_section(seats: pd.DataFrame, meta: Mapping) -> ReportSection:
    from bnb_sim.games.heroes_village.odds import fight_odds

    sec = SectionDraft("Fights against the exact odds")
    data = meta.get("components", {}).get("data")
    values = sorted(int(c[len("fights_v") :]) for c in seats.columns if c.startswith("fights_v"))
    if not data or not values:
        sec.text("No fights recorded.")
        return sec.data()
    faces = [L.FACE_CODES.get(f, f) for f in data["dice"]["fight"]["faces"]]
    rolls = data["rules"]["fight_rolls"]
    wolf = data["pets"]["wolf"]["fight_bonus"]
    rows = []
    for pet_case in ("wolf", "other pets"):
        part = seats[(seats["pet"] == "wolf") == (pet_case == "wolf")]
        for v in values:
            per_game = part.groupby("game")[[f"fights_v{v}", f"wins_v{v}"]].sum()
            n_g = per_game[f"fights_v{v}"].to_numpy(dtype=float)
            k_g = per_game[f"wins_v{v}"].to_numpy(dtype=float)
            n = int(n_g.sum())
            if n == 0:
                continue
            exact = float(fight_odds(faces, v, rolls, wolf if pet_case == "wolf" else 0).p_defeated)
            p, lo, hi = fight_share(k_g, n_g)
            rows.append({"fighter": pet_case, "fight value": v, "fights": f"{n:,}",
                         "games": f"{int((n_g > 0).sum()):,}",
                         "defeated in games [95% CI]": fmt_rate(p, lo, hi),
                         "exact": f"{100 * exact:.2f}%",
                         "agrees": "yes" if lo <= exact <= hi else "no"})  # fmt: skip
    sec.text(
        "Fights inside the simulated games against the exact odds of `bnb odds --game hotv` "
        "from the same die faces (a fight the player stopped after a failed roll, or that the "
        "loss cut short, is rolled to its end for this record only, from a die stream of its "
        "own, so the record compares with a full fight). The fights of one game index share "
        "its Fight-die stream (across the "
        "pet teams too), so the interval is clustered by game index: p = K/N with the "
        "linearised variance sum_g (k_g - p n_g)^2 / N^2, a normal 95% interval. At 95%, about "
        "one row in twenty falls outside by chance; a real disagreement grows with the games."
    )
    sec.table(pd.DataFrame(rows), caption="P(defeated) by fight value")
    sec.summary["fights"] = rows
    return sec.data()


def actions_section(seats: pd.DataFrame) -> ReportSection:
    sec = SectionDraft("What the players did")
    cols = ["explores", "collects", "fights", "builds", "discards", "blocks_collected",
            "blocks_handed_in", "mobs_spawned", "darkness_ignored", "fox_blocks",
            "illager_ignored", "fights_stopped", "horse_tiles_declined",
            "extra_hand_ins"]  # fmt: skip
    cols = [c for c in cols if c in seats.columns]
    means = seats.groupby("pet", observed=True)[cols].mean()
    table = means.map(lambda x: f"{x:.2f}").reset_index()
    sec.table(table, caption="Mean per player and game, by pet")
    sec.summary["actions_by_pet"] = means.to_dict(orient="index")
    return sec.data()


def report_sections(seats: pd.DataFrame, games: pd.DataFrame, meta: Mapping) -> list:
    """The game's sections of ``bnb report`` (:meth:`HeroesVillage.report_sections`), the key
    findings on the first: the team win rate, the best and worst pet team, each pet's effect
    (read from the sections' summaries, :mod:`bnb_sim.games.heroes_village.findings`).
    ``meta["run_dir"]``, when given, is the run folder (the pets' values of ``bnb value
    --attach``)."""
    sections = [
        overview_section(games, meta),
        win_rate_section(games),
        pet_team_section(games, meta.get("run_dir")),
        losses_section(games),
        fights_section(seats, meta),
        actions_section(seats),
    ]
    findings = tuple(f.to_dict() for f in hotv_findings(summary_of(sections)))
    return [replace(sections[0], findings=findings), *sections[1:]]


def summary_of(sections: Sequence[ReportSection]) -> dict[str, Any]:
    """The sections' summaries merged in order (as ``summary.json`` merges them)."""
    out: dict[str, Any] = {}
    for section in sections:
        out.update(section.summary)
    return out
