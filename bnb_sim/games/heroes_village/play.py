"""Whole Heroes of the Village games in nopython code: one game, and a batch of games.

A game is a pure function of (component arrays, policies, pets, master key, game index): its
streams come from the game index (``bnb_sim.rng``) and it writes only its own output
rows, so results do not depend on threads, chunks or machines.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel, njit
from bnb_sim.games.heroes_village.bots import B_SIZE, decide
from bnb_sim.games.heroes_village.engine import apply_action, free_lay, legal_mask, setup_game
from bnb_sim.games.heroes_village.invariants import check_invariants
from bnb_sim.games.heroes_village.layout import (
    G_CHOSEN,
    G_TRACK,
    K_CHECK,
    K_MAX_TURNS,
    K_MOBS_REUSED,
    K_N_CHOSEN,
    K_N_TILES,
    LOG_WIDTH,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MAX_VALUE,
    N_ACTIONS,
    N_BLOCKS,
    N_GAME_OUT,
    N_SEAT_STATS,
    N_STREAMS,
    PH_ACTION,
    PH_OVER,
    PLUGIN_MEM,
    S_ARROWS,
    S_BUILT,
    S_CHOSEN,
    S_END_BY_DIE,
    S_FIGHTS_CUT,
    S_FIGHTS_STOPPED,
    S_FREE_TILES,
    S_ILLAGER,
    S_ILLAGER_MIN,
    S_ILLAGER_ROLLS,
    S_LOST_IN_FIGHT,
    S_MOBS_DEFEATED,
    S_MOBS_SPAWNED,
    S_N_PLAYERS,
    S_PHASE,
    S_POUCH,
    S_SEAT,
    S_SEAT_STATS,
    S_SIZE,
    S_STATUS,
    S_STATUS_INFO,
    S_TILE_MOB,
    S_TILES_LAID,
    S_TRACK,
    S_TURN,
    S_WON,
    SEAT_STRIDE,
    ST_ILLEGAL,
    ST_INVARIANT,
    ST_TURN_LIMIT,
)
from bnb_sim.games.heroes_village.policies import PLUGIN

N_SEAT_OUT = N_SEAT_STATS + 2 * MAX_VALUE


@kernel
def run_game(s, k, kf, kinds, params, plugins, pets, rng, mask, buf, obs, mem, master, game_index,
             n_players, log):  # fmt: skip
    """Set up and play one game to its end (R-HV-1) in the given arrays."""
    setup_game(s, k, rng, pets, master, game_index, n_players, log)
    if obs.shape[0] > 1:  # a seat plays a plugin: its memory starts empty in every game
        for p in range(mem.shape[0]):
            for j in range(mem.shape[1]):
                mem[p, j] = 0.0
    while s[S_PHASE] != PH_OVER:
        if s[S_TURN] >= k[K_MAX_TURNS]:
            s[S_STATUS] = ST_TURN_LIMIT
            return
        if s[S_PHASE] == PH_ACTION:
            free_lay(s, k, log)
        legal_mask(s, k, mask)
        seat = s[S_SEAT]
        a = decide(kinds[seat], params[seat], plugins[seat], s, k, kf, mask, rng, seat, buf, obs,
                   mem[seat])  # fmt: skip
        if a < 0 or a >= N_ACTIONS or not mask[a]:
            s[S_STATUS] = ST_ILLEGAL
            s[S_STATUS_INFO] = a
            return
        apply_action(s, k, rng, a, log)
        if k[K_CHECK]:
            code = check_invariants(s, k, k[K_MOBS_REUSED] == 1)
            if code != 0:
                s[S_STATUS] = ST_INVARIANT
                s[S_STATUS_INFO] = code
                return


@kernel
def obs_size(kinds):
    """Length of the observation buffer: the state's if a seat plays a plugin, else 1."""
    for p in range(kinds.shape[0]):
        if kinds[p] == PLUGIN:
            return S_SIZE
    return 1


@njit(cache=True)
def play_game(k, kf, kinds, params, plugins, pets, master, game_index, n_players, log_rows):
    """Play one game; returns ``(s, log)`` (``log[0, 0]`` = events written)."""
    s = np.zeros(S_SIZE, np.int64)
    rng = np.zeros((N_STREAMS, 4), np.uint64)
    mask = np.zeros(N_ACTIONS, np.bool_)
    buf = np.zeros(B_SIZE, np.float64)
    obs = np.zeros(obs_size(kinds), np.int64)
    mem = np.zeros((MAX_PLAYERS, PLUGIN_MEM), np.float64)
    log = np.zeros((log_rows, LOG_WIDTH), np.int64)
    run_game(s, k, kf, kinds, params, plugins, pets, rng, mask, buf, obs, mem, master, game_index,
             n_players, log)  # fmt: skip
    return s, log


