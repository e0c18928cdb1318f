"""Heroes of the Village rules in nopython code (R-HV-1 .. R-HV-11).

One game lives in a flat ``int64`` array ``s`` (slots named in ``layout``), its component data
in the flat ``int64`` array ``k`` and its random streams in ``rng`` (one xoshiro256** state
per chance source and per seat's policy, seeded from (master, game index, stream) by
``bnb_sim.rng``). Every function here is a ``kernel``: it works in the arrays it is
given and allocates nothing.

Free movement (R-HV-2) makes the position of the pieces irrelevant: a player may stand on any
tile before any action, so the engine records which tiles are laid, not where.
"""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.heroes_village.layout import (
    A_BUILD,
    A_COLLECT,
    A_DISCARD,
    A_EXPLORE,
    A_FIGHT,
    A_PASS,
    A_PICK,
    A_PICK_NONE,
    CAT,
    DARKNESS,
    EV_BUILD,
    EV_COLLECT,
    EV_COMPLETE,
    EV_DARK_TO_POUCH,
    EV_DEFEAT,
    EV_DIE,
    EV_DISCARD,
    EV_DRAW,
    EV_END,
    EV_EXPLORE,
    EV_FIGHT,
    EV_FREE_TILE,
    EV_ILLAGER,
    EV_MOB,
    EV_PICK,
    EV_ROLL,
    EV_SETUP,
    EV_TURN,
    FACE_ARROW,
    FACE_ILLAGER,
    FOX,
    HORSE,
    K_ACTIONS,
    K_BUILD_PUSH,
    K_BUILDING_COST,
    K_BUILDING_LEVEL,
    K_CAT_IGNORE,
    K_CHOSEN,
    K_DARK_SPACES,
    K_DISCARD_TO_POUCH,
    K_DRAW,
    K_FIGHT_FACES,
    K_FIGHT_ROLLS,
    K_FOX_EXTRA,
    K_GEN_SLOTS,
    K_HORSE_TILES,
    K_ILL_FACES,
    K_LAST_SPACE,
    K_LLAMA_SLOTS,
    K_MOBS_REUSED,
    K_N_BUILDINGS,
    K_N_CHOSEN,
    K_N_DARK,
    K_N_FIGHT_FACES,
    K_N_ILL_FACES,
    K_N_STACKS,
    K_N_TILES,
    K_N_TOKENS,
    K_PANDA_IGNORE,
    K_PANDA_PER_TURN,
    K_POUCH0,
    K_RED_SLOTS,
    K_REWARD_DRAW,
    K_START,
    K_TILE_BACK,
    K_TILE_SYMBOL,
    K_TO_WIN,
    K_TOKEN_VALUE,
    K_TOTAL,
    K_WOLF_BONUS,
    LLAMA,
    MAX_ROUNDS,
    MAX_TILES,
    N_BLOCKS,
    N_STREAMS,
    NO_SYMBOL,
    PANDA,
    PH_ACTION,
    PH_OVER,
    PH_PICK,
    PICK_FOX,
    PICK_NONE,
    PICK_REWARD,
    REDSTONE,
    RNG_FIGHT,
    RNG_ILLAGERS,
    RNG_POUCH,
    RNG_SETUP,
    S_ACTIONS_LEFT,
    S_ARROWS,
    S_BUILT,
    S_CAT_USED,
    S_CHOSEN,
    S_DONE,
    S_DRAWN,
    S_DRAWS_EMPTY,
    S_END_BY_DIE,
    S_FIGHTS_CUT,
    S_FREE_TILES,
    S_HANDED,
    S_ILLAGER,
    S_ILLAGER_MIN,
    S_ILLAGER_ROLLS,
    S_INV,
    S_LOST_IN_FIGHT,
    S_MOB_NEXT,
    S_MOB_PILE,
    S_MOBS_DEFEATED,
    S_MOBS_SPAWNED,
    S_N_PLAYERS,
    S_NEED,
    S_PANDA_USED,
    S_PATH_DARK,
    S_PET,
    S_PHASE,
    S_PICK_KIND,
    S_POUCH,
    S_SEAT,
    S_SEAT_STATS,
    S_STACK,
    S_STACK_H,
    S_SUPPLY,
    S_TILE_LAID,
    S_TILE_MOB,
    S_TILES_LAID,
    S_TRACK,
    S_TURN,
    S_WON,
    SEAT_STRIDE,
    T_BLOCKS,
    T_BUILD,
    T_COLLECT,
    T_DARK_IGNORED,
    T_DISCARD,
    T_EXPLORE,
    T_FIGHT,
    T_FIGHTS_BY_VALUE,
    T_FIGHTS_WON,
    T_FOX,
    T_HANDED,
    T_ILL_IGNORED,
    T_PASS,
    T_PICK,
    T_ROLLS,
    T_SPAWNED,
    T_TILES,
    T_WINS_BY_VALUE,
    WOLF,
)
from bnb_sim.rng import bounded_row, seed_stream, shuffle_inplace

