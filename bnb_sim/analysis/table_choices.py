"""Scoring choices: which value each policy chose in each scoring round, clustered by game.

:func:`choice_shares` gives the share of each choice per policy and round (long form);
:func:`choice_share_wide` one round as a policy x choice table for the report.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from bnb_sim.analysis.stats_clustered import (
    _ratio_se,
    clustered_wilson,
)
from bnb_sim.analysis.stats_intervals import wilson_interval
from bnb_sim.analysis.table_blocks import _game_codes, _narrow_codes, crosstab_counts, game_blocks
from bnb_sim.analysis.table_columns import ROUNDS


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


def choice_share_wide(shares: pd.DataFrame, rnd: str, policy_order=None) -> pd.DataFrame:
    """One round of :func:`choice_shares` as policy x value shares (rows sum to 1)."""
    part = shares[shares["round"] == rnd.upper()]
    values = list(dict.fromkeys(part["value"]))
    wide = part.pivot(index="policy", columns="value", values="share").reindex(columns=values)
    if policy_order is not None:
        wide = wide.reindex([p for p in policy_order if p in wide.index])
    return wide.fillna(0.0)
