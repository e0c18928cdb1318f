"""The invariant checker (tests, and ``--check`` as a debug option).

Returns 0 when the state is consistent, otherwise the code of the first violated invariant;
:data:`INVARIANT_MESSAGES` says what each code means.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.components.arrays import TILE_BUILDING, TILE_HUNGER_MOB
from bnb_sim.games.builders_biomes.engine.cube import layer_empty, visible_bits
from bnb_sim.games.builders_biomes.engine.layout import (
    FM_COST,
    H_BLOCK,
    H_FM_MARKET,
    H_STACKS,
    H_TOK_SLOT,
    K_BLOCK_COUNT,
    K_BOARDS,
    K_FM_N_ITEMS,
    K_FM_ON,
    K_FM_VEG_TOKENS,
    K_N_TILES,
    K_N_TOKEN_TYPES,
    MAX_HELD,
    MAX_MARKET,
    MAX_STACK_H,
    N_BLOCK_TYPES,
    P_BOARD_ID,
    P_BOARD_TOP,
    P_FM_BURIED,
    P_FM_MARKET,
    P_FM_MARKET_UP,
    P_FM_OWNED,
    P_FM_SPENT,
    P_FM_SUPPLY,
    P_HELD,
    P_N_HELD,
    P_N_HUNGER,
    P_STACK_H,
    P_TOP_UP,
    P_VIS_BLOCK,
    TILE_KIND,
    TOK_DETONATE,
    TOK_START,
    TOK_TABLE,
    ability_at,
    cap_at,
    fm_item,
    get_occ,
    mask_at,
    may_at,
    pile_at,
    stat_at,
    supply_at,
    tile_attr,
    tile_char,
    tok_attr,
    veg_at,
)
from bnb_sim.games.builders_biomes.engine.market import AB_FIGHT_REVEAL, AB_REFIGHT
from bnb_sim.games.builders_biomes.engine.state import (
    C_FM_BUYS,
    C_FM_REFIGHT,
    C_FM_REVEAL_OFFER,
    C_LAST_WIN,
    C_N_PLAYERS,
    C_PHASE,
    C_ROUND_TURN,
    C_ROUNDS_DONE,
    C_ROUNDS_PENDING,
    C_SEAT,
    C_SPENT,
    C_TOKENS,
    C_UP_BUILDINGS,
    C_UP_MOBS,
    C_XP_SEEN,
    N_MAY,
    PH_BED,
    PH_FARMLAND,
    PH_REVEAL_FOUR,
    S_BUILDINGS_BUILT,
    S_HUNGER_SPENT,
    S_TNT,
    xp_total,
)

INV_BLOCKS = 1
INV_CUBE_BITS = 2
INV_VISIBLE = 3
INV_TILES = 4
INV_FACE_UP = 5
INV_TOKENS = 6
INV_TOKEN_MASK = 7
INV_XP_DECREASED = 8
INV_ROUNDS = 9
INV_BOARD = 10
INV_HUNGER = 11
INV_NEGATIVE = 12
INV_VEGETABLES = 13
INV_ITEMS = 14
INV_PAYMENT = 15
INV_PHASE = 16

INVARIANT_MESSAGES = {
    INV_BLOCKS: "block conservation: cube + supplies + spent != the component counts",
    INV_CUBE_BITS: "the cube bitboard disagrees with the block array",
    INV_VISIBLE: "a visible block's material is wrong or a hidden block is shown",
    INV_TILES: "tile conservation: stacks + built + held + returned != all tiles",
    INV_FACE_UP: "face-up masks disagree with the face-up tiles",
    INV_TOKENS: "token conservation: table + piles + detonated != all tokens",
    INV_TOKEN_MASK: "the token-spot mask disagrees with the tokens on the table",
    INV_XP_DECREASED: "a seat's XP decreased",
    INV_ROUNDS: "scoring rounds out of order, scored twice, or not matching the empty layers",
    INV_BOARD: "board masks disagree with the tiles on the boards",
    INV_HUNGER: "hunger mob count disagrees with the mobs held",
    INV_NEGATIVE: "a supply or pile count is negative",
    INV_VEGETABLES: "vegetable conservation: supply + farming structures != all tokens, or a "
    "structure holds more than its capacity or a negative count (Farmer's Market)",
    INV_ITEMS: "an item is in two places (marketplace, a player, the box) (Farmer's Market)",
    INV_PAYMENT: "vegetables paid != the costs of the items bought (Farmer's Market)",
    INV_PHASE: "a decision phase the state does not allow: an unknown phase, an expansion "
    "phase without the expansion, the bed's or the reveal-4 item's decision without the item "
    "or its moment, or more declines of a 'may' item than offers",
}


@kernel
def _check_farmers_market(pub, hid, k, n):
    """R-FM-3/R-FM-4/R-FM-8: vegetables are conserved, every item is in one place, every
    purchase was paid in full."""
    total = pub[P_FM_SUPPLY] + pub[P_FM_BURIED]
    if pub[P_FM_SUPPLY] < 0 or pub[P_FM_BURIED] < 0:
        return INV_VEGETABLES
    for seat in range(n):
        for space in range(9):
            veg = pub[veg_at(seat, space)]
            if veg < 0 or veg > pub[cap_at(seat, space)]:
                return INV_VEGETABLES
            total += veg
    if total != k[K_FM_VEG_TOKENS]:
        return INV_VEGETABLES
    seen = 0
    for slot in range(MAX_MARKET):
        item = hid[H_FM_MARKET + slot]
        shown = pub[P_FM_MARKET + slot]
        face_up = (pub[P_FM_MARKET_UP] >> slot) & 1
        if shown != (item if face_up else -1):
            return INV_ITEMS
        if item >= 0:
            if (seen >> item) & 1:
                return INV_ITEMS
            seen |= 1 << item
    paid = 0
    cost = 0
    for seat in range(n):
        owned = pub[P_FM_OWNED + seat]
        if owned & seen:
            return INV_ITEMS
        seen |= owned
        paid += pub[P_FM_SPENT + seat]
        for item in range(k[K_FM_N_ITEMS]):
            if (owned >> item) & 1:
                cost += fm_item(k, FM_COST, item)
    if paid != cost:
        return INV_PAYMENT
    return 0


@kernel
def _check_phase(pub, k, n):
    """The phase is a known one, and a phase of the expansion's "may" items (R-FM-5) comes
    only with the item, at its moment: the bed after a lost first fight, reveal 4 while its
    offer is open, the buy action's PASS only after a purchase (unless fm_empty_buy)."""
    phase = pub[C_PHASE]
    if phase < 0 or phase > PH_REVEAL_FOUR or (phase >= PH_FARMLAND and k[K_FM_ON] == 0):
        return INV_PHASE
    seat = pub[C_SEAT]
    if phase == PH_BED:
        if pub[ability_at(seat, AB_REFIGHT)] <= 0 or pub[C_LAST_WIN] != 0:
            return INV_PHASE
        if pub[C_FM_REFIGHT] != 0:
            return INV_PHASE
    if phase == PH_REVEAL_FOUR:
        if pub[ability_at(seat, AB_FIGHT_REVEAL)] <= 0 or pub[C_FM_REVEAL_OFFER] != 1:
            return INV_PHASE
    if pub[C_FM_BUYS] < 0:
        return INV_PHASE
    for s in range(n):
        for may in range(N_MAY):
            if not 0 <= pub[may_at(s, may, 1)] <= pub[may_at(s, may, 0)]:
                return INV_PHASE
    return 0


