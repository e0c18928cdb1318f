"""Fight a mob (R-FIGHT-1 to R-FIGHT-6).

A fight is a small state machine because the player decides in the middle of it: each
revealed stone pickaxe asks which block to take at once (R-FIGHT-3, phase PH_PICKAXE), under
the reading ``bow=choose`` each revealed bow asks whether to reveal one more (R-FIGHT-2,
PH_BOW; under ``always`` the extra token is revealed without asking), the Farmer's Market's
reveal-4 item offers its extra token once the usual reveal is over (R-FM-5, PH_REVEAL_FOUR),
and after the reveal the player chooses how many revealed TNT to detonate (R-FIGHT-4, PH_TNT).
The reveal draws from the seat's own combat stream with :func:`draw_token`, the same draw
the Monte Carlo combat kernel uses.
"""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.components.arrays import RULE_FIGHT_REVEAL, TILE_HUNGER_MOB
from bnb_sim.games.builders_biomes.engine.collect import collectable_now
from bnb_sim.games.builders_biomes.engine.combat import draw_token
from bnb_sim.games.builders_biomes.engine.explore import remove_top_tile
from bnb_sim.games.builders_biomes.engine.layout import (
    H_FIGHT_LEFT,
    K_FM_BED_ITEM_REVEAL,
    K_N_TOKEN_TYPES,
    K_OPTS,
    K_RULES,
    MAX_HELD,
    MAX_SPECIES,
    MAX_TOKEN_TYPES,
    P_FIGHT_REVEALED,
    P_HELD,
    P_N_HELD,
    P_N_HUNGER,
    P_SPECIES_FIGHTS,
    P_SPECIES_WINS,
    P_TOP_UP,
    RNG_COMBAT,
    TILE_HEARTS,
    TILE_KIND,
    TILE_SPECIES,
    TILE_XP,
    TOK_BLOCKS,
    TOK_DETONATE,
    TOK_EXTRA,
    TOK_HEARTS,
    TOK_XP,
    ability_at,
    may_at,
    pile_at,
    stat_at,
    tile_attr,
    tok_attr,
    xp_at,
)
from bnb_sim.games.builders_biomes.engine.market import AB_FIGHT_REVEAL, AB_LIGHTNING_XP
from bnb_sim.games.builders_biomes.engine.state import (
    C_BOW_OFFERS,
    C_FIGHT_HEARTS,
    C_FIGHT_STACK,
    C_FIGHT_TILE,
    C_FIGHT_TNT,
    C_FM_REFIGHT,
    C_FM_REVEAL_OFFER,
    C_LAST_WIN,
    C_PICKS_OWED,
    C_REVEALS_OWED,
    EV_BOW_DECLINED,
    EV_FIGHT,
    EV_FIGHT_END,
    EV_HOE,
    EV_MAY_DECLINED,
    EV_TNT,
    EV_TOKEN,
    MAY_FOURTH_TOKEN,
    OPT_BOW_CHOOSE,
    PH_BOW,
    PH_PICKAXE,
    PH_REVEAL_FOUR,
    PH_TNT,
    PH_TURN,
    S_BONUS_MOBS,
    S_FIGHTS,
    S_FIGHTS_WON,
    S_MOBS_DEFEATED,
    S_TNT,
    XP_HOES,
    XP_ITEMS_PLAY,
    XP_MOBS,
    log_event,
)


