"""Run many seeded games: in memory, or chunk by chunk into a run directory.

    import bnb_sim
    seats = bnb_sim.simulate(10_000, 4, ["heuristic", "random"], seed=1)    # a DataFrame
    summary = bnb_sim.simulate(1_000_000, 4, ["heuristic"], seed=1, out="runs/r1")
    seats, games, meta = bnb_sim.load_run("runs/r1")

Games ``start .. start + n - 1`` are played by the game's ``play_block`` entry point (for
Builders & Biomes :func:`bnb_sim.games.builders_biomes.batch.play_block`), whose rows depend
only on the config and the game index (docs/design.md, "Random streams"), so the thread
count, the chunk size and the backend (in process, Dask) never change a row.

A run directory (``docs/run-format.md``) is written one part per chunk: part ``k`` holds the
games ``[k * chunk_size, (k + 1) * chunk_size)``. Only one chunk is in memory at a time, so
memory stays flat as the number of games grows. An interrupted run (Ctrl-C, a crash) keeps
its finished parts; ``resume=True`` plays only the missing ones and, because every game is a
pure function of (seed, game index), ends with exactly the rows of an uninterrupted run.

Everything a user can get wrong is checked before anything is written: a failed check raises
:class:`~bnb_sim.errors.BnbError` (one line) and leaves no directory behind.

This module holds the entry point (:func:`simulate`, and :func:`run_in_memory`); the parts
live beside it: ``run_plan`` (the checks), ``run_dir`` (writing a run directory),
``executor`` (playing chunks), ``run_summary`` (what a run returns), ``run_meta`` (what
run.json records) and ``stop_flag`` (Ctrl-C and SIGTERM).
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bnb_sim import _args
from bnb_sim.errors import BnbError
from bnb_sim.runner.budget import MAX_GAMES_WITHOUT_YES
from bnb_sim.runner.executor import LocalExecutor, _executor, _tasks
from bnb_sim.runner.run_dir import run_to_dir
from bnb_sim.runner.run_plan import RunPlan, default_chunk_size, plan_run
from bnb_sim.runner.run_summary import RunInterrupted, RunSummary

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


__all__ = [
    "MAX_GAMES_WITHOUT_YES",
    "MAX_IN_MEMORY_GAMES",
    "LocalExecutor",
    "RunInterrupted",
    "RunPlan",
    "RunSummary",
    "default_chunk_size",
    "plan_run",
    "run_in_memory",
    "run_to_dir",
    "simulate",
]

#: ``simulate(out=None)`` keeps every row in memory; above this, write a run directory.
MAX_IN_MEMORY_GAMES = 2_000_000


def cli_command(argv: Sequence[str]) -> str:
    """``bnb`` and ``argv`` (the arguments after the program), quoted for a shell."""
    return "bnb " + shlex.join(list(argv))


def run_in_memory(plan: RunPlan, *, progress: Callable[[int, int], None] | None = None):
    """Play the run of ``plan`` and return the per-seat DataFrame (all rows, game order)."""
    import pandas as pd

    if plan.games > MAX_IN_MEMORY_GAMES:
        raise BnbError(
            f"{plan.games:,} games is more than the {MAX_IN_MEMORY_GAMES:,} kept in memory; "
            "write them to a run directory with out=DIR (then load_run)"
        )
    executor = _executor(plan)
    try:
        executor.prepare()
        chunk_size = plan.chunk_size or default_chunk_size(
            plan.games, plan.config, executor.threads, plan.game
        )
        tasks = _tasks(plan.games, chunk_size, range(plan.n_parts(chunk_size)))
        parts: dict[int, pd.DataFrame] = {}
        done = 0
        if progress is not None:
            progress(0, plan.games)
        try:
            for k, seats, games in executor.run(tasks):
                parts[k] = seats
                done += len(games)
                if progress is not None:
                    progress(done, plan.games)
        except BaseException:
            executor.stop()
            raise
    finally:
        executor.close()
    frames = [parts[k] for k in sorted(parts)]
    if len(frames) == 1:
        return frames[0]
    return pd.concat(frames, ignore_index=True)


def _tqdm_progress(enabled: bool):
    """A ``progress(done, total)`` callback drawing a tqdm bar on stderr, and its closer."""
    if not enabled:
        return None, lambda: None
    from bnb_sim.feedback import _tqdm_class

    tqdm = _tqdm_class()  # tqdm.auto warned "IProgress not found" in notebooks sans ipywidgets
    state: dict[str, Any] = {}

    def progress(done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = tqdm(
                total=total, initial=done, unit=" games", unit_scale=True, file=sys.stderr,
                dynamic_ncols=True,
                smoothing=0.1, mininterval=0.5,
            )  # fmt: skip
        else:
            bar.update(done - bar.n)

    def close() -> None:
        if "bar" in state:
            state["bar"].close()

    return progress, close


def simulate(
    games: int,
    players: int | None,
    policies: str | Sequence[Any],
    seed: int = 0,
    *,
    components: Any = None,
    readings: Any = None,
    variant: str | None = None,
    seating: str | None = None,
    threads: int | None = None,
    chunk_size: int | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    force: bool = False,
    dask: str | None = None,
    progress: bool | Callable[[int, int], None] = False,
    check: bool = False,
    yes: bool = False,
    pickaxe: str | None = None,
    expansion: str | None = None,
    game: str | None = None,
    options: Mapping[str, Any] | None = None,
    **game_options: Any,
) -> pd.DataFrame | RunSummary:
    """Play ``games`` seeded games of ``players`` players.

    * ``game``: a registered game's name or alias (``"hotv"``; None: Builders & Biomes),
      played as ``bnb simulate --game NAME`` plays it; ``options``: its own options by name
      (``{"pets": "all", "difficulty": "easy"}``, or as keywords: ``pets="all"``; ``bnb
      simulate --game NAME --help`` lists them), ``readings`` its rule readings,
      ``players=None`` its own player count.

    * ``policies``: policy specs (``"random"``, ``"greedy"``, ``"heuristic"``,
      ``"heuristic:weights.toml"``, ``"heuristic:board=1.5"``, plugins) or PolicySpecs, cycled
      over the players; ``players=None`` means one player per policy (4 for a single policy).
    * ``readings``: rule readings, ``{"hunger": "one-by-one", "bow": "choose", ...}``
      (``bnb readings`` lists them; unnamed ones take their defaults). ``variant``,
      ``seating`` and ``pickaxe`` are aliases of the readings of those names.
    * ``seating``: ``"rotate"`` (default: game ``g`` starts with player ``g % players``, so
      seat effects cancel), ``"fixed"`` or ``"random"``; the seat is recorded on each row.
    * ``components``: a Components, a path (or list of paths) to component TOML, or None.
    * ``threads``: numba threads (default: all); with ``dask="local"`` the number of
      single-threaded worker processes. ``chunk_size``: games per chunk (default: about 0.5-1 s
      of work). Neither changes any row.
    * ``dask``: ``"local"`` (an embedded LocalCluster) or a scheduler address
      (``"tcp://host:8786"``); see ``docs/simulate.md`` for preparing workers.
    * ``progress``: True for a tqdm bar on stderr, or a ``callback(done, total)``.
    * ``yes``: allow more than 100,000,000 games.
    * ``pickaxe``: ``"optional"`` (default: a revealed stone pickaxe lets the player take a
      block or decline) or ``"mandatory"`` (R-FIGHT-3; see docs/rules.md).
    * ``expansion``: ``"farmers-market"`` plays with the Farmer's Market expansion (R-FM-*;
      its data goes under ``components`` files, which may override it).

    Without ``out``: returns the per-seat DataFrame (``docs/run-format.md``; at most
    2,000,000 games). With ``out``: writes the run directory chunk by chunk (memory stays
    flat) and returns a :class:`RunSummary`; an existing directory needs ``resume=True``
    (play the missing parts; the parameters must match run.json) or ``force=True``
    (overwrite). A Ctrl-C stops between chunks and raises :class:`RunInterrupted`, whose
    message holds the call that resumes the run.
    """
    options = _args.given_options(options, game_options) or None
    plan = plan_run(
        games, players, policies, seed, components=components, readings=readings,
        variant=variant, seating=seating, threads=threads, chunk_size=chunk_size, out=out,
        resume=resume, force=force, dask=dask, check=check, yes=yes, pickaxe=pickaxe,
        expansion=expansion, game=game, options=options,
    )  # fmt: skip
    if callable(progress):
        callback, close = progress, (lambda: None)
    else:
        callback, close = _tqdm_progress(_args.boolean(progress, "progress (or a callable)"))
    try:
        if plan.out is None:
            return run_in_memory(plan, progress=callback)
        return run_to_dir(plan, progress=callback)
    finally:
        close()
