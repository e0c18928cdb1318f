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
from bnb_sim.games.heroes_village.build import build, build_options, can_build_more
from bnb_sim.games.heroes_village.core import (
    can_hold,
    draw_from_pouch,
    is_over,
    log_event,
    move_illager,
    return_drawn,
    stat_add,
)
from bnb_sim.games.heroes_village.fight import roll_fight, start_fight, stop_fight
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
    EV_COLLECT,
    EV_DIE,
    EV_DISCARD,
    EV_DRAW,
    EV_EXPLORE,
    EV_FREE_TILE,
    EV_HORSE_STOP,
    EV_MOB,
    EV_PICK,
    EV_SETUP,
    EV_TURN,
    FACE_ARROW,
    FACE_ILLAGER,
    FIX_POLICY,
    FOX,
    HORSE,
    K_ACTIONS,
    K_BUILD_SEVERAL,
    K_BUILDING_COST,
    K_BUILDING_LEVEL,
    K_CAT_DRAW,
    K_CAT_IGNORE,
    K_CHOSEN,
    K_DISCARD_TO_POUCH,
    K_DRAW,
    K_FIX_GROUP,
    K_FIX_SOURCES,
    K_FOX_EXTRA,
    K_FREE_NEEDED,
    K_HORSE_TILES,
    K_ILL_FACES,
    K_N_BUILDINGS,
    K_N_CHOSEN,
    K_N_DARK,
    K_N_ILL_FACES,
    K_N_STACKS,
    K_N_TILES,
    K_N_TOKENS,
    K_POUCH0,
    K_START,
    K_TILE_BACK,
    K_TILE_SYMBOL,
    K_TOKEN_VALUE,
    K_TOTAL,
    MAX_ROUNDS,
    MAX_TILES,
    N_BLOCKS,
    N_STREAMS,
    NO_SYMBOL,
    PH_ACTION,
    PH_BUILD,
    PH_FIGHT,
    PH_HORSE,
    PH_PICK,
    PICK_FOX,
    PICK_NONE,
    REDSTONE,
    RNG_ILLAGERS,
    RNG_RECORD,
    RNG_SETUP,
    S_ACTIONS_LEFT,
    S_CAT_USED,
    S_CHOSEN,
    S_DONE,
    S_DRAWN,
    S_DRAWS_EMPTY,
    S_END_BY_DIE,
    S_FIGHT_TILE,
    S_FREE_TILES,
    S_HORSE_LEFT,
    S_ILLAGER,
    S_ILLAGER_MIN,
    S_INV,
    S_MOB_NEXT,
    S_MOB_PILE,
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
    S_STACK,
    S_STACK_H,
    S_SUPPLY,
    S_TILE_LAID,
    S_TILE_MOB,
    S_TILES_LAID,
    S_TRACK,
    S_TURN,
    T_BLOCKS,
    T_BUILD,
    T_COLLECT,
    T_DARK_IGNORED,
    T_DISCARD,
    T_EXPLORE,
    T_EXTRA_HAND_INS,
    T_FIGHT,
    T_FOX,
    T_HORSE_DECLINED,
    T_PASS,
    T_PICK,
    T_SPAWNED,
    T_TILES,
)
from bnb_sim.rng import bounded_row, seed_stream, shuffle_inplace, stream_game_index

# ----------------------------------------------------------------------------- set-up


@kernel
def setup_game(s, k, rng, pets, master, game_index, n_players, log):
    """R-HV-10: streams, the pouch, three stacks, the mob pile, the buildings, the path."""
    for i in range(s.shape[0]):
        s[i] = 0
    for stream in range(N_STREAMS):
        source = min(stream, FIX_POLICY)  # every seat's policy stream is one source
        if stream == RNG_RECORD:  # the fight record never moves the game: never fixed
            source = 63
        index = stream_game_index(game_index, k[K_FIX_SOURCES], k[K_FIX_GROUP], source)
        seed_stream(rng[stream], master, index, stream)
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


# ----------------------------------------------------------------------------- tiles


