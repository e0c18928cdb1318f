"""One-step evaluation bots: ``greedy`` and ``heuristic``.

Both score every legal decision by the change it makes to a weighted evaluation of the seat's
position and take the best (ties broken at random from the seat's policy stream). They differ
only in their weights (``kinds.py``): ``greedy`` values XP now plus the change in the value of
the board for the coming scoring rounds, deciding fights with the exact win probability;
``heuristic`` also values what a move makes possible later (blocks that pay for visible
buildings, stronger weapon piles, revealed tiles, where the character stands, hunger mobs,
keeping TNT, and triggering a scoring round while ahead).

Here: the value of positions (where to explore, which face-up tile to build or fight) and the
decision of each phase. The board value, the value of blocks and the argmax helpers come from
``onestep_values.py``, the weights' indices and the memory layout from ``onestep_layout.py``;
fight odds from the exact all-piles table (``ft``).

Everything reads ``pub`` (the seat's observation) and the static arrays only.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.components.arrays import TILE_BUILDING
from bnb_sim.games.builders_biomes.engine.bits import low_index, popcount
from bnb_sim.games.builders_biomes.engine.build import blocks_missing
from bnb_sim.games.builders_biomes.engine.collect import collectable_now
from bnb_sim.games.builders_biomes.engine.layout import (
    K_ADJ_STACKS,
    K_OPTS,
    K_REACH,
    K_REACH_STACKS,
    K_SCORE_CARD,
    MAX_TOKEN_TYPES,
    P_FIGHT_REVEALED,
    P_N_HUNGER,
    P_OWN_PILE,
    P_POS,
    P_STACK_H,
    P_TOP_UP,
    TILE_HEARTS,
    TILE_KIND,
    TOK_BLOCKS,
    TOK_XP,
    WILD,
    mask_at,
    tile_attr,
    tok_attr,
)
from bnb_sim.games.builders_biomes.engine.legal import action_type_possible
from bnb_sim.games.builders_biomes.engine.market import actions_per_turn
from bnb_sim.games.builders_biomes.engine.restrict import allowed_stacks
from bnb_sim.games.builders_biomes.engine.scoring import counted_spaces
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
    C_PHASE,
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
from bnb_sim.games.builders_biomes.policies.onestep_layout import (
    EPS,
    FAR_MISSING,
    MEM_BLOCK_STAMP,
    MEM_BLOCK_VALUE,
    MEM_POINT_STAMP,
    MEM_POINT_VALUE,
    MEM_STACK_VALUE,
    MEM_STAMP,
    NEG,
    W_EXTRA_THRESHOLD,
    W_POSITION,
    W_REVEAL,
    W_XP,
)
from bnb_sim.games.builders_biomes.policies.onestep_values import (
    _low_u64,
    _offer,
    _version,
    best_block,
    best_placement,
    block_values,
    collect_value,
    pick_best,
    placement_value,
)
from bnb_sim.rng import bounded_row


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


@kernel(per_constant=True)
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
