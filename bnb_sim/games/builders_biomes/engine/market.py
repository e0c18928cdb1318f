"""Farmer's Market (R-FM-1 to R-FM-10): the marketplace, farmland and vegetables, the buy
action, the item abilities' bookkeeping, farming in round C and the end-game items.

Every function here runs only when ``k[K_FM_ON]`` is set; base games never call into this
module, and the ability amounts it keeps in ``pub`` stay 0 there, so the hooks in the rule
modules (``pub[ability_at(seat, AB_*)] > 0``) are false at no cost.

Vegetables: a farming structure (the starting farmland or a farm tile) that is the top tile
of a board space has a capacity (``P_FM_CAP``: the farmland's spaces x vegetables per space,
a farm tile's vegetable spaces) and holds ``P_FM_VEG`` tokens. Tokens are paid back to the
supply (R-FM-4); a structure covered by a new building gives its tokens back too, or under the
reading ``fm_covered_vegetables=lost`` they stay under the tile, out of the game
(``P_FM_BURIED``); refills after rounds A and B fill the visible ones from the supply
(R-FM-9), seat by seat from the player whose turn it was while the supply lasts.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel, njit
from bnb_sim.games.builders_biomes.components.arrays import (
    RULE_ACTIONS_PER_TURN,
    RULE_BLOCKS_PER_COLLECT,
)
from bnb_sim.games.builders_biomes.engine.groups import count_spaces
from bnb_sim.games.builders_biomes.engine.layout import (
    FM_ABILITY,
    FM_AMOUNT,
    FM_COST,
    FM_LETTER,
    H_FM_MARKET,
    K_BOARDS,
    K_FM_BUILDINGS_ONLY,
    K_FM_COVERED_LOST,
    K_FM_FARMLAND,
    K_FM_FOREST,
    K_FM_MARKET,
    K_FM_N_ITEMS,
    K_FM_NEW_FARM_FILLED,
    K_FM_TILE_VEG,
    K_FM_VEG_TOKENS,
    K_FM_XP_FARM,
    K_GROUP,
    K_OPTS,
    K_RULES,
    MAX_ITEMS,
    MAX_MARKET,
    P_BOARD_ID,
    P_BOARD_TOP,
    P_FM_BOUGHT,
    P_FM_BURIED,
    P_FM_BUY_ROUND,
    P_FM_FARMLAND,
    P_FM_MARKET,
    P_FM_MARKET_UP,
    P_FM_OWNED,
    P_FM_SPENT,
    P_FM_SUPPLY,
    P_FM_XP_END,
    P_N_HELD,
    ability_at,
    cap_at,
    fm_item,
    supply_at,
    tile_cost,
    veg_at,
)
from bnb_sim.games.builders_biomes.engine.state import (
    C_BEGINNER_SEATS,
    C_BLOCKS_OWED,
    C_FM_BUYS,
    C_FM_PLACED,
    C_N_PLAYERS,
    C_PHASE,
    C_ROUNDS_DONE,
    C_SEAT,
    C_TURN_SEAT,
    EV_BUY,
    EV_FARMLAND,
    EV_MARKET,
    EV_REFILL,
    OPT_FIX_GROUP,
    OPT_FIX_SOURCES,
    PH_FARMLAND,
    PH_TURN,
    STREAM_MARKET,
    log_event,
    supply_total,
)
from bnb_sim.rng import seed_stream, shuffle_inplace, stream_game_index

# ability ids: the order of components.expansion.ABILITIES
AB_NONE = 0
AB_EXPLORE_STEPS = 1
AB_WILD_BLOCKS = 2
AB_LIGHTNING_XP = 3
AB_REFIGHT = 4
AB_COLLECT_XP = 5
AB_HUNGER_ACTIONS = 6
AB_EXPLORE_UNLIMITED = 7
AB_COLLECT_BLOCKS = 8
AB_CHEAPER = 9
AB_FIGHT_REVEAL = 10
AB_ACTIONS = 11
AB_END_BLOCKS = 12
AB_END_BUILDINGS = 13
AB_END_MOBS = 14
AB_END_FARMLAND = 15
AB_END_ITEMS = 16
AB_END_FLAT = 17
FARMING_VALUE = 4  # R-FM-6: the round-C choice "farming structures" (after the 4 types)


@kernel(inline="always")
def actions_per_turn(pub, k, seat):
    """R-TURN-1: two different actions; three with the Farmer's Market item (R-FM-5)."""
    extra = pub[ability_at(seat, AB_ACTIONS)]
    if extra > 0:
        return extra
    return k[K_RULES + RULE_ACTIONS_PER_TURN]


