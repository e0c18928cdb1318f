"""What the one-step bots' evaluation is built from: the board value of a tile placed on a
space, and the value of blocks (``onestep.py`` makes the decisions from them).

The board value is ``sum over rounds still to come of max_v (group size of v) x card[v]`` plus
the end value of the bonus mobs held (R-SCORE-2, R-END-1): what the board would score if the
rounds happened now. A block is worth what it pays for (face-up buildings the seat cannot
afford yet, emeralds) and, when it is the last of its layer, the lead it would score in the
round it triggers (R-SCORE-1). Also the argmax helpers every decision uses (ties broken at
random from the seat's policy stream).

Everything reads ``pub`` (the seat's observation) and the static arrays only.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.components.arrays import (
    RULE_MIN_EXPOSED_SIDES,
    TILE_BONUS_MOB,
)
from bnb_sim.games.builders_biomes.engine.bits import low_index, popcount
from bnb_sim.games.builders_biomes.engine.build import blocks_missing
from bnb_sim.games.builders_biomes.engine.collect import collectable_now
from bnb_sim.games.builders_biomes.engine.cube import collectable_bits
from bnb_sim.games.builders_biomes.engine.layout import (
    K_RULES,
    K_SCORE_CARD,
    MAX_HELD,
    P_BOARD_MASK,
    P_HELD,
    P_N_HELD,
    P_TOP_UP,
    P_VIS_BLOCK,
    TILE_BONUS_CHAR,
    TILE_BONUS_VALUE,
    TILE_BONUS_XP,
    TILE_KIND,
    TILE_XP,
    WILD,
    get_occ,
    mask_at,
    stat_at,
    supply_at,
    tile_attr,
    tile_char,
    tile_cost,
)
from bnb_sim.games.builders_biomes.engine.scoring import bonus_mask, counted_spaces
from bnb_sim.games.builders_biomes.engine.state import (
    C_N_PLAYERS,
    C_ROUNDS_DONE,
    C_ROUNDS_PENDING,
    C_UP_BUILDINGS,
    S_BONUS_MOBS,
    S_BUILDINGS_BUILT,
)
from bnb_sim.games.builders_biomes.policies.onestep_layout import (
    EPS,
    MEM_BLOCK_SCRATCH,
    MEM_PLACE_OK,
    MEM_PLACE_SPACE,
    MEM_PLACE_VALUE,
    MEM_READY,
    MEM_ROUND_POINTS,
    MEM_SPACE_ORDER,
    MEM_TABLE,
    MEM_TABLE_VERSION,
    MEM_TILE_LIMIT,
    NEG,
    W_BLOCK_BASE,
    W_BLOCK_NEED,
    W_BLOCK_WILD,
    W_BOARD,
    W_BONUS_MOB,
    W_TRIGGER,
    W_XP,
)
from bnb_sim.rng import bounded_row


# ---- small helpers ------------------------------------------------------------------
@kernel(inline="always")
def _offer(best_value, best_choice, ties, value, choice, rng, row, randomize):
    """One step of an argmax. With ``randomize`` ties are broken uniformly at random from the
    seat's stream (reservoir sampling); without it the first best is kept (for values that
    only feed other estimates, where the choice itself does not matter)."""
    if value > best_value + EPS:
        return value, choice, 1
    if randomize and value >= best_value - EPS:
        ties += 1
        if bounded_row(rng, row, ties) == 0:
            return best_value, choice, ties
    return best_value, best_choice, ties


@kernel(per_constant=True)
def pick_best(mem, offset, candidates, rng, row, randomize):
    """Argmax of ``mem[offset + i]`` over the set bits ``i`` of ``candidates`` (uint64).

    With ``randomize`` equally good candidates are chosen uniformly: a first pass finds the
    best value and counts the ties, then one draw picks among them (one draw per decision
    instead of one per tie). Returns ``(best value, choice)``; ``choice`` is -1 if empty.
    """
    best = NEG
    choice = -1
    ties = 0
    bits = candidates
    while bits:
        i = _low_u64(bits)
        bits &= bits - np.uint64(1)
        value = mem[offset + i]
        if value > best + EPS:
            best = value
            choice = i
            ties = 1
        elif value >= best - EPS:
            ties += 1
    if not randomize or ties <= 1:
        return best, choice
    pick = bounded_row(rng, row, ties)
    bits = candidates
    while bits:
        i = _low_u64(bits)
        bits &= bits - np.uint64(1)
        if mem[offset + i] >= best - EPS:
            if pick == 0:
                return best, i
            pick -= 1
    return best, choice


@kernel(inline="always")
def _low_u64(bits):
    return popcount((bits & (~bits + np.uint64(1))) - np.uint64(1))


@kernel(inline="always")
def _two_best(points):
    """The values (0..3) with the highest and second-highest ``points`` (first index on ties)."""
    first = 0
    for v in range(1, 4):
        if points[v] > points[first]:
            first = v
    second = 1 if first == 0 else 0
    for v in range(4):
        if v != first and points[v] > points[second]:
            second = v
    return first, second


@kernel(inline="always")
def _best_other(points, first, second, shown, old):
    """Best of ``points`` over the values other than ``shown`` and ``old``: among the top
    three, so the first of ``first``, ``second`` and the best of the other two not excluded."""
    if first != shown and first != old:
        return points[first]
    if second != shown and second != old:
        return points[second]
    best = 0.0  # the board value is floored at 0 anyway
    for v in range(4):
        if v != first and v != second and v != shown and v != old:
            best = max(best, points[v])
    return best


# ---- board value --------------------------------------------------------------------
@kernel
def fill_placement_table(pub, k, seat, w, mem):
    """``mem[MEM_TABLE + (space * 3 + c) * 4 + v]``: change of the board value when ``space``
    comes to show value ``v`` of characteristic ``c``.

    The board value is a sum over characteristics (each round and each bonus mob looks at one
    characteristic only), so the value of a tile on a space is the sum of three table entries.
    The board value is ``w_board x`` (the best score of every round still to come, now) plus
    ``w_bonus_mob x`` (the end XP of the bonus mobs held); tests/test_onestep.py checks the
    table against that definition written out from the rules.
    """
    done = pub[C_ROUNDS_DONE]
    points = mem[MEM_ROUND_POINTS : MEM_ROUND_POINTS + 4]  # scratch (no allocation)
    for c in range(3):
        if (done >> c) & 1:  # a scored round no longer counts: no change anywhere
            for j in range(36):
                mem[MEM_TABLE + c * 4 + (j // 4) * 12 + j % 4] = 0.0
            continue
        masks = P_BOARD_MASK + seat * 12 + c * 4  # pub[masks + v]: the mask of value v
        card = K_SCORE_CARD + c * 4
        showing = 0  # 3 bits per space: 1 + the value it shows (0: none, for empty spaces)
        for v in range(4):
            points[v] = counted_spaces(pub, k, seat, pub[masks + v]) * k[card + v]
            bits = pub[masks + v]
            while bits:
                showing |= (v + 1) << (3 * low_index(bits))
                bits &= bits - 1
        base = max(max(max(points[0], points[1]), max(points[2], points[3])), 0.0)
        first, second = _two_best(points)
        for space in range(9):
            bit = 1 << space
            old = ((showing >> (3 * space)) & 7) - 1  # the value shown now, -1 for none
            # only two masks change: `shown` gains the space, `old` loses it
            old_points = 0.0
            if old >= 0:
                left = counted_spaces(pub, k, seat, pub[masks + old] & ~bit)
                old_points = left * k[card + old]
            for shown in range(4):
                entry = MEM_TABLE + (space * 3 + c) * 4 + shown
                if shown == old:
                    mem[entry] = 0.0
                    continue
                gained = counted_spaces(pub, k, seat, pub[masks + shown] | bit) * k[card + shown]
                others = _best_other(points, first, second, shown, old)
                best = max(max(old_points, gained), others)
                mem[entry] = w[W_BOARD] * (max(best, 0.0) - base)
    for j in range(pub[P_N_HELD + seat]):
        held = pub[P_HELD + seat * MAX_HELD + j]
        if tile_attr(k, TILE_KIND, held) != TILE_BONUS_MOB:
            continue
        c = tile_attr(k, TILE_BONUS_CHAR, held)
        v = tile_attr(k, TILE_BONUS_VALUE, held)
        weight = w[W_BONUS_MOB] * tile_attr(k, TILE_BONUS_XP, held)
        mask = bonus_mask(pub, k, seat, c, v)  # a placement always builds, so "had" is enough
        for space in range(9):
            had = (mask >> space) & 1
            for shown in range(4):
                now = 1 if shown == v else 0
                mem[MEM_TABLE + (space * 3 + c) * 4 + shown] += weight * (now - had)


@kernel
def _draw_space_order(mem, rng, row):
    """A random order of the 9 board spaces for this game: equally good spaces are chosen by
    it, which breaks ties at random without a draw per comparison."""
    for j in range(9):
        mem[MEM_SPACE_ORDER + j] = j
    for j in range(8, 0, -1):
        i = bounded_row(rng, row, j + 1)
        tmp = mem[MEM_SPACE_ORDER + j]
        mem[MEM_SPACE_ORDER + j] = mem[MEM_SPACE_ORDER + i]
        mem[MEM_SPACE_ORDER + i] = tmp
    mem[MEM_READY] = 1.0


@kernel(inline="always")
def _version(pub, seat):
    """Changes whenever the seat's board, the scored rounds or the seat's bonus mobs change
    (everything the board value depends on)."""
    built = pub[stat_at(seat, S_BUILDINGS_BUILT)]
    return 1.0 + ((built * 8 + pub[C_ROUNDS_DONE]) * 64 + pub[stat_at(seat, S_BONUS_MOBS)])


@kernel
def best_placement(pub, seat, mem, k, w, tile, rng, row):
    """Best space for ``tile`` on the seat's board and its value (XP + board change - blocks
    spent), cached per tile until the seat's board changes."""
    version = _version(pub, seat)
    if tile < MEM_TILE_LIMIT and mem[MEM_PLACE_OK + tile] == version:
        return mem[MEM_PLACE_VALUE + tile], np.int64(mem[MEM_PLACE_SPACE + tile])
    return _place(pub, seat, mem, k, w, tile, version, rng, row)


