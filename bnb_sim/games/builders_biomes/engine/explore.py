"""Explore the Overworld (R-EXPLORE-1, R-EXPLORE-2)."""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.components.arrays import TILE_BUILDING
from bnb_sim.games.builders_biomes.engine.bits import low_index
from bnb_sim.games.builders_biomes.engine.layout import (
    H_STACKS,
    K_ADJ_STACKS,
    MAX_STACK_H,
    P_POS,
    P_STACK_H,
    P_TOP_UP,
    TILE_KIND,
    tile_attr,
)
from bnb_sim.games.builders_biomes.engine.state import (
    C_UP_BUILDINGS,
    C_UP_MOBS,
    EV_MOVE,
    EV_REVEAL_TILE,
    log_event,
)


@kernel(inline="always")
def turn_up(pub, hid, k, seat, stack):
    """Turn the top tile of ``stack`` face-up (it must be face-down and the stack non-empty)."""
    tile = hid[H_STACKS + stack * MAX_STACK_H + pub[P_STACK_H + stack] - 1]
    pub[P_TOP_UP + stack] = tile
    if tile_attr(k, TILE_KIND, tile) == TILE_BUILDING:
        pub[C_UP_BUILDINGS] |= 1 << stack
    else:
        pub[C_UP_MOBS] |= 1 << stack
    log_event(hid, k, seat, EV_REVEAL_TILE, stack, tile, 0)


@kernel
def explore(pub, hid, k, seat, point):
    """Move to ``point`` (0-2 steps; legality checked by the caller), then turn up the top tile
    of every face-down stack next to it. Face-up tiles stay face-up."""
    log_event(hid, k, seat, EV_MOVE, pub[P_POS + seat], point, 0)
    pub[P_POS + seat] = point
    around = k[K_ADJ_STACKS + point]
    while around:
        stack = low_index(around)
        around &= around - 1
        if pub[P_STACK_H + stack] > 0 and pub[P_TOP_UP + stack] < 0:
            turn_up(pub, hid, k, seat, stack)


@kernel(inline="always")
def remove_top_tile(pub, stack):
    """Take the face-up top tile off its stack; the tile below stays face-down (R-EXPLORE-2)."""
    pub[P_STACK_H + stack] -= 1
    pub[P_TOP_UP + stack] = -1
    pub[C_UP_BUILDINGS] &= ~(1 << stack)
    pub[C_UP_MOBS] &= ~(1 << stack)