# ---- setup (R-FM-2, R-FM-3, R-FM-8) ------------------------------------------------------
@njit(cache=True)
def setup_market(pub, hid, k, master, game_index, n_players):
    """Deal 4 X, 4 A and 4 B items onto the marketplace (the rest stay unseen in the box),
    turn the X items face-up, put the vegetables in the supply, and ask each seat in turn
    where its farmland goes (PH_FARMLAND)."""
    stream = np.empty(4, np.uint64)
    fixed, group = k[K_OPTS + OPT_FIX_SOURCES], k[K_OPTS + OPT_FIX_GROUP]  # luck designs only
    index = stream_game_index(game_index, fixed, group, STREAM_MARKET)
    seed_stream(stream, master, index, STREAM_MARKET)
    n_items = k[K_FM_N_ITEMS]
    slot = 0
    for letter in range(3):
        pool = np.full(MAX_ITEMS, -1, np.int64)
        n = 0
        for item in range(n_items):
            if fm_item(k, FM_LETTER, item) == letter:
                pool[n] = item
                n += 1
        chosen = pool[:n].copy()
        shuffle_inplace(stream, chosen)
        for j in range(k[K_FM_MARKET + letter]):
            hid[H_FM_MARKET + slot] = chosen[j]  # face-down until its letter's round
            pub[P_FM_MARKET + slot] = -1
            if letter == 0:
                pub[P_FM_MARKET + slot] = chosen[j]
                pub[P_FM_MARKET_UP] |= 1 << slot
            slot += 1
    for s in range(slot, MAX_MARKET):
        hid[H_FM_MARKET + s] = -1
        pub[P_FM_MARKET + s] = -1
    for item in range(MAX_ITEMS):
        pub[P_FM_BUY_ROUND + item] = -1
    pub[P_FM_SUPPLY] = k[K_FM_VEG_TOKENS]
    for seat in range(n_players):
        pub[P_FM_FARMLAND + seat] = -1
    pub[C_FM_PLACED] = 0
    pub[C_PHASE] = PH_FARMLAND
    pub[C_SEAT] = pub[C_TURN_SEAT]


@kernel(inline="always")
def market_letter(k, slot):
    """The letter (0 X, 1 A, 2 B) of a marketplace space."""
    if slot < k[K_FM_MARKET]:
        return 0
    if slot < k[K_FM_MARKET] + k[K_FM_MARKET + 1]:
        return 1
    return 2


@kernel(inline="always")
def farmland_spaces(pub, k, seat):
    """R-FM-3: the seat's forest spaces with nothing on them (where the farmland may go)."""
    board = pub[P_BOARD_ID + seat]
    mask = 0
    for space in range(9):
        if k[K_BOARDS + board * 9 + space] == k[K_FM_FOREST]:
            if pub[P_BOARD_TOP + seat * 9 + space] < 0:
                mask |= 1 << space
    if mask == 0:  # a board without forest: any space (data the rules do not foresee)
        mask = 0x1FF
    return mask


@kernel
def place_farmland(pub, hid, k, seat, space):
    """R-FM-3: the farmland (side "2" with 2 players, "3-4" otherwise) on a forest space,
    filled with its vegetables; then the next seat places, and play starts."""
    n = pub[C_N_PLAYERS]
    side = 0 if n == 2 else 2
    cap = k[K_FM_FARMLAND + side] * k[K_FM_FARMLAND + side + 1]
    pub[P_FM_FARMLAND + seat] = space
    pub[cap_at(seat, space)] = cap
    fill = min(cap, pub[P_FM_SUPPLY])
    pub[veg_at(seat, space)] = fill
    pub[P_FM_SUPPLY] -= fill
    log_event(hid, k, seat, EV_FARMLAND, space, fill, 0)
    pub[C_FM_PLACED] += 1
    if pub[C_FM_PLACED] < n:
        pub[C_SEAT] = (pub[C_TURN_SEAT] + pub[C_FM_PLACED]) % n
    else:
        pub[C_SEAT] = pub[C_TURN_SEAT]
        pub[C_PHASE] = PH_TURN


# ---- vegetables ---------------------------------------------------------------------------
@kernel(inline="always")
def vegetables(pub, seat):
    total = 0
    for space in range(9):
        total += pub[veg_at(seat, space)]
    return total


@kernel
def on_build(pub, k, seat, space, tile):
    """A building covers ``space``: a farming structure under it gives its vegetables back to
    the supply (reading ``fm_covered_vegetables``: or they stay under it, out of the game) and
    grows nothing any more (R-FM-9); a farm tile brings its own capacity, filled at once under
    the reading ``fm_new_farm=filled``."""
    if k[K_FM_COVERED_LOST] != 0:  # reading fm_covered_vegetables=lost
        pub[P_FM_BURIED] += pub[veg_at(seat, space)]
    else:
        pub[P_FM_SUPPLY] += pub[veg_at(seat, space)]
    pub[veg_at(seat, space)] = 0
    if pub[P_FM_FARMLAND + seat] == space:
        pub[P_FM_FARMLAND + seat] = -1
    cap = k[K_FM_TILE_VEG + tile]
    pub[cap_at(seat, space)] = cap
    if cap > 0 and k[K_FM_NEW_FARM_FILLED] != 0:
        fill = min(cap, pub[P_FM_SUPPLY])
        pub[veg_at(seat, space)] = fill
        pub[P_FM_SUPPLY] -= fill


