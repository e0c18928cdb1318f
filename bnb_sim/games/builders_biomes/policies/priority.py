"""The interpreter of priority-list bots (``bot:FILE.toml``, docs/bots.md).

One kernel reads every bot: a bot file is compiled in Python
(:mod:`bnb_sim.games.builders_biomes.policies.priority_compile`) into the seat's float64 parameter
vector (rules as
opcodes, condition ids and closed intervals; layout in
:mod:`bnb_sim.games.builders_biomes.policies.priority_layout`), so loading a new file compiles
nothing.

A decision walks the rules of the current phase in order. A rule applies when it is under
its caps and every condition value lies in its interval; it decides when its choice names a
legal action now. The first such rule decides; if none does, the fallback policy (random,
greedy or heuristic, named in the file) decides. Conditions read ``pub`` (the seat's
observation, own pile filled in) and the exact fight odds table ``ft``, never the hidden
state. Ties inside a choice go to the lowest index (stack, point, cube position), so a bot's
own decisions use no randomness; only ``random`` and the fallback draw from the seat's
policy stream.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.components.arrays import (
    RULE_ACTIONS_PER_TURN,
    TILE_BONUS_MOB,
    TILE_HUNGER_MOB,
)
from bnb_sim.games.builders_biomes.engine.bits import low_index, popcount
from bnb_sim.games.builders_biomes.engine.build import blocks_missing
from bnb_sim.games.builders_biomes.engine.layout import (
    K_ADJ_STACKS,
    K_FT_HMAX,
    K_REACH_STACKS,
    K_RULES,
    MAX_TOKEN_TYPES,
    P_N_HUNGER,
    P_OWN_PILE,
    P_POS,
    P_STACK_H,
    P_TOP_UP,
    P_VIS_BLOCK,
    TILE_HEARTS,
    TILE_KIND,
    TILE_XP,
    WILD,
    get_occ,
    stat_at,
    supply_at,
    tile_attr,
    tile_cost,
)
from bnb_sim.games.builders_biomes.engine.legal import buildable_stacks
from bnb_sim.games.builders_biomes.engine.state import (
    C_ACTIONS_DONE,
    C_EXTRA,
    C_FIGHT_HEARTS,
    C_FIGHT_TILE,
    C_FIGHT_TNT,
    C_N_PLAYERS,
    C_PHASE,
    C_ROUNDS_DONE,
    C_TURN,
    C_UP_BUILDINGS,
    C_UP_MOBS,
    PASS,
    PH_BED,
    PH_BOW,
    PH_BUILD_TILE,
    PH_EXPLORE,
    PH_FIGHT_MOB,
    PH_HUNGER,
    PH_PICKAXE,
    PH_REVEAL_FOUR,
    PH_TNT,
    PH_TURN,
    S_BONUS_MOBS,
    S_BUILDINGS_BUILT,
    S_FIGHTS,
    S_TURNS,
    S_WEAPONS_TAKEN,
    xp_total,
)
from bnb_sim.games.builders_biomes.policies.kinds import RANDOM
from bnb_sim.games.builders_biomes.policies.onestep import choose_onestep, pile_row
from bnb_sim.games.builders_biomes.policies.priority_layout import (
    B_FALLBACK,
    B_PHASES,
    B_RULES,
    COND_SIZE,
    MEM_FALLBACK_HITS,
    MEM_HITS,
    MEM_LAST_RULE,
    MEM_ROUND_STAMP,
    MEM_TURN_STAMP,
    MEM_USED_GAME,
    MEM_USED_ROUND,
    MEM_USED_TURN,
    R_CAP_GAME,
    R_CAP_ROUND,
    R_CAP_TURN,
    R_CHOICE,
    R_CONDS,
    R_N_CONDS,
    RULE_SIZE,
)
from bnb_sim.games.builders_biomes.policies.random_policy import choose_random

NO_BUILDING = 99  # missing_blocks when no face-up building is within reach


# ---- what the seat sees ---------------------------------------------------------------
@kernel(inline="always")
def _bit(mask, i):
    return (mask >> np.uint64(i)) & np.uint64(1) != np.uint64(0)


@kernel(inline="always")
def _p_win(pub, k, ft, tile):
    """Exact probability that the seat's pile beats ``tile`` (R-FIGHT-2, from the table)."""
    h = tile_attr(k, TILE_HEARTS, tile)
    if h > k[K_FT_HMAX]:
        return 0.0
    return ft[pile_row(pub, k), h]