# ----------------------------------------------------------------------------- logging


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


# ----------------------------------------------------------------------------- set-up


@kernel
def setup_game(s, k, rng, pets, master, game_index, n_players, log):
    """R-HV-10: streams, the pouch, three stacks, the mob pile, the buildings, the path."""
    for i in range(s.shape[0]):
        s[i] = 0
    for stream in range(N_STREAMS):
        seed_stream(rng[stream], master, game_index, stream)
    s[S_N_PLAYERS] = n_players
    s[S_PHASE] = PH_ACTION
    s[S_ACTIONS_LEFT] = k[K_ACTIONS]
    s[S_ILLAGER] = k[K_START]
    s[S_ILLAGER_MIN] = k[K_START]
    for b in range(N_BLOCKS):
        s[S_POUCH + b] = k[K_POUCH0 + b]
        s[S_SUPPLY + b] = k[K_TOTAL + b] - k[K_POUCH0 + b]
    for i in range(k[K_N_DARK]):
        s[S_PATH_DARK + i] = 1
        s[S_SUPPLY + DARKNESS] -= 1
    for p in range(n_players):
        s[S_PET + p] = pets[p]
    # the tiles: shuffled, dealt into stacks (the top of a stack is its last entry)
    n_tiles = k[K_N_TILES]
    n_stacks = k[K_N_STACKS]
    order = s[S_MOB_PILE : S_MOB_PILE + n_tiles]  # scratch space, overwritten below
    for t in range(n_tiles):
        order[t] = t
        s[S_TILE_LAID + t] = -1
        s[S_TILE_MOB + t] = -1
    for t in range(n_tiles, MAX_TILES):
        s[S_TILE_LAID + t] = -1
        s[S_TILE_MOB + t] = -1
    shuffle_inplace(rng[RNG_SETUP], order)
    per_stack = n_tiles // n_stacks
    for st in range(n_stacks):
        s[S_STACK_H + st] = per_stack
        for j in range(per_stack):
            s[S_STACK + st * MAX_TILES + j] = order[st * per_stack + j]
    # the mob pile, face down
    n_tokens = k[K_N_TOKENS]
    pile = s[S_MOB_PILE : S_MOB_PILE + n_tokens]
    for i in range(n_tokens):
        pile[i] = i
    shuffle_inplace(rng[RNG_SETUP], pile)
    # the buildings: a fixed one, or one of a level drawn from the set-up stream
    for i in range(k[K_N_CHOSEN]):
        code = k[K_CHOSEN + i]
        if code < 0:
            level = -code - 1
            count = 0
            for b in range(k[K_N_BUILDINGS]):
                if k[K_BUILDING_LEVEL + b] == level and not _already_chosen(s, k, i, b):
                    count += 1
            pick = bounded_row(rng, RNG_SETUP, count)
            for b in range(k[K_N_BUILDINGS]):
                if k[K_BUILDING_LEVEL + b] == level and not _already_chosen(s, k, i, b):
                    if pick == 0:
                        code = b
                        break
                    pick -= 1
        s[S_CHOSEN + i] = code
        for t in range(N_BLOCKS):
            s[S_NEED + i * N_BLOCKS + t] = k[K_BUILDING_COST + code * N_BLOCKS + t]
        log_event(log, s, EV_SETUP, i, code, 0)
    for r in range(MAX_ROUNDS):
        s[S_TRACK + r] = -1
    log_event(log, s, EV_TURN, s[S_ILLAGER], 0, 0)


