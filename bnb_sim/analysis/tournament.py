"""Round-robin tournaments on paired seeds: schedule, ratings, head-to-head, report sections.

Design (docs/design.md, "Statistics"):

* **Schedule.** For K policies and P players every combination of P *different* policies
  plays (``itertools.combinations``); only when K < P are policies repeated
  (``combinations_with_replacement``, dropping the tables where one policy plays alone).
* **Paired seeds.** Every combination plays the same game indices ``0 .. N-1`` (the *seeds*)
  under each of its P cyclic seatings: seating ``r`` puts ``combo[(s + r) % P]`` in seat
  ``s``. A game depends only on (seed, game index, seat), so the P seatings of one index deal
  the same cubes, tiles and dice per seat and only who sits where changes; that cancels the
  first-player advantage and the luck of the deal.
* **Ratings.** Bradley--Terry on the pairwise results of every game (better rank wins, equal
  ranks ½-½, :func:`bnb_sim.analysis.ratings.pairwise_from_games`), on the Elo scale, anchored
  to ``random`` when it plays (else mean 0). Intervals: percentile bootstrap over *seeds*: a
  seed (game index) carries every game played on it, in every combination and seating, so the
  dependence that CRN creates between those games is kept inside the resampled unit.
* **Head-to-head.** Score of the row policy against the column policy over all their
  meetings, with n (meetings) and the same seed-bootstrap interval.
* **Strength against budget.** When two or more entrants are one search bot differing only
  in budget (:mod:`bnb_sim.analysis.budget_series`), their Elo and win rate by budget, as a
  table and a plot on a log axis.
* **Win rates** per policy (and per seat) with Wilson intervals clustered by seed
  (:func:`~bnb_sim.analysis.stats.rates_by_cluster`), and **XP** means with t intervals
  clustered by seed (:func:`~bnb_sim.analysis.stats.clustered_mean_ci`): all games of a seed
  share its deal, and a policy may take several seats of one game. ``won`` counts a shared win
  for every tied winner.

The frames this module reads are the engine's per-seat and per-game rows
(``docs/run-format.md``) with three extra columns the runner adds: ``seed_index`` (the game
index, i.e. the seed), ``combo`` and ``rotation``; ``game`` is a unique id per played game.
Nothing here imports numba: the games are played by :mod:`bnb_sim.runner.experiments`.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots, tables
from bnb_sim.analysis.budget_series import budget_section, budget_summary
from bnb_sim.analysis.estimated import add_estimated_warning
from bnb_sim.analysis.names import display_names, rename_frame
from bnb_sim.analysis.ratings import bradley_terry, elo_from_theta
from bnb_sim.analysis.report import ReportBuilder, Section, readings_text
from bnb_sim.analysis.stats import (
    _pattern_bootstrap,
    _percentile,
    _unique_patterns,
    clustered_mean_ci,
    rates_by_cluster,
)
from bnb_sim.errors import BnbError

__all__ = [
    "MAX_SEATINGS",
    "TournamentResult",
    "analyse_tournament",
    "build_tournament_report",
    "schedule",
    "seatings",
    "seed_pairwise",
    "split_policy_list",
    "tournament_sections",
    "tournament_summary",
]

# combinations x seatings; each seating plays all N seeds
MAX_SEATINGS = 2000


# --------------------------------------------------------------------------------------
# schedule


def split_policy_list(text: str | Sequence[str]) -> list[str]:
    """``"heuristic,greedy,random"`` -> specs; inline weights keep their commas.

    ``heuristic:board=1.5,weapon=2,random`` splits into ``heuristic:board=1.5,weapon=2`` and
    ``random``: a piece with ``=`` but no ``:`` continues the previous spec's ``k=v`` list.
    A list (from a TOML file or repeated options) is flattened the same way.
    """
    items = [text] if isinstance(text, str) else list(text)
    out: list[str] = []
    for item in items:
        for piece in str(item).split(","):
            piece = piece.strip()
            if not piece:
                continue
            if out and "=" in piece and ":" not in piece and ":" in out[-1]:
                out[-1] = f"{out[-1]},{piece}"
            else:
                out.append(piece)
    return out


def schedule(policies: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Tables of a round robin: every combination of ``players`` policies.

    Without repetition when there are at least as many policies as seats; otherwise with
    repetition, leaving out tables where a single policy plays against itself (they say
    nothing about ratings).
    """
    labels = list(policies)
    if len(set(labels)) != len(labels):
        dup = next(p for p in labels if labels.count(p) > 1)
        raise BnbError(f"tournament: policy '{dup}' is listed twice")
    if len(labels) < 2:
        raise BnbError("tournament: needs at least 2 policies")
    players = int(players)
    if players < 2:
        raise BnbError(f"tournament: players must be at least 2, got {players}")
    from bnb_sim.runner.budget import tournament_tables

    tables = tournament_tables(len(labels), players)  # counted, not built (it can be huge)
    if tables * players > MAX_SEATINGS:
        raise BnbError(
            f"tournament: {tables:,} combinations x {players} seatings is more than "
            f"{MAX_SEATINGS}; use fewer policies"
        )
    if len(labels) >= players:
        return list(itertools.combinations(labels, players))
    return [c for c in itertools.combinations_with_replacement(labels, players) if len(set(c)) > 1]


