"""Build (R-BUILD-1 to R-BUILD-4, R-CUBE-3).

Payment: the printed material first, emeralds only for the shortfall. Paying with an emerald
where the material would do can never help (the emerald pays for anything later, and the
tie-break counts blocks of any kind), so this is not a decision a policy needs to make.
"""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.engine.explore import remove_top_tile
from bnb_sim.games.builders_biomes.engine.layout import (
    K_FM_ON,
    P_BOARD_TOP,
    P_TOP_UP,
    TILE_XP,
    WILD,
    ability_at,
    mask_at,
    stat_at,
    supply_at,
    tile_attr,
    tile_char,
    tile_cost,
    xp_at,
)
from bnb_sim.games.builders_biomes.engine.market import (
    AB_LIGHTNING_XP,
    fm_blocks_missing,
    fm_pay,
    on_build,
)
from bnb_sim.games.builders_biomes.engine.state import (
    C_SPENT,
    EV_BUILD,
    S_BUILDINGS_BUILT,
    XP_BUILDINGS,
    XP_ITEMS_PLAY,
    log_event,
)


@kernel(inline="always")
def shortfall(pub, k, seat, tile):
    """Blocks the seat lacks in the printed materials (to be paid with emeralds)."""
    missing = 0
    for m in range(WILD):
        need = tile_cost(k, tile, m) - pub[supply_at(seat, m)]
        if need > 0:
            missing += need
    return missing


@kernel(inline="always")
def blocks_missing(pub, k, seat, tile):
    """Blocks the seat still lacks for ``tile`` after spending its emeralds (<= 0: it can pay)."""
    if k[K_FM_ON] != 0:  # the crafting table and cheaper-buildings items (R-FM-5)
        return fm_blocks_missing(pub, k, seat, tile)
    wild_needed = shortfall(pub, k, seat, tile) + tile_cost(k, tile, WILD)
    return wild_needed - pub[supply_at(seat, WILD)]


@kernel(inline="always")
def can_afford(pub, k, seat, tile):
    """R-BUILD-1 with R-CUBE-3: emeralds cover any shortfall."""
    return blocks_missing(pub, k, seat, tile) <= 0


@kernel(inline="always")
def place_on_board(pub, k, seat, tile, space):
    """R-BUILD-2/R-BUILD-4: the tile covers the space; only the top tile counts."""
    pub[P_BOARD_TOP + seat * 9 + space] = tile
    bit = 1 << space
    for c in range(3):
        for v in range(4):
            pub[mask_at(seat, c, v)] &= ~bit
        pub[mask_at(seat, c, tile_char(k, c, tile))] |= bit


@kernel(inline="always")
def pay(pub, k, seat, tile):
    """The printed material first, emeralds for the shortfall; paid blocks leave the game."""
    paid_wild = 0
    for m in range(WILD):
        cost = tile_cost(k, tile, m)
        own = min(cost, pub[supply_at(seat, m)])
        pub[supply_at(seat, m)] -= own
        pub[C_SPENT + m] += own
        paid_wild += cost - own
    paid_wild += tile_cost(k, tile, WILD)
    pub[supply_at(seat, WILD)] -= paid_wild
    pub[C_SPENT + WILD] += paid_wild


@kernel
def build(pub, hid, k, seat, stack, space):
    """Pay for the face-up building on ``stack``, put it on ``space``, gain its XP (R-BUILD-3)."""
    tile = pub[P_TOP_UP + stack]
    if k[K_FM_ON] != 0:
        fm_pay(pub, k, seat, tile, C_SPENT)
        on_build(pub, k, seat, space, tile)
    else:
        pay(pub, k, seat, tile)
    remove_top_tile(pub, stack)
    place_on_board(pub, k, seat, tile, space)
    xp = tile_attr(k, TILE_XP, tile)
    pub[xp_at(seat, XP_BUILDINGS)] += xp
    if xp > 0 and pub[ability_at(seat, AB_LIGHTNING_XP)] > 0:  # jukebox (R-FM-5)
        pub[xp_at(seat, XP_ITEMS_PLAY)] += pub[ability_at(seat, AB_LIGHTNING_XP)]
    pub[stat_at(seat, S_BUILDINGS_BUILT)] += 1
    log_event(hid, k, seat, EV_BUILD, tile, space, xp)