@kernel
def _already_chosen(s, k, upto, b):
    for j in range(upto):
        if s[S_CHOSEN + j] == b:
            return True
    return False


# ----------------------------------------------------------------------------- helpers


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


@kernel(inline="always")
def stack_top(s, stack):
    h = s[S_STACK_H + stack]
    if h == 0:
        return -1
    return s[S_STACK + stack * MAX_TILES + h - 1]


@kernel(inline="always")
def top_usable(s, k, stack):
    """Whether the top tile of ``stack`` shows at least one block still in the supply."""
    tile = stack_top(s, stack)
    if tile < 0:
        return False
    for b in range(N_BLOCKS):
        if k[K_TILE_BACK + tile * N_BLOCKS + b] > 0 and s[S_SUPPLY + b] > 0:
            return True
    return False


@kernel
def lay_tile(s, k, stack, seat, log, free):
    """Lay the top tile of ``stack``: its back's blocks go from the supply into the pouch, as
    many as are left (R-HV-3)."""
    tile = stack_top(s, stack)
    s[S_STACK_H + stack] -= 1
    s[S_TILE_LAID + tile] = s[S_TILES_LAID]
    s[S_TILES_LAID] += 1
    moved = 0
    for b in range(N_BLOCKS):
        n = min(k[K_TILE_BACK + tile * N_BLOCKS + b], s[S_SUPPLY + b])
        s[S_SUPPLY + b] -= n
        s[S_POUCH + b] += n
        moved += n
    stat_add(s, seat, T_TILES, 1)
    log_event(log, s, EV_FREE_TILE if free else EV_EXPLORE, tile, moved, stack)
    return tile


@kernel
def free_lay(s, k, log):
    """R-HV-3: while every stack top shows only blocks no longer available, lay tiles (not
    an action) until a top shows an available block; from the first non-empty stack."""
    n_stacks = k[K_N_STACKS]
    while True:
        any_left = False
        for st in range(n_stacks):
            if s[S_STACK_H + st] > 0:
                any_left = True
                if top_usable(s, k, st):
                    return
        if not any_left:
            return
        for st in range(n_stacks):
            if s[S_STACK_H + st] > 0:
                lay_tile(s, k, st, s[S_SEAT], log, True)
                s[S_FREE_TILES] += 1
                break


# ----------------------------------------------------------------------------- legal moves


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


@kernel
def legal_mask(s, k, mask):
    """Fill ``mask`` (bool[N_ACTIONS]) with the legal decisions of the seat to move."""
    for a in range(mask.shape[0]):
        mask[a] = False
    seat = s[S_SEAT]
    inv = S_INV + seat * N_BLOCKS
    if s[S_PHASE] == PH_PICK:
        for b in range(N_BLOCKS):
            if s[S_DRAWN + b] > 0 and can_hold(s, k, seat, b):
                if s[S_PICK_KIND] == PICK_FOX and (b == REDSTONE or b == DARKNESS):
                    continue
                mask[A_PICK + b] = True
        mask[A_PICK_NONE] = True
        return
    if s[S_PHASE] != PH_ACTION:
        return
    any_action = False
    for st in range(k[K_N_STACKS]):
        if s[S_STACK_H + st] > 0:
            mask[A_EXPLORE + st] = True
            any_action = True
    for t in range(k[K_N_TILES]):
        if s[S_TILE_LAID + t] < 0:
            continue
        if s[S_TILE_MOB + t] >= 0:
            mask[A_FIGHT + t] = True
            any_action = True
        elif k[K_TILE_SYMBOL + t] != NO_SYMBOL:
            mask[A_COLLECT + t] = True
            any_action = True
    has_dark = s[inv + DARKNESS] > 0
    for j in range(k[K_N_CHOSEN]):
        if s[S_DONE + j]:
            continue
        if build_gain(s, k, seat, j, False) > 0:
            mask[A_BUILD + 2 * j] = True
            any_action = True
        if has_dark and build_gain(s, k, seat, j, True) > build_gain(s, k, seat, j, False):
            mask[A_BUILD + 2 * j + 1] = True
            any_action = True
    for b in range(N_BLOCKS):
        if s[inv + b] > 0:
            mask[A_DISCARD + b] = True
    if not any_action:
        mask[A_PASS] = True