def seatings(combo: Sequence[str]) -> list[tuple[str, ...]]:
    """The cyclic seatings of a table: seating ``r`` puts ``combo[(s + r) % P]`` in seat s."""
    n = len(combo)
    return [tuple(combo[(s + r) % n] for s in range(n)) for r in range(n)]


# --------------------------------------------------------------------------------------
# pairwise results per seed


def seed_pairwise(seats: pd.DataFrame, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise wins summed per seed: ``(seed_ids, wins)`` with ``wins`` of shape (S, K*K).

    ``wins[s, i*K + j]`` is how often ``names[i]`` beat ``names[j]`` in the games of seed
    ``seed_ids[s]`` (every pair of seats with different policies in a game is one meeting;
    equal ranks score ½ each). Every game must have the same number of seats.
    """
    k = len(names)
    if not len(seats):
        return np.zeros(0, np.int64), np.zeros((0, k * k))
    index = {n: i for i, n in enumerate(names)}
    order = np.lexsort((seats["seat"].to_numpy(), seats["game"].to_numpy()))
    game = seats["game"].to_numpy()[order]
    _, per_game = np.unique(game, return_counts=True)
    size = int(per_game[0])
    if np.any(per_game != size):
        raise ValueError("seed_pairwise: every game must have the same number of seats")
    codes = seats["policy"].astype(str).map(index)
    if codes.isna().any():
        raise ValueError("seed_pairwise: a policy is not among the names")
    pol = codes.to_numpy(dtype=np.int64)[order].reshape(-1, size)
    rank = seats["rank"].to_numpy(dtype=float)[order].reshape(-1, size)
    seed_of_game = seats["seed_index"].to_numpy()[order].reshape(-1, size)[:, 0]
    seed_ids, seed_code = np.unique(seed_of_game, return_inverse=True)
    wins = np.zeros((seed_ids.size, k * k))
    for a in range(size):
        for b in range(a + 1, size):
            pa, pb, ra, rb = pol[:, a], pol[:, b], rank[:, a], rank[:, b]
            sel = pa != pb
            wa = (ra < rb) + 0.5 * (ra == rb)
            np.add.at(wins, (seed_code[sel], (pa * k + pb)[sel]), wa[sel])
            np.add.at(wins, (seed_code[sel], (pb * k + pa)[sel]), 1.0 - wa[sel])
    return seed_ids, wins


def _ratings_and_h2h(
    wins: np.ndarray, k: int, anchor: int | None, l2: float
) -> tuple[np.ndarray, np.ndarray]:
    matrix = wins.reshape(k, k)
    elo = elo_from_theta(bradley_terry(matrix, l2=l2), anchor)
    meetings = matrix + matrix.T
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(meetings > 0, matrix / np.where(meetings > 0, meetings, 1.0), 0.5)
    return elo, score.ravel()


# --------------------------------------------------------------------------------------
# analysis


@dataclass
class TournamentResult:
    """Everything a tournament report shows (tables are tidy DataFrames of numbers)."""

    policies: list[str]
    players: int
    seeds: int
    seed: int
    combos: list[tuple[str, ...]]
    ratings: pd.DataFrame  # policy, elo, lo, hi, games
    h2h_score: pd.DataFrame  # row vs column score (NaN: never met / diagonal)
    h2h_lo: pd.DataFrame
    h2h_hi: pd.DataFrame
    h2h_n: pd.DataFrame  # meetings
    win_rates: pd.DataFrame  # policy, k, n, rate, lo, hi
    win_rates_by_seat: pd.DataFrame  # policy, seat, k, n, rate, lo, hi
    xp: pd.DataFrame  # policy, mean, lo, hi, n, sd
    n_games: int
    tie_rate: dict
    anchor: str | None
    n_boot: int
    params: dict = field(default_factory=dict)
    name: str | None = None
    elo_replicates: np.ndarray | None = None  # bootstrap Elo (n_boot x policies, names order)

    def __repr__(self) -> str:  # the frames would fill the screen
        elo = ", ".join(
            f"{r.policy} {r.elo:+.0f} [{r.lo:+.0f}, {r.hi:+.0f}]" for r in self.ratings.itertuples()
        )
        return (
            f"<TournamentResult {', '.join(self.policies)}: {self.players} players, "
            f"{self.n_games:,} games on {self.seeds:,} seeds; Elo {elo}>"
        )


def _default_anchor(policies: Sequence[str], anchor: str | None) -> str | None:
    if anchor == "auto":
        return "random" if "random" in policies else None
    if anchor in (None, "", "none", "mean"):
        return None
    if anchor not in policies:
        raise BnbError(f"tournament: anchor '{anchor}' is not one of {', '.join(policies)}")
    return anchor


def analyse_tournament(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    *,
    policies: Sequence[str],
    players: int,
    seed: int = 0,
    n_boot: int = 200,
    anchor: str | None = "auto",
    confidence: float = 0.95,
    l2: float = 1e-2,
    params: dict | None = None,
    name: str | None = None,
    combos: Sequence[Sequence[str]] | None = None,
) -> TournamentResult:
    """Ratings, head-to-head and win rates of a tournament's frames (see the module doc).

    ``seats`` needs ``game, seed_index, seat, policy, rank, won`` (and ``xp``); ``games`` needs
    ``game, winners``. ``combos`` lists the tables (inferred from ``combo``/``rotation`` when
    None). ``anchor``: a policy whose Elo is pinned to 0, ``"auto"`` (random when it
    plays) or None (mean 0). The bootstrap is deterministic for ``seed``. Policies given
    by a file are shown by their names (:mod:`bnb_sim.analysis.names`).
    """
    shown = display_names(policies)
    if any(k != v for k, v in shown.items()):
        seats, games = rename_frame(seats, shown), rename_frame(games, shown)
        if combos is not None:
            combos = [tuple(shown.get(p, p) for p in c) for c in combos]
        anchor = shown.get(anchor, anchor) if anchor is not None else None
        params = {**(params or {}), "policy_names": {v: k for k, v in shown.items() if k != v}}
    names = [shown[str(p)] for p in policies]
    k = len(names)
    anchor_label = _default_anchor(names, anchor)
    anchor_idx = names.index(anchor_label) if anchor_label is not None else None
    seed_ids, per_seed = seed_pairwise(seats, names)
    total = per_seed.sum(axis=0)
    elo, score = _ratings_and_h2h(total, k, anchor_idx, l2)
    lo = np.full(k, np.nan)
    hi = np.full(k, np.nan)
    score_lo = np.full(k * k, np.nan)
    score_hi = np.full(k * k, np.nan)
    elo_reps = None
    if n_boot > 0 and seed_ids.size > 1:
        # halves -> integers so the distinct-pattern packing applies
        patterns, counts = _unique_patterns(np.rint(per_seed * 2.0))
        patterns = patterns / 2.0

        def stat(sums: np.ndarray) -> np.ndarray:
            return np.stack([np.concatenate(_ratings_and_h2h(s, k, anchor_idx, l2)) for s in sums])

        reps = _pattern_bootstrap(patterns, counts, stat, n_boot, np.random.default_rng(seed))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            rep_lo, rep_hi = _percentile(reps, confidence)
        lo, hi, elo_reps = rep_lo[:k], rep_hi[:k], reps[:, :k]
        score_lo, score_hi = rep_lo[k:], rep_hi[k:]
    games_per_policy = seats.groupby(seats["policy"].astype(str))["game"].nunique()
    ratings = pd.DataFrame(
        {
            "policy": names,
            "elo": elo,
            "lo": lo,
            "hi": hi,
            "games": [int(games_per_policy.get(n, 0)) for n in names],
        }
    )
    if anchor_idx is not None:
        ratings.loc[anchor_idx, ["elo", "lo", "hi"]] = 0.0
    ratings = ratings.sort_values(["elo", "policy"], ascending=[False, True], ignore_index=True)

    meetings = (total.reshape(k, k) + total.reshape(k, k).T).astype(float)
    mask = meetings > 0
    np.fill_diagonal(mask, False)

    def square(values: np.ndarray) -> pd.DataFrame:
        out = np.where(mask, values.reshape(k, k), np.nan)
        df = pd.DataFrame(out, index=names, columns=names)
        df.index.name = "policy"
        return df

    n_values = np.rint(meetings).astype(np.int64)
    np.fill_diagonal(n_values, 0)
    n_df = pd.DataFrame(n_values, index=names, columns=names)
    n_df.index.name = "policy"

    frame = seats.assign(policy=seats["policy"].astype(str))
    # Every game of a seed shares its deal (all tables and seatings), so the seed is the
    # unit of the win-rate and XP intervals, as for the ratings.
    cols = ["policy", "seed_index", "won"]
    win_rates = _order(
        rates_by_cluster(frame[cols], "policy", "seed_index", confidence=confidence), names
    ).drop(columns="n_clusters")
    by_seat = _order(
        rates_by_cluster(
            frame[["seat", *cols]], ["policy", "seat"], "seed_index", confidence=confidence
        ),
        names,
    ).drop(columns="n_clusters")
    xp_rows = []
    if "xp" in frame.columns:
        for policy in names:
            part = frame.loc[frame["policy"] == policy]
            ci = clustered_mean_ci(part["xp"].to_numpy(dtype=float), part["seed_index"], confidence)
            xp_rows.append({"policy": policy, **ci})
    xp = pd.DataFrame(xp_rows, columns=["policy", "mean", "lo", "hi", "n", "sd", "n_clusters"])
    ties = tables.tie_rate(games, seats) if len(games) else None
    return TournamentResult(
        policies=names,
        players=int(players),
        seeds=int(seed_ids.size),
        seed=int(seed),
        combos=[tuple(c) for c in combos] if combos is not None else _combos_of(seats),
        ratings=ratings,
        h2h_score=square(score),
        h2h_lo=square(score_lo),
        h2h_hi=square(score_hi),
        h2h_n=n_df,
        win_rates=win_rates,
        win_rates_by_seat=by_seat,
        xp=xp,
        n_games=int(seats["game"].nunique()),
        tie_rate=ties.to_dict() if ties is not None else {},
        anchor=anchor_label,
        n_boot=int(n_boot),
        params=dict(params or {}),
        name=name,
        elo_replicates=elo_reps,
    )


def _combos_of(seats: pd.DataFrame) -> list[tuple[str, ...]]:
    if "combo" not in seats.columns:
        return []
    first = seats[seats["rotation"] == 0] if "rotation" in seats.columns else seats
    out = []
    for _, part in first.groupby("combo", sort=True):
        g0 = part["game"].iloc[0]
        rows = part[part["game"] == g0].sort_values("seat")
        out.append(tuple(rows["policy"].astype(str)))
    return out


def _order(df: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    rank = {p: i for i, p in enumerate(names)}
    df = df.assign(policy=df["policy"].astype(str))
    keys = ["_o"] + [c for c in ("seat",) if c in df.columns]
    return (
        df.assign(_o=df["policy"].map(rank))
        .sort_values(keys, kind="stable")
        .drop(columns="_o")
        .reset_index(drop=True)
    )


# --------------------------------------------------------------------------------------
# report


def _fmt_elo(elo: float, lo: float, hi: float) -> str:
    if not math.isfinite(elo):
        return "n/a"
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{elo:+.0f}"
    return f"{elo:+.0f} [{lo:+.0f}, {hi:+.0f}]"


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
