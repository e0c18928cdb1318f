"""Summary tables for reports: pure pandas/numpy on the ``seats`` and ``games`` frames.

Every function takes the frames of ``docs/run-format.md`` (as :func:`bnb_sim.runner.storage.
load_run` returns them) and returns a tidy DataFrame (or a dict) of numbers; formatting for
display is done by :func:`display_rates` and friends. Rates carry ``k, n, rate, lo, hi``
with 95% Wilson intervals (:mod:`bnb_sim.analysis.stats`). Everything is vectorised so a
run of a million games (four million seat rows) takes seconds.

Mob species and building types are read from the column names (``fights_<mob>`` with a
matching ``wins_<mob>``, ``defeated_<mob>``, ``built_<type>``), never from a fixed list.

Statistical note: rows of one game are not independent. Win rates, choice shares and means
per policy are therefore clustered by game (:func:`~bnb_sim.analysis.stats.rates_by_cluster`,
:func:`~bnb_sim.analysis.stats.clustered_mean_ci`): a group with one row per game keeps the
exact Wilson (or t) interval, a policy playing several seats of a game gets the interval of
its per-game results. The fights and "owns a mob" tables still treat rows as independent and
say so (the review measured them within 1-8% of the clustered width, or wider).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from bnb_sim.analysis.stats_clustered import (
    _ratio_se,
    clustered_mean_ci,
    clustered_wilson,
    rates_by_cluster,
)
from bnb_sim.analysis.stats_intervals import Rate, mean_ci, pct_digits, rates_by, wilson_interval
from bnb_sim.columns import XP_SOURCES

RATE_COLUMNS = ["k", "n", "rate", "lo", "hi"]
ROUNDS = ("a", "b", "c")
PLAY_STYLE = (
    "mobs_defeated",
    "buildings_built",
    "weapons_taken",
    "fights",
    "fights_won",
    "tnt_detonated",
    "hunger_spent",
    "blocks_left",
)


# --------------------------------------------------------------------------------------
# column discovery


def mob_names(columns: Iterable[str]) -> list[str]:
    """Mob species with both ``fights_<mob>`` and ``wins_<mob>`` columns, in column order.

    (``fights_won`` is a fixed column; there is no ``wins_won``, so it is not a species.)
    """
    columns = list(columns)
    names = set(columns)
    return [c[7:] for c in columns if c.startswith("fights_") and f"wins_{c[7:]}" in names]


def prefixed(columns: Iterable[str], prefix: str) -> list[str]:
    """The names after ``prefix`` of the columns that start with it, in column order."""
    return [c[len(prefix) :] for c in columns if c.startswith(prefix) and len(c) > len(prefix)]


def xp_sources(columns: Iterable[str]) -> list[str]:
    """The ``xp_*`` columns: the contract's in contract order, then any others."""
    columns = list(columns)
    known = [c for c in XP_SOURCES if c in columns]
    return known + [c for c in columns if c.startswith("xp_") and c not in known]


def source_label(column: str) -> str:
    """``xp_round_a`` -> ``round A``, ``xp_bonus_mobs`` -> ``bonus mobs``."""
    name = column.removeprefix("xp_")
    if name.startswith("round_") and len(name) == 7:
        return f"round {name[-1].upper()}"
    return name.replace("_", " ")


def label(name: str) -> str:
    """``snowy_tundra`` -> ``snowy tundra`` (for axes and tables)."""
    return str(name).replace("_", " ")


def policies_in(seats: pd.DataFrame) -> list[str]:
    """Policy labels in the order of the players (``player`` column) when present."""
    if "player" in seats.columns:
        first = seats.drop_duplicates("policy")[["player", "policy"]].sort_values("player")
        return [str(p) for p in first["policy"]]
    return [str(p) for p in pd.unique(seats["policy"])]


def _order_policies(df: pd.DataFrame, order: Sequence[str] | None) -> pd.DataFrame:
    if order is None or "policy" not in df.columns:
        return df
    rank = {p: i for i, p in enumerate(order)}
    key = df["policy"].astype(str).map(rank).fillna(len(rank))
    other = [c for c in df.columns if c not in RATE_COLUMNS and c != "policy"]
    return (
        df.assign(_o=key.to_numpy())
        .sort_values(["_o", *other], kind="stable")
        .drop(columns="_o")
        .reset_index(drop=True)
    )


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


