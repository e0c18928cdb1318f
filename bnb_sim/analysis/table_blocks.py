"""Sums per game and per group in bounded memory: the primitives every table is built on.

A run's rows are sorted by game; :func:`game_blocks` cuts them into blocks of about
:data:`BLOCK_ROWS` rows that never split a game, so per-game sums add up block by block and a
report's temporaries are bounded by a block, not by the run. Integer codes for groups and
games (:func:`codes_of`, :func:`_group_codes`), per-game views (:func:`per_game`), counts
(:func:`crosstab_counts`, :func:`value_counts_int`) and clustered means per group
(:func:`group_means`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


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


def value_counts_int(values: np.ndarray) -> pd.Series:
    """Counts of each integer value from min to max (zeros included), indexed by value."""
    values = np.asarray(values).astype(np.int64)
    low = int(values.min())
    counts = np.bincount(values - low)
    return pd.Series(counts, index=np.arange(low, low + counts.size))


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
