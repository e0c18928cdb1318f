"""``bnb simulate`` of a game given as a protocol object, and blocks of games for the studies.

:func:`simulate_to_dir` plays a game's config (``make_config``/``make_run_config`` of
:mod:`bnb_sim.core.protocol`) into a run folder through the one shared run path,
:func:`bnb_sim.runner.run_dir.run_to_dir`: the same folder rules (lock, stamps, checksums,
resume, ``--force``), Ctrl-C/SIGTERM handling with the resume command, progress and timing
as every game, with the column contract the game declares (``game.columns(config)``). Every
game is a function of the config and its index (the protocol's promise), so any chunk size
gives the same rows.

:func:`play_games` plays games ``0 .. n-1`` in blocks for the studies (compare, tournament,
sweep) without a folder.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bnb_sim.errors import SpecError
from bnb_sim.runner.game_run_config import rows_per_game
from bnb_sim.runner.run_columns import arrow_columns
from bnb_sim.runner.run_meta import component_info, run_components

__all__ = [
    "BLOCK",
    "arrow_columns",
    "component_info",
    "play_games",
    "rows_per_game",
    "run_components",
    "simulate_to_dir",
    "summary_dict",
]

BLOCK = 50_000


def play_games(game: Any, config: Any, n: int, threads: int | None = None, start: int = 0):
    """``(seats, games)`` of games ``start .. start + n - 1``, played in blocks."""
    import pandas as pd

    seats, games = [], []
    for first in range(start, start + n, BLOCK):
        a, b = game.play_block(config, first, min(BLOCK, start + n - first), threads)
        seats.append(a)
        games.append(b)
    if len(seats) == 1:
        return seats[0], games[0]
    return pd.concat(seats, ignore_index=True), pd.concat(games, ignore_index=True)


def simulate_to_dir(
    game: Any,
    config: Any,
    components: Any,
    games: int,
    out: str | Path,
    *,
    chunk_size: int | None = None,
    threads: int | None = None,
    resume: bool = False,
    force: bool = False,
    dask: str | None = None,
    command: str | None = None,
    resume_command: str | None = None,
    handle_sigint: bool = False,
    progress: Callable[[int, int], None] | None = None,
    notice: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games of ``config`` into the run folder ``out``; returns a summary.

    :func:`~bnb_sim.runner.run_dir.run_to_dir` with a plan of ``game`` (the protocol object
    that plays ``config``) and its ``components``: the folder is locked for the whole call,
    ``force`` overwrites only a valid run, ``resume`` needs the same game and identity (the
    config's ``identity()`` and the components' hash) and re-checks every stored part; a
    new folder is removed again if the run fails before its first part. An interruption
    raises :class:`~bnb_sim.runner.run_summary.RunInterrupted` with ``resume_command``
    (``handle_sigint``: the first Ctrl-C lets the chunk in progress finish).

    ``dask``: ``"local"`` or a scheduler address plays the chunks on Dask workers (the game
    object and its picklable config travel to them); the rows are the same. ``threads`` is
    then the number of local workers.

    The summary: :meth:`RunSummary.to_dict <bnb_sim.runner.run_summary.RunSummary.to_dict>`
    without the per-label win rates, with ``games_per_second`` counting game rows (a config
    may play several rows per game index: ``rows_per_game``).
    """
    from bnb_sim.runner.run_dir import run_to_dir
    from bnb_sim.runner.run_plan import RunPlan

    if games < 1:
        raise SpecError(f"--games {games}: must be at least 1")
    if chunk_size is not None and int(chunk_size) < 1:
        raise SpecError("--chunk-size must be at least 1")
    if dask is not None:
        from bnb_sim.runner.dask_backend import check_address

        dask = check_address(dask)
    plan = RunPlan(
        config=config, games=int(games), chunk_size=None if chunk_size is None else int(chunk_size),
        threads=threads, out=Path(out), resume=bool(resume), force=bool(force), dask=dask,
        game=game, components=components,
    )  # fmt: skip
    summary = run_to_dir(plan, progress=progress, command=command, resume_command=resume_command,
                         handle_sigint=handle_sigint, notice=notice)  # fmt: skip
    return summary_dict(summary, config)


def summary_dict(summary: Any, config: Any) -> dict[str, Any]:
    """A run's :class:`~bnb_sim.runner.run_summary.RunSummary` as the shared summary of a
    protocol run (what :func:`simulate_to_dir` returns, and ``bnb simulate --json`` prints
    for a game without its own ``run_summary`` hook): its ``to_dict()`` without the per-label
    win rates, with ``games_per_second`` counting game rows and ``rows_per_game``."""
    out_dict = summary.to_dict()
    del out_dict["win_rates"]  # per seat label; a game's own summary says what counts
    per_game = rows_per_game(config)
    seconds = summary.seconds
    out_dict["games_per_second"] = summary.played * per_game / seconds if seconds > 0 else None
    out_dict["rows_per_game"] = per_game
    return out_dict
