"""The estimates of a round-robin tournament on paired seeds (:func:`analyse_tournament`):
Bradley-Terry ratings on the Elo scale and head-to-head scores with seed-bootstrap intervals,
win rates and XP clustered by seed, gathered in a :class:`TournamentResult`. The design is
described in :mod:`bnb_sim.analysis.tournament`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from bnb_sim.analysis import tables
from bnb_sim.analysis.names import display_names, rename_frame
from bnb_sim.analysis.ratings import bradley_terry, elo_from_theta
from bnb_sim.analysis.stats import (
    _pattern_bootstrap,
    _percentile,
    _unique_patterns,
    clustered_mean_ci,
    rates_by_cluster,
)
from bnb_sim.errors import BnbError


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
    rank = _ranks(seats)[order].reshape(-1, size)
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


def _ranks(seats: pd.DataFrame) -> np.ndarray:
    """Each seat's finishing rank: the ``rank`` column, or for a game whose rows say only who
    won, 1 for a winner and 2 for the others (winners beat the rest, the rest tie)."""
    if "rank" in seats.columns:
        return seats["rank"].to_numpy(dtype=float)
    return np.where(seats["won"].to_numpy(dtype=bool), 1.0, 2.0)


def _ratings_and_h2h(
    wins: np.ndarray, k: int, anchor: int | None, l2: float
) -> tuple[np.ndarray, np.ndarray]:
    matrix = wins.reshape(k, k)
    elo = elo_from_theta(bradley_terry(matrix, l2=l2), anchor)
    meetings = matrix + matrix.T
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(meetings > 0, matrix / np.where(meetings > 0, meetings, 1.0), 0.5)
    return elo, score.ravel()


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
    game: str | None = None  # the registered game that played (None: the default game)

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
    game: str | None = None,
) -> TournamentResult:
    """Ratings, head-to-head and win rates of a tournament's frames (see the module doc).

    ``seats`` needs ``game, seed_index, seat, policy, won`` (``rank`` and ``xp`` where the
    game has them; without ``rank`` a winner ranks first and the others tie); ``games`` needs
    ``game`` (and ``winners``, else counted from ``won``). ``game`` names the game that played
    (its policy specs, e.g. search budgets). ``combos`` lists the tables (inferred from
    ``combo``/``rotation`` when None). ``anchor``: a policy whose Elo is pinned to 0,
    ``"auto"`` (random when it plays) or None (mean 0). The bootstrap is deterministic for
    ``seed``. Policies given by a file are shown by their names
    (:mod:`bnb_sim.analysis.names`).
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
        game=game,
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