@kernel
def start_fight(pub, hid, k, seat, stack):
    """Begin a fight against the face-up mob on ``stack``: shuffle the own pile (R-FIGHT-2)."""
    tile = pub[P_TOP_UP + stack]
    pub[C_FIGHT_STACK] = stack
    pub[C_FIGHT_TILE] = tile
    pub[C_REVEALS_OWED] = k[K_RULES + RULE_FIGHT_REVEAL]
    # Farmer's Market, reveal 4 (R-FM-5): the player "may" reveal more once the usual reveal
    # is over (PH_REVEAL_FOUR); the bed's second fight reveals "as per the normal rules"
    # unless the reading fm_bed_reveal=item applies the item to it too
    pub[C_FM_REVEAL_OFFER] = 0
    if pub[ability_at(seat, AB_FIGHT_REVEAL)] > k[K_RULES + RULE_FIGHT_REVEAL]:
        if pub[C_FM_REFIGHT] == 0 or k[K_FM_BED_ITEM_REVEAL] != 0:
            pub[C_FM_REVEAL_OFFER] = 1
    pub[C_FIGHT_HEARTS] = 0
    pub[C_FIGHT_TNT] = 0
    pub[C_PICKS_OWED] = 0
    pub[C_BOW_OFFERS] = 0
    for t in range(MAX_TOKEN_TYPES):
        hid[H_FIGHT_LEFT + t] = hid[pile_at(seat, t)]
        pub[P_FIGHT_REVEALED + t] = 0
    pub[stat_at(seat, S_FIGHTS)] += 1
    pub[P_SPECIES_FIGHTS + seat * MAX_SPECIES + tile_attr(k, TILE_SPECIES, tile)] += 1
    log_event(hid, k, seat, EV_FIGHT, stack, tile, tile_attr(k, TILE_HEARTS, tile))


@kernel(per_constant=True)
def _reveal_one(pub, hid, rng, k, seat, total):
    """Turn over one token and apply what it does at once (R-FIGHT-2, R-FIGHT-3)."""
    n_types = k[K_N_TOKEN_TYPES]
    left = hid[H_FIGHT_LEFT : H_FIGHT_LEFT + n_types]
    t = draw_token(left, total, rng[RNG_COMBAT + seat])
    pub[P_FIGHT_REVEALED + t] += 1
    if k[K_OPTS + OPT_BOW_CHOOSE] != 0:
        pub[C_REVEALS_OWED] -= 1
        pub[C_BOW_OFFERS] += tok_attr(k, TOK_EXTRA, t)  # each one asked in PH_BOW
    else:
        pub[C_REVEALS_OWED] += tok_attr(k, TOK_EXTRA, t) - 1
    pub[C_FIGHT_HEARTS] += tok_attr(k, TOK_HEARTS, t)
    if tok_attr(k, TOK_DETONATE, t) > 0:
        pub[C_FIGHT_TNT] += 1
    log_event(hid, k, seat, EV_TOKEN, t, 0, 0)
    xp = tok_attr(k, TOK_XP, t)
    if xp > 0:
        pub[xp_at(seat, XP_HOES)] += xp
        log_event(hid, k, seat, EV_HOE, xp, 0, 0)
    pub[C_PICKS_OWED] += tok_attr(k, TOK_BLOCKS, t)


@kernel
def continue_fight(pub, hid, rng, k, seat):
    """Reveal until a decision is needed; returns the next phase.

    PH_PICKAXE when a revealed pickaxe owes a block and a block is collectable, PH_BOW when a
    revealed bow offers a reveal (``bow=choose``) and the pile still holds a token, PH_TNT when
    the reveal is over and TNT was revealed, otherwise the fight is resolved and PH_TURN
    returned. The pickaxe's block comes first: both happen "at once", and the block is taken
    before anything more is revealed.
    """
    total = 0
    for t in range(MAX_TOKEN_TYPES):
        total += hid[H_FIGHT_LEFT + t]
    while True:
        if pub[C_PICKS_OWED] > 0:
            if collectable_now(pub, k) != 0:
                return PH_PICKAXE
            pub[C_PICKS_OWED] = 0  # nothing left to take
        if pub[C_BOW_OFFERS] > 0:
            if total > 0:
                return PH_BOW
            pub[C_BOW_OFFERS] = 0  # the pile is exhausted (R-FIGHT-2)
        if pub[C_REVEALS_OWED] <= 0 and pub[C_FM_REVEAL_OFFER] != 0:
            if total > 0:
                return PH_REVEAL_FOUR
            pub[C_FM_REVEAL_OFFER] = 0
        if pub[C_REVEALS_OWED] <= 0 or total == 0:
            break
        _reveal_one(pub, hid, rng, k, seat, total)
        total -= 1
    if pub[C_FIGHT_TNT] > 0:
        return PH_TNT
    resolve_fight(pub, hid, k, seat, 0)
    return PH_TURN