@kernel(inline="always")
def _in_fight(phase):
    """A decision inside a fight (the bed's follows a lost fight against the same mob)."""
    return (
        phase == PH_PICKAXE
        or phase == PH_TNT
        or phase == PH_BOW
        or phase == PH_BED
        or phase == PH_REVEAL_FOUR
    )


@kernel
def _fewest_missing(pub, k, seat, stacks):
    best = NO_BUILDING
    while stacks:
        stack = low_index(stacks)
        stacks &= stacks - 1
        missing = max(blocks_missing(pub, k, seat, pub[P_TOP_UP + stack]), 0)
        best = min(best, missing)
    return best


@kernel
def _best_p_win(pub, k, ft, stacks):
    best = 0.0
    while stacks:
        stack = low_index(stacks)
        stacks &= stacks - 1
        best = max(best, _p_win(pub, k, ft, pub[P_TOP_UP + stack]))
    return best


@kernel(inline="always")
def _face_down(pub):
    stacks = 0
    for stack in range(16):
        if pub[P_STACK_H + stack] > 0:
            stacks |= 1 << stack
    return stacks & ~(pub[C_UP_BUILDINGS] | pub[C_UP_MOBS])


@kernel
def condition_value(cid, pub, seat, k, ft):
    """The value of condition ``cid`` (priority_layout.CONDITIONS) for ``seat`` now."""
    pos = pub[P_POS + seat]
    reach = k[K_REACH_STACKS + pos]
    here = k[K_ADJ_STACKS + pos]
    phase = pub[C_PHASE]
    if cid == 0:
        return float(xp_total(pub, seat))
    if cid == 1:
        best = -(1 << 40)
        for other in range(pub[C_N_PLAYERS]):
            if other != seat:
                best = max(best, xp_total(pub, other))
        return float(xp_total(pub, seat) - best)
    if cid == 2:
        return float(popcount(pub[C_ROUNDS_DONE]))
    if cid == 3:
        return float(pub[stat_at(seat, S_TURNS)])
    if cid == 4:
        return float(pub[C_TURN])
    if cid == 5:
        return float(pub[C_ACTIONS_DONE])
    if cid == 6:
        if phase == PH_TURN:
            return 1.0 if pub[C_ACTIONS_DONE] >= k[K_RULES + RULE_ACTIONS_PER_TURN] else 0.0
        return float(pub[C_EXTRA])
    if cid == 7:
        total = 0
        for block in range(WILD + 1):
            total += pub[supply_at(seat, block)]
        return float(total)
    if cid == 8:
        return float(pub[supply_at(seat, WILD)])
    if cid == 9:
        return float(_fewest_missing(pub, k, seat, reach & pub[C_UP_BUILDINGS]))
    if cid == 10:
        return float(popcount(reach & pub[C_UP_BUILDINGS]))
    if cid == 11:
        return float(popcount(buildable_stacks(pub, k, seat)))
    if cid == 12:
        return float(popcount(reach & pub[C_UP_MOBS]))
    if cid == 13:
        return float(popcount(here & pub[C_UP_MOBS]))
    if cid == 14:
        if _in_fight(phase):
            return _p_win(pub, k, ft, pub[C_FIGHT_TILE])
        return _best_p_win(pub, k, ft, here & pub[C_UP_MOBS])
    if cid == 15:
        total = 0
        for t in range(MAX_TOKEN_TYPES):
            total += pub[P_OWN_PILE + t]
        return float(total)
    if cid == 16:
        return float(pub[P_N_HUNGER + seat])
    if cid == 17:
        return float(pub[stat_at(seat, S_BONUS_MOBS)])
    if cid == 18:
        return float(pub[stat_at(seat, S_BUILDINGS_BUILT)])
    if cid == 19:
        return float(pub[stat_at(seat, S_FIGHTS)])
    if cid == 20:
        return float(pub[stat_at(seat, S_WEAPONS_TAKEN)])
    if cid == 21:
        return float(popcount(reach & _face_down(pub)))
    if cid == 22:
        if _in_fight(phase):
            return float(tile_attr(k, TILE_HEARTS, pub[C_FIGHT_TILE]) - pub[C_FIGHT_HEARTS])
        return 0.0
    if cid == 23:
        return float(pub[C_FIGHT_TNT]) if _in_fight(phase) else 0.0
    if cid == 24:
        total = 0
        for stack in range(16):
            total += pub[P_STACK_H + stack]
        return float(total)
    if cid == 25:
        layer = _top_layer(pub)
        return float(popcount(_layer_bits(pub, layer))) if layer >= 0 else 0.0
    return np.nan  # unknown id: never holds (the compiler refuses it)


