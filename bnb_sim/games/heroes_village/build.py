"""The build action of Heroes of the Village (R-HV-7).

At the village a player "turns in their collected blocks" to the buildings; darkness is wild.
One hand-in gives a building every block of the player's that it still needs (with the wild
option, darkness for what is left too). Under the reading ``build=several`` (the default, the
text's) one build action may hand in to several buildings, one after the other: after each
hand-in the player may hand in to another building (``A_BUILD`` + ...) or stop (``A_STOP``),
in the phase ``PH_BUILD``; under ``build=one`` the action ends after one building.
"""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.heroes_village.core import log_event, move_illager, stat_add
from bnb_sim.games.heroes_village.layout import (
    A_BUILD,
    DARKNESS,
    EV_BUILD,
    EV_COMPLETE,
    EV_END,
    K_BUILD_PUSH,
    K_N_CHOSEN,
    K_TO_WIN,
    N_BLOCKS,
    PH_OVER,
    REDSTONE,
    S_BUILT,
    S_CHOSEN,
    S_DONE,
    S_HANDED,
    S_INV,
    S_NEED,
    S_PHASE,
    S_WON,
    T_HANDED,
)


@kernel(inline="always")
def build_gain(s, k, seat, j, use_dark):
    """Blocks ``seat`` would hand in to chosen building ``j`` (R-HV-7)."""
    inv = S_INV + seat * N_BLOCKS
    need = S_NEED + j * N_BLOCKS
    given = 0
    left = 0
    for t in range(N_BLOCKS):
        g = min(s[inv + t], s[need + t])
        given += g
        left += s[need + t] - g
    if use_dark:
        given += min(s[inv + DARKNESS], left)
    return given


@kernel(inline="always")
def build_options(s, k, seat, mask):
    """Mark the legal hand-ins of ``seat`` in ``mask``; whether there is one. A wild hand-in
    is offered only where darkness adds to what the plain one gives."""
    any_option = False
    has_dark = s[S_INV + seat * N_BLOCKS + DARKNESS] > 0
    for j in range(k[K_N_CHOSEN]):
        if s[S_DONE + j]:
            continue
        plain = build_gain(s, k, seat, j, False)
        if plain > 0:
            mask[A_BUILD + 2 * j] = True
            any_option = True
        if has_dark and build_gain(s, k, seat, j, True) > plain:
            mask[A_BUILD + 2 * j + 1] = True
            any_option = True
    return any_option


@kernel(inline="always")
def can_build_more(s, k, seat):
    """Whether ``seat`` could still hand in to an unfinished building."""
    for j in range(k[K_N_CHOSEN]):
        if s[S_DONE + j] == 0 and build_gain(s, k, seat, j, True) > 0:
            return True
    return False


@kernel
def build(s, k, seat, j, use_dark, log, more):
    """R-HV-7: hand in blocks to chosen building ``j``; darkness is wild. Darkness fills the
    redstone need first (the scarcest block), then the largest remaining needs. ``more``:
    this hand-in continues a build action (logged as such)."""
    inv = S_INV + seat * N_BLOCKS
    need = S_NEED + j * N_BLOCKS
    given = 0
    for t in range(N_BLOCKS):
        g = min(s[inv + t], s[need + t])
        s[inv + t] -= g
        s[need + t] -= g
        s[S_HANDED + t] += g
        given += g
    if use_dark:
        while s[inv + DARKNESS] > 0:
            target = -1
            if s[need + REDSTONE] > 0:
                target = REDSTONE
            else:
                best = 0
                for t in range(N_BLOCKS):
                    if s[need + t] > best:
                        best = s[need + t]
                        target = t
            if target < 0:
                break
            s[need + target] -= 1
            s[inv + DARKNESS] -= 1
            s[S_HANDED + DARKNESS] += 1
            given += 1
    stat_add(s, seat, T_HANDED, given)
    log_event(log, s, EV_BUILD, j, given, use_dark + 2 * more)
    left = 0
    for t in range(N_BLOCKS):
        left += s[need + t]
    if left == 0:
        s[S_DONE + j] = 1
        s[S_BUILT] += 1
        log_event(log, s, EV_COMPLETE, j, s[S_CHOSEN + j], s[S_BUILT])
        if s[S_BUILT] >= k[K_TO_WIN]:
            s[S_PHASE] = PH_OVER
            s[S_WON] = 1
            log_event(log, s, EV_END, 1, s[S_BUILT], 0)
            return
        move_illager(s, k, k[K_BUILD_PUSH], log)