@kernel(inline="always")
def placement_value(pub, seat, mem, k, w, tile, version, rng, row):
    """The value of :func:`best_placement` (cache looked up here, without a call)."""
    if tile < MEM_TILE_LIMIT and mem[MEM_PLACE_OK + tile] == version:
        return mem[MEM_PLACE_VALUE + tile]
    value, _ = _place(pub, seat, mem, k, w, tile, version, rng, row)
    return value


@kernel
def _place(pub, seat, mem, k, w, tile, version, rng, row):
    if mem[MEM_TABLE_VERSION] != version:
        fill_placement_table(pub, k, seat, w, mem)
        mem[MEM_TABLE_VERSION] = version
    biome = tile_char(k, 0, tile)
    material = tile_char(k, 1, tile)
    kind = tile_char(k, 2, tile)
    cost = 0
    for m in range(WILD + 1):
        cost += tile_cost(k, tile, m)
    immediate = w[W_XP] * tile_attr(k, TILE_XP, tile) - w[W_BLOCK_BASE] * cost
    if mem[MEM_READY] == 0.0:
        _draw_space_order(mem, rng, row)
    best = NEG
    best_space = 0
    for j in range(9):
        space = np.int64(mem[MEM_SPACE_ORDER + j])
        entry = MEM_TABLE + space * 12
        value = immediate + mem[entry + biome] + mem[entry + 4 + material] + mem[entry + 8 + kind]
        if value > best + EPS:
            best = value
            best_space = space
    if tile < MEM_TILE_LIMIT:
        mem[MEM_PLACE_OK + tile] = version
        mem[MEM_PLACE_VALUE + tile] = best
        mem[MEM_PLACE_SPACE + tile] = best_space
    return best, best_space