def _group_codes(seats: pd.DataFrame, keys: Sequence[str]) -> tuple[np.ndarray, list]:
    """One integer code per row for the combination of ``keys`` (lexicographic in the
    groupby order: categories in their order, numbers sorted), and each key's labels."""
    code = np.zeros(len(seats), dtype=np.int64)
    labels = []
    for key in keys:
        column = seats[key]
        if isinstance(column.dtype, pd.CategoricalDtype):
            codes, values = column.cat.codes.to_numpy(), list(column.cat.categories)
        else:
            codes, values = _sorted_codes(column.to_numpy())
        code *= max(len(values), 1)
        code += codes
        labels.append(values)
    return code, labels


def _sorted_codes(values: np.ndarray) -> tuple[np.ndarray, list]:
    """``np.unique(values, return_inverse=True)`` the other way round (codes, labels), without
    sorting a copy of the rows when they are small integers (a seat, a count)."""
    if values.dtype.kind in "iu" and len(values):
        low, high = int(values.min()), int(values.max())
        if high - low < 1 << 16:
            present = np.flatnonzero(np.bincount(values - low if low else values))
            lookup = np.zeros(high - low + 1, np.int64)
            lookup[present] = np.arange(len(present))
            return lookup[values - low if low else values], [low + int(v) for v in present]
    unique, inverse = np.unique(values, return_inverse=True)
    return inverse, list(unique)


#: Rows per block of the clustered sums: per-game sums add up block by block, so the
#: temporaries of a report are bounded by a block, not by the run (docs/simulate.md).
BLOCK_ROWS = 1 << 20