# ----------------------------------------------------------------------------- actions


@kernel(inline="always")
def place_mob(s, k, tile, log):
    """Put the next mob token on ``tile``'s collecting symbol (R-HV-4); none if the pile is
    empty."""
    if s[S_MOB_NEXT] >= k[K_N_TOKENS]:
        return False
    token = s[S_MOB_PILE + s[S_MOB_NEXT]]
    s[S_MOB_NEXT] += 1
    s[S_TILE_MOB + tile] = token
    s[S_MOBS_SPAWNED] += 1
    log_event(log, s, EV_MOB, tile, token, k[K_TOKEN_VALUE + token])
    return True


@kernel
def collect(s, k, rng, seat, tile, log):
    """R-HV-4 (and the Cat and the Fox of R-HV-9)."""
    symbol = k[K_TILE_SYMBOL + tile]
    drawn = draw_from_pouch(s, rng, k[K_DRAW])
    if drawn == 0:
        s[S_DRAWS_EMPTY] += 1
    log_event(log, s, EV_COLLECT, tile, symbol, drawn)
    log_event(
        log,
        s,
        EV_DRAW,
        s[S_DRAWN] * 10000 + s[S_DRAWN + 1] * 1000 + s[S_DRAWN + 2] * 100 + s[S_DRAWN + 3] * 10,
        s[S_DRAWN + DARKNESS],
        0,
    )
    inv = S_INV + seat * N_BLOCKS
    # matching blocks, then redstone, while slots are free
    for b in (symbol, REDSTONE):
        while s[S_DRAWN + b] > 0 and can_hold(s, k, seat, b):
            s[S_DRAWN + b] -= 1
            s[inv + b] += 1
            stat_add(s, seat, T_BLOCKS, 1)
    # darkness goes back; one mob at most, unless the Cat ignores it
    dark = s[S_DRAWN + DARKNESS]
    if dark > 0:
        s[S_POUCH + DARKNESS] += dark
        s[S_DRAWN + DARKNESS] = 0
        if s[S_PET + seat] == CAT and s[S_CAT_USED] < k[K_CAT_IGNORE]:
            ignored = min(dark, k[K_CAT_IGNORE] - s[S_CAT_USED])
            s[S_CAT_USED] += ignored
            dark -= ignored
            stat_add(s, seat, T_DARK_IGNORED, ignored)
        if dark > 0 and place_mob(s, k, tile, log):
            stat_add(s, seat, T_SPAWNED, 1)
    # the Fox may keep one non-matching wood, sand or stone
    if s[S_PET + seat] == FOX and k[K_FOX_EXTRA] > 0:
        for b in range(3):
            if s[S_DRAWN + b] > 0 and can_hold(s, k, seat, b):
                s[S_PICK_KIND] = PICK_FOX
                s[S_PHASE] = PH_PICK
                return
    return_drawn(s)


