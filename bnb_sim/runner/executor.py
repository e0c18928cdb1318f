"""Playing chunks of a simulate run in this process: a task is (part k, first game, number of
games), :class:`LocalExecutor` plays them one after the other with the parallel numba kernel,
and :func:`_executor` picks it or the Dask executor (``bnb_sim.runner.dask_backend``), which
has the same interface. The plan's game plays them: its protocol object's ``play_block``
(and ``play_arrays`` hook for the warm-up), or for a plan without one, the ``play_block`` and
``play_arrays`` run hooks of the config's game (:func:`bnb_sim.games.entry_of_config`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from bnb_sim.runner.run_plan import RunPlan

Task = tuple[int, int, int]  # (part k, first game, number of games)


class LocalExecutor:
    """Plays chunks in this process with the game's ``play_block`` (a parallel numba kernel),
    one after the other. ``game``: the protocol object that plays ``config`` (None: the
    config's ``play_block`` and ``play_arrays`` entry points)."""

    backend = "local"

    def __init__(self, config: Any, threads: int | None, game: Any = None):
        from bnb_sim._jit import numba

        limit = int(numba.config.NUMBA_NUM_THREADS)
        self.config = config
        self.game = game
        self.threads = limit if threads is None else max(1, min(int(threads), limit))

    def _entry(self, what: str):
        if self.game is not None:  # the protocol's one way to play games, or its faster
            from bnb_sim.core.protocol import hook  # kernel-only warm-up (``play_arrays``)

            return (what == "play_arrays" and hook(self.game, what)) or self.game.play_block
        from bnb_sim.games import entry_of_config

        return entry_of_config(self.config, what)

    def prepare(self) -> None:
        """Build the kernel inputs (static arrays, policy tables, plugins) and load or compile
        the kernel by playing game 0 once (discarded), so that the first chunk's time is
        game time; may raise BnbError."""
        from bnb_sim.runner.dask_backend import quiet_numba_warnings

        quiet_numba_warnings()
        self._entry("play_arrays")(self.config, 0, 1, self.threads)

    def run(self, tasks: Sequence[Task]) -> Iterator[tuple[int, Any, Any]]:
        play_block = self._entry("play_block")
        for k, start, n in tasks:
            seats, games = play_block(self.config, start, n, self.threads)
            yield k, seats, games

    def stop(self) -> None:
        """Called after a Ctrl-C: nothing runs in the background here."""

    def close(self) -> None:
        pass


def _executor(plan: RunPlan):
    if plan.dask is None:
        return LocalExecutor(plan.config, plan.threads, plan.game)
    from bnb_sim.runner.dask_backend import DaskExecutor

    # a protocol object travels with its picklable config; a config made by its game's
    # entries travels as plain data (its ``dask_payload`` entry) and is rebuilt there
    payload = None if plan.game is None else {"protocol": plan.game, "config": plan.config}
    return DaskExecutor(plan.config, plan.dask, plan.threads, payload=payload)


def _tasks(games: int, chunk_size: int, parts: Sequence[int]) -> list[Task]:
    return [(k, k * chunk_size, min(chunk_size, games - k * chunk_size)) for k in parts]