@kernel
def _check_blocks(pub, hid, k, n):
    for t in range(N_BLOCK_TYPES):
        total = pub[C_SPENT + t]
        for pos in range(64):
            if hid[H_BLOCK + pos] == t:
                total += 1
        for seat in range(n):
            if pub[supply_at(seat, t)] < 0:
                return INV_NEGATIVE
            total += pub[supply_at(seat, t)]
        if total != k[K_BLOCK_COUNT + t]:
            return INV_BLOCKS
    occ = get_occ(pub)
    visible = visible_bits(occ)
    for pos in range(64):
        bit_set = (occ >> np.uint64(pos)) & np.uint64(1) == np.uint64(1)
        block = hid[H_BLOCK + pos]
        if bit_set != (block >= 0):
            return INV_CUBE_BITS
        shown = pub[P_VIS_BLOCK + pos]
        if not bit_set:
            if shown != -1:
                return INV_VISIBLE
        elif (visible >> np.uint64(pos)) & np.uint64(1) == np.uint64(1):
            if shown != block:
                return INV_VISIBLE
        elif shown != -2:
            return INV_VISIBLE
    return 0


@kernel
def _check_tiles(pub, hid, k, n):
    tiles = 0
    up_buildings = 0
    up_mobs = 0
    for s in range(16):
        height = pub[P_STACK_H + s]
        tiles += height
        top = pub[P_TOP_UP + s]
        if top >= 0:
            if height == 0 or hid[H_STACKS + s * MAX_STACK_H + height - 1] != top:
                return INV_FACE_UP
            if tile_attr(k, TILE_KIND, top) == TILE_BUILDING:
                up_buildings |= 1 << s
            else:
                up_mobs |= 1 << s
    if up_buildings != pub[C_UP_BUILDINGS] or up_mobs != pub[C_UP_MOBS]:
        return INV_FACE_UP
    for seat in range(n):
        tiles += pub[stat_at(seat, S_BUILDINGS_BUILT)] + pub[P_N_HELD + seat]
        tiles += pub[stat_at(seat, S_HUNGER_SPENT)]
        hunger = 0
        for j in range(pub[P_N_HELD + seat]):
            if tile_attr(k, TILE_KIND, pub[P_HELD + seat * MAX_HELD + j]) == TILE_HUNGER_MOB:
                hunger += 1
        if hunger != pub[P_N_HUNGER + seat]:
            return INV_HUNGER
    if tiles != k[K_N_TILES]:
        return INV_TILES
    return 0


