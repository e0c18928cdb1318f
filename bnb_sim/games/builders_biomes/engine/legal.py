"""Legal decisions in the current phase, as a bitmask over actions 0..63 plus a PASS flag.

A bitmask keeps the hot loop free of allocations; :func:`legal_action_mask` expands it to a
bool[65] for the Python API and plugin policies.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel, njit
from bnb_sim.games.builders_biomes.components.arrays import RULE_ACTIONS_PER_TURN
from bnb_sim.games.builders_biomes.engine.bits import low_index
from bnb_sim.games.builders_biomes.engine.build import can_afford
from bnb_sim.games.builders_biomes.engine.collect import collectable_now
from bnb_sim.games.builders_biomes.engine.layout import (
    K_ADJ_SLOTS,
    K_ADJ_STACKS,
    K_FM_EMPTY_BUY,
    K_FM_ON,
    K_FM_REACH_ITEM,
    K_OPTS,
    K_REACH,
    K_RULES,
    P_N_HUNGER,
    P_POS,
    P_TOP_UP,
    ability_at,
)
from bnb_sim.games.builders_biomes.engine.market import (
    AB_EXPLORE_STEPS,
    AB_EXPLORE_UNLIMITED,
    actions_per_turn,
    buyable_slots,
    farmland_spaces,
    third_block_optional,
)
from bnb_sim.games.builders_biomes.engine.restrict import restrict_legal
from bnb_sim.games.builders_biomes.engine.state import (
    ACT_BUILD,
    ACT_BUY,
    ACT_COLLECT,
    ACT_EXPLORE,
    ACT_FIGHT,
    ACT_WEAPON,
    C_ACTIONS_DONE,
    C_ACTIONS_USED,
    C_EXTRA_OWED,
    C_FIGHT_TNT,
    C_FM_BUYS,
    C_PHASE,
    C_SCORE_ROUND,
    C_SEAT,
    C_TOKENS,
    C_UP_BUILDINGS,
    C_UP_MOBS,
    HUNGER_TOGETHER,
    N_ACTION_TYPES,
    N_ACTIONS,
    OPT_HUNGER,
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


@kernel(inline="always")
def reachable_points(pub, k, seat):
    """R-EXPLORE-1: points within the steps allowed; the minecart and the unlimited-movement
    items of the Farmer's Market reach further (R-FM-5)."""
    point = pub[P_POS + seat]
    if pub[ability_at(seat, AB_EXPLORE_UNLIMITED)] > 0:
        return (1 << 25) - 1
    if pub[ability_at(seat, AB_EXPLORE_STEPS)] > 0:
        return k[K_FM_REACH_ITEM + point] | k[K_REACH + point]
    return k[K_REACH + point]


@kernel
def buildable_stacks(pub, k, seat):
    """R-BUILD-1: stacks next to the seat showing a building it can pay for."""
    candidates = k[K_ADJ_STACKS + pub[P_POS + seat]] & pub[C_UP_BUILDINGS]
    result = 0
    while candidates:
        stack = low_index(candidates)
        candidates &= candidates - 1
        if can_afford(pub, k, seat, pub[P_TOP_UP + stack]):
            result |= 1 << stack
    return result


@kernel(inline="always")
def fightable_stacks(pub, k, seat):
    """R-FIGHT-1: stacks next to the seat showing a mob."""
    return k[K_ADJ_STACKS + pub[P_POS + seat]] & pub[C_UP_MOBS]


@kernel(inline="always")
def weapon_slots(pub, k, seat):
    """R-WEAPON-1: token spots next to the seat that still hold a token."""
    return k[K_ADJ_SLOTS + pub[P_POS + seat]] & pub[C_TOKENS]


@kernel(inline="always")
def action_type_possible(pub, k, seat, action_type):
    """Whether an action of this type could be carried out now (R-TURN-1 legality)."""
    if action_type == ACT_COLLECT:
        return collectable_now(pub, k) != 0
    if action_type == ACT_EXPLORE:
        return True  # moving 0 steps is allowed
    if action_type == ACT_BUILD:
        return buildable_stacks(pub, k, seat) != 0
    if action_type == ACT_FIGHT:
        return fightable_stacks(pub, k, seat) != 0
    if action_type == ACT_WEAPON:
        return weapon_slots(pub, k, seat) != 0
    return False


@kernel
def turn_choices(pub, k, seat):
    """R-TURN-1/R-TURN-2: action types available in PH_TURN, and whether the turn may end.

    Main actions must differ from each other; extra actions (one hunger mob each) may repeat.
    Ending is allowed once the main actions are done, or if no legal main action remains.
    Under ``hunger=together`` extra actions are those already paid for (``C_EXTRA_OWED``);
    under ``one-by-one`` each one needs a hunger mob still held, and with the three-actions
    item (R-FM-5, a "may") a repeat after the rulebook's two main actions is an extra action
    that forgoes the third (``begin_action``), as a PASS does under ``together``.
    """
    main = pub[C_ACTIONS_DONE] < actions_per_turn(pub, k, seat)
    done = pub[C_ACTIONS_DONE] >= k[K_RULES + RULE_ACTIONS_PER_TURN]
    if k[K_OPTS + OPT_HUNGER] == HUNGER_TOGETHER:
        can_extra = pub[C_EXTRA_OWED] > 0
    else:
        can_extra = pub[P_N_HUNGER + seat] > 0 or pub[C_EXTRA_OWED] > 0
    if not main and not can_extra:
        return np.uint64(0), True
    # Every type's test at once, without a branch per type (which one is possible changes from
    # turn to turn, so the branches were mispredicted); only the test that costs a call is
    # skipped when the type is used up.
    used = pub[C_ACTIONS_USED] if main and not (done and can_extra) else 0
    mask = 1 << ACT_EXPLORE  # moving 0 steps is allowed
    if collectable_now(pub, k) != 0:
        mask |= 1 << ACT_COLLECT
    if fightable_stacks(pub, k, seat) != 0:
        mask |= 1 << ACT_FIGHT
    if weapon_slots(pub, k, seat) != 0:
        mask |= 1 << ACT_WEAPON
    if not (used >> ACT_BUILD) & 1 and buildable_stacks(pub, k, seat) != 0:
        mask |= 1 << ACT_BUILD
    mask &= ~used & ((1 << N_ACTION_TYPES) - 1)
    if k[K_FM_ON] != 0:  # R-FM-4: buying is an action too
        if not ((used >> ACT_BUY) & 1):
            if buyable_slots(pub, k, seat) != 0:
                mask |= 1 << ACT_BUY
    # the third action of the Farmer's Market item is a "may" (R-FM-5): the turn may end
    # once the rulebook's two are done
    return np.uint64(mask), (not main) or mask == 0 or done


