"""How the one-step bots (greedy, heuristic) play the Farmer's Market decisions (R-FM-*):
where the farmland goes, whether to buy and what, and farming in round C.

An item's value is the XP the bot expects it to bring in the rest of the game (weight
``fm_item`` per XP) against the vegetables it costs (weight ``fm_vegetable`` each). The
expectations are the bot's rough estimates, per scoring round still to come for the abilities
that act during play (``PLAY_XP_PER_ROUND`` below: a guess of what one round of play with the
ability brings, not a rule), and the exact end-game count for the six end-game items at the
current position (R-FM-5).
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.engine.bits import popcount
from bnb_sim.games.builders_biomes.engine.layout import (
    FM_ABILITY,
    FM_AMOUNT,
    FM_COST,
    K_SCORE_CARD,
    P_FM_BOUGHT,
    P_FM_MARKET,
    P_N_HELD,
    ability_at,
    fm_item,
    mask_at,
)
from bnb_sim.games.builders_biomes.engine.market import (
    AB_ACTIONS,
    AB_END_BLOCKS,
    AB_END_BUILDINGS,
    AB_END_FARMLAND,
    AB_END_FLAT,
    AB_END_ITEMS,
    AB_END_MOBS,
    AB_NONE,
    buyable_slots,
    farming_mask,
    farming_points,
    structures_built,
)
from bnb_sim.games.builders_biomes.engine.restrict import allowed_slots
from bnb_sim.games.builders_biomes.engine.scoring import counted_spaces
from bnb_sim.games.builders_biomes.engine.state import C_ROUNDS_DONE, PASS, supply_total
from bnb_sim.games.builders_biomes.policies.kinds import W

W_FM_ITEM = W["fm_item"]
W_FM_VEGETABLE = W["fm_vegetable"]


@kernel(inline="always")
def play_xp_per_round(ability):
    """The bot's guess of the XP one scoring round of play with an ability brings (ability
    ids of engine/market.py, in order: explore 0-3, crafting table, jukebox, bed, collect XP,
    hunger actions, unlimited move, collect 3, cheaper buildings, reveal 4, three actions)."""
    if ability == AB_ACTIONS:
        return 6.0
    if ability >= 8:  # collect 3, cheaper buildings, reveal 4
        return 2.5
    if ability == 2 or ability == 4 or ability == 5:  # wild blocks, refight, collect XP
        return 2.0
    if ability == 1:
        return 1.0
    return 1.5  # jukebox, hunger actions, unlimited move


@kernel
def item_value(pub, k, seat, item):
    """Expected XP of ``item`` for ``seat`` from now on (R-FM-5)."""
    ability = fm_item(k, FM_ABILITY, item)
    amount = fm_item(k, FM_AMOUNT, item)
    if pub[ability_at(seat, ability)] > 0 and ability != AB_NONE:
        return 0.0  # a second copy of an ability adds nothing
    rounds_left = 3 - popcount(pub[C_ROUNDS_DONE] & 7)
    if ability == AB_END_FLAT:
        return float(amount)
    if ability == AB_END_ITEMS:
        return float(amount * (pub[P_FM_BOUGHT + seat] + 1 + rounds_left // 2))
    if ability == AB_END_BLOCKS:
        return float(amount * supply_total(pub, seat))
    if ability == AB_END_BUILDINGS:  # the farmland counts too (reading fm_end_structures)
        return float(amount * min(9, structures_built(pub, k, seat) + rounds_left))
    if ability == AB_END_MOBS:
        return float(amount * (pub[P_N_HELD + seat] + rounds_left // 2))
    if ability == AB_END_FARMLAND:
        return float(amount * popcount(farming_mask(pub, seat)))
    if ability == AB_NONE:  # the bell: only through the items-bought item
        return 0.5
    return play_xp_per_round(ability) * rounds_left


@kernel
def best_buy(pub, k, seat, w, slots):
    """``(net value, marketplace space)`` of the best item on the marketplace spaces ``slots``
    (a bit set: the legal ones, :func:`buy_slots`)."""
    best = -1e18
    choice = -1
    slot = 0
    while slots:
        if slots & 1:
            item = pub[P_FM_MARKET + slot]
            net = w[W_FM_ITEM] * item_value(pub, k, seat, item)
            net -= w[W_FM_VEGETABLE] * fm_item(k, FM_COST, item)
            if net > best:
                best = net
                choice = slot
        slots >>= 1
        slot += 1
    return best, choice


@kernel
def buy_slots(pub, k, seat):
    """The marketplace spaces the seat may buy from now: those it can pay for, less the items
    its player never buys (restricted play, engine/restrict.py)."""
    return allowed_slots(pub, k, seat, buyable_slots(pub, k, seat))


@kernel
def buy_choice(pub, k, seat, w, pass_ok, mask):
    """PH_BUY: the best item while it is worth its vegetables, then PASS. The first item of
    a buy action is bought whatever its worth (R-FM-4: the action buys something; the bot
    chose the action for that item's value)."""
    best, slot = best_buy(pub, k, seat, w, np.int64(mask))
    if slot < 0 or (best <= 0.0 and pass_ok):
        return PASS
    return slot


@kernel
def farmland_choice(mask):
    """PH_FARMLAND (R-FM-3): the allowed space with most allowed neighbours, so that farm
    tiles can later join it into one group for round C (R-FM-6)."""
    best = -1
    choice = -1
    for space in range(9):
        if not (mask >> np.uint64(space)) & np.uint64(1):
            continue
        row, col = divmod(space, 3)
        near = 0
        for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
            if 0 <= r < 3 and 0 <= c < 3 and (mask >> np.uint64(r * 3 + c)) & np.uint64(1):
                near += 1
        if near > best:
            best = near
            choice = space
    return choice


@kernel
def round_c_choice(pub, k, seat, value):
    """R-FM-6: farming structures instead of the best type when they score more."""
    points = counted_spaces(pub, k, seat, pub[mask_at(seat, 2, value)])
    points *= k[K_SCORE_CARD + 2 * 4 + value]
    if farming_points(pub, k, seat) > points:
        return 4
    return value
