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

from bnb_sim._jit import njit
from bnb_sim.components.arrays import (
    RULE_ACTIONS_PER_TURN,
    RULE_MIN_EXPOSED_SIDES,
    TILE_BONUS_MOB,
    TILE_BUILDING,
    TILE_HUNGER_MOB,
)
from bnb_sim.engine.bits import low_index, popcount
from bnb_sim.engine.collect import collectable_now
from bnb_sim.engine.cube import collectable_bits
from bnb_sim.engine.groups import count_spaces
from bnb_sim.engine.layout import (
    K_ADJ_STACKS,
    K_FT_HMAX,
    K_PILE_MINS,
    K_PILE_STRIDES,
    K_REACH,
    K_RULES,
    K_SCORE_CARD,
    MAX_HELD,
    MAX_TOKEN_TYPES,
    P_FIGHT_REVEALED,
    P_HELD,
    P_N_HELD,
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
    TOK_DETONATE,
    TOK_HEARTS,
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
from bnb_sim.engine.rng import bounded_row
from bnb_sim.engine.scoring import counted_spaces
from bnb_sim.engine.state import (
    ACT_BUILD,
    ACT_COLLECT,
    ACT_EXPLORE,
    ACT_FIGHT,
    ACT_WEAPON,
    C_ACTIONS_DONE,
    C_BUILD_STACK,
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
    PASS,
    PH_BUILD_SPACE,
    PH_BUILD_TILE,
    PH_COLLECT,
    PH_EXPLORE,
    PH_FIGHT_MOB,
    PH_PICKAXE,
    PH_SCORE,
    PH_TNT,
    PH_TURN,
    PH_WEAPON,
    S_BUILDINGS_BUILT,
)

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

# policy memory layout (float64[MEM_SIZE] per seat, zeroed at game start): best placement of
# each tile, valid while the seat's board, scored rounds and held mobs are unchanged.
MEM_PLACE_VALUE = 0  # + tile
MEM_PLACE_SPACE = 128  # + tile
MEM_PLACE_OK = 256  # + tile: the version the entry was computed for
MEM_TILE_LIMIT = 128
NEG = -1.0e18
EPS = 1e-9


# ---- small helpers ------------------------------------------------------------------
@njit(cache=True, inline="always")
def _offer(best_value, best_choice, ties, value, choice, rng, row):
    """One step of an argmax with uniformly random tie-breaking (reservoir sampling)."""
    if value > best_value + EPS:
        return value, choice, 1
    if value >= best_value - EPS:
        ties += 1
        if bounded_row(rng, row, ties) == 0:
            return best_value, choice, ties
    return best_value, best_choice, ties


@njit(cache=True, inline="always")
def _low_u64(bits):
    return popcount((bits & (~bits + np.uint64(1))) - np.uint64(1))


@njit(cache=True, inline="always")
def _after_cover(mask, bit, shown, v):
    """The 9-bit mask of value ``v`` after a tile showing ``shown`` covers ``bit``."""
    if v == shown:
        return mask | bit
    return mask & ~bit


@njit(cache=True, inline="always")
def _pile_row(pub, k):
    row = 0
    for t in range(MAX_TOKEN_TYPES):
        row += (pub[P_OWN_PILE + t] - k[K_PILE_MINS + t]) * k[K_PILE_STRIDES + t]
    return row


# ---- board value --------------------------------------------------------------------
@njit(cache=True)
def board_value(pub, k, seat, w, space, tile):
    """Weighted board value of ``seat``; if ``tile >= 0`` as if it stood on ``space``.

    Rounds still to come count their best choice now; held bonus mobs count their end XP.
    """
    done = pub[C_ROUNDS_DONE]
    bit = (1 << space) if tile >= 0 else 0
    total = 0.0
    for r in range(3):
        if (done >> r) & 1:
            continue
        shown = tile_char(k, r, tile) if tile >= 0 else -1
        best = 0
        for v in range(4):
            mask = pub[mask_at(seat, r, v)]
            if tile >= 0:
                mask = _after_cover(mask, bit, shown, v)
            points = counted_spaces(k, mask) * k[K_SCORE_CARD + r * 4 + v]
            if points > best:
                best = points
        total += w[W_BOARD] * best
    for j in range(pub[P_N_HELD + seat]):
        held = pub[P_HELD + seat * MAX_HELD + j]
        if tile_attr(k, TILE_KIND, held) != TILE_BONUS_MOB:
            continue
        c = tile_attr(k, TILE_BONUS_CHAR, held)
        v = tile_attr(k, TILE_BONUS_VALUE, held)
        mask = pub[mask_at(seat, c, v)]
        if tile >= 0:
            mask = _after_cover(mask, bit, tile_char(k, c, tile), v)
        total += w[W_BONUS_MOB] * tile_attr(k, TILE_BONUS_XP, held) * count_spaces(mask)
    return total


@njit(cache=True, inline="always")
def _version(pub, seat):
    """Changes whenever the seat's board, the scored rounds or the seat's held mobs change."""
    built = pub[stat_at(seat, S_BUILDINGS_BUILT)]
    return 1.0 + ((built * 8 + pub[C_ROUNDS_DONE]) * 64 + pub[P_N_HELD + seat])


@njit(cache=True)
def best_placement(pub, seat, mem, k, w, tile, rng, row):
    """Best space for ``tile`` on the seat's board and its value (XP + board change - blocks
    spent), cached per tile until the seat's board changes."""
    version = _version(pub, seat)
    cacheable = tile < MEM_TILE_LIMIT
    if cacheable and mem[MEM_PLACE_OK + tile] == version:
        return mem[MEM_PLACE_VALUE + tile], np.int64(mem[MEM_PLACE_SPACE + tile])
    base = board_value(pub, k, seat, w, 0, -1)
    cost = 0
    for m in range(WILD + 1):
        cost += tile_cost(k, tile, m)
    immediate = w[W_XP] * tile_attr(k, TILE_XP, tile) - w[W_BLOCK_BASE] * cost
    best = NEG
    best_space = 0
    ties = 0
    for space in range(9):
        value = immediate + board_value(pub, k, seat, w, space, tile) - base
        best, best_space, ties = _offer(best, best_space, ties, value, space, rng, row)
    if cacheable:
        mem[MEM_PLACE_OK + tile] = version
        mem[MEM_PLACE_VALUE + tile] = best
        mem[MEM_PLACE_SPACE + tile] = best_space
    return best, best_space


@njit(cache=True, inline="always")
def _missing(pub, k, seat, tile):
    """Blocks the seat still lacks for ``tile`` after using its emeralds (<= 0: affordable)."""
    missing = tile_cost(k, tile, WILD)
    for m in range(WILD):
        need = tile_cost(k, tile, m) - pub[supply_at(seat, m)]
        if need > 0:
            missing += need
    return missing - pub[supply_at(seat, WILD)]


# ---- blocks ---------------------------------------------------------------------------
@njit(cache=True)
def block_values(pub, k, seat, w, out):
    """Value of one more block of each type: any block, emeralds, and blocks that pay for part
    of a face-up building the seat cannot afford yet."""
    for m in range(WILD + 1):
        out[m] = w[W_BLOCK_BASE]
    out[WILD] += w[W_BLOCK_WILD]
    up = pub[C_UP_BUILDINGS]
    while up:
        stack = low_index(up)
        up &= up - 1
        tile = pub[P_TOP_UP + stack]
        if _missing(pub, k, seat, tile) <= 0:
            continue
        for m in range(WILD):
            if tile_cost(k, tile, m) > pub[supply_at(seat, m)]:
                out[m] = w[W_BLOCK_BASE] + w[W_BLOCK_NEED]


@njit(cache=True)
def round_lead(pub, k, seat, rnd):
    """Own best score in round ``rnd`` minus the best opponent's."""
    mine = 0
    theirs = 0
    for s in range(pub[C_N_PLAYERS]):
        best = 0
        for v in range(4):
            points = counted_spaces(k, pub[mask_at(s, rnd, v)]) * k[K_SCORE_CARD + rnd * 4 + v]
            if points > best:
                best = points
        if s == seat:
            mine = best
        elif best > theirs:
            theirs = best
    return mine - theirs


@njit(cache=True)
def take_value(pub, k, seat, w, values, pos):
    """Value of taking the block at ``pos``: its type's value, plus the trigger term when it
    is the last block of a layer (R-SCORE-1)."""
    shown = pub[P_VIS_BLOCK + pos]
    value = values[shown] if shown >= 0 else w[W_BLOCK_BASE]
    layer = pos // 16
    if layer < 3 and w[W_TRIGGER] != 0.0:
        if (pub[C_ROUNDS_DONE] | pub[C_ROUNDS_PENDING]) & (1 << layer) == 0:
            layer_bits = (get_occ(pub) >> np.uint64(16 * layer)) & np.uint64(0xFFFF)
            if layer_bits == (np.uint64(1) << np.uint64(pos % 16)):
                value += w[W_TRIGGER] * round_lead(pub, k, seat, layer)
    return value


@njit(cache=True)
def best_block(pub, k, seat, w, candidates, values, rng, row):
    """Best block among ``candidates`` (uint64 bitboard) and its value."""
    best = NEG
    choice = -1
    ties = 0
    bits = candidates
    while bits:
        pos = _low_u64(bits)
        bits &= bits - np.uint64(1)
        value = take_value(pub, k, seat, w, values, pos)
        best, choice, ties = _offer(best, choice, ties, value, pos, rng, row)
    return best, choice


@njit(cache=True)
def collect_value(pub, k, seat, w, values, rng, row):
    """Value of a collect action: the best block, then the best block after it (R-CUBE-2)."""
    sides = k[K_RULES + RULE_MIN_EXPOSED_SIDES]
    first, pos = best_block(pub, k, seat, w, collectable_now(pub, k), values, rng, row)
    if pos < 0:
        return NEG
    taken = np.uint64(1) << np.uint64(pos)
    after = collectable_bits(get_occ(pub) & ~taken, sides) & ~taken
    second, pos2 = best_block(pub, k, seat, w, after, values, rng, row)
    if pos2 < 0:
        return first
    return first + second


# ---- fights and weapons ---------------------------------------------------------------
@njit(cache=True)
def mob_value(pub, seat, k, ft, w, tile):
    """Expected value of fighting ``tile`` now with the seat's pile (exact odds)."""
    hmax = k[K_FT_HMAX]
    h = tile_attr(k, TILE_HEARTS, tile)
    if h > hmax:
        return NEG
    pile = _pile_row(pub, k)
    p = ft[pile, h]
    kind = tile_attr(k, TILE_KIND, tile)
    prize = w[W_XP] * tile_attr(k, TILE_XP, tile)
    if kind == TILE_HUNGER_MOB:
        prize += w[W_HUNGER_MOB]
    elif kind == TILE_BONUS_MOB:
        c = tile_attr(k, TILE_BONUS_CHAR, tile)
        v = tile_attr(k, TILE_BONUS_VALUE, tile)
        spaces = count_spaces(pub[mask_at(seat, c, v)])
        prize += w[W_BONUS_MOB] * tile_attr(k, TILE_BONUS_XP, tile) * spaces
    n = hmax + 1
    value = p * prize + w[W_XP] * ft[pile, 2 * n]
    value += ft[pile, 2 * n + 1] * (w[W_BLOCK_BASE] + 0.5 * w[W_BLOCK_NEED])
    value -= w[W_TNT] * ft[pile, n + h]
    return value


@njit(cache=True, inline="always")
def weapon_value(pub, k, ft, w):
    n = k[K_FT_HMAX] + 1
    return w[W_WEAPON] * ft[_pile_row(pub, k), 2 * n + 3]


@njit(cache=True)
def tnt_choice(pub, k, w, legal_max):
    """R-FIGHT-4: detonate as few as needed to turn a loss into a win, if the mob is worth the
    TNT; otherwise none."""
    tile = pub[C_FIGHT_TILE]
    need = tile_attr(k, TILE_HEARTS, tile) - pub[C_FIGHT_HEARTS]
    if need <= 0:
        return 0
    gains = np.zeros(legal_max, np.int64)
    n = 0
    for t in range(MAX_TOKEN_TYPES):
        if tok_attr(k, TOK_DETONATE, t) > 0:
            for _ in range(pub[P_FIGHT_REVEALED + t]):
                if n < legal_max:
                    gains[n] = tok_attr(k, TOK_DETONATE, t) - tok_attr(k, TOK_HEARTS, t)
                    n += 1
    gains = np.sort(gains[:n])[::-1]
    total = 0
    for used in range(n):
        total += gains[used]
        if total >= need:
            prize = w[W_XP] * tile_attr(k, TILE_XP, tile) + 1.0
            if tile_attr(k, TILE_KIND, tile) == TILE_HUNGER_MOB:
                prize += w[W_HUNGER_MOB]
            return used + 1 if prize > w[W_TNT] * (used + 1) - 1.0 else 0
    return 0


# ---- positions ----------------------------------------------------------------------
@njit(cache=True)
def stack_value(pub, seat, mem, k, ft, w, stack, rng, row):
    """What the face-up tile on ``stack`` offers the seat (build or fight value)."""
    tile = pub[P_TOP_UP + stack]
    if tile < 0:
        return 0.0
    if tile_attr(k, TILE_KIND, tile) == TILE_BUILDING:
        value, _ = best_placement(pub, seat, mem, k, w, tile, rng, row)
        missing = _missing(pub, k, seat, tile)
        if missing > 0:
            value = value * 0.5 / (1 + missing)
        return value
    return mob_value(pub, seat, k, ft, w, tile)


@njit(cache=True)
def point_value(pub, seat, mem, k, ft, w, point, rng, row):
    """Value of standing on ``point`` after exploring: tiles turned up there, and the best
    build or fight waiting next to it."""
    around = k[K_ADJ_STACKS + point]
    reveal = 0
    best = 0.0
    while around:
        stack = low_index(around)
        around &= around - 1
        if pub[P_STACK_H + stack] > 0 and pub[P_TOP_UP + stack] < 0:
            reveal += 1
        elif pub[P_TOP_UP + stack] >= 0 and w[W_POSITION] != 0.0:
            value = stack_value(pub, seat, mem, k, ft, w, stack, rng, row)
            if value > best:
                best = value
    return w[W_REVEAL] * reveal + w[W_POSITION] * best


@njit(cache=True)
def best_point(pub, seat, mem, k, ft, w, rng, row):
    best = NEG
    choice = -1
    ties = 0
    reach = k[K_REACH + pub[P_POS + seat]]
    while reach:
        point = low_index(reach)
        reach &= reach - 1
        value = point_value(pub, seat, mem, k, ft, w, point, rng, row)
        best, choice, ties = _offer(best, choice, ties, value, point, rng, row)
    return best, choice


@njit(cache=True)
def best_build(pub, seat, mem, k, w, stacks, rng, row):
    """Best stack to build from among ``stacks`` (int mask) and its value."""
    best = NEG
    choice = -1
    ties = 0
    while stacks:
        stack = low_index(stacks)
        stacks &= stacks - 1
        value, _ = best_placement(pub, seat, mem, k, w, pub[P_TOP_UP + stack], rng, row)
        best, choice, ties = _offer(best, choice, ties, value, stack, rng, row)
    return best, choice


@njit(cache=True)
def best_fight(pub, seat, k, ft, w, stacks, rng, row):
    best = NEG
    choice = -1
    ties = 0
    while stacks:
        stack = low_index(stacks)
        stacks &= stacks - 1
        value = mob_value(pub, seat, k, ft, w, pub[P_TOP_UP + stack])
        best, choice, ties = _offer(best, choice, ties, value, stack, rng, row)
    return best, choice


@njit(cache=True)
def best_score_value(pub, seat, k, rnd, rng, row):
    """R-SCORE-2: the value that scores most in this round."""
    best = NEG
    choice = 0
    ties = 0
    for v in range(4):
        points = counted_spaces(k, pub[mask_at(seat, rnd, v)]) * k[K_SCORE_CARD + rnd * 4 + v]
        best, choice, ties = _offer(best, choice, ties, float(points), v, rng, row)
    return choice


@njit(cache=True)
def _affordable(pub, k, seat, stacks):
    result = 0
    while stacks:
        stack = low_index(stacks)
        stacks &= stacks - 1
        if _missing(pub, k, seat, pub[P_TOP_UP + stack]) <= 0:
            result |= 1 << stack
    return result


@njit(cache=True)
def action_type_value(pub, seat, mem, k, ft, w, action_type, values, rng, row):
    """Value of the best decision within an action type (PH_TURN)."""
    here = k[K_ADJ_STACKS + pub[P_POS + seat]]
    if action_type == ACT_COLLECT:
        return collect_value(pub, k, seat, w, values, rng, row)
    if action_type == ACT_EXPLORE:
        value, _ = best_point(pub, seat, mem, k, ft, w, rng, row)
        return value
    if action_type == ACT_BUILD:
        stacks = _affordable(pub, k, seat, here & pub[C_UP_BUILDINGS])
        value, _ = best_build(pub, seat, mem, k, w, stacks, rng, row)
        return value
    if action_type == ACT_FIGHT:
        value, _ = best_fight(pub, seat, k, ft, w, here & pub[C_UP_MOBS], rng, row)
        return value
    if action_type == ACT_WEAPON:
        return weapon_value(pub, k, ft, w)
    return NEG


# ---- the decision ---------------------------------------------------------------------
@njit(cache=True)
def choose_onestep(w, pub, seat, mem, k, ft, mask, pass_ok, rng, row):
    """The decision of a one-step bot with weights ``w`` in the current phase."""
    phase = pub[C_PHASE]
    if mask == np.uint64(0):
        return PASS
    if phase == PH_TURN:
        values = np.zeros(WILD + 1)
        block_values(pub, k, seat, w, values)
        best = NEG
        choice = -1
        ties = 0
        for a in range(N_ACTION_TYPES):
            if (mask >> np.uint64(a)) & np.uint64(1):
                value = action_type_value(pub, seat, mem, k, ft, w, a, values, rng, row)
                best, choice, ties = _offer(best, choice, ties, value, a, rng, row)
        extra = pub[C_ACTIONS_DONE] >= k[K_RULES + RULE_ACTIONS_PER_TURN]
        if extra and pass_ok and best < w[W_EXTRA_THRESHOLD]:
            return PASS
        return choice
    if phase == PH_COLLECT or phase == PH_PICKAXE:
        values = np.zeros(WILD + 1)
        block_values(pub, k, seat, w, values)
        best, pos = best_block(pub, k, seat, w, mask, values, rng, row)
        if phase == PH_PICKAXE and pass_ok and best < 0.0:
            return PASS
        return pos
    if phase == PH_EXPLORE:
        _, point = best_point(pub, seat, mem, k, ft, w, rng, row)
        return point
    if phase == PH_BUILD_TILE:
        _, stack = best_build(pub, seat, mem, k, w, np.int64(mask), rng, row)
        return stack
    if phase == PH_BUILD_SPACE:
        tile = pub[P_TOP_UP + pub[C_BUILD_STACK]]
        _, space = best_placement(pub, seat, mem, k, w, tile, rng, row)
        return space
    if phase == PH_FIGHT_MOB:
        _, stack = best_fight(pub, seat, k, ft, w, np.int64(mask), rng, row)
        return stack
    if phase == PH_TNT:
        return tnt_choice(pub, k, w, popcount(mask) - 1)
    if phase == PH_WEAPON:
        count = popcount(mask)
        skip = bounded_row(rng, row, count) if count > 1 else 0
        bits = mask
        for _ in range(skip):
            bits &= bits - np.uint64(1)
        return _low_u64(bits)
    if phase == PH_SCORE:
        return best_score_value(pub, seat, k, pub[C_SCORE_ROUND], rng, row)
    return -1
