"""Collect blocks (R-CUBE-1, R-CUBE-2) and the layer triggers of the scoring rounds (R-SCORE-1)."""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.components.arrays import RULE_MIN_EXPOSED_SIDES
from bnb_sim.games.builders_biomes.engine.cube import collectable_bits, layer_empty
from bnb_sim.games.builders_biomes.engine.layout import (
    H_BLOCK,
    K_RULES,
    P_VIS_BLOCK,
    get_occ,
    set_occ,
    stat_at,
    supply_at,
)
from bnb_sim.games.builders_biomes.engine.state import (
    C_ROUND_TURN,
    C_ROUNDS_DONE,
    C_ROUNDS_PENDING,
    C_TURN,
    EV_TAKE_BLOCK,
    EV_TRIGGER,
    S_BLOCKS_COLLECTED,
    log_event,
)


@kernel(inline="always")
def collectable_now(pub, k):
    """Bitboard of the blocks that may be taken right now (R-CUBE-1)."""
    return collectable_bits(get_occ(pub), k[K_RULES + RULE_MIN_EXPOSED_SIDES])


@kernel(inline="always")
def _show(pub, hid, pos):
    if hid[H_BLOCK + pos] >= 0:
        pub[P_VIS_BLOCK + pos] = hid[H_BLOCK + pos]


@kernel(per_constant=True)
def take_block(pub, hid, k, seat, pos, by_pickaxe):
    """Move the block at ``pos`` into the seat's supply (the caller checked it is collectable).

    The blocks around the hole become visible, and a layer left empty triggers its scoring
    round at the end of the turn (R-SCORE-1).
    """
    set_occ(pub, get_occ(pub) & ~(np.uint64(1) << np.uint64(pos)))
    kind = hid[H_BLOCK + pos]
    hid[H_BLOCK + pos] = -1
    pub[P_VIS_BLOCK + pos] = -1
    pub[supply_at(seat, kind)] += 1
    pub[stat_at(seat, S_BLOCKS_COLLECTED)] += 1
    log_event(hid, k, seat, EV_TAKE_BLOCK, pos, kind, by_pickaxe)
    layer = pos // 16
    col = pos % 4
    row = (pos // 4) % 4
    if layer < 3:
        _show(pub, hid, pos + 16)
    if col > 0:
        _show(pub, hid, pos - 1)
    if col < 3:
        _show(pub, hid, pos + 1)
    if row > 0:
        _show(pub, hid, pos - 4)
    if row < 3:
        _show(pub, hid, pos + 4)
    if layer < 3 and layer_empty(get_occ(pub), layer):
        flag = 1 << layer
        if (pub[C_ROUNDS_DONE] | pub[C_ROUNDS_PENDING]) & flag == 0:
            pub[C_ROUNDS_PENDING] |= flag
            pub[C_ROUND_TURN + layer] = pub[C_TURN]
            log_event(hid, k, seat, EV_TRIGGER, layer, 0, 0)
