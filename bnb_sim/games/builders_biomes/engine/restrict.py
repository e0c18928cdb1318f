"""Restricted play: a player's ``never`` and ``always`` lists applied to the legal set.

A restriction belongs to a player (a policy), not to a seat, and lives in the static array
``k`` (``K_RESTRICT*`` of the layout): bit sets over action types, Farmer's Market items, mob
species and building types. It is applied where the legal decisions are made
(:func:`~.legal.legal_bits`), so no policy, rule or fallback can take a forbidden action, and
the policies' own look-ahead sees the same restricted choices (:func:`allowed_slots`,
:func:`allowed_stacks`). With no restriction (``k[K_RESTRICT_ON] == 0``) nothing changes.

Semantics (docs/bots.md, "never and always"):

* ``never``: the action is removed from the legal set. An action type whose every target is
  forbidden is removed too (a player who may not buy the crafting table does not start a buy
  action with only the crafting table affordable). At the turn decision an empty set makes
  ending the turn legal (R-TURN-2: the turn may end when no legal main action remains). In
  any other decision that the restriction would leave without a legal move (and PASS not
  legal), the restriction is lifted for that decision.
* ``always``: when a listed action (or an action type with a listed target) is legal, the
  legal set shrinks to it, and PASS is not offered.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.engine.bits import low_index
from bnb_sim.games.builders_biomes.engine.build import can_afford
from bnb_sim.games.builders_biomes.engine.layout import (
    K_ADJ_STACKS,
    K_RESTRICT_ON,
    K_RESTRICT_PLAYERS,
    P_FM_MARKET,
    P_POS,
    P_TOP_UP,
    RESTRICT_SIZE,
    RX_ALWAYS_BUILD,
    RX_ALWAYS_ITEMS,
    RX_ALWAYS_MOBS,
    RX_ALWAYS_TYPES,
    RX_NEVER_BUILD,
    RX_NEVER_ITEMS,
    RX_NEVER_MOBS,
    RX_NEVER_TYPES,
    TILE_SPECIES,
    TILE_TYPE,
    tile_attr,
)
from bnb_sim.games.builders_biomes.engine.market import buyable_slots
from bnb_sim.games.builders_biomes.engine.state import (
    ACT_BUILD,
    ACT_BUY,
    ACT_FIGHT,
    C_N_PLAYERS,
    C_ROTATION,
    C_UP_BUILDINGS,
    C_UP_MOBS,
    PH_BUILD_TILE,
    PH_BUY,
    PH_FIGHT_MOB,
    PH_TURN,
)


@kernel(inline="always")
def _word(pub, k, seat, field):
    """A restriction word of the player in ``seat`` (R-SETUP-4: seat -> player rotation)."""
    player = (seat + pub[C_ROTATION]) % pub[C_N_PLAYERS]
    return k[K_RESTRICT_PLAYERS + player * RESTRICT_SIZE + field]


@kernel
def _slots_with(pub, slots, items):
    """Marketplace spaces of ``slots`` whose face-up item is in the bit set ``items``."""
    out = 0
    while slots:
        slot = low_index(slots)
        slots &= slots - 1
        item = pub[P_FM_MARKET + slot]
        if item >= 0 and (items >> item) & 1:
            out |= 1 << slot
    return out


@kernel(per_constant=True)
def _stacks_with(pub, k, stacks, attr, values):
    """Stacks of ``stacks`` whose face-up tile has attribute ``attr`` in the bit set."""
    out = 0
    while stacks:
        stack = low_index(stacks)
        stacks &= stacks - 1
        tile = pub[P_TOP_UP + stack]
        if tile >= 0 and (values >> tile_attr(k, attr, tile)) & 1:
            out |= 1 << stack
    return out


@kernel(inline="always")
def allowed_slots(pub, k, seat, slots):
    """``slots`` (marketplace spaces) without those whose item the seat's player never buys."""
    if k[K_RESTRICT_ON] == 0:
        return slots
    never = _word(pub, k, seat, RX_NEVER_ITEMS)
    if never == 0:
        return slots
    return slots & ~_slots_with(pub, slots, never)


@kernel(inline="always")
def allowed_stacks(pub, k, seat, stacks, action_type):
    """``stacks`` without the mobs (``ACT_FIGHT``) or buildings (``ACT_BUILD``) that the seat's
    player never fights or builds."""
    if k[K_RESTRICT_ON] == 0:
        return stacks
    if action_type == ACT_FIGHT:
        never = _word(pub, k, seat, RX_NEVER_MOBS)
        attr = TILE_SPECIES
    else:
        never = _word(pub, k, seat, RX_NEVER_BUILD)
        attr = TILE_TYPE
    if never == 0:
        return stacks
    return stacks & ~_stacks_with(pub, k, stacks, attr, never)