# ---- blocks ---------------------------------------------------------------------------
@kernel(inline="always")
def block_values(pub, k, seat, w, out):
    """Value of one more block of each type: any block, emeralds, and blocks that pay for part
    of a face-up building the seat cannot afford yet.

    The needed types are gathered in a bit mask first and ``out`` is written after the loop:
    a store into ``out`` inside it would make every table read of the next building a fresh
    load (the compiler cannot tell the arrays apart)."""
    needed = 0  # bit m: some face-up building the seat cannot afford needs more of type m
    up = pub[C_UP_BUILDINGS]
    while up:
        stack = low_index(up)
        up &= up - 1
        tile = pub[P_TOP_UP + stack]
        if blocks_missing(pub, k, seat, tile) <= 0:
            continue
        for m in range(WILD):
            if tile_cost(k, tile, m) > pub[supply_at(seat, m)]:
                needed |= 1 << m
    for m in range(WILD + 1):
        out[m] = w[W_BLOCK_BASE]
        if (needed >> m) & 1:
            out[m] += w[W_BLOCK_NEED]
    out[WILD] += w[W_BLOCK_WILD]


@kernel
def round_lead(pub, k, seat, rnd):
    """Own best score in round ``rnd`` minus the best opponent's."""
    mine = 0
    theirs = 0
    for s in range(pub[C_N_PLAYERS]):
        best = 0
        for v in range(4):
            spaces = counted_spaces(pub, k, s, pub[mask_at(s, rnd, v)])
            points = spaces * k[K_SCORE_CARD + rnd * 4 + v]
            if points > best:
                best = points
        if s == seat:
            mine = best
        elif best > theirs:
            theirs = best
    return mine - theirs