@kernel(inline="always")
def _layer_bits(pub, layer):
    """Occupied positions of cube layer ``layer`` (0 = top; 16 positions each)."""
    return (get_occ(pub) >> np.uint64(16 * layer)) & np.uint64(0xFFFF)


@kernel
def _top_layer(pub):
    """The highest layer that still holds blocks (-1: none); R-SCORE-1 counts layers 1-3."""
    for layer in range(4):
        if _layer_bits(pub, layer) != np.uint64(0):
            return layer
    return -1


# ---- choices ------------------------------------------------------------------------
@kernel
def _needed_block(pub, k, seat, mask):
    """The cube position (in ``mask``) of the block type most lacking, summed over the
    face-up buildings within reach; -1 when nothing is lacking or no such block is legal."""
    stacks = k[K_REACH_STACKS + pub[P_POS + seat]] & pub[C_UP_BUILDINGS]
    best_pos = -1
    best_need = 0
    for pos in range(64):
        if not _bit(mask, pos):
            continue
        block = pub[P_VIS_BLOCK + pos]
        if block < 0 or block >= WILD:
            continue
        need = 0
        bits = stacks
        while bits:
            stack = low_index(bits)
            bits &= bits - 1
            need += max(tile_cost(k, pub[P_TOP_UP + stack], block) - pub[supply_at(seat, block)], 0)
        if need > best_need:
            best_need = need
            best_pos = pos
    return best_pos


@kernel
def _point_choice(pub, k, ft, seat, mask, how):
    """Movement: the legal point with the best score (``how``: 11 building, 12 mob, 13 reveal);
    -1 when no point scores."""
    best_point = -1
    best = 0.0
    face_down = _face_down(pub)
    for point in range(25):
        if not _bit(mask, point):
            continue
        adjacent = k[K_ADJ_STACKS + point]
        score = 0.0
        if how == 11:
            buildings = adjacent & pub[C_UP_BUILDINGS]
            if buildings:
                score = 1.0 + NO_BUILDING - _fewest_missing(pub, k, seat, buildings)
        elif how == 12:
            score = _best_p_win(pub, k, ft, adjacent & pub[C_UP_MOBS])
        else:
            score = float(popcount(adjacent & face_down))
        if score > best:
            best = score
            best_point = point
    return best_point


@kernel
def _stack_choice(pub, k, ft, mask, how):
    """Building/fight: the legal stack with the best score (``how``: 15 XP, 16 fewest blocks,
    17 likeliest, 18/19 likeliest hunger/bonus mob); -1 when none qualifies."""
    best_stack = -1
    best = -1.0e18
    for stack in range(16):
        if not _bit(mask, stack):
            continue
        tile = pub[P_TOP_UP + stack]
        if how == 15:
            score = float(tile_attr(k, TILE_XP, tile))
        elif how == 16:
            cost = 0
            for block in range(WILD + 1):
                cost += tile_cost(k, tile, block)
            score = -float(cost)
        else:
            kind = tile_attr(k, TILE_KIND, tile)
            if how == 18 and kind != TILE_HUNGER_MOB:
                continue
            if how == 19 and kind != TILE_BONUS_MOB:
                continue
            score = _p_win(pub, k, ft, tile)
        if score > best:
            best = score
            best_stack = stack
    return best_stack


@kernel
def _highest_bit(mask):
    top = -1
    for i in range(64):
        if _bit(mask, i):
            top = i
    return top


@kernel
def choice_action(cid, params, pub, seat, mem, k, ft, mask, pass_ok, rng, row):
    """The action choice ``cid`` names now, or -1 when it names nothing legal."""
    phase = pub[C_PHASE]
    if cid == 0:
        return fallback_action(params, pub, seat, mem, k, ft, mask, pass_ok, rng, row)
    if cid == 1:
        return choose_random(mask, pass_ok, rng, row)
    if 2 <= cid <= 6:
        return cid - 2 if phase == PH_TURN and _bit(mask, cid - 2) else -1
    if cid == 7:
        if phase == PH_TURN:
            return PASS if pass_ok else -1
        return 0 if phase == PH_HUNGER and _bit(mask, 0) else -1
    if cid == 8:
        return _needed_block(pub, k, seat, mask)
    if cid == 9:
        for pos in range(64):
            if _bit(mask, pos) and pub[P_VIS_BLOCK + pos] == WILD:
                return pos
        return -1
    if cid == 10:
        return PASS if pass_ok else -1
    if cid == 11 or cid == 12 or (cid == 13 and phase == PH_EXPLORE):
        return _point_choice(pub, k, ft, seat, mask, cid)
    if cid == 13:
        return 0 if _bit(mask, 0) else -1
    if cid == 14:
        pos = pub[P_POS + seat]
        return pos if _bit(mask, pos) else -1
    if 15 <= cid <= 19:
        if phase != PH_BUILD_TILE and phase != PH_FIGHT_MOB:
            return -1
        return _stack_choice(pub, k, ft, mask, cid)
    if cid == 20:
        return 0 if _bit(mask, 0) else -1
    if cid == 21:
        return _highest_bit(mask)
    if cid == 22:
        return 1 if _bit(mask, 1) else -1
    if cid == 24:
        return 0 if phase == PH_BED and _bit(mask, 0) else -1
    if cid == 23:
        layer = _top_layer(pub)
        for pos in range(16 * max(layer, 0), 64):
            if _bit(mask, pos):
                return pos
        return -1
    return -1


