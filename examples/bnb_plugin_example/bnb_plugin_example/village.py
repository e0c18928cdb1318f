"""``village``: a Heroes of the Village policy plugin that builds first and fights on a coin.

A plain rule list, to show the plugin interface of bnb-sim's second game:

1. while a pick is open (a Fox's extra block, a fight's reward): keep a block a building
   still needs, else none;
2. hand in blocks to a building whenever possible (without spending darkness as a wild if
   another hand-in is possible);
3. fight a mob with probability ``fight`` (default 1.0), from the seat's own random stream;
4. collect on a tile whose symbol is a block the buildings still need;
5. explore;
6. anything else that is legal (a discard last).

The same list serves the optional rest of an action (``PH_FIGHT``, ``PH_BUILD``,
``PH_HORSE``): after a failed Fight roll it rolls again with probability ``fight`` (rule 3)
and stops otherwise (``A_STOP``, rule 6); it hands in to further buildings while it can
(rule 2); it always lays the Horse's second tile (rule 5).

``obs`` is the state as the players see it, in the layout of
``bnb_sim.games.heroes_village.layout`` (``S_*``): face-down tiles under each stack's top and
the mob tokens not drawn yet read -1. ``static`` is the run's component array (``K_*``),
``legal`` the legal decisions (``A_*``). Register it with ``game="heroes_village"``.
"""

from __future__ import annotations

from numba import njit

from bnb_sim.games.heroes_village import layout as _L
from bnb_sim.plugins import Plugin
from bnb_sim.rng import uniform

PH_PICK = _L.PH_PICK
S_PHASE, S_NEED, S_DONE = _L.S_PHASE, _L.S_NEED, _L.S_DONE
K_N_CHOSEN, K_N_TILES, K_TILE_SYMBOL = _L.K_N_CHOSEN, _L.K_N_TILES, _L.K_TILE_SYMBOL
A_EXPLORE, A_COLLECT, A_FIGHT, A_BUILD = _L.A_EXPLORE, _L.A_COLLECT, _L.A_FIGHT, _L.A_BUILD
A_DISCARD, A_PICK, A_PICK_NONE = _L.A_DISCARD, _L.A_PICK, _L.A_PICK_NONE
MAX_STACKS, MAX_CHOSEN, N_BLOCKS = _L.MAX_STACKS, _L.MAX_CHOSEN, _L.N_BLOCKS


@njit(cache=True)
def _needed(obs, static, block):
    total = 0
    for j in range(static[K_N_CHOSEN]):
        if obs[S_DONE + j] == 0:
            total += obs[S_NEED + j * N_BLOCKS + block]
    return total


def decide(obs, legal, static, rng, params, mem):
    if obs[S_PHASE] == PH_PICK:
        for block in range(N_BLOCKS):
            if legal[A_PICK + block] and _needed(obs, static, block) > 0:
                return A_PICK + block
        if legal[A_PICK_NONE]:
            return A_PICK_NONE
    for wild in range(2):  # a plain hand-in before one that spends darkness
        for j in range(MAX_CHOSEN):
            if legal[A_BUILD + 2 * j + wild]:
                return A_BUILD + 2 * j + wild
    for t in range(static[K_N_TILES]):
        if legal[A_FIGHT + t] and uniform(rng) < params[0]:
            return A_FIGHT + t
    for t in range(static[K_N_TILES]):
        symbol = static[K_TILE_SYMBOL + t]
        if legal[A_COLLECT + t] and symbol >= 0 and _needed(obs, static, symbol) > 0:
            return A_COLLECT + t
    for st in range(MAX_STACKS):
        if legal[A_EXPLORE + st]:
            return A_EXPLORE + st
    for a in range(legal.shape[0]):  # what is left; discards are the last resort
        if legal[a] and not A_DISCARD <= a < A_DISCARD + N_BLOCKS:
            return a
    for a in range(legal.shape[0]):
        if legal[a]:
            return a
    return -1


VILLAGE = Plugin(
    decide,
    params={"fight": 1.0},
    description="Heroes of the Village: build first, fight on a coin, collect what is needed",
    game="heroes_village",
)