@kernel
def _finish_on_paper(s, k, rng, seat, value, bonus, rolls_done):
    """A fight that the loss cut short is finished for the fight statistics only (the game
    is over, so the extra rolls of its fight stream change nothing): counting only the cut
    fights that were lost would bias the recorded P(defeated) downward, leaving them out
    would bias it upward."""
    won = False
    for _ in range(rolls_done, k[K_FIGHT_ROLLS]):
        face = k[K_FIGHT_FACES + bounded_row(rng, RNG_FIGHT, k[K_N_FIGHT_FACES])]
        if face >= 0 and face + bonus >= value:
            won = True
            break
    stat_add(s, seat, T_FIGHTS_BY_VALUE + value, 1)
    if won:
        stat_add(s, seat, T_WINS_BY_VALUE + value, 1)


@kernel
def fight(s, k, rng, seat, tile, log):
    """R-HV-6 with the Wolf and the Panda (R-HV-9): up to three rolls of the Fight die."""
    token = s[S_TILE_MOB + tile]
    value = k[K_TOKEN_VALUE + token]
    pet = s[S_PET + seat]
    bonus = k[K_WOLF_BONUS] if pet == WOLF else 0
    n_faces = k[K_N_FIGHT_FACES]
    log_event(log, s, EV_FIGHT, tile, token, value)
    won = False
    for r in range(k[K_FIGHT_ROLLS]):
        face = k[K_FIGHT_FACES + bounded_row(rng, RNG_FIGHT, n_faces)]
        stat_add(s, seat, T_ROLLS, 1)
        log_event(log, s, EV_ROLL, face, r, value)
        if face >= 0:
            if face + bonus >= value:
                won = True
                break
        elif face == FACE_ARROW:
            s[S_ARROWS] += 1
            move_illager(s, k, 1, log)
        elif face == FACE_ILLAGER:
            if pet == PANDA and s[S_PANDA_USED] < k[K_PANDA_IGNORE]:
                s[S_PANDA_USED] += 1
                stat_add(s, seat, T_ILL_IGNORED, 1)
            else:
                s[S_ILLAGER_ROLLS] += 1
                move_illager(s, k, -1, log)
                if is_over(s):
                    s[S_LOST_IN_FIGHT] = 1
                    s[S_FIGHTS_CUT] += 1
                    _finish_on_paper(s, k, rng, seat, value, bonus, r + 1)
                    return
    if k[K_PANDA_PER_TURN] == 0:
        s[S_PANDA_USED] = 0
    stat_add(s, seat, T_FIGHTS_BY_VALUE + value, 1)
    if not won:
        return
    stat_add(s, seat, T_FIGHTS_WON, 1)
    stat_add(s, seat, T_WINS_BY_VALUE + value, 1)
    s[S_TILE_MOB + tile] = -1
    s[S_MOBS_DEFEATED] += 1
    if k[K_MOBS_REUSED]:
        # the token goes under the pile: shift the unused part down, put it last
        nxt = s[S_MOB_NEXT]
        for i in range(nxt - 1, k[K_N_TOKENS] - 1):
            s[S_MOB_PILE + i] = s[S_MOB_PILE + i + 1]
        s[S_MOB_PILE + k[K_N_TOKENS] - 1] = token
        s[S_MOB_NEXT] = nxt - 1
    log_event(log, s, EV_DEFEAT, tile, token, value)
    # the reward: draw, keep one (darkness may be kept)
    draw_from_pouch(s, rng, k[K_REWARD_DRAW])
    for b in range(N_BLOCKS):
        if s[S_DRAWN + b] > 0 and can_hold(s, k, seat, b):
            s[S_PICK_KIND] = PICK_REWARD
            s[S_PHASE] = PH_PICK
            return
    return_drawn(s)


@kernel
def build(s, k, seat, j, use_dark, log):
    """R-HV-7: hand in blocks to chosen building ``j``; darkness is wild. Darkness fills the
    redstone need first (the scarcest block), then the largest remaining needs."""
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
    log_event(log, s, EV_BUILD, j, given, use_dark)
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


