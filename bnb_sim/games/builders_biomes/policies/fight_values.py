"""What the one-step bots (``greedy``, ``heuristic``; ``onestep.py``) make of fights: the
expected value of fighting a mob with the own pile (exact odds from the all-piles table ``ft``),
the value of a stronger pile, how many TNT to detonate (R-FIGHT-4), and whether to fight again
with the Farmer's Market's bed (R-FM-5).

Everything reads ``pub`` (the seat's observation) and the static arrays only.
"""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.components.arrays import TILE_BONUS_MOB, TILE_HUNGER_MOB
from bnb_sim.games.builders_biomes.engine.groups import count_spaces
from bnb_sim.games.builders_biomes.engine.layout import (
    K_FT_HMAX,
    K_PILE_MINS,
    K_PILE_STRIDES,
    MAX_TOKEN_TYPES,
    P_FIGHT_REVEALED,
    P_OWN_PILE,
    TILE_BONUS_CHAR,
    TILE_BONUS_VALUE,
    TILE_BONUS_XP,
    TILE_HEARTS,
    TILE_KIND,
    TILE_XP,
    TOK_DETONATE,
    TOK_HEARTS,
    tile_attr,
    tok_attr,
)
from bnb_sim.games.builders_biomes.engine.scoring import bonus_mask
from bnb_sim.games.builders_biomes.engine.state import C_FIGHT_HEARTS, C_FIGHT_TILE, PASS
from bnb_sim.games.builders_biomes.policies.kinds import W

W_XP = W["xp"]
W_BONUS_MOB = W["bonus_mob"]
W_HUNGER_MOB = W["hunger_mob"]
W_BLOCK_NEED = W["block_need"]
W_BLOCK_BASE = W["block_base"]
W_WEAPON = W["weapon"]
W_TNT = W["tnt"]
NEG = -1.0e18


@kernel(inline="always")
def pile_row(pub, k):
    """Row of the seat's own pile (``P_OWN_PILE``) in the exact odds table ``ft``: the pile's
    counts above the smallest pile, in mixed radix."""
    row = 0
    for t in range(MAX_TOKEN_TYPES):
        row += (pub[P_OWN_PILE + t] - k[K_PILE_MINS + t]) * k[K_PILE_STRIDES + t]
    return row


@kernel(inline="always")
def mob_value(pub, seat, k, ft, w, tile, pile):
    """Expected value of fighting ``tile`` now with the seat's pile (row ``pile`` of the exact
    odds table)."""
    hmax = k[K_FT_HMAX]
    h = tile_attr(k, TILE_HEARTS, tile)
    if h > hmax:
        return NEG
    p = ft[pile, h]
    kind = tile_attr(k, TILE_KIND, tile)
    prize = w[W_XP] * tile_attr(k, TILE_XP, tile)
    if kind == TILE_HUNGER_MOB:
        prize += w[W_HUNGER_MOB]
    elif kind == TILE_BONUS_MOB:
        c = tile_attr(k, TILE_BONUS_CHAR, tile)
        v = tile_attr(k, TILE_BONUS_VALUE, tile)
        spaces = count_spaces(bonus_mask(pub, k, seat, c, v))
        prize += w[W_BONUS_MOB] * tile_attr(k, TILE_BONUS_XP, tile) * spaces
    n = hmax + 1
    value = p * prize + w[W_XP] * ft[pile, 2 * n]
    value += ft[pile, 2 * n + 1] * (w[W_BLOCK_BASE] + 0.5 * w[W_BLOCK_NEED])
    value -= w[W_TNT] * ft[pile, n + h]
    return value


@kernel(inline="always")
def weapon_value(pub, k, ft, w):
    n = k[K_FT_HMAX] + 1
    return w[W_WEAPON] * ft[pile_row(pub, k), 2 * n + 3]


@kernel
def tnt_choice(pub, k, w, legal_max):
    """R-FIGHT-4: detonate as few as needed to turn a loss into a win, if the mob is worth the
    TNT; otherwise none. TNT that adds the most hearts goes first (at most ``legal_max``)."""
    tile = pub[C_FIGHT_TILE]
    need = tile_attr(k, TILE_HEARTS, tile) - pub[C_FIGHT_HEARTS]
    if need <= 0:
        return 0
    total = 0
    used = 0
    prev_gain = 1 << 62
    prev_type = -1
    while used < legal_max:
        # the next token type in the order (gain descending, type ascending)
        best_type = -1
        best_gain = 0
        for t in range(MAX_TOKEN_TYPES):
            if tok_attr(k, TOK_DETONATE, t) <= 0 or pub[P_FIGHT_REVEALED + t] == 0:
                continue
            gain = tok_attr(k, TOK_DETONATE, t) - tok_attr(k, TOK_HEARTS, t)
            after = gain < prev_gain or (gain == prev_gain and t > prev_type)
            if after and (best_type < 0 or gain > best_gain):
                best_type = t
                best_gain = gain
        if best_type < 0:
            return 0
        for _ in range(pub[P_FIGHT_REVEALED + best_type]):
            if used >= legal_max:
                return 0
            total += best_gain
            used += 1
            if total >= need:
                prize = w[W_XP] * tile_attr(k, TILE_XP, tile) + 1.0
                if tile_attr(k, TILE_KIND, tile) == TILE_HUNGER_MOB:
                    prize += w[W_HUNGER_MOB]
                return used if prize > w[W_TNT] * used - 1.0 else 0
        prev_gain = best_gain
        prev_type = best_type
    return 0


@kernel
def bed_choice(pub, seat, k, ft, w):
    """R-FM-5 (the bed): 0 to fight the lost mob a second time, PASS to decline. The second
    fight is a fresh reveal with the pile as it is now (TNT detonated in the first is gone):
    the bot fights again while the fight's expected value is positive (a win's prize against
    the expected TNT spent; golden-hoe XP and pickaxe blocks count for it)."""
    if mob_value(pub, seat, k, ft, w, pub[C_FIGHT_TILE], pile_row(pub, k)) > 0.0:
        return 0
    return PASS