@kernel
def refill(pub, hid, k):
    """R-FM-3, R-FM-9: after rounds A and B every visible farming structure is refilled on its
    empty spaces, seat by seat from the player whose turn it was, while the supply lasts."""
    n = pub[C_N_PLAYERS]
    for step in range(n):
        seat = (pub[C_TURN_SEAT] + step) % n
        added = 0
        for space in range(9):
            want = pub[cap_at(seat, space)] - pub[veg_at(seat, space)]
            give = min(want, pub[P_FM_SUPPLY])
            if give > 0:
                pub[veg_at(seat, space)] += give
                pub[P_FM_SUPPLY] -= give
                added += give
        log_event(hid, k, seat, EV_REFILL, added, 0, 0)


@kernel
def after_round_fm(pub, hid, k, finished_round):
    """After round A: refill, reveal the A items; after round B: refill, reveal the B items
    (R-FM-2, R-FM-9). Nothing grows after round C: the game ends."""
    if finished_round >= 2:
        return
    refill(pub, hid, k)
    letter = finished_round + 1
    for slot in range(MAX_MARKET):
        if hid[H_FM_MARKET + slot] >= 0 and market_letter(k, slot) == letter:
            pub[P_FM_MARKET + slot] = hid[H_FM_MARKET + slot]
            pub[P_FM_MARKET_UP] |= 1 << slot
    log_event(hid, k, -1, EV_MARKET, letter, 0, 0)


# ---- buying (R-FM-4) ------------------------------------------------------------------------
@kernel
def buyable_slots(pub, k, seat):
    """Face-up marketplace spaces whose item the seat can pay from its own farming structures."""
    have = vegetables(pub, seat)
    up = pub[P_FM_MARKET_UP]
    mask = 0
    while up:
        slot = 0
        while not (up >> slot) & 1:
            slot += 1
        up &= ~(1 << slot)
        item = pub[P_FM_MARKET + slot]
        if item >= 0 and fm_item(k, FM_COST, item) <= have:
            mask |= 1 << slot
    return mask


@kernel(inline="always")
def third_block_optional(pub, k, seat):
    """R-FM-5: the collect-3 item's owner "may" take a third block: while the blocks still
    owed are beyond the rulebook's two, the collect may end (PASS)."""
    more = pub[ability_at(seat, AB_COLLECT_BLOCKS)]
    if more <= k[K_RULES + RULE_BLOCKS_PER_COLLECT]:
        return False
    return pub[C_BLOCKS_OWED] <= more - k[K_RULES + RULE_BLOCKS_PER_COLLECT]


@kernel
def buy_item(pub, hid, k, seat, slot):
    """Pay the item's cost from the seat's farming structures and take it: its ability works
    at once. Which tokens pay is the player's choice in the game; the engine pays in board
    space order. It matters only when a structure holding tokens is covered later (its
    tokens leave it, R-FM-9): docs/rules.md."""
    item = pub[P_FM_MARKET + slot]
    cost = fm_item(k, FM_COST, item)
    left = cost
    for space in range(9):
        take = min(left, pub[veg_at(seat, space)])
        pub[veg_at(seat, space)] -= take
        left -= take
    pub[P_FM_SUPPLY] += cost
    pub[P_FM_SPENT + seat] += cost
    pub[P_FM_BOUGHT + seat] += 1
    pub[C_FM_BUYS] += 1
    pub[P_FM_MARKET + slot] = -1
    hid[H_FM_MARKET + slot] = -1
    pub[P_FM_MARKET_UP] &= ~(1 << slot)
    pub[P_FM_OWNED + seat] |= 1 << item
    rounds = 0
    for r in range(3):
        if (pub[C_ROUNDS_DONE] >> r) & 1:
            rounds += 1
    pub[P_FM_BUY_ROUND + item] = rounds
    ability = fm_item(k, FM_ABILITY, item)
    amount = fm_item(k, FM_AMOUNT, item)
    at = ability_at(seat, ability)
    pub[at] = max(pub[at], max(amount, 1))
    log_event(hid, k, seat, EV_BUY, item, cost, 0)