@kernel(inline="always")
def legal_bits(pub, k):
    """``(mask, pass_ok)``: bit ``a`` of the uint64 ``mask`` is set when action ``a`` is legal,
    for the player in the seat to decide: the rules' legal set (:func:`rules_bits`) with that
    player's ``never``/``always`` restriction applied (engine/restrict.py; none: unchanged)."""
    mask, pass_ok = rules_bits(pub, k)
    return restrict_legal(pub, k, pub[C_PHASE], pub[C_SEAT], mask, pass_ok)


@kernel(inline="always")
def rules_bits(pub, k):
    """``(mask, pass_ok)`` by the rules alone: bit ``a`` is set when action ``a`` is legal.

    Inlined into the game loops (``play_out``, the search rollouts) like
    :func:`~.step.apply_action` and the policy dispatch: a call passes every
    array as its seven fields and zeroes the callee's return slots on entry, which cost as
    much as the phase dispatch itself; inlined, that is paid once per game.
    """
    phase = pub[C_PHASE]
    seat = pub[C_SEAT]
    if phase == PH_TURN:
        return turn_choices(pub, k, seat)
    if phase == PH_COLLECT:  # R-FM-5: the collect-3 item's third block is a "may"
        return collectable_now(pub, k), k[K_FM_ON] != 0 and third_block_optional(pub, k, seat)
    if phase == PH_EXPLORE:
        return np.uint64(reachable_points(pub, k, seat)), False
    if phase == PH_BUILD_TILE:
        return np.uint64(buildable_stacks(pub, k, seat)), False
    if phase == PH_BUILD_SPACE:
        return np.uint64(0x1FF), False
    if phase == PH_FIGHT_MOB:
        return np.uint64(fightable_stacks(pub, k, seat)), False
    if phase == PH_PICKAXE:
        bits = collectable_now(pub, k)
        return bits, k[K_OPTS + OPT_PICKAXE_OPTIONAL] != 0 or bits == np.uint64(0)
    if phase == PH_TNT:
        return np.uint64((1 << (pub[C_FIGHT_TNT] + 1)) - 1), False
    if phase == PH_WEAPON:
        return np.uint64(weapon_slots(pub, k, seat)), False
    if phase == PH_SCORE:  # R-FM-6: round C may score farming structures (value 4)
        if k[K_FM_ON] != 0 and pub[C_SCORE_ROUND] == 2:
            return np.uint64(0x1F), False
        return np.uint64(0xF), False
    if phase == PH_FARMLAND:  # R-FM-3: a forest space of the own board
        return np.uint64(farmland_spaces(pub, k, seat)), False
    if phase == PH_BUY:  # R-FM-4: any number of items; PASS ends the buying once one is
        # bought (a buy action that buys nothing is the reading fm_empty_buy=allowed)
        return np.uint64(buyable_slots(pub, k, seat)), pub[C_FM_BUYS] > 0 or k[K_FM_EMPTY_BUY] != 0
    if phase == PH_HUNGER:  # R-TURN-2: return 0..n held hunger mobs
        return np.uint64((1 << (pub[P_N_HUNGER + seat] + 1)) - 1), False
    if phase == PH_BOW or phase == PH_BED or phase == PH_REVEAL_FOUR:
        # R-FIGHT-2 (bow=choose), R-FM-5 (the bed, reveal 4): 0 takes it, PASS declines
        return np.uint64(1), True
    return np.uint64(0), False


@kernel(inline="always")
def is_legal(mask, pass_ok, action):
    """Whether ``action`` is allowed by ``(mask, pass_ok)``."""
    if action == PASS:
        return pass_ok
    if action < 0 or action >= 64:
        return False
    return (mask >> np.uint64(action)) & np.uint64(1) == np.uint64(1)


@kernel
def expand_mask(mask, pass_ok, out):
    """Write the bool[N_ACTIONS] form of ``(mask, pass_ok)`` into ``out``."""
    for a in range(64):
        out[a] = (mask >> np.uint64(a)) & np.uint64(1) == np.uint64(1)
    out[PASS] = pass_ok


@njit(cache=True)
def legal_action_mask(pub, k):
    """bool[N_ACTIONS] version of :func:`legal_bits`."""
    mask, pass_ok = legal_bits(pub, k)
    out = np.zeros(N_ACTIONS, np.bool_)
    expand_mask(mask, pass_ok, out)
    return out