@kernel
def end_turn(s, k, rng, log):
    """R-HV-8: roll the Illagers die, then the next player (a round ends after the last)."""
    face = k[K_ILL_FACES + bounded_row(rng, RNG_ILLAGERS, k[K_N_ILL_FACES])]
    log_event(log, s, EV_DIE, face, 0, 0)
    if face == FACE_ILLAGER:
        move_illager(s, k, -1, log)
    elif face == FACE_ARROW:
        move_illager(s, k, 1, log)
    s[S_TURN] += 1
    if is_over(s):
        s[S_END_BY_DIE] = 1
    n = s[S_N_PLAYERS]
    if s[S_SEAT] == n - 1:
        r = s[S_TURN] // n - 1
        if 0 <= r < MAX_ROUNDS:
            s[S_TRACK + r] = s[S_ILLAGER]
    if is_over(s):
        return
    s[S_SEAT] = (s[S_SEAT] + 1) % n
    s[S_ACTIONS_LEFT] = k[K_ACTIONS]
    s[S_CAT_USED] = 0
    s[S_PANDA_USED] = 0
    log_event(log, s, EV_TURN, s[S_ILLAGER], 0, 0)


@kernel
def apply_action(s, k, rng, a, log):
    """Apply the legal decision ``a`` of the seat to move (R-HV-2 .. R-HV-9)."""
    seat = s[S_SEAT]
    inv = S_INV + seat * N_BLOCKS
    if s[S_PHASE] == PH_PICK:
        if a != A_PICK_NONE:
            b = a - A_PICK
            s[S_DRAWN + b] -= 1
            s[inv + b] += 1
            stat_add(s, seat, T_PICK, 1)
            stat_add(s, seat, T_BLOCKS, 1)
            if s[S_PICK_KIND] == PICK_FOX:
                stat_add(s, seat, T_FOX, 1)
            log_event(log, s, EV_PICK, b, s[S_PICK_KIND], 0)
        return_drawn(s)
        s[S_PICK_KIND] = PICK_NONE
        s[S_PHASE] = PH_ACTION
    elif a >= A_DISCARD and a < A_DISCARD + N_BLOCKS:
        b = a - A_DISCARD
        s[inv + b] -= 1
        if k[K_DISCARD_TO_POUCH]:
            s[S_POUCH + b] += 1
        else:
            s[S_SUPPLY + b] += 1
        stat_add(s, seat, T_DISCARD, 1)
        log_event(log, s, EV_DISCARD, b, 0, 0)
        return  # free: not an action (R-HV-7)
    else:
        if a < A_COLLECT:
            stat_add(s, seat, T_EXPLORE, 1)
            n_tiles = k[K_HORSE_TILES] if s[S_PET + seat] == HORSE else 1
            stack = a - A_EXPLORE
            for _i in range(n_tiles):
                if s[S_STACK_H + stack] == 0:
                    stack = _first_stack(s, k)
                    if stack < 0:
                        break
                lay_tile(s, k, stack, seat, log, False)
        elif a < A_FIGHT:
            stat_add(s, seat, T_COLLECT, 1)
            collect(s, k, rng, seat, a - A_COLLECT, log)
        elif a < A_BUILD:
            stat_add(s, seat, T_FIGHT, 1)
            fight(s, k, rng, seat, a - A_FIGHT, log)
        elif a < A_DISCARD:
            stat_add(s, seat, T_BUILD, 1)
            j = (a - A_BUILD) // 2
            build(s, k, seat, j, (a - A_BUILD) % 2, log)
        else:  # A_PASS
            stat_add(s, seat, T_PASS, 1)
        s[S_ACTIONS_LEFT] -= 1
    if is_over(s) or s[S_PHASE] == PH_PICK:
        return
    if s[S_ACTIONS_LEFT] <= 0:
        end_turn(s, k, rng, log)


@kernel
def _first_stack(s, k):
    for st in range(k[K_N_STACKS]):
        if s[S_STACK_H + st] > 0:
            return st
    return -1
