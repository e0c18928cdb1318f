"""Summary tables for reports: pure pandas/numpy on the ``seats`` and ``games`` frames.

Every function takes the frames of ``docs/run-format.md`` (as :func:`bnb_sim.runner.storage.
load_run` returns them) and returns a tidy DataFrame (or a dict) of numbers; formatting for
display is done by :func:`~bnb_sim.analysis.table_format.display_rates` and friends. Rates
carry ``k, n, rate, lo, hi`` with 95% Wilson intervals (:mod:`bnb_sim.analysis.stats`).
Everything is vectorised so a run of a million games (four million seat rows) takes seconds.

Mob species and building types are read from the column names (``fights_<mob>`` with a
matching ``wins_<mob>``, ``defeated_<mob>``, ``built_<type>``), never from a fixed list.

Statistical note: rows of one game are not independent. Win rates, choice shares and means
per policy are therefore clustered by game (:func:`~bnb_sim.analysis.stats.rates_by_cluster`,
:func:`~bnb_sim.analysis.stats.clustered_mean_ci`): a group with one row per game keeps the
exact Wilson (or t) interval, a policy playing several seats of a game gets the interval of
its per-game results. The fights and "owns a mob" tables still treat rows as independent and
say so (the review measured them within 1-8% of the clustered width, or wider).

This module holds the tables of a run by concern (win rates, XP, game length, margins and
comebacks, fights and ownership, play style); the pieces they share live beside it:

* :mod:`bnb_sim.analysis.table_columns` -- column discovery and labels;
* :mod:`bnb_sim.analysis.table_blocks` -- sums per game and group in bounded memory;
* :mod:`bnb_sim.analysis.table_choices` -- scoring-choice shares;
* :mod:`bnb_sim.analysis.table_format` -- numbers and intervals as a report shows them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from bnb_sim.analysis.stats_clustered import (
    _ratio_se,
    clustered_mean_ci,
    clustered_wilson,
    rates_by_cluster,
)
from bnb_sim.analysis.stats_intervals import Rate, mean_ci, rates_by, wilson_interval

# imported from here by tests and by tournament/sweep (split in parallel); new code imports
# them from their homes
from bnb_sim.analysis.table_blocks import (  # noqa: F401
    _group_codes,
    _narrow_codes,
    _pair_sums,
    game_blocks,
    group_means,
    per_game,
    value_counts_int,
)
from bnb_sim.analysis.table_choices import choice_shares  # noqa: F401
from bnb_sim.analysis.table_columns import (  # noqa: F401
    PLAY_STYLE,
    RATE_COLUMNS,
    ROUNDS,
    _order_policies,
    label,
    mob_names,
    prefixed,
    source_label,
    xp_sources,
)
from bnb_sim.analysis.table_format import (  # noqa: F401
    _num,
    display_rates,
    fmt_mean,
    fmt_rate,
    fmt_sd,
    fmt_signed_pp,
    mean_cells,
    no_interval_text,
    rate_cells,
)
from bnb_sim.columns import XP_SOURCES  # noqa: F401  (tests read it here)

# --------------------------------------------------------------------------------------
# win rates


def win_rates(
    seats: pd.DataFrame, by: str | list[str], policy_order: Sequence[str] | None = None
) -> pd.DataFrame:
    """Win rate (``won``) per group: ``[*by, k, n, rate, lo, hi]``; labels as plain strings.

    With a ``game`` column the interval is clustered by game (exact Wilson for a group with one
    row per game, the clustered Wilson interval for a policy in several seats).
    """
    keys = [by] if isinstance(by, str) else list(by)
    if "game" in seats.columns and seats["won"].dtype == bool:
        out = _clustered_win_rates(seats, keys)  # same numbers, no wide temporary frames
    elif "game" in seats.columns:  # clustered by game: a policy may play several seats
        out = rates_by_cluster(seats[[*keys, "game", "won"]], keys, "game")
        out = out.drop(columns="n_clusters")
    else:
        out = rates_by(seats[[*keys, "won"]], keys)
    for key in keys:
        if not pd.api.types.is_numeric_dtype(out[key]):
            out[key] = out[key].astype(str)
    out["k"] = out["k"].astype("int64")
    return _order_policies(out, policy_order)


def _clustered_win_rates(seats: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """:func:`stats.rates_by_cluster` of ``won`` by ``keys``, clustered by ``game``, with
    NumPy on the columns instead of a groupby over a (group, game) frame: the same sums, so
    the same numbers, in a fraction of the memory (the groupby took 500 MB for 4,000,000
    rows). The sums are taken per block of whole games (:func:`game_blocks`) and added."""

    group, labels = _group_codes(seats, keys)
    game = seats["game"].to_numpy()
    won = seats["won"].to_numpy()
    n_groups = int(np.prod([max(len(v), 1) for v in labels]))
    sums = np.zeros((7, n_groups))
    for rows in game_blocks(game):
        sums += _pair_sums(group[rows], game[rows], won[rows], n_groups)
    del group
    groups = np.flatnonzero(sums[1] > 0)
    k, n, yy, ym, mm, n_clusters, multi = sums[:, groups]
    multi = multi > 0
    se = _ratio_se(k, n, yy, ym, mm, n_clusters)
    lo, hi = clustered_wilson(k, n, se, n_clusters, multi)
    out: dict = {}
    rest = groups.copy()
    sizes = [max(len(v), 1) for v in labels]
    parts = []
    for width in reversed(sizes):
        parts.append(rest % width)
        rest = rest // width
    for key, values, codes in zip(keys, labels, reversed(parts), strict=True):
        out[key] = [values[c] for c in codes]
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(n > 0, k / np.where(n > 0, n, 1), np.nan)
    frame = pd.DataFrame({**out, "k": k, "n": n.astype("int64"), "rate": rate})
    frame["lo"], frame["hi"] = lo, hi
    return frame


def tie_rate(games: pd.DataFrame, seats: pd.DataFrame | None = None) -> Rate:
    """Share of games with a shared win (more than one winner)."""
    if "winners" in games.columns:
        winners = games["winners"].to_numpy()
    else:
        winners = seats.groupby("game", sort=False)["won"].sum().to_numpy()
    return Rate.of(int(np.count_nonzero(winners > 1)), int(winners.size))


def rate_row(name, k: float, n: int) -> dict:
    """One table row ``{name..., k, n, rate, lo, hi}`` from counts."""
    r = Rate.of(k, n)
    return {**name, "k": r.k, "n": r.n, "rate": r.rate, "lo": r.lo, "hi": r.hi}


def _rates_frame(names: dict[str, Sequence], k: np.ndarray, n: np.ndarray) -> pd.DataFrame:
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=np.int64)
    lo, hi = wilson_interval(k, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(n > 0, k / np.maximum(n, 1), np.nan)
    return pd.DataFrame({**names, "k": k, "n": n, "rate": rate, "lo": lo, "hi": hi})


# --------------------------------------------------------------------------------------
# XP


def policy_parts(seats: pd.DataFrame, columns: Sequence[str]):
    """``(policy, rows)`` per policy in groupby order, ``rows`` holding only ``columns`` (those
    present): iterating ``seats.groupby("policy")`` copied every column of every row."""
    keep = [c for c in dict.fromkeys(columns) if c in seats.columns]
    policy = seats["policy"]
    if not isinstance(policy.dtype, pd.CategoricalDtype):
        policy = policy.astype("category")
    codes = policy.cat.codes.to_numpy()
    present = np.flatnonzero(np.bincount(codes[codes >= 0], minlength=len(policy.cat.categories)))
    if len(present) == 1:
        yield str(policy.cat.categories[present[0]]), seats[keep]
        return
    for code in present:
        mask = codes == code
        yield str(policy.cat.categories[code]), seats.loc[mask, keep]


def xp_by_policy(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> pd.DataFrame:
    """Final XP per policy: ``[policy, mean, lo, hi, n, sd, median, p5, p95, min, max]``.

    The interval for the mean is clustered by game (:func:`_mean_ci_by_game`).
    """
    rows = []
    for policy, part in policy_parts(seats, ["xp", "game"]):
        values = part["xp"].to_numpy()
        ci = _mean_ci_by_game(part, "xp")
        p5, median, p95 = np.percentile(values, [5, 50, 95]) if values.size else [np.nan] * 3
        rows.append(
            {
                "policy": str(policy),
                **ci,
                "median": float(median),
                "p5": float(p5),
                "p95": float(p95),
                "min": int(values.min()),
                "max": int(values.max()),
            }
        )
    return _order_policies(pd.DataFrame(rows), policy_order)


def _mean_ci_by_game(rows: pd.DataFrame, column: str) -> dict:
    """Mean of ``column`` with its interval clustered by game when ``rows`` has a ``game``
    column (t interval on rows otherwise); keys ``mean, lo, hi, n, sd, note``."""
    values = rows[column].to_numpy()
    if "game" not in rows.columns:
        return mean_ci(values.astype(float))
    ci = clustered_mean_ci(values, rows["game"].to_numpy())  # integers: by block, exact
    return {k: ci[k] for k in ("mean", "lo", "hi", "n", "sd", "note")}


def means_by_policy(
    seats: pd.DataFrame, columns: Sequence[str], policy_order: Sequence[str] | None = None
) -> pd.DataFrame:
    """Mean per player and game of each column, per policy, with 95% intervals and n.

    Long format ``[policy, column, mean, lo, hi, n, sd, note]``, intervals clustered by game
    (:func:`_mean_ci_by_game`); used for XP by source and play style.
    """
    rows = []
    for policy, part in policy_parts(seats, [*columns, "game"]):
        for column in columns:
            rows.append({"policy": str(policy), "column": column, **_mean_ci_by_game(part, column)})
    out = pd.DataFrame(rows, columns=["policy", "column", "mean", "lo", "hi", "n", "sd", "note"])
    if policy_order is not None:
        rank = {p: i for i, p in enumerate(policy_order)}
        col_rank = {c: i for i, c in enumerate(columns)}
        out = (
            out.assign(_o=out["policy"].map(rank).fillna(len(rank)), _c=out["column"].map(col_rank))
            .sort_values(["_o", "_c"], kind="stable")
            .drop(columns=["_o", "_c"])
            .reset_index(drop=True)
        )
    return out


def xp_sources_by_policy(
    seats: pd.DataFrame, policy_order: Sequence[str] | None = None
) -> pd.DataFrame:
    """Mean XP from each source per policy: index policy, one column per ``xp_*`` source."""
    sources = xp_sources(seats.columns)
    means = group_means(seats, sources)
    if policy_order is not None:
        means = means.reindex([p for p in policy_order if p in means.index])
    return means


def xp_histogram(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> pd.DataFrame:
    """Exact XP histogram per policy (no sampling): index XP value, one column per policy,
    holding the share of that policy's seat rows."""
    codes, uniques = _narrow_codes(seats["policy"])
    xp = seats["xp"].to_numpy()
    low, high = int(xp.min()), int(xp.max())
    width = high - low + 1
    key = codes.astype(np.int32 if len(uniques) * width < 2**31 else np.int64)  # in place
    key *= width
    key += xp
    key -= low
    counts = np.bincount(key, minlength=len(uniques) * width)
    del key
    counts = counts.reshape(len(uniques), width).T
    table = pd.DataFrame(counts, index=np.arange(low, high + 1), columns=list(uniques))
    table = table.loc[:, table.sum(axis=0) > 0]
    table = table / table.sum(axis=0)
    if policy_order is not None:
        table = table[[p for p in policy_order if p in table.columns]]
    table.index.name = "xp"
    return table


