"""The building blocks the designed studies play with: a config per table, the readings a design
fixes (:func:`design_readings`), games played chunk by chunk into frames (:func:`play_games`),
policy labels and the estimated component values a result rests on. The game comes in through
its ``studies`` entry, or its protocol methods (:mod:`bnb_sim.runner.study_hooks`): each
function takes the game's name (None: the default game), and a block of games is played by
the game its config names. Its engine (numba) is imported when a block plays, so this module
imports without it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import pandas as pd

from bnb_sim.feedback import games_played
from bnb_sim.runner.study_hooks import study_hooks

CHUNK_GAMES = 50_000


Progress = Callable[[str], None] | None


def _say(progress: Progress, text: str) -> None:
    if progress is not None:
        progress(text)


def _config(players: int, policies: Sequence[str], *, game: str | None = None, **kw):
    """``game``'s run config (its ``studies`` entry's ``make_config``; None: the default
    game). ``players`` None: the game's own count, where its config can choose one."""
    count = None if players is None else int(players)
    return study_hooks(game).make_config(count, list(policies), **kw)


def design_readings(
    readings, variant, *, seating: str | None = None, what: str = "", game: str | None = None
) -> dict:
    """The readings of a design that fixes the seating itself (tournaments, comparisons,
    sweeps), as a dict: the game's ``design_readings`` (``readings``: a mapping of the
    readings the user gave; a seating reading that differs from the design's is an error)."""
    hooks = study_hooks(game)
    return hooks.design_readings(readings, variant, seating=seating, what=what)


def play_games(
    config,
    games: int,
    *,
    start: int = 0,
    threads: int | None = None,
    keep: Callable[[str], bool] | None = None,
    chunk: int = CHUNK_GAMES,
    game: str | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Games ``start .. start+games-1`` of ``config`` as ``(seats, games)`` frames.

    Played in chunks (memory) by the ``play_block`` of ``game`` (the game whose
    ``make_config`` made ``config``; None: the one the config names, else the default
    game); ``keep`` selects the seat columns to keep.
    """
    game = game if game is not None else getattr(config, "game", None)
    seat_parts, game_parts = [], []
    done = 0
    while done < games:
        n = min(chunk, games - done)
        seats, games_df = _play_block(config, start + done, n, threads, game)
        games_played(n)  # the current progress meter, if any (bnb_sim.feedback)
        if keep is not None:
            seats = seats[[c for c in seats.columns if keep(c)]]
        seat_parts.append(seats)
        game_parts.append(games_df)
        done += n
    if len(seat_parts) == 1:
        return seat_parts[0], game_parts[0]
    return (
        pd.concat(seat_parts, ignore_index=True),
        pd.concat(game_parts, ignore_index=True),
    )


def _play_block(config, start: int, n: int, threads: int | None, game: str | None):
    """The ``play_block`` of ``game``, the game ``config`` belongs to, without numba's
    "first-class function type is experimental" warning (emitted once per config by the
    policy dispatch; harmless)."""
    play_block = study_hooks(game).play_block
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="First-class function type feature")
        return play_block(config, start, n, threads)


def _specs(policies: Sequence[str], game: str | None = None):
    from bnb_sim.analysis.tournament_schedule import split_policy_list

    parse_policy = study_hooks(game).parse_policy
    return [parse_policy(p) for p in split_policy_list(list(policies))]


def _labels(policies: Sequence[str], game: str | None = None) -> list[str]:
    return [s.label for s in _specs(policies, game)]


def _estimates(components, chosen=(), game: str | None = None) -> dict:
    """The estimated component values the games rest on (the report's warning)."""
    from bnb_sim.analysis.estimated import estimates_meta

    return estimates_meta(study_hooks(game).load_components(components), chosen)