@kernel
def lone_blocks(pub):
    """Bitboard of blocks that are the last of their layer in layers whose round has not been
    triggered yet: taking one triggers a scoring round (R-SCORE-1)."""
    occ = get_occ(pub)
    flags = pub[C_ROUNDS_DONE] | pub[C_ROUNDS_PENDING]
    lone = np.uint64(0)
    for layer in range(3):
        if (flags >> layer) & 1:
            continue
        bits = (occ >> np.uint64(16 * layer)) & np.uint64(0xFFFF)
        if bits != np.uint64(0) and bits & (bits - np.uint64(1)) == np.uint64(0):
            lone |= bits << np.uint64(16 * layer)
    return lone


@kernel(inline="always")
def take_value(pub, k, seat, w, values, pos, lone):
    """Value of taking the block at ``pos``: its type's value (a block not seen yet counts as
    any block), plus the trigger term when it is the last block of a layer."""
    shown = pub[P_VIS_BLOCK + pos]
    value = values[shown] if shown >= 0 else w[W_BLOCK_BASE]
    if (lone >> np.uint64(pos)) & np.uint64(1):
        value += w[W_TRIGGER] * round_lead(pub, k, seat, pos // 16)
    return value


@kernel(per_constant=True)
def best_block(pub, k, seat, mem, w, candidates, values, rng, row, randomize):
    """Best block among ``candidates`` (uint64 bitboard) and its value."""
    lone = lone_blocks(pub)
    bits = candidates
    while bits:
        pos = _low_u64(bits)
        bits &= bits - np.uint64(1)
        mem[MEM_BLOCK_SCRATCH + pos] = take_value(pub, k, seat, w, values, pos, lone)
    return pick_best(mem, MEM_BLOCK_SCRATCH, candidates, rng, row, randomize)


@kernel
def collect_value(pub, k, seat, w, values):
    """Value of a collect action: the best block, then the best block after it (R-CUBE-2:
    taking the first can expose new ones)."""
    candidates = collectable_now(pub, k)
    lone = lone_blocks(pub)
    first = NEG
    second = NEG
    first_pos = -1
    bits = candidates
    while bits:
        pos = _low_u64(bits)
        bits &= bits - np.uint64(1)
        value = take_value(pub, k, seat, w, values, pos, lone)
        if value > first:
            second = first
            first = value
            first_pos = pos
        elif value > second:
            second = value
    if first_pos < 0:
        return NEG
    taken = np.uint64(1) << np.uint64(first_pos)
    sides = k[K_RULES + RULE_MIN_EXPOSED_SIDES]
    exposed = collectable_bits(get_occ(pub) & ~taken, sides) & ~candidates
    while exposed:
        pos = _low_u64(exposed)
        exposed &= exposed - np.uint64(1)
        value = take_value(pub, k, seat, w, values, pos, lone)
        if value > second:
            second = value
    if second == NEG:
        return first
    return first + second
