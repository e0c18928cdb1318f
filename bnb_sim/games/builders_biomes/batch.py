"""Play a block of games with the batch kernel and turn the output into DataFrames.

``play_block(config, start, n)`` is the unit of work everywhere (threads, chunks, Dask
tasks): it depends only on the config and the game indices, so any split of a run gives
the same rows. The frames themselves are written by
:mod:`bnb_sim.games.builders_biomes.batch_rows` (and re-exported here).
"""

from __future__ import annotations

import threading

import numpy as np

from bnb_sim.errors import BnbError, PolicyError
from bnb_sim.games.builders_biomes.batch_rows import GameFailed, frames, n_rule_hit_columns
from bnb_sim.games.builders_biomes.run_config import GameConfig
from bnb_sim.runner import kernel_stops
from bnb_sim.runner.kernel_stops import clear_stop_request, request_stop  # noqa: F401 (their old home)


def _run_kernel(kernel, args, n: int, threads: int | None, stop: np.ndarray) -> None:
    """Run the batch kernel over blocks of the ``n`` games in worker threads
    (:func:`bnb_sim.runner.blocks.run_blocks`): ``args`` = (the kernel's arguments before
    ``start``, ``start``, players, seat rows, game rows). A stop request
    (:func:`request_stop`) reaches it."""
    from bnb_sim.runner.blocks import run_blocks

    head, start, n_players, seat_out, game_out = args

    def play(first: int, end: int) -> None:
        kernel(*head, start + first, n_players, seat_out[first * n_players : end * n_players],
               game_out[first:end], stop)  # fmt: skip

    in_main = threading.current_thread() is threading.main_thread()
    run_blocks(
        play,
        n,
        threads,
        stop,
        on_start=(lambda: kernel_stops.register(stop)) if in_main else None,
        on_end=(lambda: kernel_stops.unregister(stop)) if in_main else None,
    )


def play_arrays(config: GameConfig, start: int, n: int, threads: int | None = None):
    """Raw int64 output of the batch kernel for games ``start .. start + n - 1``."""
    from bnb_sim.games.builders_biomes.engine.play import (
        N_GAME_COLUMNS,
        batch_kernel,
        n_seat_columns,
    )

    k, ft, kinds, params, plugins = config.kernel_inputs
    n_players = config.n_players
    comps = config.components
    width = n_seat_columns(len(comps.mob_names), len(comps.item_names))
    width += n_rule_hit_columns(config)
    seat_out = np.zeros((n * n_players, width), np.int64)
    game_out = np.zeros((n, N_GAME_COLUMNS), np.int64)
    stop = np.zeros(1, np.int64)
    head = (k, ft, kinds, params, plugins, config.master)
    args = (head, int(start), n_players, seat_out, game_out)
    _run_kernel(batch_kernel(kinds, k), args, n, threads, stop)
    check_status(config, start, game_out)
    return seat_out, game_out


def check_status(config: GameConfig, start: int, game_out: np.ndarray) -> None:
    """Raise a clear error for the first game that did not finish normally."""
    from bnb_sim.games.builders_biomes.engine import play as P
    from bnb_sim.games.builders_biomes.engine import state as S
    from bnb_sim.games.builders_biomes.engine.invariants import INVARIANT_MESSAGES
    from bnb_sim.plugins import PLUGIN_RAISED

    bad = np.flatnonzero(game_out[:, P.GAME_STATUS] != S.ST_OK)
    if bad.size == 0:
        return
    row = int(bad[0])
    game = int(start) + row
    status = int(game_out[row, P.GAME_STATUS])
    info = int(game_out[row, P.GAME_STATUS_INFO])
    if status == S.ST_TURN_LIMIT:
        raise GameFailed(f"game {game} did not end within {config.max_turns} turns")
    if status == S.ST_STOPPED:
        raise KeyboardInterrupt  # a stop request cut the chunk short; its rows are dropped
    if status == S.ST_ILLEGAL_ACTION:
        seat = int(game_out[row, P.GAME_DECIDING_SEAT])
        player = (seat + int(game_out[row, P.GAME_ROTATION])) % config.n_players
        label = config.policies[player].label
        if info == PLUGIN_RAISED:
            _replay_plugin_error(config, game, seat, label)
        raise PolicyError(
            f"policy '{label}' (seat {seat}) made an illegal decision {info} in game {game}"
        )
    if status == S.ST_INVARIANT:
        raise GameFailed(f"game {game}: invariant broken: {INVARIANT_MESSAGES.get(info, info)}")
    raise GameFailed(f"game {game} failed with status {status}")


def _replay_plugin_error(config: GameConfig, game: int, seat: int, label: str) -> None:
    """A plugin raised inside the kernel: replay that game with the Game API, which calls the
    plugin from Python at the failing decision and raises PolicyError with its exception."""
    from bnb_sim.games.builders_biomes.game import Game

    try:
        Game(config, game).play()
    except PolicyError:
        raise
    except BnbError:
        pass
    raise PolicyError(
        f"policy '{label}' (seat {seat}) raised an exception in game {game}; replayed, the "
        "game did not fail again (does the plugin keep state between calls?)"
    )


def play_block(config: GameConfig, start: int, n: int, threads: int | None = None):
    """Play games ``start .. start + n - 1``; returns ``(seats_df, games_df)``."""
    seat_out, game_out = play_arrays(config, start, n, threads)
    return frames(config, start, seat_out, game_out)
