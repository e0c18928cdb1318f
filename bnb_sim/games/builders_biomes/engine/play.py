"""Play whole games in nopython code: one game, and a batch of games.

Every game is a pure function of (static arrays, policies, master key, game index): its
streams are derived inside from the game index (docs/design.md, "Random streams") and each
game writes only its own output rows, so results do not depend on threads, chunks or machines.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel, njit
from bnb_sim.games.builders_biomes.engine.invariants import check_invariants
from bnb_sim.games.builders_biomes.engine.layout import (
    H_BLOCK,
    K_FM_N_ITEMS,
    K_FM_ON,
    K_N_SPECIES,
    K_OPTS,
    MAX_SEATS,
    MAX_SPECIES,
    P_BOARD_ID,
    P_FM_BOUGHT,
    P_FM_BUY_ROUND,
    P_FM_MAY,
    P_FM_OWNED,
    P_FM_SPENT,
    P_FM_XP_END,
    P_FM_XP_FARMING,
    P_SIZE,
    P_SPECIES_FIGHTS,
    P_SPECIES_WINS,
    P_STACK_H,
    RNG_POLICY,
    mask_at,
    stat_at,
    veg_at,
    xp_at,
)
from bnb_sim.games.builders_biomes.engine.legal import is_legal, legal_bits
from bnb_sim.games.builders_biomes.engine.observation import prepare_observation
from bnb_sim.games.builders_biomes.engine.scoring import ranks
from bnb_sim.games.builders_biomes.engine.setup import setup_game
from bnb_sim.games.builders_biomes.engine.state import (
    C_N_PLAYERS,
    C_PHASE,
    C_ROTATION,
    C_ROUND_TURN,
    C_SEAT,
    C_STATUS,
    C_STATUS_INFO,
    C_TOKENS,
    C_TURN,
    C_XP_AFTER_ROUND,
    N_ACTIONS,
    N_STATS,
    N_XP,
    OPT_CHECK,
    PH_OVER,
    ST_ILLEGAL_ACTION,
    ST_INVARIANT,
    ST_STOPPED,
    XP_ITEMS_PLAY,
    new_game_arrays,
    supply_total,
    xp_total,
)
from bnb_sim.games.builders_biomes.engine.step import apply_action
from bnb_sim.games.builders_biomes.engine.turn import paid_extra_owed
from bnb_sim.games.builders_biomes.policies.dispatch import decide
from bnb_sim.games.builders_biomes.policies.kinds import (
    GREEDY,
    HEURISTIC,
    ISMCTS,
    MC,
    PLUGIN,
    RANDOM,
)
from bnb_sim.games.builders_biomes.policies.onestep import choose_onestep
from bnb_sim.games.builders_biomes.policies.priority_layout import (
    MEM_BOT_END,
    MEM_FALLBACK_HITS,
    MEM_HITS,
)
from bnb_sim.games.builders_biomes.policies.random_policy import choose_random
from bnb_sim.games.builders_biomes.policies.search import new_search_scratch, search_decide

MEM_SIZE = 1536  # policy memory per seat (float64), zeroed at the start of each game
# (the one-step evaluation's cache below 1024, a priority-list bot's counters above it)


@njit(cache=True)
def new_game(k, master, game_index, n_players):
    """Allocate and set up one game (R-SETUP-1..4); returns ``(pub, hid, rng)``."""
    pub, hid, rng = new_game_arrays(k)
    setup_game(pub, hid, rng, k, master, game_index, n_players)
    return pub, hid, rng


@njit(cache=True, inline="always")
def _one_game(play_out_fn, k, ft, kinds, params, plugins, master, game_index, n_players, stop):
    """Set up game ``game_index`` and play it with the loop ``play_out_fn`` (one of the
    :func:`play_out` variants); returns ``(pub, hid, mem)``."""
    pub, hid, rng = new_game(k, master, game_index, n_players)
    needs_memory = False
    has_plugin = False
    for player in range(n_players):
        if kinds[player] != RANDOM:
            needs_memory = True
        if kinds[player] == PLUGIN:
            has_plugin = True
    mem = np.zeros((n_players, MEM_SIZE if needs_memory else 1), np.float64)
    # buffers for the copies a plugin gets (built-in policies read pub in place)
    obs_buf = np.zeros(P_SIZE if has_plugin else 1, np.int64)
    legal_buf = np.zeros(N_ACTIONS if has_plugin else 1, np.bool_)
    search = new_search_scratch(k, kinds, params, n_players, MEM_SIZE)
    play_out_fn(pub, hid, rng, k, ft, kinds, params, plugins, mem, obs_buf, legal_buf, stop, search)
    return pub, hid, mem


@njit(cache=True)
def play_game(k, ft, kinds, params, plugins, master, game_index, n_players, stop):
    """Play one game to the end; returns ``(pub, hid, mem)`` (``pub[C_STATUS]`` != 0 on
    error; ``mem``: the policies' memory, where priority-list bots count their rule hits).

    ``kinds[p]``, ``params[p]`` and ``plugins[p]`` describe the policy of player ``p``; seat
    ``s`` is played by player ``(s + rotation) % n`` (R-SETUP-4). ``stop[0] != 0`` (set by the
    Python layer on Ctrl-C or SIGTERM) ends the game before the next decision with status
    ``ST_STOPPED``, so a slow plugin cannot keep the process from stopping.
    """
    return _one_game(play_out, k, ft, kinds, params, plugins, master, game_index, n_players, stop)


@kernel(inline="always", nogil=True)  # Game.play waits for it in a thread: Ctrl-C stays live
def seat_decision(
    pub, hid, rng, k, ft, kinds, params, plugins, mem, obs_buf, legal_buf, mask, pass_ok, search
):
    """The decision of the seat to play, from the policy of the player in that seat.

    ``search`` is the scratch of the search bots (:func:`new_search_scratch`). A built-in
    bot takes the extra actions it has paid for with hunger mobs (:func:`paid_extra_owed`):
    it returns only the mobs it uses.
    """
    seat = pub[C_SEAT]
    player = seat + pub[C_ROTATION]  # (seat + rotation) % n without a division per step
    if player >= pub[C_N_PLAYERS]:
        player -= pub[C_N_PLAYERS]
    if pass_ok and kinds[player] != PLUGIN and paid_extra_owed(pub, mask):
        pass_ok = False
    if kinds[player] == RANDOM:  # looks at nothing but the legal actions
        return choose_random(mask, pass_ok, rng, RNG_POLICY + seat)
    prepare_observation(pub, hid, seat)
    if kinds[player] == MC or kinds[player] == ISMCTS:  # sees the state only determinized
        return search_decide(
            kinds[player], pub, hid, rng, k, ft, params[player], seat, mask, pass_ok, search
        )
    return decide(
        kinds[player],
        params[player],
        plugins[player],
        pub,
        rng,
        seat,
        mem[seat],
        k,
        ft,
        mask,
        pass_ok,
        obs_buf,
        legal_buf,
    )


@kernel(inline="always", nogil=True)  # Game.play waits for it in a thread: Ctrl-C stays live
def seat_decision_builtin(
    pub, hid, rng, k, ft, kinds, params, plugins, mem, obs_buf, legal_buf, mask, pass_ok, search
):
    """:func:`seat_decision` for the built-in one-step bots (random, greedy, heuristic) only:
    the same decisions, without compiling the search bots, the priority-list interpreter or
    the plugin path (any other kind decides -1, an illegal action)."""
    seat = pub[C_SEAT]
    player = seat + pub[C_ROTATION]
    if player >= pub[C_N_PLAYERS]:
        player -= pub[C_N_PLAYERS]
    if pass_ok and paid_extra_owed(pub, mask):  # as seat_decision: no plugin here
        pass_ok = False
    if kinds[player] == RANDOM:
        return choose_random(mask, pass_ok, rng, RNG_POLICY + seat)
    if kinds[player] == GREEDY or kinds[player] == HEURISTIC:
        prepare_observation(pub, hid, seat)
        return choose_onestep(
            params[player], pub, seat, mem[seat], k, ft, mask, pass_ok, rng, RNG_POLICY + seat
        )
    return -1


@kernel
def no_checks(pub, hid, k):
    """The invariant checker of runs that do not check (``--check`` off): always 0."""
    return 0


@kernel(inline="always")
def _play_loop(decision_fn, checker, pub, hid, rng, k, ft, kinds, params, plugins, mem, obs_buf,
               legal_buf, stop, search):  # fmt: skip
    """Ask the policies (``decision_fn``) and apply their decisions until the game is over;
    ``checker`` checks the invariants after each decision when the run asks for it."""
    check = k[K_OPTS + OPT_CHECK] != 0
    while pub[C_PHASE] != PH_OVER:
        if stop[0] != 0:
            pub[C_STATUS] = ST_STOPPED
            return
        mask, pass_ok = legal_bits(pub, k)
        action = decision_fn(
            pub,
            hid,
            rng,
            k,
            ft,
            kinds,
            params,
            plugins,
            mem,
            obs_buf,
            legal_buf,
            mask,
            pass_ok,
            search,
        )
        if not is_legal(mask, pass_ok, action):
            pub[C_STATUS] = ST_ILLEGAL_ACTION
            pub[C_STATUS_INFO] = action
            return
        apply_action(pub, hid, rng, k, action)
        if check:
            code = checker(pub, hid, k)
            if code != 0:
                pub[C_STATUS] = ST_INVARIANT
                pub[C_STATUS_INFO] = code
                return


@kernel
def play_out(pub, hid, rng, k, ft, kinds, params, plugins, mem, obs_buf, legal_buf, stop, search):
    """Ask the policies and apply their decisions until the game is over (every policy kind,
    invariant checks when the run asks for them).

    Everything the loop reaches is a :data:`~bnb_sim._jit.kernel`: it works in the arrays it
    is given and never allocates, so it is compiled without reference counting (the
    increments and decrements numba adds around every array use were half the time of a
    heuristic decision; see ``_jit.py``).
    """
    _play_loop(seat_decision, check_invariants, pub, hid, rng, k, ft, kinds, params, plugins,
               mem, obs_buf, legal_buf, stop, search)  # fmt: skip


@kernel
def play_out_builtin(pub, hid, rng, k, ft, kinds, params, plugins, mem, obs_buf, legal_buf,
                     stop, search):  # fmt: skip
    """:func:`play_out` for runs of the built-in one-step bots without invariant checks: the
    same games, compiled in a fraction of the time (docs/design.md, "Kernels and the
    cache")."""
    _play_loop(seat_decision_builtin, no_checks, pub, hid, rng, k, ft, kinds, params, plugins,
               mem, obs_buf, legal_buf, stop, search)  # fmt: skip


# ---- output rows ----------------------------------------------------------------------
# Seat rows: fixed columns, then fights and wins per mob species, then built per type.
SEAT_PLAYER = 0
SEAT_SEAT = 1
SEAT_BOARD = 2
SEAT_XP = 3
SEAT_XP_SOURCES = 4  # N_XP columns
SEAT_BLOCKS_LEFT = SEAT_XP_SOURCES + N_XP
SEAT_STATS = SEAT_BLOCKS_LEFT + 1  # N_STATS columns
SEAT_RANK = SEAT_STATS + N_STATS
SEAT_WON = SEAT_RANK + 1
SEAT_XP_AFTER_ROUND = SEAT_WON + 1  # 2 columns: XP total right after round A, after round B
SEAT_SPECIES = SEAT_XP_AFTER_ROUND + 2


# Farmer's Market runs add, after those: the expansion's XP sources, items bought, vegetables
# spent and left, how often each "may" item ability was offered and declined, then one 0/1
# column per item of the component file (bought or not).
FM_XP_PLAY = 0
FM_XP_END = 1
FM_XP_FARMING = 2
FM_BOUGHT = 3
FM_SPENT = 4
FM_VEG_LEFT = 5
FM_MAY = 6  # 6 columns: per "may" item ability (MAY_* of state.py) offered, declined (R-FM-5)
FM_ITEMS = 12


def n_seat_columns(n_species: int, n_items: int = 0) -> int:
    """Seat-row width; ``n_items`` > 0 (the expansion's items) adds the Farmer's Market block:
    the fixed columns, then per item whether the seat bought it, then when (rounds scored
    before the purchase, -1 not bought)."""
    base = SEAT_SPECIES + 2 * n_species + 4
    return base + (FM_ITEMS + 2 * n_items if n_items > 0 else 0)


GAME_STATUS = 0
GAME_STATUS_INFO = 1
GAME_TURNS = 2
GAME_ROUND_TURN = 3  # 3 columns
GAME_WINNERS = 6
GAME_WINNER_SEAT = 7
GAME_ROTATION = 8
GAME_CUBE_LEFT = 9
GAME_TILES_LEFT = 10
GAME_TOKENS_LEFT = 11
GAME_DECIDING_SEAT = 12
N_GAME_COLUMNS = 13


@kernel(inline="always")
def _bits(mask):
    count = 0
    while mask:
        count += 1
        mask &= mask - 1
    return count


@kernel
def _write_fm(pub, k, seat, out, at):
    """The Farmer's Market block of a seat row (docs/run-format.md)."""
    out[at + FM_XP_PLAY] = pub[xp_at(seat, XP_ITEMS_PLAY)]
    out[at + FM_XP_END] = pub[P_FM_XP_END + seat]
    out[at + FM_XP_FARMING] = pub[P_FM_XP_FARMING + seat]
    out[at + FM_BOUGHT] = pub[P_FM_BOUGHT + seat]
    out[at + FM_SPENT] = pub[P_FM_SPENT + seat]
    left = 0
    for space in range(9):
        left += pub[veg_at(seat, space)]
    out[at + FM_VEG_LEFT] = left
    for j in range(6):
        out[at + FM_MAY + j] = pub[P_FM_MAY + seat * 6 + j]
    n_items = k[K_FM_N_ITEMS]
    for item in range(n_items):
        owned = (pub[P_FM_OWNED + seat] >> item) & 1
        out[at + FM_ITEMS + item] = owned
        out[at + FM_ITEMS + n_items + item] = pub[P_FM_BUY_ROUND + item] if owned else -1


@njit(cache=True)
def write_rows(pub, hid, k, row, seat_out, game_out):
    """Summarise a finished game into ``game_out[row]`` and ``seat_out[row * P + seat]``."""
    n = pub[C_N_PLAYERS]
    rank = np.zeros(n, np.int64)
    ranks(pub, rank)
    n_species = k[K_N_SPECIES]
    winners = 0
    winner_seat = -1
    for seat in range(n):
        out = seat_out[row * n + seat]
        out[SEAT_PLAYER] = (seat + pub[C_ROTATION]) % n
        out[SEAT_SEAT] = seat
        out[SEAT_BOARD] = pub[P_BOARD_ID + seat]
        out[SEAT_XP] = xp_total(pub, seat)
        for j in range(N_XP):
            out[SEAT_XP_SOURCES + j] = pub[xp_at(seat, j)]
        out[SEAT_BLOCKS_LEFT] = supply_total(pub, seat)
        for j in range(N_STATS):
            out[SEAT_STATS + j] = pub[stat_at(seat, j)]
        out[SEAT_RANK] = rank[seat]
        out[SEAT_WON] = 1 if rank[seat] == 1 else 0
        for r in range(2):
            out[SEAT_XP_AFTER_ROUND + r] = pub[C_XP_AFTER_ROUND + r * MAX_SEATS + seat]
        if rank[seat] == 1:
            winners += 1
            winner_seat = seat
        for sp in range(n_species):
            out[SEAT_SPECIES + sp] = pub[P_SPECIES_FIGHTS + seat * MAX_SPECIES + sp]
            out[SEAT_SPECIES + n_species + sp] = pub[P_SPECIES_WINS + seat * MAX_SPECIES + sp]
        for v in range(4):
            out[SEAT_SPECIES + 2 * n_species + v] = _bits(pub[mask_at(seat, 2, v)])
        if k[K_FM_ON] != 0:
            _write_fm(pub, k, seat, out, SEAT_SPECIES + 2 * n_species + 4)
    g = game_out[row]
    g[GAME_STATUS] = pub[C_STATUS]
    g[GAME_STATUS_INFO] = pub[C_STATUS_INFO]
    g[GAME_TURNS] = pub[C_TURN]
    for r in range(3):
        g[GAME_ROUND_TURN + r] = pub[C_ROUND_TURN + r]
    g[GAME_WINNERS] = winners
    g[GAME_WINNER_SEAT] = winner_seat if winners == 1 else -1
    g[GAME_ROTATION] = pub[C_ROTATION]
    cube = 0
    for pos in range(64):
        if hid[H_BLOCK + pos] >= 0:
            cube += 1
    g[GAME_CUBE_LEFT] = cube
    tiles = 0
    for s in range(16):
        tiles += pub[P_STACK_H + s]
    g[GAME_TILES_LEFT] = tiles
    g[GAME_TOKENS_LEFT] = _bits(pub[C_TOKENS])
    g[GAME_DECIDING_SEAT] = pub[C_SEAT]


@njit(cache=True, inline="always")
def _play_games(play_out_fn, k, ft, kinds, params, plugins, master, start, n_players, seat_out,
                game_out, stop):  # fmt: skip
    n_games = game_out.shape[0]
    for i in range(n_games):
        if stop[0] != 0:
            game_out[i, GAME_STATUS] = ST_STOPPED
            continue
        pub, hid, mem = _one_game(
            play_out_fn, k, ft, kinds, params, plugins, master, start + i, n_players, stop
        )
        write_rows(pub, hid, k, i, seat_out, game_out)
        write_rule_hits(pub, k, mem, i, seat_out)


@njit(cache=True, nogil=True)
def play_batch(k, ft, kinds, params, plugins, master, start, n_players, seat_out, game_out, stop):
    """Play games ``start .. start + len(game_out) - 1``; fill the output rows.

    One thread: the Python layer runs blocks of games in as many threads as asked
    (:func:`bnb_sim.runner.blocks.run_blocks`), which this kernel allows by releasing the GIL.
    A game not started (or cut short) after ``stop[0]`` was set gets status ``ST_STOPPED`` and
    the caller discards the whole chunk. Every policy kind; :func:`batch_kernel` picks the
    variant that compiles only what a run needs.
    """
    _play_games(play_out, k, ft, kinds, params, plugins, master, start, n_players, seat_out,
                game_out, stop)  # fmt: skip


@njit(cache=True, nogil=True)
def play_batch_builtin(k, ft, kinds, params, plugins, master, start, n_players, seat_out,
                       game_out, stop):  # fmt: skip
    """:func:`play_batch` for the built-in one-step bots, without invariant checks."""
    _play_games(play_out_builtin, k, ft, kinds, params, plugins, master, start, n_players,
                seat_out, game_out, stop)  # fmt: skip


BUILTIN_KINDS = (RANDOM, GREEDY, HEURISTIC)


def is_builtin_run(kinds, k) -> bool:
    """Whether every seat plays a built-in one-step bot and no invariant is checked."""
    return k[K_OPTS + OPT_CHECK] == 0 and all(int(kind) in BUILTIN_KINDS for kind in kinds)


def batch_kernel(kinds, k):
    """The batch driver for a run: the built-in bots' variant when it suffices (a run of
    random, greedy and heuristic bots compiles neither the search bots, nor the
    priority-list interpreter, nor the plugin path, nor the invariant checker), else the
    one for every policy kind. Both play the same games."""
    return play_batch_builtin if is_builtin_run(kinds, k) else play_batch


def decision_kernel(kinds, k):
    """:func:`seat_decision` or, for a run of built-in bots, its smaller variant."""
    return seat_decision_builtin if is_builtin_run(kinds, k) else seat_decision


@kernel
def write_rule_hits(pub, k, mem, row, seat_out):
    """Rule hit counts of priority-list bots into the seat columns after the fixed ones
    (present only when a run has a bot, docs/run-format.md): one per rule, then the
    fallback's count."""
    base = SEAT_SPECIES + 2 * k[K_N_SPECIES] + 4
    if k[K_FM_ON] != 0:  # after the Farmer's Market block (n_seat_columns)
        base += FM_ITEMS + 2 * k[K_FM_N_ITEMS]
    width = seat_out.shape[1] - base
    if width <= 0 or mem.shape[1] < MEM_BOT_END:
        return
    n = pub[C_N_PLAYERS]
    for seat in range(n):
        out = seat_out[row * n + seat]
        for r in range(width - 1):
            out[base + r] = np.int64(mem[seat, MEM_HITS + r])
        out[base + width - 1] = np.int64(mem[seat, MEM_FALLBACK_HITS])
