"""Set-up of a game (R-SETUP-1 to R-SETUP-4).

Each part of the set-up draws from its own stream (cube, tiles, tokens, boards, seats), so a
change to one component list (say, two more mob tiles) does not reshuffle the cube: sweeps
compare like with like.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import njit
from bnb_sim.games.builders_biomes.engine.cube import visible_bits
from bnb_sim.games.builders_biomes.engine.geometry import CENTER_POINT
from bnb_sim.games.builders_biomes.engine.layout import (
    H_BLOCK,
    H_STACKS,
    H_TOK_SLOT,
    K_BLOCK_COUNT,
    K_BOARDS,
    K_FM_ON,
    K_N_BOARDS,
    K_N_TILES,
    K_N_TOKEN_TYPES,
    K_OPTS,
    K_STACK_H,
    MAX_SEATS,
    MAX_STACK_H,
    N_BLOCK_TYPES,
    P_BOARD_ID,
    P_BOARD_TOP,
    P_POS,
    P_STACK_H,
    P_TOP_UP,
    P_VIS_BLOCK,
    RNG_COMBAT,
    RNG_POLICY,
    TOK_START,
    TOK_TABLE,
    mask_at,
    pile_at,
    set_occ,
    stat_at,
    tok_attr,
)
from bnb_sim.games.builders_biomes.engine.market import setup_market
from bnb_sim.games.builders_biomes.engine.state import (
    C_BEGINNER_SEATS,
    C_GAME_INDEX,
    C_N_PLAYERS,
    C_PHASE,
    C_ROTATION,
    C_ROUND_TURN,
    C_SEAT,
    C_TOKENS,
    C_TURN,
    C_TURN_SEAT,
    C_XP_AFTER_ROUND,
    FIX_COMBAT,
    FIX_POLICY,
    OPT_BEGINNER,
    OPT_BOARDS_FIXED,
    OPT_FIX_GROUP,
    OPT_FIX_SOURCES,
    OPT_SEATING,
    PH_TURN,
    S_CHOICE,
    S_TURNS,
    SEATING_RANDOM,
    SEATING_ROTATE,
    STREAM_BOARDS,
    STREAM_COMBAT,
    STREAM_CUBE,
    STREAM_POLICY,
    STREAM_SEATS,
    STREAM_TILES,
    STREAM_TOKENS,
)
from bnb_sim.rng import bounded, seed_stream, shuffle_inplace, stream_game_index


@njit(cache=True)
def source_index(k, game_index, source):
    """The game index that seeds chance source ``source`` (rng.stream_game_index; luck
    designs only, OPT_FIX_*)."""
    return stream_game_index(
        game_index, k[K_OPTS + OPT_FIX_SOURCES], k[K_OPTS + OPT_FIX_GROUP], source
    )


@njit(cache=True)
def seat_rotation(k, master, game_index, n_players):
    """Seat ``s`` is played by player ``(s + rotation) % n`` (R-SETUP-4: a starting player,
    then play passes to the left, so seatings are rotations of the given order)."""
    mode = k[K_OPTS + OPT_SEATING]
    index = source_index(k, game_index, STREAM_SEATS)
    if mode == SEATING_ROTATE:
        if index < 0:  # a luck design fixes the seating: one rotation per group
            return (-1 - index) % n_players
        return game_index % n_players
    if mode == SEATING_RANDOM:
        stream = np.empty(4, np.uint64)
        seed_stream(stream, master, index, STREAM_SEATS)
        return bounded(stream, n_players)
    return 0


@njit(cache=True)
def fill_cube(pub, hid, k, stream):
    """R-SETUP-3: the 64 blocks fill the 4x4x4 cube in uniformly random order."""
    blocks = np.empty(64, np.int64)
    n = 0
    for t in range(N_BLOCK_TYPES):
        for _ in range(k[K_BLOCK_COUNT + t]):
            blocks[n] = t
            n += 1
    shuffle_inplace(stream, blocks)
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    set_occ(pub, full)
    visible = visible_bits(full)
    for pos in range(64):
        hid[H_BLOCK + pos] = blocks[pos]
        if (visible >> np.uint64(pos)) & np.uint64(1):
            pub[P_VIS_BLOCK + pos] = blocks[pos]
        else:
            pub[P_VIS_BLOCK + pos] = -2


@njit(cache=True)
def deal_tiles(pub, hid, k, stream):
    """R-SETUP-2: all tiles shuffled into 16 face-down stacks."""
    order = np.arange(k[K_N_TILES])
    shuffle_inplace(stream, order)
    height = k[K_STACK_H]
    for s in range(16):
        for j in range(height):
            hid[H_STACKS + s * MAX_STACK_H + j] = order[s * height + j]
        pub[P_STACK_H + s] = height
        pub[P_TOP_UP + s] = -1


@njit(cache=True)
def place_tokens(pub, hid, k, stream):
    """R-SETUP-2: the colourless tokens, shuffled, face-down on the 16 spots."""
    slots = np.full(16, -1, np.int64)
    n = 0
    for t in range(k[K_N_TOKEN_TYPES]):
        for _ in range(tok_attr(k, TOK_TABLE, t)):
            slots[n] = t
            n += 1
    shuffle_inplace(stream, slots)
    mask = 0
    for slot in range(16):
        hid[H_TOK_SLOT + slot] = slots[slot]
        if slots[slot] >= 0:
            mask |= 1 << slot
    pub[C_TOKENS] = mask


@njit(cache=True)
def deal_boards(pub, k, stream, n_players, rotation):
    """R-SETUP-1, R-SETUP-4: each player gets a board with its printed biomes: a random colour
    (``boards=random``), or board ``i`` for player ``i`` (``boards=fixed``; the board travels
    with the player when seats rotate, so board and seat effects stay apart)."""
    order = np.arange(k[K_N_BOARDS])
    shuffle_inplace(stream, order)  # drawn under both readings: the stream stays aligned
    for seat in range(n_players):
        board = order[seat]
        if k[K_OPTS + OPT_BOARDS_FIXED] != 0:
            board = (seat + rotation) % n_players
        pub[P_BOARD_ID + seat] = board
        for space in range(9):
            pub[P_BOARD_TOP + seat * 9 + space] = -1  # no building yet
            biome = k[K_BOARDS + board * 9 + space]
            pub[mask_at(seat, 0, biome)] |= 1 << space


@njit(cache=True)
def setup_game(pub, hid, rng, k, master, game_index, n_players):
    """Everything before the first turn, on freshly allocated arrays."""
    stream = np.empty(4, np.uint64)
    seed_stream(stream, master, source_index(k, game_index, STREAM_CUBE), STREAM_CUBE)
    fill_cube(pub, hid, k, stream)
    seed_stream(stream, master, source_index(k, game_index, STREAM_TILES), STREAM_TILES)
    deal_tiles(pub, hid, k, stream)
    seed_stream(stream, master, source_index(k, game_index, STREAM_TOKENS), STREAM_TOKENS)
    place_tokens(pub, hid, k, stream)
    rotation = seat_rotation(k, master, game_index, n_players)
    seed_stream(stream, master, source_index(k, game_index, STREAM_BOARDS), STREAM_BOARDS)
    deal_boards(pub, k, stream, n_players, rotation)
    for seat in range(n_players):
        pub[P_POS + seat] = CENTER_POINT  # R-SETUP-4
        for t in range(k[K_N_TOKEN_TYPES]):
            hid[pile_at(seat, t)] = tok_attr(k, TOK_START, t)  # R-SETUP-1
        combat_index = source_index(k, game_index, FIX_COMBAT)
        seed_stream(rng[RNG_COMBAT + seat], master, combat_index, STREAM_COMBAT + seat)
        policy_index = source_index(k, game_index, FIX_POLICY)
        seed_stream(rng[RNG_POLICY + seat], master, policy_index, STREAM_POLICY + seat)
        for r in range(3):
            pub[stat_at(seat, S_CHOICE + r)] = -1
        for r in range(2):  # -1 until round A / B is scored (run files: total_xp_after_*)
            pub[C_XP_AFTER_ROUND + r * MAX_SEATS + seat] = -1
    pub[C_N_PLAYERS] = n_players
    pub[C_GAME_INDEX] = game_index
    pub[C_ROTATION] = rotation
    beginners = 0  # R-SCORE-4: the beginner rule belongs to players; seats follow rotation
    for seat in range(n_players):
        if (k[K_OPTS + OPT_BEGINNER] >> ((seat + rotation) % n_players)) & 1:
            beginners |= 1 << seat
    pub[C_BEGINNER_SEATS] = beginners
    pub[C_PHASE] = PH_TURN
    pub[C_SEAT] = 0
    pub[C_TURN_SEAT] = 0
    pub[C_TURN] = 1
    for r in range(3):
        pub[C_ROUND_TURN + r] = -1
    pub[stat_at(0, S_TURNS)] = 1
    if k[K_FM_ON] != 0:  # Farmer's Market: marketplace, vegetables, farmland (R-FM-2, R-FM-3)
        setup_market(pub, hid, k, master, game_index, n_players)