@kernel(inline="always")
def stack_top(s, stack):
    h = s[S_STACK_H + stack]
    if h == 0:
        return -1
    return s[S_STACK + stack * MAX_TILES + h - 1]


@kernel(inline="always")
def block_needed(s, k, block):
    """Whether an unfinished building still needs ``block`` (R-HV-3's "needed")."""
    for j in range(k[K_N_CHOSEN]):
        if s[S_DONE + j] == 0 and s[S_NEED + j * N_BLOCKS + block] > 0:
            return True
    return False


@kernel(inline="always")
def top_usable(s, k, stack):
    """Whether the top tile of ``stack`` shows a block still in the supply and (reading
    ``free_lay=needed``) still needed by an unfinished building."""
    tile = stack_top(s, stack)
    if tile < 0:
        return False
    for b in range(N_BLOCKS):
        if k[K_TILE_BACK + tile * N_BLOCKS + b] > 0 and s[S_SUPPLY + b] > 0:
            if k[K_FREE_NEEDED] == 0 or block_needed(s, k, b):
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
    """R-HV-3: while no stack top is usable (``top_usable``), lay tiles (not an action) until
    one is; from the first non-empty stack."""
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
        lay_tile(s, k, _first_stack(s, k), s[S_SEAT], log, True)
        s[S_FREE_TILES] += 1


@kernel
def _first_stack(s, k):
    for st in range(k[K_N_STACKS]):
        if s[S_STACK_H + st] > 0:
            return st
    return -1


# ----------------------------------------------------------------------------- legal moves


@kernel
def legal_mask(s, k, mask):
    """Fill ``mask`` (bool[N_ACTIONS]) with the legal decisions of the seat to move."""
    for a in range(mask.shape[0]):
        mask[a] = False
    seat = s[S_SEAT]
    inv = S_INV + seat * N_BLOCKS
    phase = s[S_PHASE]
    if phase == PH_PICK:
        for b in range(N_BLOCKS):
            if s[S_DRAWN + b] > 0 and can_hold(s, k, seat, b):
                if s[S_PICK_KIND] == PICK_FOX and (b == REDSTONE or b == DARKNESS):
                    continue
                mask[A_PICK + b] = True
        mask[A_PICK_NONE] = True
        return
    if phase == PH_FIGHT:  # R-HV-6: roll again, or stop
        mask[A_FIGHT + s[S_FIGHT_TILE]] = True
        mask[A_STOP] = True
        return
    if phase == PH_BUILD:  # R-HV-7: hand in to another building, or stop
        build_options(s, k, seat, mask)
        mask[A_STOP] = True
        return
    if phase == PH_HORSE:  # R-HV-9: the Horse's next tile, from any stack, or none
        for st in range(k[K_N_STACKS]):
            mask[A_EXPLORE + st] = s[S_STACK_H + st] > 0
        mask[A_STOP] = True
        return
    if phase != PH_ACTION:
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
    if build_options(s, k, seat, mask):
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
    d = S_DRAWN
    log_event(log, s, EV_DRAW, s[d] * 10000 + s[d + 1] * 1000 + s[d + 2] * 100 + s[d + 3] * 10,
              s[d + DARKNESS], 0)  # fmt: skip
    inv = S_INV + seat * N_BLOCKS
    # matching blocks, then redstone, while slots are free
    for b in (symbol, REDSTONE):
        while s[S_DRAWN + b] > 0 and can_hold(s, k, seat, b):
            s[S_DRAWN + b] -= 1
            s[inv + b] += 1
            stat_add(s, seat, T_BLOCKS, 1)
    # darkness goes back; one mob at most, unless the Cat ignores it: its first darkness
    # block of the turn (reading cat=first-block) or its first draw with darkness (first-draw)
    dark = s[S_DRAWN + DARKNESS]
    if dark > 0:
        s[S_POUCH + DARKNESS] += dark
        s[S_DRAWN + DARKNESS] = 0
        if s[S_PET + seat] == CAT and s[S_CAT_USED] < k[K_CAT_IGNORE]:
            ignored = dark if k[K_CAT_DRAW] else min(dark, k[K_CAT_IGNORE] - s[S_CAT_USED])
            s[S_CAT_USED] += 1 if k[K_CAT_DRAW] else ignored
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
def end_turn(s, k, rng, log):
    """R-HV-8: roll the Illagers die, then the next player (a round ends after the last);
    play proceeds to the left, seat 0, 1, ..., n - 1 (R-HV-2)."""
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
def explore(s, k, seat, stack, log):
    """R-HV-3 explore (the Horse: R-HV-9, "allowed to add two world tiles"): lay the top of
    ``stack``; a Horse may then lay more tiles, one decision each (``PH_HORSE``)."""
    lay_tile(s, k, stack, seat, log, False)
    if s[S_PHASE] == PH_HORSE:
        s[S_HORSE_LEFT] -= 1
    elif s[S_PET + seat] == HORSE and k[K_HORSE_TILES] > 1:
        s[S_HORSE_LEFT] = k[K_HORSE_TILES] - 1
    s[S_PHASE] = PH_HORSE if s[S_HORSE_LEFT] > 0 and _first_stack(s, k) >= 0 else PH_ACTION


