"""One-step evaluation bots: ``greedy`` and ``heuristic``.

Both score every legal decision by the change it makes to a weighted evaluation of the seat's
position and take the best (ties broken at random from the seat's policy stream). They differ
only in their weights (``kinds.py``): ``greedy`` values XP now plus the change in the value of
the board for the coming scoring rounds, deciding fights with the exact win probability;
``heuristic`` also values what a move makes possible later (blocks that pay for visible
buildings, stronger weapon piles, revealed tiles, where the character stands, hunger mobs,
keeping TNT, and triggering a scoring round while ahead).

The board value is ``sum over rounds still to come of max_v (group size of v) x card[v]`` plus
the end value of the bonus mobs held (R-SCORE-2, R-END-1): what the board would score if the
rounds happened now. Fight odds come from the exact all-piles table (``ft``).

Everything reads ``pub`` (the seat's observation) and the static arrays only.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.components.arrays import (
    RULE_MIN_EXPOSED_SIDES,
    TILE_BONUS_MOB,
    TILE_BUILDING,
)
from bnb_sim.games.builders_biomes.engine.bits import low_index, popcount
from bnb_sim.games.builders_biomes.engine.build import blocks_missing
from bnb_sim.games.builders_biomes.engine.collect import collectable_now
from bnb_sim.games.builders_biomes.engine.cube import collectable_bits
from bnb_sim.games.builders_biomes.engine.layout import (
    K_ADJ_STACKS,
    K_OPTS,
    K_REACH,
    K_REACH_STACKS,
    K_RULES,
    K_SCORE_CARD,
    MAX_HELD,
    MAX_TOKEN_TYPES,
    P_BOARD_MASK,
    P_FIGHT_REVEALED,
    P_HELD,
    P_N_HELD,
    P_N_HUNGER,
    P_OWN_PILE,
    P_POS,
    P_STACK_H,
    P_TOP_UP,
    P_VIS_BLOCK,
    TILE_BONUS_CHAR,
    TILE_BONUS_VALUE,
    TILE_BONUS_XP,
    TILE_HEARTS,
    TILE_KIND,
    TILE_XP,
    TOK_BLOCKS,
    TOK_XP,
    WILD,
    get_occ,
    mask_at,
    stat_at,
    supply_at,
    tile_attr,
    tile_char,
    tile_cost,
    tok_attr,
)
from bnb_sim.games.builders_biomes.engine.legal import action_type_possible
from bnb_sim.games.builders_biomes.engine.market import actions_per_turn
from bnb_sim.games.builders_biomes.engine.restrict import allowed_stacks
from bnb_sim.games.builders_biomes.engine.scoring import bonus_mask, counted_spaces
from bnb_sim.games.builders_biomes.engine.state import (
    ACT_BUILD,
    ACT_BUY,
    ACT_COLLECT,
    ACT_EXPLORE,
    ACT_FIGHT,
    ACT_WEAPON,
    C_ACTIONS_DONE,
    C_ACTIONS_USED,
    C_BUILD_STACK,
    C_CHANGES,
    C_FIGHT_HEARTS,
    C_FIGHT_TILE,
    C_N_PLAYERS,
    C_PHASE,
    C_ROUNDS_DONE,
    C_ROUNDS_PENDING,
    C_SCORE_ROUND,
    C_UP_BUILDINGS,
    C_UP_MOBS,
    N_ACTION_TYPES,
    OPT_PICKAXE_OPTIONAL,
    PASS,
    PH_BED,
    PH_BOW,
    PH_BUILD_SPACE,
    PH_BUILD_TILE,
    PH_BUY,
    PH_COLLECT,
    PH_EXPLORE,
    PH_FARMLAND,
    PH_FIGHT_MOB,
    PH_HUNGER,
    PH_PICKAXE,
    PH_REVEAL_FOUR,
    PH_SCORE,
    PH_TNT,
    PH_TURN,
    PH_WEAPON,
    S_BONUS_MOBS,
    S_BUILDINGS_BUILT,
)
from bnb_sim.games.builders_biomes.engine.turn import hunger_actions
from bnb_sim.games.builders_biomes.policies.fight_values import (
    bed_choice,
    mob_value,
    pile_row,
    tnt_choice,
    weapon_value,
)
from bnb_sim.games.builders_biomes.policies.fm_policy import (
    best_buy,
    buy_choice,
    buy_slots,
    farmland_choice,
    round_c_choice,
)
from bnb_sim.rng import bounded_row

# weight indices (must match kinds.HEURISTIC_WEIGHTS order; a test checks it)
W_XP = 0
W_BOARD = 1
W_BONUS_MOB = 2
W_HUNGER_MOB = 3
W_BLOCK_NEED = 4
W_BLOCK_WILD = 5
W_BLOCK_BASE = 6
W_WEAPON = 7
W_REVEAL = 8
W_POSITION = 9
W_TRIGGER = 10
W_TNT = 11
W_EXTRA_THRESHOLD = 12
W_FM_ITEM = 13  # Farmer's Market (policies/fm_policy.py)
W_FM_VEGETABLE = 14

# policy memory layout (float64[MEM_SIZE] per seat, zeroed at game start): best placement of
# each tile, valid while the seat's board, scored rounds and held mobs are unchanged.
MEM_PLACE_VALUE = 0  # + tile
MEM_PLACE_SPACE = 128  # + tile
MEM_PLACE_OK = 256  # + tile: the version the entry was computed for
MEM_TILE_LIMIT = 128
MEM_STACK_VALUE = 384  # + stack: value of the face-up tile there (per state, see MEM_STAMP)
MEM_BLOCK_VALUE = 400  # + block type: value of one more block (per state)
MEM_STAMP = 410  # pub[C_CHANGES] + 1 when the two tables above were filled
MEM_SPACE_ORDER = 420  # 9: this game's order of trying board spaces (random tie-break)
MEM_READY = 430  # 1 once MEM_SPACE_ORDER is drawn
MEM_TABLE_VERSION = 431  # the _version the placement table was filled for
MEM_TABLE = 512  # 9 x 3 x 4: board-value change per (space, characteristic, value)
MEM_POINT_VALUE = 704  # 25: value of exploring to each reachable point (per state)
MEM_POINT_STAMP = 729  # pub[C_CHANGES] + 1 when MEM_POINT_VALUE was filled
MEM_BLOCK_STAMP = 730  # pub[C_CHANGES] + 1 when MEM_BLOCK_VALUE was filled
MEM_BLOCK_SCRATCH = 736  # 64: value of taking each candidate block (scratch)
MEM_ROUND_POINTS = 800  # 4: points of each value in one round (scratch)
FAR_MISSING = 2  # buildings lacking more blocks than this count for nothing in a position
NEG = -1.0e18
EPS = 1e-9


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


@kernel
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


@kernel
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


# ---- positions ----------------------------------------------------------------------
@kernel
def fill_stack_values(pub, seat, mem, k, ft, w, rng, row):
    """Value of every face-up tile within reach (``mem[MEM_STACK_VALUE + stack]``): the value
    of building it (scaled down while blocks are missing) or the expected value of fighting
    it. Placements come from the per-tile cache; the rest is a few table lookups, cheaper to
    recompute than to key."""
    up = k[K_REACH_STACKS + pub[P_POS + seat]] & (pub[C_UP_BUILDINGS] | pub[C_UP_MOBS])
    pile = pile_row(pub, k)
    version = _version(pub, seat)
    while up:
        stack = low_index(up)
        up &= up - 1
        tile = pub[P_TOP_UP + stack]
        if tile_attr(k, TILE_KIND, tile) != TILE_BUILDING:
            value = mob_value(pub, seat, k, ft, w, tile, pile)
        else:
            missing = blocks_missing(pub, k, seat, tile)
            if missing > FAR_MISSING:
                value = 0.0  # too far from affordable to shape where the bot goes now
            else:
                value = placement_value(pub, seat, mem, k, w, tile, version, rng, row)
                if missing > 0:
                    value = value * 0.5 / (1 + missing)
        mem[MEM_STACK_VALUE + stack] = value


@kernel(inline="always")
def prepare_stack_values(pub, seat, mem, k, ft, w, rng, row):
    """Stack values for the current state, recomputed only when the table
    changed since the last decision (choosing an action type or a tile changes nothing, so
    the decisions that follow reuse the evaluation)."""
    stamp = float(pub[C_CHANGES] + 1)
    if mem[MEM_STAMP] == stamp:
        return
    fill_stack_values(pub, seat, mem, k, ft, w, rng, row)
    mem[MEM_STAMP] = stamp


@kernel(inline="always")
def _point_value(mem, k, w, point, face_up, face_down):
    """``face_up``/``face_down``: masks of the stacks showing a tile / holding only hidden
    ones."""
    adjacent = k[K_ADJ_STACKS + point]
    waiting = 0.0
    up = adjacent & face_up
    while up:
        stack = low_index(up)
        up &= up - 1
        waiting = max(waiting, mem[MEM_STACK_VALUE + stack])
    return w[W_REVEAL] * popcount(adjacent & face_down) + w[W_POSITION] * waiting


@kernel
def best_point(pub, seat, mem, k, w, rng, row, randomize):
    """Best crossing point to explore to: face-down stacks turned up there (R-EXPLORE-2), and
    the best build or fight waiting next to it (stack values filled by
    :func:`fill_stack_values` for this decision). Ties: uniform with ``randomize``.

    Point values are kept for the state, so the explore decision that follows the choice of
    the action reads them again."""
    stamp = float(pub[C_CHANGES] + 1)
    start = k[K_REACH + pub[P_POS + seat]]
    if mem[MEM_POINT_STAMP] != stamp:
        face_up = pub[C_UP_BUILDINGS] | pub[C_UP_MOBS]
        face_down = 0
        for stack in range(16):
            if pub[P_STACK_H + stack] > 0:
                face_down |= 1 << stack
        face_down &= ~face_up
        reach = start
        while reach:
            point = low_index(reach)
            reach &= reach - 1
            mem[MEM_POINT_VALUE + point] = _point_value(mem, k, w, point, face_up, face_down)
        mem[MEM_POINT_STAMP] = stamp
    return pick_best(mem, MEM_POINT_VALUE, np.uint64(start), rng, row, randomize)


@kernel
def best_score_value(pub, seat, k, rnd, rng, row):
    """R-SCORE-2: the value that scores most in this round."""
    best = NEG
    choice = 0
    ties = 0
    for v in range(4):
        spaces = counted_spaces(pub, k, seat, pub[mask_at(seat, rnd, v)])
        points = spaces * k[K_SCORE_CARD + rnd * 4 + v]
        best, choice, ties = _offer(best, choice, ties, float(points), v, rng, row, True)
    return choice


@kernel
def _affordable(pub, k, seat, stacks):
    result = 0
    while stacks:
        stack = low_index(stacks)
        stacks &= stacks - 1
        if blocks_missing(pub, k, seat, pub[P_TOP_UP + stack]) <= 0:
            result |= 1 << stack
    return result


@kernel(inline="always")
def best_adjacent(pub, seat, mem, stacks, rng, row, randomize):
    """Best of the stacks in ``stacks`` (int mask) by their filled value."""
    return pick_best(mem, MEM_STACK_VALUE, np.uint64(stacks), rng, row, randomize)


@kernel(inline="always")
def action_type_value(pub, seat, mem, k, ft, w, action_type, values, rng, row):
    """Value of the best decision within an action type (PH_TURN); stack values are filled.
    Inlined into its two loops over the action types (a call of ten arguments per type)."""
    here = k[K_ADJ_STACKS + pub[P_POS + seat]]
    if action_type == ACT_COLLECT:
        return collect_value(pub, k, seat, w, values)
    if action_type == ACT_EXPLORE:
        value, _ = best_point(pub, seat, mem, k, w, rng, row, False)
        return value
    if action_type == ACT_BUILD:
        up = allowed_stacks(pub, k, seat, here & pub[C_UP_BUILDINGS], ACT_BUILD)
        stacks = _affordable(pub, k, seat, up)
        value, _ = best_adjacent(pub, seat, mem, stacks, rng, row, False)
        return value
    if action_type == ACT_FIGHT:
        mobs = allowed_stacks(pub, k, seat, here & pub[C_UP_MOBS], ACT_FIGHT)
        value, _ = best_adjacent(pub, seat, mem, mobs, rng, row, False)
        return value
    if action_type == ACT_WEAPON:
        return weapon_value(pub, k, ft, w)
    return NEG


# ---- hunger mobs and bows ---------------------------------------------------------------
@kernel
def hunger_choice(pub, seat, mem, k, ft, w, values, rng, row):
    """R-TURN-2 (``hunger=together``): how many hunger mobs to return at once. One extra
    action for each action type (repeats allowed) worth at least the ``extra_threshold``
    weight now, at most the mobs held: the same test the bots apply to each extra action
    under ``one-by-one``, made once for the whole turn. With the Farmer's Market item a mob
    pays for two actions (R-FM-10), so half as many mobs (rounded up) pay for them: a bot
    returns no mob whose actions it does not mean to take."""
    worth = 0
    for a in range(N_ACTION_TYPES):
        if action_type_possible(pub, k, seat, a):
            value = action_type_value(pub, seat, mem, k, ft, w, a, values, rng, row)
            if value >= w[W_EXTRA_THRESHOLD]:
                worth += 1
    per_mob = hunger_actions(pub, seat)
    return min((worth + per_mob - 1) // per_mob, pub[P_N_HUNGER + seat])


@kernel
def bow_choice(pub, seat, mem, k, w, values, pickaxe_optional, rng, row):
    """R-FIGHT-2 (``bow=choose``): 0 to take the bow's extra reveal, PASS to decline it; the
    reveal-4 item's extra token (R-FM-5, PH_REVEAL_FOUR) is decided the same way.

    While the mob is not beaten yet the reveal can only help. Once the revealed hearts win
    without TNT, the reveal is worth its expected immediate effect: golden hoe XP, plus the
    value of the block a stone pickaxe would take (forced under ``pickaxe=mandatory``, so a
    block that triggers a bad scoring round counts against it). Decline only when that
    expectation is negative."""
    tile = pub[C_FIGHT_TILE]
    if pub[C_FIGHT_HEARTS] < tile_attr(k, TILE_HEARTS, tile):
        return 0
    candidates = collectable_now(pub, k)
    block = 0.0
    if candidates != np.uint64(0):
        block, _ = best_block(pub, k, seat, mem, w, candidates, values, rng, row, False)
        if pickaxe_optional:
            block = max(block, 0.0)
    total = 0
    expected = 0.0
    for t in range(MAX_TOKEN_TYPES):
        left = pub[P_OWN_PILE + t] - pub[P_FIGHT_REVEALED + t]
        if left > 0:
            total += left
            effect = w[W_XP] * tok_attr(k, TOK_XP, t) + tok_attr(k, TOK_BLOCKS, t) * block
            expected += left * effect
    if total > 0 and expected < -EPS:
        return PASS
    return 0


@kernel
def turn_choice(pub, seat, mem, k, ft, w, mask, pass_ok, values, rng, row):
    """PH_TURN: the action type worth most (R-TURN-1, R-FM-4), or PASS. An action that spends
    a hunger mob as it starts (``hunger=one-by-one``: every extra action, and a repeat after
    the two main actions by the three-actions item's owner, R-FM-5) must be worth the
    ``extra_threshold`` weight. Under ``together`` the extra actions were paid for in the
    hunger decision (:func:`hunger_choice`) and are all taken (PASS is not offered to the
    built-in bots then: ``engine/play.py``)."""
    main = pub[C_ACTIONS_DONE] < actions_per_turn(pub, k, seat)
    repeats = pub[C_ACTIONS_USED] if main else 0  # in the mask only when they spend a mob
    best = NEG
    choice = -1
    ties = 0
    for a in range(N_ACTION_TYPES + 1):
        if (mask >> np.uint64(a)) & np.uint64(1):
            if a == ACT_BUY:  # Farmer's Market (R-FM-4)
                value, _ = best_buy(pub, k, seat, w, buy_slots(pub, k, seat))
            else:
                value = action_type_value(pub, seat, mem, k, ft, w, a, values, rng, row)
            if (repeats >> a) & 1:
                value -= w[W_EXTRA_THRESHOLD]
            best, choice, ties = _offer(best, choice, ties, value, a, rng, row, True)
    if not main and pass_ok and best < w[W_EXTRA_THRESHOLD]:
        return PASS
    return choice


# ---- the decision ---------------------------------------------------------------------
@kernel
def choose_onestep(w, pub, seat, mem, k, ft, mask, pass_ok, rng, row):
    """The decision of a one-step bot with weights ``w`` in the current phase."""
    phase = pub[C_PHASE]
    if mask == np.uint64(0):
        return PASS
    if phase == PH_SCORE:
        value = best_score_value(pub, seat, k, pub[C_SCORE_ROUND], rng, row)
        if (mask >> np.uint64(4)) & np.uint64(1):  # Farmer's Market round C (R-FM-6)
            return round_c_choice(pub, k, seat, value)
        return value
    if phase == PH_FARMLAND:
        return farmland_choice(mask)
    if phase == PH_BUY:
        return buy_choice(pub, k, seat, w, pass_ok, mask)
    if phase == PH_TNT:
        return tnt_choice(pub, k, w, popcount(mask) - 1)
    if phase == PH_BED:  # R-FM-5: fight again while the fight is worth it
        return bed_choice(pub, seat, k, ft, w)
    if phase == PH_WEAPON:
        count = popcount(mask)
        skip = bounded_row(rng, row, count) if count > 1 else 0
        bits = mask
        for _ in range(skip):
            bits &= bits - np.uint64(1)
        return _low_u64(bits)
    if phase == PH_BUILD_SPACE:
        tile = pub[P_TOP_UP + pub[C_BUILD_STACK]]
        _, space = best_placement(pub, seat, mem, k, w, tile, rng, row)
        return space
    values = mem[MEM_BLOCK_VALUE : MEM_BLOCK_VALUE + WILD + 1]
    stamp = float(pub[C_CHANGES] + 1)
    if mem[MEM_BLOCK_STAMP] != stamp:
        block_values(pub, k, seat, w, values)
        mem[MEM_BLOCK_STAMP] = stamp
    if phase == PH_COLLECT or phase == PH_PICKAXE:
        best, pos = best_block(pub, k, seat, mem, w, mask, values, rng, row, True)
        # a pickaxe's block where optional, the collect-3 item's third block (R-FM-5): not
        # when the best one hurts (a round triggered while behind, say)
        if pass_ok and best < 0.0:
            return PASS
        return pos
    if phase == PH_BOW or phase == PH_REVEAL_FOUR:  # R-FM-5: reveal 4 decides like a bow
        optional = k[K_OPTS + OPT_PICKAXE_OPTIONAL] != 0
        return bow_choice(pub, seat, mem, k, w, values, optional, rng, row)
    prepare_stack_values(pub, seat, mem, k, ft, w, rng, row)
    if phase == PH_HUNGER:
        return hunger_choice(pub, seat, mem, k, ft, w, values, rng, row)
    if phase == PH_TURN:
        return turn_choice(pub, seat, mem, k, ft, w, mask, pass_ok, values, rng, row)
    if phase == PH_EXPLORE:
        _, point = best_point(pub, seat, mem, k, w, rng, row, True)
        return point
    if phase == PH_BUILD_TILE or phase == PH_FIGHT_MOB:
        _, stack = best_adjacent(pub, seat, mem, np.int64(mask), rng, row, True)
        return stack
    return -1