@kernel
def fallback_action(params, pub, seat, mem, k, ft, mask, pass_ok, rng, row):
    """The decision of the bot's fallback policy (its weights are ``params[:N_PARAMS]``)."""
    if params[B_FALLBACK] == RANDOM:
        return choose_random(mask, pass_ok, rng, row)
    return choose_onestep(params, pub, seat, mem, k, ft, mask, pass_ok, rng, row)


# ---- rules --------------------------------------------------------------------------
@kernel(inline="always")
def _under(cap, used, stamp, now):
    """A cap of ``cap`` (-1: none) with ``used`` decisions counted in period ``stamp``."""
    if cap < 0:
        return True
    return stamp != now or used < cap


@kernel
def rule_applies(params, r, pub, seat, mem, k, ft):
    """Rule ``r`` is under its caps and all its conditions hold."""
    base = B_RULES + RULE_SIZE * r
    turn_now = float(pub[C_TURN] + 1)
    round_now = float(popcount(pub[C_ROUNDS_DONE]) + 1)
    if not _under(params[base + R_CAP_GAME], mem[MEM_USED_GAME + r], 0.0, 0.0):
        return False
    if not _under(
        params[base + R_CAP_TURN], mem[MEM_USED_TURN + r], mem[MEM_TURN_STAMP + r], turn_now
    ):
        return False
    if not _under(
        params[base + R_CAP_ROUND], mem[MEM_USED_ROUND + r], mem[MEM_ROUND_STAMP + r], round_now
    ):
        return False
    for j in range(int(params[base + R_N_CONDS])):
        c = base + R_CONDS + COND_SIZE * j
        value = condition_value(int(params[c]), pub, seat, k, ft)
        if not (params[c + 1] <= value <= params[c + 2]):
            return False
    return True


@kernel(inline="always")
def _count(mem, r, pub):
    """Record that rule ``r`` decided: its hit count and its cap counters."""
    mem[MEM_HITS + r] += 1.0
    mem[MEM_USED_GAME + r] += 1.0
    turn_now = float(pub[C_TURN] + 1)
    if mem[MEM_TURN_STAMP + r] != turn_now:
        mem[MEM_TURN_STAMP + r] = turn_now
        mem[MEM_USED_TURN + r] = 0.0
    mem[MEM_USED_TURN + r] += 1.0
    round_now = float(popcount(pub[C_ROUNDS_DONE]) + 1)
    if mem[MEM_ROUND_STAMP + r] != round_now:
        mem[MEM_ROUND_STAMP + r] = round_now
        mem[MEM_USED_ROUND + r] = 0.0
    mem[MEM_USED_ROUND + r] += 1.0
    mem[MEM_LAST_RULE] = r


@kernel
def choose_priority(params, pub, seat, mem, k, ft, mask, pass_ok, rng, row):
    """The decision of a priority-list bot (program ``params``) in the current phase."""
    phase = pub[C_PHASE]
    first = int(params[B_PHASES + 2 * phase])
    n = int(params[B_PHASES + 2 * phase + 1])
    for r in range(first, first + n):
        if not rule_applies(params, r, pub, seat, mem, k, ft):
            continue
        cid = int(params[B_RULES + RULE_SIZE * r + R_CHOICE])
        action = choice_action(cid, params, pub, seat, mem, k, ft, mask, pass_ok, rng, row)
        if action < 0:
            continue
        if action == PASS:
            if not pass_ok:
                continue
        elif action > 63 or not _bit(mask, action):
            continue
        _count(mem, r, pub)
        return action
    mem[MEM_FALLBACK_HITS] += 1.0
    mem[MEM_LAST_RULE] = -1.0
    return fallback_action(params, pub, seat, mem, k, ft, mask, pass_ok, rng, row)
