"""Scoring rounds and the end of the game (R-SCORE-1 to R-SCORE-4, R-END-1 to R-END-3)."""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.components.arrays import TILE_BONUS_MOB
from bnb_sim.games.builders_biomes.engine.groups import count_spaces
from bnb_sim.games.builders_biomes.engine.layout import (
    K_FM_ON,
    K_GROUP,
    K_OPTS,
    K_SCORE_CARD,
    MAX_HELD,
    MAX_SEATS,
    P_FM_XP_FARMING,
    P_HELD,
    P_N_HELD,
    TILE_BONUS_CHAR,
    TILE_BONUS_VALUE,
    TILE_BONUS_XP,
    TILE_KIND,
    mask_at,
    stat_at,
    tile_attr,
    xp_at,
)
from bnb_sim.games.builders_biomes.engine.market import FARMING_VALUE, end_items, farming_points
from bnb_sim.games.builders_biomes.engine.state import (
    C_BEGINNER_SEATS,
    C_N_PLAYERS,
    C_PHASE,
    C_ROUNDS_DONE,
    C_ROUNDS_PENDING,
    C_SCORE_ROUND,
    C_SCORE_STEP,
    C_SEAT,
    C_TURN_SEAT,
    C_XP_AFTER_ROUND,
    EV_BONUS,
    EV_GAME_OVER,
    EV_ROUND,
    EV_SCORE,
    OPT_BONUS_BUILT,
    PH_OVER,
    PH_SCORE,
    S_CHOICE,
    XP_BONUS_MOBS,
    XP_ROUND_A,
    log_event,
    supply_total,
    xp_total,
)


@kernel(inline="always")
def counted_spaces(pub, k, seat, mask):
    """Spaces of a 9-bit mask of ``seat``'s board that score: the largest connected group
    (R-SCORE-2), or every space when the seat's player scores by the beginner rule
    (R-SCORE-4, per player: ``variant=beginner,standard``)."""
    if (pub[C_BEGINNER_SEATS] >> seat) & 1:
        return count_spaces(mask)
    return k[K_GROUP + (mask & 0x1FF)]


@kernel(inline="always")
def round_points(pub, k, seat, rnd, value):
    """XP for choosing ``value`` in round ``rnd`` (0 A biome, 1 B material, 2 C type).

    The round's characteristic is the round index: biomes count printed spaces where no
    building stands (R-SCORE-3), materials and types only spaces with a building.
    """
    spaces = counted_spaces(pub, k, seat, pub[mask_at(seat, rnd, value)])
    return spaces * k[K_SCORE_CARD + rnd * 4 + value]


@kernel
def start_round(pub, hid, k, rnd):
    """R-SCORE-2: the round starts with the player whose turn it was."""
    pub[C_SCORE_ROUND] = rnd
    pub[C_SCORE_STEP] = 0
    pub[C_SEAT] = pub[C_TURN_SEAT]
    pub[C_PHASE] = PH_SCORE
    log_event(hid, k, pub[C_TURN_SEAT], EV_ROUND, rnd, 0, 0)


@kernel
def score_choice(pub, hid, k, seat, value):
    """The seat scores the chosen value in the current round; returns True when the round is
    over (everyone has scored)."""
    rnd = pub[C_SCORE_ROUND]
    if value == FARMING_VALUE:  # Farmer's Market, round C only (legal.py): R-FM-6
        points = farming_points(pub, k, seat)
        pub[P_FM_XP_FARMING + seat] += points
    else:
        points = round_points(pub, k, seat, rnd, value)
        pub[xp_at(seat, XP_ROUND_A + rnd)] += points
    pub[stat_at(seat, S_CHOICE + rnd)] = value
    log_event(hid, k, seat, EV_SCORE, rnd, value, points)
    n = pub[C_N_PLAYERS]
    pub[C_SCORE_STEP] += 1
    if pub[C_SCORE_STEP] < n:
        pub[C_SEAT] = (pub[C_TURN_SEAT] + pub[C_SCORE_STEP]) % n
        return False
    pub[C_ROUNDS_DONE] |= 1 << rnd
    pub[C_ROUNDS_PENDING] &= ~(1 << rnd)
    if rnd < 2:  # who leads right after rounds A and B: the report's comebacks (run files only)
        for s in range(n):
            pub[C_XP_AFTER_ROUND + rnd * MAX_SEATS + s] = xp_total(pub, s)
    return True


@kernel(inline="always")
def built_spaces(pub, seat):
    """9-bit mask of the seat's spaces with a building (each shows exactly one material)."""
    built = 0
    for v in range(4):
        built |= pub[mask_at(seat, 1, v)]
    return built


@kernel(inline="always")
def bonus_mask(pub, k, seat, char, value):
    """R-END-1: the spaces a bonus mob for (``char``, ``value``) counts. Materials and types
    exist only on buildings; for a biome the reading ``bonus_biomes`` decides whether the
    printed biome of an uncovered space counts (``visible``) or only buildings (``built``)."""
    mask = pub[mask_at(seat, char, value)]
    if char == 0 and k[K_OPTS + OPT_BONUS_BUILT] != 0:
        mask &= built_spaces(pub, seat)
    return mask


@kernel(inline="always")
def bonus_points(pub, k, seat, tile):
    """R-END-1: printed XP for every space of the board showing the mob's characteristic,
    connected or not."""
    char = tile_attr(k, TILE_BONUS_CHAR, tile)
    value = tile_attr(k, TILE_BONUS_VALUE, tile)
    spaces = count_spaces(bonus_mask(pub, k, seat, char, value))
    return tile_attr(k, TILE_BONUS_XP, tile) * spaces


@kernel
def end_game(pub, hid, k):
    """R-END-1: after round C, bonus mobs score; the game is over."""
    for seat in range(pub[C_N_PLAYERS]):
        for j in range(pub[P_N_HELD + seat]):
            tile = pub[P_HELD + seat * MAX_HELD + j]
            if tile_attr(k, TILE_KIND, tile) == TILE_BONUS_MOB:
                points = bonus_points(pub, k, seat, tile)
                pub[xp_at(seat, XP_BONUS_MOBS)] += points
                log_event(hid, k, seat, EV_BONUS, tile, points, 0)
    if k[K_FM_ON] != 0:
        end_items(pub, hid, k)  # R-FM-5
    pub[C_PHASE] = PH_OVER
    log_event(hid, k, -1, EV_GAME_OVER, 0, 0, 0)


@kernel
def ranks(pub, out):
    """R-END-2: rank 1 = most XP, ties broken by most blocks in the supply; a remaining tie
    shares the rank (several winners). Writes ranks into ``out`` (int64[P])."""
    n = pub[C_N_PLAYERS]
    for a in range(n):
        xp_a = xp_total(pub, a)
        blocks_a = supply_total(pub, a)
        better = 0
        for b in range(n):
            xp_b = xp_total(pub, b)
            if xp_b > xp_a or (xp_b == xp_a and supply_total(pub, b) > blocks_a):
                better += 1
        out[a] = better + 1
