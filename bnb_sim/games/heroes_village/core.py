"""The primitives every Heroes of the Village rules kernel shares: the event log, the per-seat
statistics, the pouch, the inventory limits and the Illager's movement (R-HV-1, R-HV-4,
R-HV-5, R-HV-8).

They live apart from ``engine`` so that the fight (``fight``) and build (``build``) modules
can use them without importing the engine that dispatches to them. Every function is a
``kernel``: it works in the arrays it is given and allocates nothing.
"""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.heroes_village.layout import (
    DARKNESS,
    EV_DARK_TO_POUCH,
    EV_END,
    EV_ILLAGER,
    K_DARK_SPACES,
    K_GEN_SLOTS,
    K_LAST_SPACE,
    K_LLAMA_SLOTS,
    K_N_DARK,
    K_RED_SLOTS,
    LLAMA,
    N_BLOCKS,
    PH_OVER,
    REDSTONE,
    RNG_POUCH,
    S_BUILT,
    S_DRAWN,
    S_ILLAGER,
    S_ILLAGER_MIN,
    S_INV,
    S_PATH_DARK,
    S_PET,
    S_PHASE,
    S_POUCH,
    S_SEAT,
    S_SEAT_STATS,
    S_TURN,
    S_WON,
    SEAT_STRIDE,
)
from bnb_sim.rng import bounded_row


@kernel(inline="always")
def log_event(log, s, kind, a, b, c):
    """Append one event row to ``log`` (row 0 holds the count); no-op for an empty log."""
    if log.shape[0] == 0:
        return
    n = log[0, 0]
    if n + 1 >= log.shape[0]:
        return
    row = n + 1
    log[row, 0] = kind
    log[row, 1] = s[S_TURN]
    log[row, 2] = s[S_SEAT]
    log[row, 3] = a
    log[row, 4] = b
    log[row, 5] = c
    log[0, 0] = n + 1


@kernel(inline="always")
def stat_add(s, seat, which, amount):
    s[S_SEAT_STATS + seat * SEAT_STRIDE + which] += amount


# ----------------------------------------------------------------------------- pouch, slots


@kernel(inline="always")
def pouch_total(s):
    total = 0
    for b in range(N_BLOCKS):
        total += s[S_POUCH + b]
    return total


@kernel(inline="always")
def can_hold(s, k, seat, block):
    """R-HV-5: whether ``seat`` has a free slot for ``block`` (three general slots for wood,
    sand, stone or darkness, one for redstone; the Llama's extra slots take anything)."""
    inv = S_INV + seat * N_BLOCKS
    general = s[inv] + s[inv + 1] + s[inv + 2] + s[inv + DARKNESS]
    red = s[inv + REDSTONE]
    if block == REDSTONE:
        red += 1
    else:
        general += 1
    extra = k[K_LLAMA_SLOTS] if s[S_PET + seat] == LLAMA else 0
    over = max(0, general - k[K_GEN_SLOTS]) + max(0, red - k[K_RED_SLOTS])
    return over <= extra


@kernel(inline="always")
def draw_from_pouch(s, rng, n):
    """Draw up to ``n`` blocks blind into ``S_DRAWN`` (R-HV-4: all if fewer); returns the
    number drawn."""
    drawn = 0
    for _ in range(n):
        total = pouch_total(s)
        if total == 0:
            break
        r = bounded_row(rng, RNG_POUCH, total)
        for b in range(N_BLOCKS):
            if r < s[S_POUCH + b]:
                s[S_POUCH + b] -= 1
                s[S_DRAWN + b] += 1
                drawn += 1
                break
            r -= s[S_POUCH + b]
    return drawn


@kernel(inline="always")
def return_drawn(s):
    for b in range(N_BLOCKS):
        s[S_POUCH + b] += s[S_DRAWN + b]
        s[S_DRAWN + b] = 0


@kernel
def move_illager(s, k, delta, log):
    """Move the Illager ``delta`` spaces (negative = toward the village, space 0), within
    its path; landing on a darkness space puts that block into the pouch (R-HV-8); reaching
    the village ends the game (R-HV-1)."""
    pos = s[S_ILLAGER] + delta
    if pos > k[K_LAST_SPACE]:
        pos = k[K_LAST_SPACE]
    if pos < 0:
        pos = 0
    if pos == s[S_ILLAGER]:
        return
    s[S_ILLAGER] = pos
    if pos < s[S_ILLAGER_MIN]:
        s[S_ILLAGER_MIN] = pos
    log_event(log, s, EV_ILLAGER, pos, delta, 0)
    for i in range(k[K_N_DARK]):
        if k[K_DARK_SPACES + i] == pos and s[S_PATH_DARK + i] == 1:
            s[S_PATH_DARK + i] = 0
            s[S_POUCH + DARKNESS] += 1
            log_event(log, s, EV_DARK_TO_POUCH, pos, 0, 0)
    if pos == 0:
        s[S_PHASE] = PH_OVER
        s[S_WON] = 0
        log_event(log, s, EV_END, 0, s[S_BUILT], 0)


@kernel(inline="always")
def is_over(s):
    return s[S_PHASE] == PH_OVER