# --------------------------------------------------------------------------------------
# game length and choices


def game_length(games: pd.DataFrame) -> dict:
    """Turns per game (all players): mean with CI, sd, n, median, p5, p95, min, max."""
    turns = games["turns"].to_numpy()
    ci = mean_ci(turns)
    p5, median, p95 = np.percentile(turns, [5, 50, 95])
    return {
        **ci,
        "median": float(median),
        "p5": float(p5),
        "p95": float(p95),
        "min": int(turns.min()),
        "max": int(turns.max()),
    }


def round_trigger_turns(games: pd.DataFrame) -> pd.DataFrame:
    """Mean turn in which each scoring round was triggered: ``[round, mean, lo, hi, n, sd]``."""
    rows = []
    for rnd in ROUNDS:
        column = f"round_{rnd}_turn"
        if column in games.columns:
            rows.append({"round": rnd.upper(), **mean_ci(games[column].to_numpy())})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------
# margins and comebacks

#: Seat columns with each seat's XP total right after a scoring round was scored (R-SCORE-2).
STANDING_COLUMNS = {"A": "total_xp_after_a", "B": "total_xp_after_b"}
#: The bins of the winning-margin distribution (XP, both ends included).
MARGIN_BINS = ((0, 0), (1, 2), (3, 5), (6, 10), (11, 20), (21, None))


