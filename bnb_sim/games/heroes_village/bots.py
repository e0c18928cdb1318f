"""The Heroes of the Village bots in nopython code: ``random`` and the cooperative ``team``.

Both see only what players see: the laid tiles and their mobs, the stack tops' backs, the
pouch (players may peek into it, R-HV-4), the buildings and every inventory. The team bot
scores each legal decision with its named weights (``policies.TEAM_WEIGHTS``) and takes the
best one; its own random stream breaks ties.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel
from bnb_sim.games.heroes_village.bot_fight import DP_SIZE, fight_value
from bnb_sim.games.heroes_village.layout import (
    A_BUILD,
    A_COLLECT,
    A_DISCARD,
    A_EXPLORE,
    A_FIGHT,
    A_PASS,
    A_PICK,
    A_PICK_NONE,
    A_STOP,
    CAT,
    DARKNESS,
    HORSE,
    K_CAT_DRAW,
    K_CAT_IGNORE,
    K_DRAW,
    K_FIGHT_ROLLS,
    K_GEN_SLOTS,
    K_HORSE_TILES,
    K_LLAMA_SLOTS,
    K_N_CHOSEN,
    K_PANDA_IGNORE,
    K_RED_SLOTS,
    K_START,
    K_TILE_BACK,
    K_TILE_SYMBOL,
    K_TOKEN_VALUE,
    LLAMA,
    MAX_STACKS,
    MAX_TILES,
    MAX_TOKENS,
    N_BLOCKS,
    NO_SYMBOL,
    PANDA,
    PH_ACTION,
    PH_FIGHT,
    REDSTONE,
    RNG_POLICY,
    S_CAT_USED,
    S_DONE,
    S_FIGHT_ROLLS,
    S_ILLAGER,
    S_INV,
    S_MOB_NEXT,
    S_MOB_PILE,
    S_N_PLAYERS,
    S_NEED,
    S_PANDA_USED,
    S_PET,
    S_PHASE,
    S_POUCH,
    S_SIZE,
    S_STACK,
    S_STACK_H,
    S_SUPPLY,
    S_TILE_MOB,
)
from bnb_sim.games.heroes_village.policies import (
    PLUGIN,
    RANDOM,
    TEAM,
    W_BLOCK,
    W_COMPLETE,
    W_DARK_KEEP,
    W_DISCARD,
    W_EXPLORE,
    W_EXPLORE_BASE,
    W_HAND_IN,
    W_MOB,
    W_REDSTONE,
    W_URGENCY,
)
from bnb_sim.rng import bounded_row

# scratch layout of ``buf`` (float64)
B_SHORT = 0  # blocks still to find per type (needs minus what the team holds)
# what every collect decision of one turn shares, computed once per decision (the chance
# of a mob is a hypergeometric sum, the costliest term; profile: scripts/profile_hotv.py)
B_P_MOB = B_SHORT + N_BLOCKS  # P(collecting spawns a mob); -1 = not computed yet
# the value of collecting at a tile depends on the tile only through its symbol: one value
# per symbol and decision (NaN = not computed yet), not one per collectable tile
B_COLLECT = B_P_MOB + 1
B_FIGHT = B_COLLECT + N_BLOCKS  # scratch of the fight value (bot_fight)
B_SIZE = B_FIGHT + DP_SIZE


@kernel
def choose_random(mask, rng, seat):
    """A uniformly random legal decision from the seat's own stream."""
    n = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            n += 1
    r = bounded_row(rng, RNG_POLICY + seat, n)
    for a in range(mask.shape[0]):
        if mask[a]:
            if r == 0:
                return a
            r -= 1
    return -1


@kernel(inline="always")
def _shortfall(s, k, buf):
    """``buf[B_SHORT + t]``: blocks of type t the unfinished buildings need beyond what the
    team holds; ``buf[B_SHORT + DARKNESS]``: needs no held block covers, minus darkness held."""
    for t in range(N_BLOCKS):
        buf[B_SHORT + t] = 0.0
    for j in range(k[K_N_CHOSEN]):
        if s[S_DONE + j] == 0:
            for t in range(REDSTONE + 1):
                buf[B_SHORT + t] += s[S_NEED + j * N_BLOCKS + t]
    dark = 0
    total = 0.0
    for p in range(s[S_N_PLAYERS]):
        for t in range(REDSTONE + 1):
            buf[B_SHORT + t] -= s[S_INV + p * N_BLOCKS + t]
        dark += s[S_INV + p * N_BLOCKS + DARKNESS]
    for t in range(REDSTONE + 1):
        if buf[B_SHORT + t] < 0.0:
            buf[B_SHORT + t] = 0.0
        total += buf[B_SHORT + t]
    buf[B_SHORT + DARKNESS] = max(0.0, total - dark)