@kernel
def bow_decision(pub, hid, k, seat, reveal):
    """R-FIGHT-2 (``bow=choose``): take or decline one extra reveal a bow offers."""
    pub[C_BOW_OFFERS] -= 1
    if reveal:
        pub[C_REVEALS_OWED] += 1
    else:
        log_event(hid, k, seat, EV_BOW_DECLINED, 1, 0, 0)


@kernel
def reveal_four_decision(pub, hid, k, seat, reveal):
    """R-FM-5 (reveal 4): take or decline the item's extra reveal (the item's amount less the
    usual reveal), offered once per fight after the usual reveal."""
    pub[C_FM_REVEAL_OFFER] = 0
    pub[may_at(seat, MAY_FOURTH_TOKEN, 0)] += 1
    if reveal:
        more = pub[ability_at(seat, AB_FIGHT_REVEAL)] - k[K_RULES + RULE_FIGHT_REVEAL]
        pub[C_REVEALS_OWED] += more
    else:
        pub[may_at(seat, MAY_FOURTH_TOKEN, 1)] += 1
        log_event(hid, k, seat, EV_MAY_DECLINED, MAY_FOURTH_TOKEN, 0, 0)


@kernel(inline="always")
def detonation_gain(k, t):
    """Extra hearts a detonated token of type ``t`` brings over its plain hearts."""
    return tok_attr(k, TOK_DETONATE, t) - tok_attr(k, TOK_HEARTS, t)


@kernel(per_constant=True)
def resolve_fight(pub, hid, k, seat, n_detonate):
    """Detonate ``n_detonate`` revealed TNT (largest gain first; they leave the game), then win
    or lose (R-FIGHT-4, R-FIGHT-5). Other revealed tokens go back into the pile."""
    hearts = pub[C_FIGHT_HEARTS]
    left = n_detonate
    while left > 0:
        best = -1
        for t in range(k[K_N_TOKEN_TYPES]):
            if tok_attr(k, TOK_DETONATE, t) > 0 and pub[P_FIGHT_REVEALED + t] > 0:
                if best < 0 or detonation_gain(k, t) > detonation_gain(k, best):
                    best = t
        if best < 0:
            break
        pub[P_FIGHT_REVEALED + best] -= 1
        hid[pile_at(seat, best)] -= 1
        hearts += detonation_gain(k, best)
        left -= 1
    if n_detonate > 0:
        pub[stat_at(seat, S_TNT)] += n_detonate - left
        log_event(hid, k, seat, EV_TNT, n_detonate - left, hearts - pub[C_FIGHT_HEARTS], 0)
    stack = pub[C_FIGHT_STACK]
    tile = pub[C_FIGHT_TILE]
    mob_hearts = tile_attr(k, TILE_HEARTS, tile)
    won = hearts >= mob_hearts
    if won:
        remove_top_tile(pub, stack)
        held = pub[P_N_HELD + seat]
        if held < MAX_HELD:
            pub[P_HELD + seat * MAX_HELD + held] = tile
            pub[P_N_HELD + seat] = held + 1
        if tile_attr(k, TILE_KIND, tile) == TILE_HUNGER_MOB:
            pub[P_N_HUNGER + seat] += 1
        else:
            pub[stat_at(seat, S_BONUS_MOBS)] += 1
        pub[xp_at(seat, XP_MOBS)] += tile_attr(k, TILE_XP, tile)
        if tile_attr(k, TILE_XP, tile) > 0 and pub[ability_at(seat, AB_LIGHTNING_XP)] > 0:
            pub[xp_at(seat, XP_ITEMS_PLAY)] += pub[ability_at(seat, AB_LIGHTNING_XP)]
        pub[stat_at(seat, S_MOBS_DEFEATED)] += 1
        pub[stat_at(seat, S_FIGHTS_WON)] += 1
        pub[P_SPECIES_WINS + seat * MAX_SPECIES + tile_attr(k, TILE_SPECIES, tile)] += 1
    pub[C_LAST_WIN] = 1 if won else 0
    pub[C_FIGHT_TNT] = 0
    log_event(hid, k, seat, EV_FIGHT_END, 1 if won else 0, hearts, mob_hearts)