@njit(cache=True)
def replay_game(k, kf, kinds, params, plugins, pets, master, game_index, n_players):
    """Play one game; returns ``(s, rng, mem, mask)`` as the game left them: where it stopped
    on a plugin's failed decision, what that decision saw (the Python layer calls the plugin
    again from there, where numba raises the plugin's exception with its message)."""
    s = np.zeros(S_SIZE, np.int64)
    rng = np.zeros((N_STREAMS, 4), np.uint64)
    mask = np.zeros(N_ACTIONS, np.bool_)
    buf = np.zeros(B_SIZE, np.float64)
    obs = np.zeros(obs_size(kinds), np.int64)
    mem = np.zeros((MAX_PLAYERS, PLUGIN_MEM), np.float64)
    log = np.zeros((0, LOG_WIDTH), np.int64)
    run_game(s, k, kf, kinds, params, plugins, pets, rng, mask, buf, obs, mem, master, game_index,
             n_players, log)  # fmt: skip
    return s, rng, mem, mask


@kernel
def write_rows(s, k, game_row, seat_rows, first_seat_row):
    """The game's output row and its players' rows (docs/run-format.md)."""
    n = s[S_N_PLAYERS]
    game_row[0] = s[S_STATUS]
    game_row[1] = s[S_WON]
    ended_mid_turn = 0 if s[S_END_BY_DIE] == 1 else 1
    game_row[2] = s[S_TURN] + ended_mid_turn
    game_row[3] = (game_row[2] + n - 1) // n
    game_row[4] = s[S_BUILT]
    game_row[5] = s[S_ILLAGER]
    game_row[6] = s[S_ILLAGER_MIN]
    game_row[7] = s[S_MOBS_SPAWNED]
    game_row[8] = s[S_MOBS_DEFEATED]
    game_row[9] = s[S_TILES_LAID]
    game_row[10] = s[S_FREE_TILES]
    game_row[11] = s[S_ARROWS]
    game_row[12] = s[S_ILLAGER_ROLLS]
    game_row[13] = s[S_LOST_IN_FIGHT]
    game_row[14] = s[S_FIGHTS_CUT]
    game_row[15] = s[S_FIGHTS_STOPPED]
    pouch = 0
    for b in range(N_BLOCKS):
        pouch += s[S_POUCH + b]
    game_row[16] = pouch
    mobs = 0
    for t in range(k[K_N_TILES]):
        if s[S_TILE_MOB + t] >= 0:
            mobs += 1
    game_row[17] = mobs
    for j in range(k[K_N_CHOSEN]):
        game_row[G_CHOSEN + j] = s[S_CHOSEN + j]
    for r in range(MAX_ROUNDS):
        game_row[G_TRACK + r] = s[S_TRACK + r]
    for p in range(n):
        for c in range(SEAT_STRIDE):
            seat_rows[first_seat_row + p, c] = s[S_SEAT_STATS + p * SEAT_STRIDE + c]


@njit(cache=True, nogil=True)
def play_batch(k, kf, kinds, params, plugins, pets, master, start, n_players, seat_out, game_out):
    """Play games ``start .. start + len(game_out) - 1`` one after the other.

    The Python layer plays blocks of games in as many threads as asked
    (:func:`bnb_sim.runner.blocks.run_blocks`), which this kernel allows by releasing the GIL.
    One set of work arrays serves every game: each game overwrites all it reads (set-up
    zeroes the state and seeds every stream), so the rows do not depend on the blocks.
    """
    n = game_out.shape[0]
    s = np.zeros(S_SIZE, np.int64)
    rng = np.zeros((N_STREAMS, 4), np.uint64)
    mask = np.zeros(N_ACTIONS, np.bool_)
    buf = np.zeros(B_SIZE, np.float64)
    obs = np.zeros(obs_size(kinds), np.int64)
    mem = np.zeros((MAX_PLAYERS, PLUGIN_MEM), np.float64)
    log = np.zeros((0, LOG_WIDTH), np.int64)
    for i in range(n):
        run_game(s, k, kf, kinds, params, plugins, pets, rng, mask, buf, obs, mem, master,
                 start + i, n_players, log)  # fmt: skip
        write_rows(s, k, game_out[i], seat_out, i * n_players)


def output_shapes(n_games: int, n_players: int) -> tuple[tuple[int, int], tuple[int, int]]:
    return (n_games * n_players, N_SEAT_OUT), (n_games, N_GAME_OUT)


_ = S_SEAT  # the seat to move is read by the kernels above through run_game