@kernel
def pick(s, k, seat, a, log):
    """Keep one block of an open pick (``A_PICK`` + block) or none; the rest go back."""
    inv = S_INV + seat * N_BLOCKS
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


@kernel
def hand_in(s, k, seat, a, log, more):
    """R-HV-7: one hand-in of a build action; then (reading ``build=several``) the player may
    hand in to another building while one can take blocks (``PH_BUILD``)."""
    build(s, k, seat, (a - A_BUILD) // 2, (a - A_BUILD) % 2, log, more)
    if is_over(s):
        return
    if more:
        stat_add(s, seat, T_EXTRA_HAND_INS, 1)
    several = k[K_BUILD_SEVERAL] == 1 and can_build_more(s, k, seat)
    s[S_PHASE] = PH_BUILD if several else PH_ACTION


@kernel
def apply_action(s, k, rng, a, log):
    """Apply the legal decision ``a`` of the seat to move (R-HV-2 .. R-HV-9)."""
    seat = s[S_SEAT]
    inv = S_INV + seat * N_BLOCKS
    phase = s[S_PHASE]
    if phase == PH_PICK:
        pick(s, k, seat, a, log)
    elif phase == PH_FIGHT:  # R-HV-6: the player may roll again after a failed roll
        if a == A_STOP:
            stop_fight(s, k, rng, seat, log)
        else:
            roll_fight(s, k, rng, seat, log)
    elif phase == PH_BUILD:
        if a == A_STOP:
            s[S_PHASE] = PH_ACTION
        else:
            hand_in(s, k, seat, a, log, 1)
    elif phase == PH_HORSE:
        if a == A_STOP:
            stat_add(s, seat, T_HORSE_DECLINED, s[S_HORSE_LEFT])
            log_event(log, s, EV_HORSE_STOP, s[S_HORSE_LEFT], 0, 0)
            s[S_HORSE_LEFT] = 0
            s[S_PHASE] = PH_ACTION
        else:
            explore(s, k, seat, a - A_EXPLORE, log)
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
    else:  # a main action, counted now; its optional rest (PH_FIGHT, ...) follows
        if a < A_COLLECT:
            stat_add(s, seat, T_EXPLORE, 1)
            explore(s, k, seat, a - A_EXPLORE, log)
        elif a < A_FIGHT:
            stat_add(s, seat, T_COLLECT, 1)
            collect(s, k, rng, seat, a - A_COLLECT, log)
        elif a < A_BUILD:
            stat_add(s, seat, T_FIGHT, 1)
            start_fight(s, k, rng, seat, a - A_FIGHT, log)
        elif a < A_DISCARD:
            stat_add(s, seat, T_BUILD, 1)
            hand_in(s, k, seat, a, log, 0)
        else:  # A_PASS
            stat_add(s, seat, T_PASS, 1)
        s[S_ACTIONS_LEFT] -= 1
    if is_over(s) or s[S_PHASE] != PH_ACTION:
        return
    if s[S_ACTIONS_LEFT] <= 0:
        end_turn(s, k, rng, log)
