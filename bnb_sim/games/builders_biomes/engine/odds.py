"""Exact combat odds: a memoised chance tree over revealed multisets (R-FIGHT-2 to R-FIGHT-5).

A fight's outcome depends only on *which* tokens are revealed, not on their order, and the
probability of revealing a given ordered sequence depends only on its multiset. So the tree's
states are revealed multisets ``r`` (with the reveals still owed, ``fight_reveal +
sum(r * extra) - |r|``, a function of ``r``); identical multisets reached in different orders are
merged. States are processed breadth-first, so every parent of a depth-``k + 1`` state is final
before that state is expanded, and the tree ends only when nothing is owed or the pile is empty:
bow chains are never cut short. A state whose owed reveals exceed the unrevealed tokens that
could lower them (those without extra reveals) is sure to reveal the whole pile, so its mass goes
straight to that outcome instead of growing the tree.

Each state is keyed by a mixed-radix integer (digit ``t`` = revealed tokens of class ``t``) in an
open-addressing hash table held in plain arrays. Token types with identical effects (hearts,
extra reveals, XP, blocks, detonation gain) are merged into one class first, which shrinks the
key space and the tree. With the default tokens a 21-token pile takes well under 1 ms; only
custom tokens with several extra reveals can exceed the limits (an int64 key space, 2**21
states), which raise ``ValueError`` rather than exhaust memory.

:func:`pile_table` evaluates every pile a player can hold in a game, so the engine's bots can
look up exact win probabilities with :func:`pile_index` at no run-time cost.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from bnb_sim._jit import njit
from bnb_sim.errors import BnbError

MAX_TABLE_ROWS = 1 << 20  # pile_table refuses more rows


@njit(cache=True)
def _classes(pile, tok_hearts, tok_extra_reveals, tok_xp, tok_blocks, tok_detonate):
    """Merge the pile's token types with identical effects; returns per-class arrays."""
    n_types = pile.shape[0]
    c_n = np.zeros(n_types, np.int64)
    c_h = np.zeros(n_types, np.int64)
    c_e = np.zeros(n_types, np.int64)
    c_x = np.zeros(n_types, np.int64)
    c_b = np.zeros(n_types, np.int64)
    c_g = np.zeros(n_types, np.int64)
    m = 0
    for t in range(n_types):
        if pile[t] <= 0:
            continue
        gain = tok_detonate[t] - tok_hearts[t] if tok_detonate[t] > 0 else 0
        if gain < 0:
            gain = 0
        found = -1
        for j in range(m):
            if (
                c_h[j] == tok_hearts[t]
                and c_e[j] == tok_extra_reveals[t]
                and c_x[j] == tok_xp[t]
                and c_b[j] == tok_blocks[t]
                and c_g[j] == gain
            ):
                found = j
                break
        if found < 0:
            found = m
            m += 1
            c_h[found] = tok_hearts[t]
            c_e[found] = tok_extra_reveals[t]
            c_x[found] = tok_xp[t]
            c_b[found] = tok_blocks[t]
            c_g[found] = gain
        c_n[found] += pile[t]
    return m, c_n[:m], c_h[:m], c_e[:m], c_x[:m], c_b[:m], c_g[:m]


@njit(cache=True, inline="always")
def _slot(key, mask):
    x = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    x ^= x >> np.uint64(32)
    return np.int64(x & np.uint64(mask))


