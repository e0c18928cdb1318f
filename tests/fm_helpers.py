"""Helpers for the Farmer's Market rule tests (R-FM-*): games on the expansion's data, with
items given and vegetables set by hand."""

from __future__ import annotations

from functools import lru_cache

import bnb_sim
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import state as S

FM = "farmers-market"
BUY = S.ACT_BUY


@lru_cache(maxsize=1)
def fm_components():
    from bnb_sim.games.builders_biomes.components import load_components

    return load_components(expansion=FM)


def fm_game(players=2, policies=("random",), seed=0, game_index=0, place=True, **options):
    """A new expansion game; with ``place`` every seat has put its farmland on its first
    allowed space, so the first turn is about to start."""
    options.setdefault("components", fm_components())
    game = bnb_sim.new_game(seed, game_index, players, list(policies), **options)
    while place and game.phase == "farmland":
        game.apply_action(game.legal_actions()[0])
    return game


def item_id(game, name):
    return game.config.components.item_names.index(name)


def give_item(game, seat, name):
    """The seat owns ``name`` (taken off the marketplace if it lies there), paid in full."""
    pub, k = game._pub, game._k
    item = item_id(game, name)
    for slot in range(L.MAX_MARKET):
        if game._hid[L.H_FM_MARKET + slot] == item:
            game._hid[L.H_FM_MARKET + slot] = -1
            pub[L.P_FM_MARKET + slot] = -1
            pub[L.P_FM_MARKET_UP] &= ~(1 << slot)
    pub[L.P_FM_OWNED + seat] |= 1 << item
    pub[L.P_FM_SPENT + seat] += k[L.K_FM_ITEM + L.FM_COST * L.MAX_ITEMS + item]
    ability = int(k[L.K_FM_ITEM + L.FM_ABILITY * L.MAX_ITEMS + item])
    amount = int(k[L.K_FM_ITEM + L.FM_AMOUNT * L.MAX_ITEMS + item])
    pub[L.ability_at(seat, ability)] = max(amount, 1)


def set_vegetables(game, seat, n):
    """The seat's farmland holds ``n`` vegetables (the rest of the 32 in the supply)."""
    pub = game._pub
    space = int(pub[L.P_FM_FARMLAND + seat])
    pub[L.cap_at(seat, space)] = max(int(pub[L.cap_at(seat, space)]), n)
    pub[L.P_FM_SUPPLY] += int(pub[L.veg_at(seat, space)]) - n
    pub[L.veg_at(seat, space)] = n


def veg(game, seat):
    return int(sum(game._pub[L.veg_at(seat, s)] for s in range(9)))


def fm_xp(game, seat, source):
    """XP of ``seat`` from a source: an ``XP_*`` slot, or "end" / "farming" (the expansion's)."""
    if source == "end":
        return int(game._pub[L.P_FM_XP_END + seat])
    if source == "farming":
        return int(game._pub[L.P_FM_XP_FARMING + seat])
    return int(game._pub[L.xp_at(seat, source)])