@kernel(inline="always")
def _free_slots(s, k, seat):
    """(general, redstone) free slots of ``seat``, the Llama's extra counted in both."""
    inv = S_INV + seat * N_BLOCKS
    general = s[inv] + s[inv + 1] + s[inv + 2] + s[inv + DARKNESS]
    red = s[inv + REDSTONE]
    extra = k[K_LLAMA_SLOTS] if s[S_PET + seat] == LLAMA else 0
    used_extra = max(0, general - k[K_GEN_SLOTS]) + max(0, red - k[K_RED_SLOTS])
    spare = extra - used_extra
    return max(0, k[K_GEN_SLOTS] - general) + spare, max(0, k[K_RED_SLOTS] - red) + spare


@kernel(inline="always")
def _choose(n, r):
    """The binomial coefficient C(n, r) as a float (0 outside the range)."""
    if r < 0 or r > n:
        return 0.0
    out = 1.0
    for i in range(r):
        out = out * (n - i) / (i + 1)
    return out


@kernel(inline="always")
def _p_no_darkness(pouch_n, dark, draws, allowed):
    """P(at most ``allowed`` darkness among ``draws`` blind draws from ``pouch_n`` blocks)
    (hypergeometric)."""
    total = _choose(pouch_n, draws)
    if total == 0.0:
        return 1.0
    p = 0.0
    for x in range(allowed + 1):
        p += _choose(dark, x) * _choose(pouch_n - dark, draws - x) / total
    return min(1.0, p)


@kernel(inline="always")
def _collect_value(params, s, k, seat, pet, sym, buf):
    """The value of collecting at a tile with symbol ``sym`` (R-HV-4): the expected matching
    blocks and redstone that fit and are needed, minus the chance of a mob."""
    n = 0
    for b in range(N_BLOCKS):
        n += s[S_POUCH + b]
    if n == 0:
        return -1.0
    d = min(k[K_DRAW], n)
    free_gen, free_red = _free_slots(s, k, seat)
    e_sym = d * s[S_POUCH + sym] / n
    e_red = d * s[S_POUCH + REDSTONE] / n
    value = params[W_BLOCK] * min(e_sym, free_gen, buf[B_SHORT + sym])
    value += params[W_REDSTONE] * min(e_red, free_red, buf[B_SHORT + REDSTONE])
    if buf[B_P_MOB] < 0.0:  # the same for every tile: the pouch and the pet decide it
        allowed = 0
        if pet == CAT and s[S_CAT_USED] < k[K_CAT_IGNORE]:
            # the Cat ignores its first darkness block(s), or a whole draw (reading cat)
            allowed = d if k[K_CAT_DRAW] else k[K_CAT_IGNORE] - s[S_CAT_USED]
        buf[B_P_MOB] = 1.0 - _p_no_darkness(n, s[S_POUCH + DARKNESS], d, allowed)
    return value - params[W_MOB] * buf[B_P_MOB]


@kernel(inline="always")
def _collect_at(a, params, s, k, seat, pet, buf):
    """The value of collect decision ``a``: its symbol's, computed by the first tile with
    that symbol in this decision."""
    sym = k[K_TILE_SYMBOL + a - A_COLLECT]
    if buf[B_COLLECT + sym] != buf[B_COLLECT + sym]:  # NaN: first tile with this symbol
        buf[B_COLLECT + sym] = _collect_value(params, s, k, seat, pet, sym, buf)
    return buf[B_COLLECT + sym]