@kernel
def _affordable(pub, k, seat, stacks):
    out = 0
    while stacks:
        stack = low_index(stacks)
        stacks &= stacks - 1
        if can_afford(pub, k, seat, pub[P_TOP_UP + stack]):
            out |= 1 << stack
    return out


@kernel
def _turn(pub, k, seat, mask, pass_ok):
    """PH_TURN: the action types left, and the forced ones (see the module docstring)."""
    types = np.int64(mask)
    types &= ~_word(pub, k, seat, RX_NEVER_TYPES)
    here = k[K_ADJ_STACKS + pub[P_POS + seat]]
    always = _word(pub, k, seat, RX_ALWAYS_TYPES) & types
    if (types >> ACT_BUY) & 1:
        slots = allowed_slots(pub, k, seat, buyable_slots(pub, k, seat))
        if slots == 0:
            types &= ~(1 << ACT_BUY)
        elif _slots_with(pub, slots, _word(pub, k, seat, RX_ALWAYS_ITEMS)) != 0:
            always |= 1 << ACT_BUY
    if (types >> ACT_FIGHT) & 1:
        stacks = allowed_stacks(pub, k, seat, here & pub[C_UP_MOBS], ACT_FIGHT)
        if stacks == 0:
            types &= ~(1 << ACT_FIGHT)
        elif _stacks_with(pub, k, stacks, TILE_SPECIES, _word(pub, k, seat, RX_ALWAYS_MOBS)):
            always |= 1 << ACT_FIGHT
    if (types >> ACT_BUILD) & 1:  # R-BUILD-1: the allowed buildings the seat can pay for
        stacks = _affordable(
            pub, k, seat, allowed_stacks(pub, k, seat, here & pub[C_UP_BUILDINGS], ACT_BUILD)
        )
        if stacks == 0:
            types &= ~(1 << ACT_BUILD)
        elif _stacks_with(pub, k, stacks, TILE_TYPE, _word(pub, k, seat, RX_ALWAYS_BUILD)):
            always |= 1 << ACT_BUILD
    if always != 0:
        return np.uint64(always), False
    if types == 0 and mask != np.uint64(0):
        return np.uint64(0), True  # R-TURN-2: no legal main action remains for this player
    return np.uint64(types), pass_ok


@kernel
def _targets(pub, k, seat, phase, mask, pass_ok):
    """PH_BUY, PH_FIGHT_MOB, PH_BUILD_TILE: the targets left, and the forced ones."""
    bits = np.int64(mask)
    if phase == PH_BUY:
        bits = allowed_slots(pub, k, seat, bits)
        forced = _slots_with(pub, bits, _word(pub, k, seat, RX_ALWAYS_ITEMS))
    elif phase == PH_FIGHT_MOB:
        bits = allowed_stacks(pub, k, seat, bits, ACT_FIGHT)
        forced = _stacks_with(pub, k, bits, TILE_SPECIES, _word(pub, k, seat, RX_ALWAYS_MOBS))
    else:
        bits = allowed_stacks(pub, k, seat, bits, ACT_BUILD)
        forced = _stacks_with(pub, k, bits, TILE_TYPE, _word(pub, k, seat, RX_ALWAYS_BUILD))
    if forced != 0:
        return np.uint64(forced), False
    return np.uint64(bits), pass_ok


@kernel(inline="always")
def restrict_legal(pub, k, phase, seat, mask, pass_ok):
    """``(mask, pass_ok)`` of :func:`~.legal.legal_bits` with the restriction of the player in
    ``seat`` applied; unchanged when no player has one."""
    if k[K_RESTRICT_ON] == 0:
        return mask, pass_ok
    if phase == PH_TURN:
        new_mask, new_pass = _turn(pub, k, seat, mask, pass_ok)
    elif phase == PH_BUY or phase == PH_FIGHT_MOB or phase == PH_BUILD_TILE:
        new_mask, new_pass = _targets(pub, k, seat, phase, mask, pass_ok)
    else:
        return mask, pass_ok
    if new_mask == np.uint64(0) and not new_pass:
        return mask, pass_ok  # nothing left: the restriction is lifted for this decision
    return new_mask, new_pass