def winning_margin(seats: pd.DataFrame) -> dict | None:
    """The winner's lead: per game the best XP minus the next best (0 when the most XP was
    shared, the tie then decided by blocks or shared, R-END-2). ``mean, lo, hi, n, sd``
    (t interval over games, which are independent), ``median``, ``p90``, ``players``,
    ``counts`` (games
    per margin) and ``bins`` (share of games per :data:`MARGIN_BINS` with Wilson intervals).
    None for one-player games or frames without whole games."""
    matrices = per_game(seats, ["xp"])
    if matrices is None or matrices[0].shape[1] < 2:
        return None
    xp = matrices[0]
    top = np.partition(xp, xp.shape[1] - 2, axis=1)[:, -2:]
    margin = (top[:, 1].astype(np.int64) - top[:, 0]).astype(np.int64)
    del top
    n = int(margin.size)
    rows = []
    for low, high in MARGIN_BINS:
        inside = margin >= low if high is None else (margin >= low) & (margin <= high)
        label = f"{low} or more" if high is None else (f"{low}" if low == high else f"{low}–{high}")  # noqa: F811
        rows.append(rate_row({"margin": label}, int(np.count_nonzero(inside)), n))
    p50, p90 = np.percentile(margin, [50, 90])
    return {
        **mean_ci(margin),
        "median": float(p50),
        "p90": float(p90),
        "players": int(xp.shape[1]),
        "counts": value_counts_int(margin),
        "bins": pd.DataFrame(rows),
    }