@kernel(inline="always")
def _value(a, params, s, k, kf, seat, buf):
    inv = S_INV + seat * N_BLOCKS
    pet = s[S_PET + seat]
    if a >= A_PICK and a < A_PICK_NONE:
        b = a - A_PICK
        if b == REDSTONE:
            return params[W_REDSTONE] * (buf[B_SHORT + b] > 0.0)
        if buf[B_SHORT + b] > 0.0:
            return params[W_BLOCK]
        return -0.1
    if a == A_PICK_NONE or a == A_PASS or a == A_STOP:
        return 0.0  # A_STOP: end the optional rest of an action (worth nothing more)
    if a < A_COLLECT:  # explore
        tile = s[S_STACK + (a - A_EXPLORE) * MAX_TILES + s[S_STACK_H + a - A_EXPLORE] - 1]
        value = params[W_EXPLORE_BASE]
        for b in range(REDSTONE + 1):
            n = min(k[K_TILE_BACK + tile * N_BLOCKS + b], s[S_SUPPLY + b])
            if buf[B_SHORT + b] > 0.0:
                value += params[W_EXPLORE] * n
        if pet == HORSE and s[S_PHASE] == PH_ACTION:  # the action lays up to two tiles
            value *= k[K_HORSE_TILES]
        return value
    if a < A_FIGHT:  # collect
        return _collect_at(a, params, s, k, seat, pet, buf)
    if a < A_BUILD:  # fight: start one, or (PH_FIGHT) roll again; the value of rolling on
        tile = a - A_FIGHT
        v = k[K_TOKEN_VALUE + s[S_TILE_MOB + tile]]
        unblock = 1.0
        sym = k[K_TILE_SYMBOL + tile]
        if sym != NO_SYMBOL and buf[B_SHORT + sym] > 0.0:
            unblock = 2.0
        rolls = k[K_FIGHT_ROLLS]
        if s[S_PHASE] == PH_FIGHT:
            rolls -= s[S_FIGHT_ROLLS]
        panda = k[K_PANDA_IGNORE] - s[S_PANDA_USED] if pet == PANDA else 0
        return fight_value(params, s, k, seat, v, unblock, rolls, max(0, panda), buf, B_FIGHT)
    if a < A_DISCARD:  # build
        j = (a - A_BUILD) // 2
        use_dark = (a - A_BUILD) % 2
        need = S_NEED + j * N_BLOCKS
        left = 0
        given = 0
        plain = 0
        for t in range(N_BLOCKS):
            g = min(s[inv + t], s[need + t])
            plain += g
            left += s[need + t] - g
        given = plain
        darks = 0
        if use_dark:
            darks = min(s[inv + DARKNESS], left)
            given += darks
        value = params[W_HAND_IN] * given
        remaining = 0
        for t in range(N_BLOCKS):
            remaining += s[need + t]
        if given == remaining:
            closer = max(0, k[K_START] - s[S_ILLAGER])
            value += params[W_COMPLETE] * (1.0 + params[W_URGENCY] * closer)
        else:
            value -= params[W_DARK_KEEP] * darks * 2.0
        return value
    # discard
    b = a - A_DISCARD
    free_gen, free_red = _free_slots(s, k, seat)
    full = free_red == 0 if b == REDSTONE else free_gen == 0
    if full and buf[B_SHORT + b] <= 0.0 and b != DARKNESS:
        return params[W_DISCARD]
    return -10.0


@kernel(inline="always")
def _keep(a, value, best, best_value, ties, rng, seat):
    """``(best, best_value, ties)`` after decision ``a`` of ``value``: a higher value wins;
    a tie is kept with probability 1/ties (reservoir sampling), so ties go to a uniformly
    random one of the tied decisions and only ties cost a random number."""
    if value > best_value:
        return a, value, 1
    if value == best_value:
        ties += 1
        if bounded_row(rng, RNG_POLICY + seat, ties) == 0:
            best = a
    return best, best_value, ties


@kernel(inline="always")
def choose_team(params, s, k, kf, mask, rng, seat, buf):
    """The team bot: the legal decision with the highest value (ties: its own stream).

    The decisions are scored in their order; the collect decisions, most of the legal ones,
    in a loop of their own that reads their symbol's value (one third less time per
    decision than one loop over every kind, scripts/profile_hotv.py)."""
    _shortfall(s, k, buf)
    buf[B_P_MOB] = -1.0
    for b in range(N_BLOCKS):
        buf[B_COLLECT + b] = np.nan
    pet = s[S_PET + seat]
    best = -1
    best_value = -1e300
    ties = 0
    for a in range(A_EXPLORE, A_COLLECT):
        if mask[a]:
            value = _value(a, params, s, k, kf, seat, buf)
            best, best_value, ties = _keep(a, value, best, best_value, ties, rng, seat)
    for a in range(A_COLLECT, A_FIGHT):
        if mask[a]:
            value = _collect_at(a, params, s, k, seat, pet, buf)
            best, best_value, ties = _keep(a, value, best, best_value, ties, rng, seat)
    for a in range(A_FIGHT, mask.shape[0]):
        if mask[a]:
            value = _value(a, params, s, k, kf, seat, buf)
            best, best_value, ties = _keep(a, value, best, best_value, ties, rng, seat)
    return best


@kernel
def decide(kind, params, plugin_fn, s, k, kf, mask, rng, seat, buf, obs, mem):
    """The decision of ``seat`` under its policy kind (a plugin sees :func:`observe`)."""
    if kind == RANDOM:
        return choose_random(mask, rng, seat)
    if kind == TEAM:
        return choose_team(params, s, k, kf, mask, rng, seat, buf)
    if kind == PLUGIN:
        observe(s, k, obs)
        return plugin_fn(obs, mask, k, rng[RNG_POLICY + seat], params, mem)
    return -1


@kernel
def observe(s, k, obs):
    """What the players see, in the state's layout (``layout.S_*``): the state with what lies
    face down hidden (-1): the tiles under each stack's top and the mob tokens not drawn yet."""
    for i in range(S_SIZE):
        obs[i] = s[i]
    for st in range(MAX_STACKS):
        top = s[S_STACK_H + st] - 1
        for j in range(MAX_TILES):
            if j != top:
                obs[S_STACK + st * MAX_TILES + j] = -1
    for j in range(s[S_MOB_NEXT], MAX_TOKENS):
        obs[S_MOB_PILE + j] = -1