# ---- building with items (R-FM-5: crafting table, cheaper buildings) ---------------------
@kernel(inline="always")
def fm_cost(pub, k, seat, tile, block):
    """The tile's cost in ``block`` after the cheaper-buildings item: the amount comes off the
    printed materials first, then the emerald part; a 1-block building becomes free."""
    from_block = tile_cost_of(k, tile, block)
    cut = pub[ability_at(seat, AB_CHEAPER)]
    if cut == 0:
        return from_block
    for m in range(5):
        if cut == 0:
            break
        c = tile_cost_of(k, tile, m)
        off = min(c, cut)
        cut -= off
        if m == block:
            return c - off
    return from_block


@kernel(inline="always")
def tile_cost_of(k, tile, block):
    return tile_cost(k, tile, block)


@kernel
def fm_blocks_missing(pub, k, seat, tile):
    """Blocks the seat lacks for ``tile`` with its items (<= 0: it can pay)."""
    if pub[ability_at(seat, AB_WILD_BLOCKS)] > 0:  # every block is an emerald
        total = 0
        for m in range(5):
            total += fm_cost(pub, k, seat, tile, m)
        return total - supply_total(pub, seat)
    missing = 0
    for m in range(4):
        need = fm_cost(pub, k, seat, tile, m) - pub[supply_at(seat, m)]
        if need > 0:
            missing += need
    return missing + fm_cost(pub, k, seat, tile, 4) - pub[supply_at(seat, 4)]


@kernel(per_constant=True)
def fm_pay(pub, k, seat, tile, spent_at):
    """Pay ``tile`` with the items: the printed material first, then (crafting table) other
    materials, emeralds last; blocks paid leave the game (``spent_at`` + block)."""
    owed = 0
    for m in range(4):
        cost = fm_cost(pub, k, seat, tile, m)
        own = min(cost, pub[supply_at(seat, m)])
        pub[supply_at(seat, m)] -= own
        pub[spent_at + m] += own
        owed += cost - own
    owed += fm_cost(pub, k, seat, tile, 4)
    if pub[ability_at(seat, AB_WILD_BLOCKS)] > 0:
        for m in range(4):
            own = min(owed, pub[supply_at(seat, m)])
            pub[supply_at(seat, m)] -= own
            pub[spent_at + m] += own
            owed -= own
    pub[supply_at(seat, 4)] -= owed
    pub[spent_at + 4] += owed


# ---- scoring (R-FM-6) and the end (R-FM-5) ------------------------------------------------
@kernel(inline="always")
def farming_mask(pub, seat):
    """9-bit mask of the seat's spaces whose visible structure is a farming structure."""
    mask = 0
    for space in range(9):
        if pub[cap_at(seat, space)] > 0:
            mask |= 1 << space
    return mask


@kernel
def farming_points(pub, k, seat):
    """R-FM-6: round C's farming value, 2 XP per space of the largest connected group of
    farming structures (every one under the beginner rule)."""
    mask = farming_mask(pub, seat)
    if (pub[C_BEGINNER_SEATS] >> seat) & 1:
        spaces = count_spaces(mask)
    else:
        spaces = k[K_GROUP + mask]
    return spaces * k[K_FM_XP_FARM]


@kernel
def end_items(pub, hid, k):
    """R-FM-5: the six end-game items score for their owners."""
    for seat in range(pub[C_N_PLAYERS]):
        owned = pub[P_FM_OWNED + seat]
        if owned == 0:
            continue
        xp = 0
        a = pub[ability_at(seat, AB_END_BLOCKS)]
        if a > 0:
            xp += a * supply_total(pub, seat)
        a = pub[ability_at(seat, AB_END_BUILDINGS)]
        if a > 0:
            xp += a * structures_built(pub, k, seat)
        a = pub[ability_at(seat, AB_END_MOBS)]
        if a > 0:
            xp += a * pub[P_N_HELD + seat]
        a = pub[ability_at(seat, AB_END_FARMLAND)]
        if a > 0:
            xp += a * count_spaces(farming_mask(pub, seat))
        a = pub[ability_at(seat, AB_END_ITEMS)]
        if a > 0:
            xp += a * count_spaces_wide(owned)
        xp += pub[ability_at(seat, AB_END_FLAT)]
        pub[P_FM_XP_END + seat] += xp


@kernel
def structures_built(pub, k, seat):
    """R-FM-5, the "+2 per structure built" item: the top tiles on the board, and the starting
    farmland while it is visible (the texts call it a "farmland structure"; reading
    ``fm_end_structures=buildings-only`` counts building tiles alone)."""
    built = 0
    for space in range(9):
        if pub[P_BOARD_TOP + seat * 9 + space] >= 0:
            built += 1
    if k[K_FM_BUILDINGS_ONLY] == 0 and pub[P_FM_FARMLAND + seat] >= 0:
        built += 1
    return built


@kernel(inline="always")
def count_spaces_wide(mask):
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count