@njit(cache=True)
def _by_gain(c_g):
    """Indices of ``c_g`` by decreasing value, ties in index order (a stable insertion sort).

    Not ``np.argsort``: numba compiles its sort from about forty functions, five seconds of a
    first ``bnb odds`` (docs/design.md, "Kernels and the cache"); the array has one entry per
    token type, and numba's argsort sorts arrays that short by insertion too, so the order is
    the same."""
    n = c_g.shape[0]
    order = np.empty(n, np.int64)
    for i in range(n):
        j = i
        while j > 0 and c_g[order[j - 1]] < c_g[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    return order


@njit(cache=True)
def _score(r, p, k, c_h, c_g, c_x, c_b, det_order, n_det, p_win, p_no, e_spent, dist, acc):
    """Add a terminal revealed multiset ``r`` (``k`` tokens, probability ``p``) to the totals.

    R-FIGHT-3 (XP, blocks), R-FIGHT-4 (TNT only to turn a loss into a win, as few as needed,
    largest gain first), R-FIGHT-5 (win when the hearts reach the mob's).
    """
    h_max = p_win.shape[0] - 1
    base = 0
    gain = 0
    xp = 0
    blocks = 0
    for j in range(r.shape[0]):
        base += r[j] * c_h[j]
        gain += r[j] * c_g[j]
        xp += r[j] * c_x[j]
        blocks += r[j] * c_b[j]
    acc[0] += p * k
    acc[1] += p * xp
    acc[2] += p * blocks
    dist[base + gain] += p
    for hh in range(min(base, h_max) + 1):
        p_win[hh] += p
        p_no[hh] += p
    for hh in range(base + 1, min(base + gain, h_max) + 1):
        p_win[hh] += p
        need = hh - base
        spent = 0
        for q in range(n_det):
            j = det_order[q]
            use = min((need + c_g[j] - 1) // c_g[j], r[j])
            spent += use
            need -= use * c_g[j]
            if need <= 0:
                break
        e_spent[hh] += p * spent


@njit(cache=True)
def exact_odds(
    pile, tok_hearts, tok_extra_reveals, tok_xp, tok_blocks, tok_detonate, fight_reveal, h_max
):
    """Exact fight statistics of ``pile`` (int64[T]) for every mob heart value 0..``h_max``.

    Returns ``(p_win, p_win_no_tnt, e_tnt_spent, hearts_dist, e_revealed, e_hoe_xp,
    e_pickaxe_blocks)``: the first three float64[h_max + 1] (TNT played optimally, R-FIGHT-4),
    ``hearts_dist[k]`` = P(base hearts + every revealed detonation gain = k) for
    k = 0..max achievable, and three expectations. An empty pile reveals nothing. Raises
    ValueError when the key space or the tree would be too large (custom tokens only).
    """
    m, c_n, c_h, c_e, c_x, c_b, c_g = _classes(
        pile, tok_hearts, tok_extra_reveals, tok_xp, tok_blocks, tok_detonate
    )
    n_total = 0
    max_hearts = 0
    strides = np.empty(m, np.int64)
    radix = np.empty(m, np.int64)
    size = 1
    for j in range(m):
        n_total += c_n[j]
        max_hearts += c_n[j] * (c_h[j] + c_g[j])
        radix[j] = c_n[j] + 1
        strides[j] = size
        if size > (1 << 62) // radix[j]:
            raise ValueError("pile has too many distinct token kinds for exact odds")
        size *= radix[j]
    det_order = _by_gain(c_g)  # detonatable classes, largest gain first (R-FIGHT-4)
    n_det = 0
    for j in range(m):
        if c_g[j] > 0:
            n_det += 1

    p_win = np.zeros(h_max + 1, np.float64)
    p_no = np.zeros(h_max + 1, np.float64)
    e_spent = np.zeros(h_max + 1, np.float64)
    dist = np.zeros(max_hearts + 1, np.float64)
    acc = np.zeros(3, np.float64)  # e_revealed, e_hoe_xp, e_pickaxe_blocks

    # breadth-first chance tree; keys[i] = mixed-radix revealed multiset, probs[i] its mass
    max_states = 1 << 21
    cap = 256
    keys = np.empty(cap, np.int64)
    probs = np.empty(cap, np.float64)
    depth = np.empty(cap, np.int64)
    hsize = 512
    hmask = hsize - 1
    table = np.full(hsize, -1, np.int64)  # open addressing: slot -> state index, -1 empty
    keys[0] = 0
    probs[0] = 1.0
    depth[0] = 0
    table[_slot(0, hmask)] = 0
    count = 1
    p_all = 0.0  # mass of the paths that are sure to reveal the whole pile
    r = np.zeros(m, np.int64)
    i = 0
    while i < count:
        key = keys[i]
        p = probs[i]
        k = depth[i]
        i += 1
        owed = fight_reveal - k
        plain_left = 0  # unrevealed tokens without extra reveals: only they lower ``owed``
        rest = key
        for j in range(m):
            r[j] = rest % radix[j]
            rest //= radix[j]
            owed += r[j] * c_e[j]
            if c_e[j] == 0:
                plain_left += c_n[j] - r[j]
        if owed <= 0 or k == n_total:
            _score(r, p, k, c_h, c_g, c_x, c_b, det_order, n_det, p_win, p_no, e_spent, dist, acc)
            continue
        if owed > plain_left:  # the reveals cannot run out before the pile does
            p_all += p
            continue
        # reveal one more token (R-FIGHT-2), merging equal multisets
        inv = 1.0 / (n_total - k)
        for j in range(m):
            avail = c_n[j] - r[j]
            if avail <= 0:
                continue
            ck = key + strides[j]
            cp = p * (avail * inv)
            h = _slot(ck, hmask)
            while table[h] >= 0 and keys[table[h]] != ck:
                h = (h + 1) & hmask
            if table[h] >= 0:
                probs[table[h]] += cp
                continue
            if count == max_states:
                raise ValueError(
                    "pile needs too many chance-tree states for exact odds "
                    "(tokens with several extra reveals); use a Monte Carlo estimate"
                )
            if count == cap:
                cap *= 2
                keys2 = np.empty(cap, np.int64)
                probs2 = np.empty(cap, np.float64)
                depth2 = np.empty(cap, np.int64)
                keys2[:count] = keys[:count]
                probs2[:count] = probs[:count]
                depth2[:count] = depth[:count]
                keys = keys2
                probs = probs2
                depth = depth2
            keys[count] = ck
            probs[count] = cp
            depth[count] = k + 1
            table[h] = count
            count += 1
            if 2 * count > hsize:
                hsize *= 2
                hmask = hsize - 1
                table = np.full(hsize, -1, np.int64)
                for q in range(count):
                    hq = _slot(keys[q], hmask)
                    while table[hq] >= 0:
                        hq = (hq + 1) & hmask
                    table[hq] = q
    if p_all > 0.0:
        r[:] = c_n
        _score(
            r, p_all, n_total, c_h, c_g, c_x, c_b, det_order, n_det, p_win, p_no, e_spent, dist, acc
        )
    return p_win, p_no, e_spent, dist, acc[0], acc[1], acc[2]


@njit(cache=True, inline="always")
def pile_index(counts, mins, strides):
    """Row of :func:`pile_table` for the pile ``counts`` (which must lie inside the table)."""
    idx = 0
    for t in range(counts.shape[0]):
        idx += (counts[t] - mins[t]) * strides[t]
    return idx


def table_shape(tok_start, tok_table, tok_detonate):
    """``(mins, radix, strides, rows)`` of the all-piles table (plain numpy, no kernels)."""
    tok_start = np.asarray(tok_start, np.int64)
    tok_table = np.asarray(tok_table, np.int64)
    tok_detonate = np.asarray(tok_detonate, np.int64)
    mins = np.where(tok_detonate > 0, 0, tok_start).astype(np.int64)
    radix = (tok_start + tok_table - mins + 1).astype(np.int64)
    strides = np.ones(radix.shape[0], np.int64)
    rows = 1
    for t in range(radix.shape[0] - 1, -1, -1):
        strides[t] = rows
        rows *= int(radix[t])
    return mins, radix, strides, rows


@njit(cache=True)
def _fill_pile_table(
    mins,
    radix,
    strides,
    rows,
    tok_hearts,
    tok_extra_reveals,
    tok_xp,
    tok_blocks,
    tok_detonate,
    fight_reveal,
    h_max,
):
    n_types = mins.shape[0]
    p_win = np.zeros((rows, h_max + 1), np.float64)
    p_no = np.zeros((rows, h_max + 1), np.float64)
    e_spent = np.zeros((rows, h_max + 1), np.float64)
    e_xp = np.zeros(rows, np.float64)
    e_blocks = np.zeros(rows, np.float64)
    e_revealed = np.zeros(rows, np.float64)
    counts = np.zeros(n_types, np.int64)
    for idx in range(rows):
        total = 0
        for t in range(n_types):
            counts[t] = mins[t] + (idx // strides[t]) % radix[t]
            total += counts[t]
        if total == 0:
            continue
        pw, pn, es, _, er, ex, eb = exact_odds(
            counts,
            tok_hearts,
            tok_extra_reveals,
            tok_xp,
            tok_blocks,
            tok_detonate,
            fight_reveal,
            h_max,
        )
        p_win[idx, :] = pw
        p_no[idx, :] = pn
        e_spent[idx, :] = es
        e_revealed[idx] = er
        e_xp[idx] = ex
        e_blocks[idx] = eb
    return p_win, p_no, e_spent, e_xp, e_blocks, e_revealed


PileTable = namedtuple(
    "PileTable",
    [
        "mins",  # int64[T]: smallest count of each type in any pile (0 for detonatable types)
        "strides",  # int64[T]: C-order strides of the mixed-radix row index
        "p_win",  # float64[rows, h_max + 1]: P(win) with optimal TNT
        "p_win_no_tnt",  # float64[rows, h_max + 1]
        "e_tnt_spent",  # float64[rows, h_max + 1]
        "e_hoe_xp",  # float64[rows]
        "e_pickaxe_blocks",  # float64[rows]
        "e_revealed",  # float64[rows]
        "radix",  # int64[T]: counts per type run over mins[t] .. mins[t] + radix[t] - 1
    ],
)


def pile_table(
    tok_start,
    tok_table,
    tok_hearts,
    tok_extra_reveals,
    tok_xp,
    tok_blocks,
    tok_detonate,
    fight_reveal,
    h_max,
) -> PileTable:
    """Exact odds for every pile a player can hold: start pile + any colourless sub-multiset.

    Detonatable types may also fall below their start count (detonated TNT leaves the game,
    R-FIGHT-4). Row of a pile: ``pile_index(counts, table.mins, table.strides)``. Rows of empty
    piles are zero. Raises :class:`BnbError` when the table would exceed 2**20 rows.
    """
    mins, radix, strides, rows = table_shape(tok_start, tok_table, tok_detonate)
    if rows > MAX_TABLE_ROWS:
        raise BnbError(
            f"pile table would have {rows:,} rows (limit {MAX_TABLE_ROWS:,}); "
            "the component data has too many weapon tokens for a precomputed table"
        )
    if int(h_max) < 0:
        raise BnbError(f"pile table: h_max must be >= 0, got {h_max}")
    arrays = [
        np.ascontiguousarray(a, dtype=np.int64)
        for a in (tok_hearts, tok_extra_reveals, tok_xp, tok_blocks, tok_detonate)
    ]
    try:
        tables = _fill_pile_table(
            mins, radix, strides, np.int64(rows), *arrays, np.int64(fight_reveal), np.int64(h_max)
        )
    except ValueError as exc:  # a pile beyond the exact kernel's limits (custom tokens only)
        raise BnbError(f"pile table: {exc}") from None
    p_win, p_no, e_spent, e_xp, e_blocks, e_revealed = tables
    return PileTable(mins, strides, p_win, p_no, e_spent, e_xp, e_blocks, e_revealed, radix)