@kernel
def _check_tokens(pub, hid, k, n):
    mask = 0
    on_table = 0
    for slot in range(16):
        if hid[H_TOK_SLOT + slot] >= 0:
            mask |= 1 << slot
            on_table += 1
    if mask != pub[C_TOKENS]:
        return INV_TOKEN_MASK
    detonated = 0
    for seat in range(n):
        detonated += pub[stat_at(seat, S_TNT)]
    all_tokens = 0
    in_piles = 0
    for t in range(k[K_N_TOKEN_TYPES]):
        expected = tok_attr(k, TOK_TABLE, t) + n * tok_attr(k, TOK_START, t)
        all_tokens += expected
        total = 0
        for slot in range(16):
            if hid[H_TOK_SLOT + slot] == t:
                total += 1
        for seat in range(n):
            count = hid[pile_at(seat, t)]
            if count < 0:
                return INV_NEGATIVE
            total += count
            in_piles += count
        if tok_attr(k, TOK_DETONATE, t) == 0 and total != expected:
            return INV_TOKENS
        if total > expected:
            return INV_TOKENS
    if in_piles + on_table + detonated != all_tokens:
        return INV_TOKENS
    return 0


@kernel
def _check_xp_and_rounds(pub, n):
    for seat in range(n):
        total = xp_total(pub, seat)
        if total < pub[C_XP_SEEN + seat]:
            return INV_XP_DECREASED
        pub[C_XP_SEEN + seat] = total
    done = pub[C_ROUNDS_DONE]
    if done != 0 and done != 1 and done != 3 and done != 7:
        return INV_ROUNDS
    if pub[C_ROUNDS_PENDING] & done != 0:
        return INV_ROUNDS
    occ = get_occ(pub)
    for r in range(3):
        triggered = (pub[C_ROUNDS_DONE] | pub[C_ROUNDS_PENDING]) >> r & 1 == 1
        if triggered != layer_empty(occ, r):  # R-SCORE-1: a round exactly when its layer is empty
            return INV_ROUNDS
    for r in range(1, 3):
        later = pub[C_ROUND_TURN + r]
        earlier = pub[C_ROUND_TURN + r - 1]
        if later >= 0 and (earlier < 0 or earlier > later):
            return INV_ROUNDS
    return 0


@kernel
def _check_boards(pub, k, n):
    for seat in range(n):
        for space in range(9):
            tile = pub[P_BOARD_TOP + seat * 9 + space]
            bit = 1 << space
            for c in range(3):
                hits = 0
                for v in range(4):
                    if pub[mask_at(seat, c, v)] & bit:
                        hits += 1
                if tile < 0 and c > 0:
                    if hits != 0:
                        return INV_BOARD
                    continue
                if hits != 1:
                    return INV_BOARD
                if tile >= 0:
                    shown = tile_char(k, c, tile)
                else:
                    shown = k[K_BOARDS + pub[P_BOARD_ID + seat] * 9 + space]
                if pub[mask_at(seat, c, shown)] & bit == 0:
                    return INV_BOARD
    return 0


@kernel
def check_invariants(pub, hid, k):
    """0 if the state is consistent, else an INV_* code (XP is remembered between calls)."""
    n = pub[C_N_PLAYERS]
    code = _check_blocks(pub, hid, k, n)
    if code == 0:
        code = _check_tiles(pub, hid, k, n)
    if code == 0:
        code = _check_tokens(pub, hid, k, n)
    if code == 0:
        code = _check_xp_and_rounds(pub, n)
    if code == 0:
        code = _check_boards(pub, k, n)
    if code == 0:
        code = _check_phase(pub, k, n)
    if code == 0 and k[K_FM_ON] != 0:
        code = _check_farmers_market(pub, hid, k, n)
    return code
