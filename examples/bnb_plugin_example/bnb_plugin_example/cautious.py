"""``cautious``: a hand-written bot that never starts a fight it does not expect to win.

Before fighting, it estimates its win probability by shuffling its own pile in its head
(``samples`` Monte Carlo reveals drawn from its own policy stream) and fights only when the
estimate reaches ``min_win``. Otherwise it builds whenever it can, collects blocks (emeralds
first), takes weapon tokens and explores towards face-down stacks. In scoring rounds it picks
the value that scores most.

Parameters (``--policy cautious:min_win=0.9,samples=200``):

* ``min_win`` (default 0.75): least estimated win probability to start a fight;
* ``samples`` (default 64): simulated reveals per estimate.

The observation holds tile *ids* (face-up tiles, held mobs); their hearts and XP, the weapon
tokens and the scoring cards come from ``static``, the run's component numbers, so the bot
plays by the same numbers as the engine under ``--components``.

Everything below ``decide`` is numba nopython code: plain loops over int64/float64 arrays.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bnb_sim.games.builders_biomes.components.arrays import RULE_FIGHT_REVEAL, TILE_BUILDING
from bnb_sim.games.builders_biomes.engine import layout as _L
from bnb_sim.games.builders_biomes.engine import state as _S
from bnb_sim.games.builders_biomes.engine.observation import static_layout
from bnb_sim.plugins import Plugin
from bnb_sim.rng import bounded

# ---- offsets into ``static`` (bnb_sim.games.builders_biomes.engine.observation.static_layout())
# ------------------
_STATIC = static_layout()
TILE_KIND = _STATIC["tile_kind"][0]
TILE_HEARTS = _STATIC["tile_hearts"][0]
TILE_XP = _STATIC["tile_xp"][0]
TOK_HEARTS = _STATIC["token_hearts"][0]
TOK_EXTRA = _STATIC["token_extra_reveals"][0]
TOK_DETONATE = _STATIC["token_detonate"][0]
N_TOKEN_TYPES = _STATIC["n_token_types"][0]
FIGHT_REVEAL = _STATIC["rules"][0] + RULE_FIGHT_REVEAL
SCORE_CARD = _STATIC["score_card"][0]
GROUP = _STATIC["group_table"][0]
BUILDING = TILE_BUILDING
EMERALD = 4

# ---- observation offsets (bnb_sim.games.builders_biomes.engine.observation.flat_layout())
# ----------------------
PHASE = _S.C_PHASE
SEAT = _S.C_SEAT
ACTIONS_DONE = _S.C_ACTIONS_DONE
FIGHT_TILE = _S.C_FIGHT_TILE
FIGHT_HEARTS = _S.C_FIGHT_HEARTS
SCORE_ROUND = _S.C_SCORE_ROUND
VISIBLE_BLOCKS = _L.P_VIS_BLOCK
STACK_HEIGHT = _L.P_STACK_H
FACE_UP = _L.P_TOP_UP
POSITION = _L.P_POS
SUPPLY = _L.P_SUPPLY
BOARD_TOP = _L.P_BOARD_TOP
BOARD_MASK = _L.P_BOARD_MASK
OWN_PILE = _L.P_OWN_PILE
N_BLOCK_TYPES = _L.N_BLOCK_TYPES

# ---- phases and actions (bnb_sim.games.builders_biomes.engine.state)
# ---------------------------------------------
PH_TURN = _S.PH_TURN
PH_COLLECT = _S.PH_COLLECT
PH_EXPLORE = _S.PH_EXPLORE
PH_BUILD_SPACE = _S.PH_BUILD_SPACE
PH_FIGHT_MOB = _S.PH_FIGHT_MOB
PH_PICKAXE = _S.PH_PICKAXE
PH_TNT = _S.PH_TNT
PH_SCORE = _S.PH_SCORE
COLLECT = _S.ACT_COLLECT
EXPLORE = _S.ACT_EXPLORE
BUILD = _S.ACT_BUILD
FIGHT = _S.ACT_FIGHT
WEAPON = _S.ACT_WEAPON
PASS = _S.PASS


@njit(cache=True)
def first_legal(legal):
    """The lowest legal action (PASS if nothing else)."""
    for a in range(legal.shape[0]):
        if legal[a]:
            return a
    return PASS


@njit(cache=True)
def win_probability(obs, static, hearts, rng, samples):
    """Share of ``samples`` simulated reveals of the own pile that reach ``hearts``
    (R-FIGHT-2: 3 tokens, one more per bow; every revealed TNT detonated, R-FIGHT-4)."""
    n_types = static[N_TOKEN_TYPES]
    left = np.empty(n_types, np.int64)
    wins = 0
    for _ in range(samples):
        total = 0
        for t in range(n_types):
            left[t] = obs[OWN_PILE + t]
            total += left[t]
        owed = static[FIGHT_REVEAL]
        got = 0
        while owed > 0 and total > 0:
            r = bounded(rng, total)
            t = 0
            while r >= left[t]:
                r -= left[t]
                t += 1
            left[t] -= 1
            total -= 1
            owed += static[TOK_EXTRA + t] - 1
            if static[TOK_DETONATE + t] > 0:
                got += static[TOK_DETONATE + t]
            else:
                got += static[TOK_HEARTS + t]
        if got >= hearts:
            wins += 1
    return wins / max(samples, 1)


@njit(cache=True)
def stacks_next_to(point, out):
    """Write the stacks next to crossing point ``point`` into ``out``; returns how many."""
    i = point // 5
    j = point % 5
    n = 0
    for r in range(i, i + 2):
        for c in range(j, j + 2):
            if 1 <= r <= 4 and 1 <= c <= 4:
                out[n] = (r - 1) * 4 + (c - 1)
                n += 1
    return n


@njit(cache=True)
def best_mob(obs, legal, static, only_legal, rng, samples):
    """Best face-up mob next to the seat: ``(stack, estimated p, expected XP)``."""
    seat = obs[SEAT]
    around = np.empty(4, np.int64)
    n = stacks_next_to(obs[POSITION + seat], around)
    best_stack = -1
    best_p = 0.0
    best_value = -1.0
    for i in range(n):
        s = around[i]
        tile = obs[FACE_UP + s]
        if tile < 0 or static[TILE_KIND + tile] == BUILDING:
            continue
        if only_legal and not legal[s]:
            continue
        p = win_probability(obs, static, static[TILE_HEARTS + tile], rng, samples)
        value = p * static[TILE_XP + tile]
        if value > best_value:
            best_stack, best_p, best_value = s, p, value
    return best_stack, best_p, best_value


@njit(cache=True)
def pick_block(obs, legal):
    """An emerald if one can be taken, else the lowest collectable position (else PASS)."""
    for pos in range(64):
        if legal[pos] and obs[VISIBLE_BLOCKS + pos] == EMERALD:
            return pos
    for pos in range(64):
        if legal[pos]:
            return pos
    return PASS


@njit(cache=True)
def pick_point(obs, legal, static):
    """The reachable point next to the most face-down stacks (face-up buildings count too)."""
    around = np.empty(4, np.int64)
    best = -1
    best_score = -1
    for point in range(25):
        if not legal[point]:
            continue
        score = 0
        n = stacks_next_to(point, around)
        for i in range(n):
            s = around[i]
            if obs[STACK_HEIGHT + s] > 0 and obs[FACE_UP + s] < 0:
                score += 2
            elif obs[FACE_UP + s] >= 0 and static[TILE_KIND + obs[FACE_UP + s]] == BUILDING:
                score += 1
        if score > best_score:
            best, best_score = point, score
    return best


@njit(cache=True)
def pick_score_value(obs, static):
    """R-SCORE-2: the value with the most XP (largest connected group x card)."""
    seat = obs[SEAT]
    rnd = obs[SCORE_ROUND]
    best = 0
    best_points = -1
    for v in range(4):
        mask = obs[BOARD_MASK + seat * 12 + rnd * 4 + v] & 511
        points = static[GROUP + mask] * static[SCORE_CARD + rnd * 4 + v]
        if points > best_points:
            best, best_points = v, points
    return best


def decide(obs, legal, static, rng, params, mem):
    """The plugin function (compiled by bnb-sim with ``PLUGIN_SIGNATURE``)."""
    phase = obs[PHASE]
    min_win = params[0]
    samples = np.int64(params[1])
    if phase == PH_TURN:
        seat = obs[SEAT]
        if legal[FIGHT]:
            stack, p, _ = best_mob(obs, legal, static, False, rng, samples)
            if stack >= 0 and p >= min_win:
                return FIGHT
        if legal[BUILD]:
            return BUILD
        if obs[ACTIONS_DONE] >= 2 and legal[PASS]:
            return PASS  # spend hunger mobs only on fights and buildings
        blocks = 0
        for b in range(N_BLOCK_TYPES):
            blocks += obs[SUPPLY + seat * N_BLOCK_TYPES + b]
        if legal[COLLECT] and blocks < 10:
            return COLLECT
        if legal[WEAPON]:
            return WEAPON
        if legal[EXPLORE]:
            return EXPLORE
        return first_legal(legal)
    if phase == PH_FIGHT_MOB:
        stack, _, _ = best_mob(obs, legal, static, True, rng, samples)
        return stack if stack >= 0 else first_legal(legal)
    if phase == PH_TNT:
        need = static[TILE_HEARTS + obs[FIGHT_TILE]] - obs[FIGHT_HEARTS]
        gain = 0
        for t in range(static[N_TOKEN_TYPES]):
            if static[TOK_DETONATE + t] - static[TOK_HEARTS + t] > gain:
                gain = static[TOK_DETONATE + t] - static[TOK_HEARTS + t]
        if need <= 0 or gain <= 0:
            return 0
        n = (need + gain - 1) // gain
        return n if n < 64 and legal[n] else 0
    if phase == PH_COLLECT or phase == PH_PICKAXE:
        return pick_block(obs, legal)
    if phase == PH_EXPLORE:
        return pick_point(obs, legal, static)
    if phase == PH_BUILD_SPACE:
        seat = obs[SEAT]
        for space in range(9):
            if obs[BOARD_TOP + seat * 9 + space] < 0:
                return space
        return first_legal(legal)
    if phase == PH_SCORE:
        return pick_score_value(obs, static)
    return first_legal(legal)  # which building, which weapon token


CAUTIOUS = Plugin(
    decide,
    params={"min_win": 0.75, "samples": 64.0},
    description="fights only when its estimated win probability reaches min_win",
)