def game_blocks(game: np.ndarray, rows: int | None = None) -> list[slice]:
    """Row slices of about ``rows`` rows (default :data:`BLOCK_ROWS`) that never split a
    game, for sums per game that are added block by block. A run's rows are sorted by game;
    rows that are not give one slice (correct, just not bounded)."""
    rows = BLOCK_ROWS if rows is None else max(int(rows), 1)
    n = len(game)
    if n <= rows or np.any(game[1:] < game[:-1]):
        return [slice(0, n)]
    cuts = [0]
    while cuts[-1] + rows < n:
        at = int(np.searchsorted(game, game[cuts[-1] + rows], side="left"))  # its game's start
        if at <= cuts[-1]:  # one game longer than a block: end the block after it
            at = int(np.searchsorted(game, game[cuts[-1] + rows], side="right"))
        cuts.append(at)
    cuts.append(n)
    return [slice(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def _pair_sums(group: np.ndarray, game: np.ndarray, won: np.ndarray, n_groups: int):
    """Per group: ``k, n, Σy², Σym, Σm², games, multi`` over its (group, game) pairs, where
    ``y`` and ``m`` are the wins and rows of the group in one game."""
    low = int(game.min()) if len(game) else 0
    span = int(game.max()) - low + 1 if len(game) else 1
    if n_groups * span <= 4 * len(game) + 1024:  # dense: count straight into (group, game)
        key = group * span + (game - low)
        m = np.bincount(key, minlength=n_groups * span)
        y = np.bincount(key, weights=won, minlength=n_groups * span)
        del key
        pair = np.flatnonzero(m)
        m, y = m[pair], y[pair]
    else:  # sparse (many groups): sort the keys
        pair, inverse, m = np.unique(group * span + (game - low), return_inverse=True,
                                     return_counts=True)  # fmt: skip
        y = np.bincount(inverse, weights=won, minlength=len(pair))
        del inverse
    g_index = pair // span
    m = m.astype(float)
    return np.stack(
        [
            np.bincount(g_index, weights=y, minlength=n_groups),
            np.bincount(g_index, weights=m, minlength=n_groups),
            np.bincount(g_index, weights=y * y, minlength=n_groups),
            np.bincount(g_index, weights=y * m, minlength=n_groups),
            np.bincount(g_index, weights=m * m, minlength=n_groups),
            np.bincount(g_index, minlength=n_groups).astype(float),
            np.bincount(g_index, weights=(m > 1), minlength=n_groups),
        ]
    )


def _clustered_win_rates(seats: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """:func:`stats.rates_by_cluster` of ``won`` by ``keys``, clustered by ``game``, with
    NumPy on the columns instead of a groupby over a (group, game) frame: the same sums, so
    the same numbers, in a fraction of the memory (the groupby took 500 MB for 4,000,000
    rows). The sums are taken per block of whole games (:func:`game_blocks`) and added."""
    from bnb_sim.analysis.stats_clustered import _ratio_se, clustered_wilson

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


def value_counts_int(values: np.ndarray) -> pd.Series:
    """Counts of each integer value from min to max (zeros included), indexed by value."""
    values = np.asarray(values).astype(np.int64)
    low = int(values.min())
    counts = np.bincount(values - low)
    return pd.Series(counts, index=np.arange(low, low + counts.size))


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


def per_game(seats: pd.DataFrame, columns: Sequence[str | np.ndarray]):
    """Each of ``columns`` (a column name, or an array aligned with the rows) as a
    ``(games, players)`` matrix in seat order, or None unless every game has the same number
    of rows. A run's rows come game by game in seat order, so that is a reshape (no copy);
    other frames are sorted first."""
    game = seats["game"].to_numpy()
    if not game.size:
        return None
    seat = seats["seat"].to_numpy() if "seat" in seats.columns else None
    order = None
    if not np.all(game[1:] >= game[:-1]) or (seat is not None and not _seats_in_order(game, seat)):
        order = np.lexsort([game] if seat is None else [seat, game])
        game = game[order]
    starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])
    sizes = np.diff(np.r_[starts, game.size])
    del starts
    if sizes.min() != sizes.max():
        return None
    width = int(sizes[0])
    out = []
    for column in columns:
        values = seats[column].to_numpy() if isinstance(column, str) else np.asarray(column)
        if order is not None:
            values = values[order]
        out.append(values.reshape(-1, width))
    return out


def _seats_in_order(game: np.ndarray, seat: np.ndarray) -> bool:
    same = game[1:] == game[:-1]
    return bool(np.all(seat[1:][same] > seat[:-1][same]))


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
        label = f"{low} or more" if high is None else (f"{low}" if low == high else f"{low}–{high}")
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


def codes_of(values: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Integer codes and string labels of a column (fast for categoricals); NaN -> -1."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy().astype(np.int64)
        return codes, [str(c) for c in values.cat.categories]
    codes, uniques = pd.factorize(values)
    return codes.astype(np.int64), [str(u) for u in uniques]


def _narrow_codes(values: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Like :func:`codes_of`, keeping a categorical's own (int8/int16) codes: no int64 copy
    of a 4,000,000-row column."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.cat.codes.to_numpy(), [str(c) for c in values.cat.categories]
    return codes_of(values)


def crosstab_counts(rows: pd.Series, cols: pd.Series) -> pd.DataFrame:
    """Counts of every (row label, column label) pair, vectorised; NaN labels -> ``(none)``."""
    r_codes, r_names = _narrow_codes(rows)
    c_codes, c_names = _narrow_codes(cols)
    r_names, c_names = [*r_names, "(none)"], [*c_names, "(none)"]
    n_r, n_c = len(r_names), len(c_names)
    wide = np.int32 if n_r * n_c < 2**31 else np.int64
    key = np.where(r_codes < 0, n_r - 1, r_codes).astype(wide, copy=False)
    key *= n_c
    key += np.where(c_codes < 0, n_c - 1, c_codes).astype(wide, copy=False)
    counts = np.bincount(key, minlength=n_r * n_c).reshape(n_r, n_c)
    del key
    table = pd.DataFrame(counts, index=r_names, columns=c_names)
    return table.loc[table.sum(axis=1) > 0, table.sum(axis=0) > 0]


def group_means(
    seats: pd.DataFrame, columns: Sequence[str], by: str = "policy", total: bool = False
) -> pd.DataFrame:
    """``seats.groupby(by, observed=True, sort=True)[columns].mean()`` (``.sum()`` with
    ``total``) column by column with ``np.bincount`` (the groupby made a float64 copy of
    every column at once)."""
    codes, names = _narrow_codes(seats[by])
    ok = codes >= 0
    codes = codes[ok] if not ok.all() else codes
    counts = np.bincount(codes, minlength=len(names))
    present = np.flatnonzero(counts)
    if not isinstance(seats[by].dtype, pd.CategoricalDtype):  # groupby sorts plain labels
        present = np.array(sorted(present, key=lambda i: names[i]), dtype=np.int64)
    data = {}
    for column in columns:
        values = seats[column].to_numpy()
        values = values[ok] if len(values) != len(codes) else values
        if values.dtype.kind == "f" and np.isnan(values).any():  # groupby skips NaN
            keep = ~np.isnan(values)
            n = np.bincount(codes[keep], minlength=len(names))
            sums = np.bincount(codes[keep], weights=values[keep], minlength=len(names))
            with np.errstate(invalid="ignore", divide="ignore"):
                data[column] = sums[present] if total else sums[present] / n[present]
            continue
        if total and values.dtype.kind in "iub":  # exact integer sums
            data[column] = np.array(
                [values[codes == i].sum(dtype=np.int64) for i in present], dtype=np.int64
            )
            continue
        sums = np.bincount(codes, weights=values, minlength=len(names))
        data[column] = sums[present] if total else sums[present] / counts[present]
    index = pd.Index([names[i] for i in present], name=by)
    return pd.DataFrame(data, index=index, columns=list(columns))


def group_sizes(seats: pd.DataFrame, by: str = "policy") -> pd.Series:
    """Rows per label of ``by`` (observed labels only, as plain strings)."""
    codes, names = _narrow_codes(seats[by])
    counts = np.bincount(codes[codes >= 0], minlength=len(names))
    present = np.flatnonzero(counts)
    return pd.Series(counts[present], index=[names[i] for i in present])


def choice_shares(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> pd.DataFrame:
    """Which value each policy chose in each scoring round.

    Long format ``[round, policy, value, count, n, share, lo, hi]``; values in order of
    overall popularity within a round; missing choices are counted as ``(none)``. ``lo``/``hi``
    is the 95% interval of the share, clustered by game (:func:`_choice_intervals`).
    """
    frames = []
    for rnd in ROUNDS:
        column = f"choice_{rnd}"
        if column not in seats.columns:
            continue
        table = crosstab_counts(seats["policy"], seats[column])
        order = list(policy_order or [])
        table = table.reindex(
            [*[p for p in order if p in table.index], *[p for p in table.index if p not in order]]
        )
        table = table[table.sum(axis=0).sort_values(ascending=False, kind="stable").index]
        counts = table.stack().rename("count").rename_axis(["policy", "value"]).reset_index()
        counts["n"] = counts["policy"].map(table.sum(axis=1))
        counts["share"] = counts["count"] / counts["n"]
        counts["lo"], counts["hi"] = _choice_intervals(seats, column, counts)
        value_rank = {v: i for i, v in enumerate(table.columns)}
        counts = counts.sort_values(
            "value", key=lambda v: v.map(value_rank), kind="stable"
        ).reset_index(drop=True)
        counts.insert(0, "round", rnd.upper())
        frames.append(counts)
    if not frames:
        return pd.DataFrame(columns=["round", "policy", "value", "count", "n", "share", "lo", "hi"])
    return pd.concat(frames, ignore_index=True)


def _choice_intervals(seats: pd.DataFrame, column: str, counts: pd.DataFrame):
    """95% intervals for the share of each (policy, value) in ``counts``, clustered by game.

    The share of a policy's rows that chose a value is a ratio of per-game sums (rows that
    chose it / rows of the policy in that game), so it gets the clustered Wilson interval of
    :func:`~bnb_sim.analysis.stats.clustered_wilson`. Vectorised: two ``np.unique`` passes
    over integer keys, whatever the number of values.
    """
    if "game" not in seats.columns:
        return wilson_interval(counts["count"].to_numpy(float), counts["n"].to_numpy(float))
    pol, pol_names = _narrow_codes(seats["policy"])
    val, val_names = _narrow_codes(seats[column])
    val_names = [*val_names, "(none)"]  # a missing choice, as crosstab_counts names it
    val = np.where(val < 0, len(val_names) - 1, val)
    game = seats["game"].to_numpy()
    n_pol, n_val = len(pol_names), len(val_names)
    size = n_pol * n_val
    sums = np.zeros((4, n_pol)), np.zeros((3, size))
    for rows in game_blocks(game):  # per-game sums add up block by block
        per_pol, per_cell = _choice_sums(pol[rows], val[rows], game[rows], n_pol, n_val)
        sums[0][:] += per_pol
        sums[1][:] += per_cell
    (mm, n_rows, n_games, multi), (k, yy, ym) = sums
    multi = multi > 0
    per_pol = np.repeat(np.arange(n_pol), n_val)
    se = _ratio_se(k, n_rows[per_pol], yy, ym, mm[per_pol], n_games[per_pol])
    lo, hi = clustered_wilson(k, n_rows[per_pol], se, n_games[per_pol], multi[per_pol])
    where = {(p, x): i for i, (p, x) in enumerate(
        (p, x) for p in pol_names for x in val_names)}  # fmt: skip
    pick = np.array(
        [
            where.get((str(p), str(x)), -1)
            for p, x in zip(counts["policy"], counts["value"], strict=True)
        ]  # fmt: skip
    )
    ok = pick >= 0
    out_lo = np.where(ok, lo[np.where(ok, pick, 0)], np.nan)
    out_hi = np.where(ok, hi[np.where(ok, pick, 0)], np.nan)
    return out_lo, out_hi


def _choice_sums(pol, val, game, n_pol: int, n_val: int):
    """The sums of :func:`_choice_intervals` over the rows of whole games: per policy
    ``(ΣM², rows, games, any M > 1)`` and per (policy, value) ``(k, ΣY², ΣYM)``, where ``M``
    counts a policy's rows in a game and ``Y`` those that chose the value."""
    game = _game_codes(game)
    n_game = int(game.max()) + 1 if len(game) else 1
    # rows of each policy in each game: m, and per policy ΣM², games, any game with M > 1
    key = pol.astype(np.int64) * n_game + game
    del game
    if n_pol * n_game <= 4 * len(key) + 1024:  # dense: no sort of the rows
        full = np.bincount(key, minlength=n_pol * n_game)
        cell_pg = np.flatnonzero(full)
        m = full[cell_pg]
        rank = np.cumsum(full > 0) - 1
        del full
        pg_of_row = rank[key]
        del rank
    else:
        cell_pg, pg_of_row, m = np.unique(key, return_inverse=True, return_counts=True)
    del key
    pol_of_pg = cell_pg // n_game
    m = m.astype(float)
    per_pol = np.stack(
        [
            np.bincount(pol_of_pg, weights=m * m, minlength=n_pol),
            np.bincount(pol_of_pg, weights=m, minlength=n_pol),
            np.bincount(pol_of_pg, minlength=n_pol).astype(float),
            np.bincount(pol_of_pg, weights=m > 1, minlength=n_pol),
        ]
    )
    # rows choosing each value in each (policy, game): y
    cell, y = np.unique(pg_of_row * n_val + val, return_counts=True)
    pg, v = cell // n_val, cell % n_val
    y = y.astype(float)
    index = pol_of_pg[pg] * n_val + v
    size = n_pol * n_val
    per_cell = np.stack(
        [
            np.bincount(index, weights=y, minlength=size),
            np.bincount(index, weights=y * y, minlength=size),
            np.bincount(index, weights=y * m[pg], minlength=size),
        ]
    )
    return per_pol, per_cell


def n_distinct(values: np.ndarray) -> int:
    """How many different values (``np.unique(values).size``), without a sorted copy of the
    rows when they are already sorted (a run's game column)."""
    if len(values) and not np.any(values[1:] < values[:-1]):
        return 1 + int(np.count_nonzero(values[1:] != values[:-1]))
    return int(np.unique(values).size)


def _game_codes(game: np.ndarray) -> np.ndarray:
    """0-based int64 game codes: the offset itself when the games are dense (a run's games
    are consecutive), pd.factorize otherwise."""
    if len(game) and int(game.max()) - int(game.min()) < 4 * len(game) + 1024:
        return game.astype(np.int64) - int(game.min())
    return pd.factorize(game)[0].astype(np.int64)


def choice_share_wide(shares: pd.DataFrame, rnd: str, policy_order=None) -> pd.DataFrame:
    """One round of :func:`choice_shares` as policy x value shares (rows sum to 1)."""
    part = shares[shares["round"] == rnd.upper()]
    values = list(dict.fromkeys(part["value"]))
    wide = part.pivot(index="policy", columns="value", values="share").reindex(columns=values)
    if policy_order is not None:
        wide = wide.reindex([p for p in policy_order if p in wide.index])
    return wide.fillna(0.0)


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


# --------------------------------------------------------------------------------------
# display


def _pct(value: float, digits: int, signed: bool = False) -> str:
    """``value`` (a fraction) in percent with ``digits`` decimals; never ``-0.00``."""
    text = f"{100 * value:{'+' if signed else ''}.{digits}f}"
    if float(text) == 0.0:  # -0.00 and +0.00 both mean "rounds to zero": print 0.00
        text = f"{0.0:.{digits}f}"
    return text


def _num(value: float, digits: int, signed: bool = False) -> str:
    """A plain number with ``digits`` decimals; never ``-0.00``."""
    text = f"{value:{'+' if signed else ''}.{digits}f}"
    if float(text) == 0.0:
        text = f"{0.0:.{digits}f}"
    return text


NO_INTERVAL = {
    "n < 2": "no interval: n < 2",
    "all values equal": "no interval: all values equal",
    "all differences equal": "no interval: all differences equal",
    "no variation between games": "no interval: no variation between games",
}


def no_interval_text(note: str | None) -> str:
    """Why a figure has no interval, for a table cell (``""`` when it has one)."""
    if not note:
        return "no interval"
    return NO_INTERVAL.get(note, f"no interval: {note}")


def fmt_rate(rate: float, lo: float, hi: float, digits: int | None = None) -> str:
    """``30.8% [29.4, 32.3]``; decimals from the interval's precision (stats.pct_digits)
    unless ``digits`` is given (a table column passes one value for all its rows)."""
    if not np.isfinite(rate):
        return "n/a"
    d = pct_digits(lo, hi) if digits is None else digits
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{_pct(rate, d)}% (no interval)"
    return f"{_pct(rate, d)}% [{_pct(lo, d)}, {_pct(hi, d)}]"


def fmt_signed_pp(
    value: float, lo: float, hi: float, digits: int | None = None, note: str | None = None
) -> str:
    """A difference of rates in percentage points: ``+4.1 pp [+2.0, +6.2]``.

    Without a finite interval the value is shown with the reason (``note``) instead of a
    zero-width or ``[-100, +100]`` interval; ``n/a`` when there is no value.
    """
    if not np.isfinite(value):
        return "n/a"
    d = pct_digits(lo, hi) if digits is None else digits
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{_pct(value, d, True)} pp ({no_interval_text(note)})"
    return f"{_pct(value, d, True)} pp [{_pct(lo, d, True)}, {_pct(hi, d, True)}]"


def fmt_mean(mean: float, lo: float, hi: float, digits: int = 2, note: str | None = None) -> str:
    if not np.isfinite(mean):
        return "n/a"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{_num(mean, digits)} ({no_interval_text(note)})"
    return f"{_num(mean, digits)} [{_num(lo, digits)}, {_num(hi, digits)}]"


def fmt_sd(sd: float, digits: int = 2) -> str:
    """A standard deviation, ``n/a`` when it is undefined (n < 2) rather than ``nan``."""
    return f"{sd:.{digits}f}" if np.isfinite(sd) else "n/a"


def fmt_count(value) -> str:
    value = float(value)
    return f"{int(value):,}" if value == int(value) else f"{value:,.1f}"


def rate_cells(df: pd.DataFrame, with_n: bool = False) -> list[str]:
    """:func:`fmt_rate` of each row of a frame with ``rate, lo, hi`` (and `` n=...``).

    Each cell has the decimals its own interval needs (stats.pct_digits): one narrow row (0
    purchases in 120,000, an interval 0.003 pp wide) must not force four decimals on every
    other row of its column ("21.6892% [21.4569, 21.9233]"); n stays next to the rate.
    """
    cells = [fmt_rate(r, lo, hi) for r, lo, hi in zip(df.rate, df.lo, df.hi, strict=True)]
    if with_n:
        cells = [f"{c} n={int(n):,}" if n else "–" for c, n in zip(cells, df.n, strict=True)]
    return cells


def mean_cells(df: pd.DataFrame, digits: int = 2) -> list[str]:
    """:func:`fmt_mean` of each row of a frame with ``mean, lo, hi`` (and ``note``)."""
    notes = df["note"] if "note" in df.columns else [""] * len(df)
    return [
        fmt_mean(m, lo, hi, digits, note)
        for m, lo, hi, note in zip(df["mean"], df.lo, df.hi, notes, strict=True)
    ]


def display_rates(
    df: pd.DataFrame,
    labels: dict[str, str],
    rate_title: str = "win rate [95% CI]",
    k_title: str = "wins",
    n_title: str = "n",
) -> pd.DataFrame:
    """A rate table for people: the label columns renamed, ``rate [lo, hi]``, k and n."""
    out = pd.DataFrame({title: df[col].map(label) for col, title in labels.items()})
    out[rate_title] = rate_cells(df)
    out[k_title] = df["k"].map(fmt_count)
    out[n_title] = df["n"].map(fmt_count)
    return out
