"""Collect a weapon (R-WEAPON-1)."""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.engine.layout import H_TOK_SLOT, pile_at, stat_at
from bnb_sim.games.builders_biomes.engine.state import (
    C_TOKENS,
    EV_WEAPON,
    S_WEAPONS_TAKEN,
    log_event,
)


@kernel
def take_weapon(pub, hid, k, seat, slot):
    """Take the face-down token on ``slot`` into the own pile; only now is it identified."""
    t = hid[H_TOK_SLOT + slot]
    hid[H_TOK_SLOT + slot] = -1
    pub[C_TOKENS] &= ~(1 << slot)
    hid[pile_at(seat, t)] += 1
    pub[stat_at(seat, S_WEAPONS_TAKEN)] += 1
    log_event(hid, k, seat, EV_WEAPON, slot, t, 0)