def leader_wins(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> pd.DataFrame:
    """How often the player leading right after scoring round A (and B) goes on to win
    (alone or sharing the win): ``[round, leader, k, n, rate, lo, hi, shared_lead, games]``
    with Wilson intervals over the games with a sole leader (``n``; ``shared_lead`` games
    had several players on the most XP and are left out); ``leader`` is ``all`` or, when
    several policies play, the leader's policy. Empty without the standing columns
    (:data:`STANDING_COLUMNS`)."""
    present = {r: c for r, c in STANDING_COLUMNS.items() if c in seats.columns}
    names = ["round", "leader", *RATE_COLUMNS, "shared_lead", "games"]
    if not present:
        return pd.DataFrame(columns=names)
    codes, labels = _narrow_codes(seats["policy"])
    matrices = per_game(seats, ["won", codes, *present.values()])
    if matrices is None:
        return pd.DataFrame(columns=names)
    won, policy = matrices[0], matrices[1]
    rows = []
    several = len(labels) > 1 and np.unique(codes).size > 1
    for (rnd, _), standing in zip(present.items(), matrices[2:], strict=True):
        scored = standing.max(axis=1) >= 0  # -1: the round was never scored
        best = standing.max(axis=1, keepdims=True)
        sole = scored & (np.count_nonzero(standing == best, axis=1) == 1)
        leader = np.argmax(standing, axis=1)
        games = np.flatnonzero(sole)
        leader_won = won[games, leader[games]]
        shared = int(np.count_nonzero(scored & ~sole))
        rows.append({"round": rnd, "leader": "all",
                     **rate_row({}, int(leader_won.sum()), int(games.size)),
                     "shared_lead": shared, "games": int(np.count_nonzero(scored))})  # fmt: skip
        if several:
            who = policy[games, leader[games]]
            for code in sorted(set(who.tolist())):
                mine = who == code
                rows.append({"round": rnd, "leader": labels[code],
                             **rate_row({}, int(leader_won[mine].sum()), int(mine.sum())),
                             "shared_lead": np.nan, "games": np.nan})  # fmt: skip
    out = pd.DataFrame(rows, columns=names)
    if several and policy_order is not None:
        rank = {p: i for i, p in enumerate(["all", *policy_order])}
        out = out.sort_values(
            ["round", "leader"], key=lambda c: c.map(rank) if c.name == "leader" else c,
            kind="stable",
        ).reset_index(drop=True)  # fmt: skip
    return out


# --------------------------------------------------------------------------------------
# fights and ownership


def fights_by_mob(seats: pd.DataFrame) -> pd.DataFrame:
    """Fights per mob species: ``[mob, attempts, per_seat_game, k, n, rate, lo, hi]``.

    ``k`` fights won out of ``n`` attempts (``wins_<mob>`` / ``fights_<mob>`` summed over all
    seat rows); ``per_seat_game`` is attempts per player per game, with its 95% interval
    (clustered by game) in ``per_seat_game_lo``/``_hi``.
    """
    mobs = mob_names(seats.columns)
    attempts = np.array([seats[f"fights_{m}"].to_numpy().sum(dtype=np.int64) for m in mobs])
    wins = np.array([seats[f"wins_{m}"].to_numpy().sum(dtype=np.int64) for m in mobs])
    out = _rates_frame({"mob": mobs}, wins, attempts)
    out.insert(1, "attempts", attempts.astype(np.int64))
    out.insert(2, "per_seat_game", attempts / max(len(seats), 1))
    per = [_mean_ci_by_game(seats, f"fights_{m}") for m in mobs]
    out.insert(3, "per_seat_game_lo", [c["lo"] for c in per])
    out.insert(4, "per_seat_game_hi", [c["hi"] for c in per])
    return out


def fights_by_mob_and_policy(seats: pd.DataFrame, policy_order=None) -> pd.DataFrame:
    """Fight win rate per mob and policy: ``[mob, policy, k, n, rate, lo, hi]``."""
    mobs = mob_names(seats.columns)
    cols = [f"fights_{m}" for m in mobs] + [f"wins_{m}" for m in mobs]
    sums = group_means(seats, cols, total=True)
    frames = []
    for m in mobs:
        frames.append(
            _rates_frame(
                {"mob": [m] * len(sums), "policy": [str(p) for p in sums.index]},
                sums[f"wins_{m}"].to_numpy(),
                sums[f"fights_{m}"].to_numpy(),
            )
        )
    if not frames:
        return pd.DataFrame(columns=["mob", "policy", *RATE_COLUMNS])
    out = pd.concat(frames, ignore_index=True)
    if policy_order is not None:
        rank = {p: i for i, p in enumerate(policy_order)}
        out = out.assign(_o=out["policy"].map(rank)).sort_values(["_o"], kind="stable")
        mob_rank = {m: i for i, m in enumerate(mobs)}
        out = out.assign(_m=out["mob"].map(mob_rank)).sort_values(["_m", "_o"], kind="stable")
        out = out.drop(columns=["_o", "_m"]).reset_index(drop=True)
    return out


def win_rate_when_owning(seats: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """Win rate of seat rows that own at least one ``<prefix><name>`` vs those that own none.

    Returns ``[name, owners, owner_share, k, n, rate, lo, hi, k_without, n_without,
    rate_without, lo_without, hi_without]`` (``k, n, rate, lo, hi`` are for the owners).
    Correlation, not causation: strong players also own more.
    """
    names = prefixed(seats.columns, prefix)
    won = seats["won"].to_numpy(dtype=bool)
    total_wins = int(np.count_nonzero(won))
    rows = len(won)
    k_with, n_with = [], []
    for name in names:
        owns = seats[f"{prefix}{name}"].to_numpy() > 0
        n_with.append(int(np.count_nonzero(owns)))
        k_with.append(int(np.count_nonzero(owns & won)))
    k_with, n_with = np.array(k_with, dtype=np.int64), np.array(n_with, dtype=np.int64)
    out = _rates_frame({"name": names}, k_with, n_with)
    out.insert(1, "owners", n_with)
    out.insert(2, "owner_share", n_with / max(rows, 1))
    without = _rates_frame({}, total_wins - k_with, rows - n_with)
    for column in RATE_COLUMNS:
        out[f"{column}_without"] = without[column].to_numpy()
    return out


def play_style(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> pd.DataFrame:
    """Mean per game of the count columns (mobs defeated, buildings built, ...) per policy."""
    cols = [c for c in PLAY_STYLE if c in seats.columns]
    means = group_means(seats, cols)
    if policy_order is not None:
        means = means.reindex([p for p in policy_order if p in means.index])
    return means
