"""Rule invariants of a Heroes of the Village state (``--check``), in nopython code.

``check_invariants`` returns 0 when the state is sound, else the code of the first broken
invariant (``INVARIANT_MESSAGES`` names them).
"""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.heroes_village.layout import (
    DARKNESS,
    K_GEN_SLOTS,
    K_LAST_SPACE,
    K_LLAMA_SLOTS,
    K_N_CHOSEN,
    K_N_DARK,
    K_N_STACKS,
    K_N_TILES,
    K_RED_SLOTS,
    K_TILE_SYMBOL,
    K_TO_WIN,
    K_TOTAL,
    LLAMA,
    MAX_TILES,
    N_BLOCKS,
    NO_SYMBOL,
    PH_OVER,
    REDSTONE,
    S_BUILT,
    S_DONE,
    S_DRAWN,
    S_HANDED,
    S_ILLAGER,
    S_INV,
    S_MOB_NEXT,
    S_MOBS_DEFEATED,
    S_N_PLAYERS,
    S_PATH_DARK,
    S_PET,
    S_PHASE,
    S_POUCH,
    S_STACK_H,
    S_SUPPLY,
    S_TILE_LAID,
    S_TILE_MOB,
    S_TILES_LAID,
    S_WON,
)

INV_BLOCKS = 1
INV_NEGATIVE = 2
INV_MOB_TILE = 3
INV_MOB_TWICE = 4
INV_ILLAGER = 5
INV_END = 6
INV_SLOTS = 7
INV_TILES = 8
INV_MOB_COUNT = 9

INVARIANT_MESSAGES = {
    INV_BLOCKS: "blocks not conserved (supply + pouch + inventories + buildings + path)",
    INV_NEGATIVE: "a negative block count",
    INV_MOB_TILE: "a mob on a tile that is not laid or has no collecting symbol",
    INV_MOB_TWICE: "one mob token on two tiles",
    INV_ILLAGER: "the Illager outside its path",
    INV_END: "the game state does not match R-HV-1 (won, lost or still running)",
    INV_SLOTS: "an inventory holds more blocks than its slots",
    INV_TILES: "tiles laid + tiles in stacks differ from the tile count",
    INV_MOB_COUNT: "mob tokens drawn differ from mobs on tiles + mobs defeated",
}


@kernel
def check_invariants(s, k, reused):
    """0 if every invariant holds, else the first broken one's code."""
    n_players = s[S_N_PLAYERS]
    for b in range(N_BLOCKS):
        total = s[S_SUPPLY + b] + s[S_POUCH + b] + s[S_DRAWN + b] + s[S_HANDED + b]
        if s[S_SUPPLY + b] < 0 or s[S_POUCH + b] < 0 or s[S_DRAWN + b] < 0:
            return INV_NEGATIVE
        for p in range(n_players):
            if s[S_INV + p * N_BLOCKS + b] < 0:
                return INV_NEGATIVE
            total += s[S_INV + p * N_BLOCKS + b]
        if b == DARKNESS:
            for i in range(k[K_N_DARK]):
                total += s[S_PATH_DARK + i]
        if total != k[K_TOTAL + b]:
            return INV_BLOCKS
    for p in range(n_players):
        inv = S_INV + p * N_BLOCKS
        general = s[inv] + s[inv + 1] + s[inv + 2] + s[inv + DARKNESS]
        red = s[inv + REDSTONE]
        extra = k[K_LLAMA_SLOTS] if s[S_PET + p] == LLAMA else 0
        if max(0, general - k[K_GEN_SLOTS]) + max(0, red - k[K_RED_SLOTS]) > extra:
            return INV_SLOTS
    on_tiles = 0
    for t in range(k[K_N_TILES]):
        token = s[S_TILE_MOB + t]
        if token >= 0:
            on_tiles += 1
            if s[S_TILE_LAID + t] < 0 or k[K_TILE_SYMBOL + t] == NO_SYMBOL:
                return INV_MOB_TILE
            for u in range(t + 1, k[K_N_TILES]):
                if s[S_TILE_MOB + u] == token:
                    return INV_MOB_TWICE
    if not reused and on_tiles + s[S_MOBS_DEFEATED] != s[S_MOB_NEXT]:
        return INV_MOB_COUNT
    in_stacks = 0
    for st in range(k[K_N_STACKS]):
        in_stacks += s[S_STACK_H + st]
    if in_stacks + s[S_TILES_LAID] != k[K_N_TILES] or s[S_TILES_LAID] > MAX_TILES:
        return INV_TILES
    pos = s[S_ILLAGER]
    if pos < 0 or pos > k[K_LAST_SPACE]:
        return INV_ILLAGER
    built = 0
    for j in range(k[K_N_CHOSEN]):
        built += s[S_DONE + j]
    if built != s[S_BUILT]:
        return INV_END
    over = s[S_PHASE] == PH_OVER
    if over:
        won_ok = s[S_WON] == 1 and built >= k[K_TO_WIN] and pos > 0
        lost_ok = s[S_WON] == 0 and pos == 0 and built < k[K_TO_WIN]
        if not (won_ok or lost_ok):
            return INV_END
    elif built >= k[K_TO_WIN] or pos == 0:
        return INV_END
    return 0
