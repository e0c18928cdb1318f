"""The building blocks the designed studies play with: a config per table, the readings a design
fixes (:func:`design_readings`), games played chunk by chunk into frames (:func:`play_games`),
policy labels and the estimated component values a result rests on. The engine (numba) is
imported inside :func:`_play_block` only, so this module imports without it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import pandas as pd

from bnb_sim.errors import BnbError
from bnb_sim.feedback import games_played

CHUNK_GAMES = 50_000


Progress = Callable[[str], None] | None


def _say(progress: Progress, text: str) -> None:
    if progress is not None:
        progress(text)


def _config(players: int, policies: Sequence[str], **kw):
    from bnb_sim.games.builders_biomes.run_config import GameConfig

    return GameConfig.create(int(players), list(policies), **kw)


def design_readings(readings, variant, *, seating: str | None = None, what: str = "") -> dict:
    """The readings of a design that fixes the seating itself (tournaments, comparisons,
    sweeps), as a dict. ``readings``: a mapping of the readings the user gave. A seating
    reading that differs from the design's, or one ``variant`` per player (the designs move
    the players between seats), is an error."""
    from bnb_sim.games.builders_biomes import readings as R

    resolved = R.resolve(readings, aliases={"variant": variant}).to_dict()
    if seating is not None:
        asked = None if isinstance(readings, R.Readings) else dict(readings or {}).get("seating")
        if asked is not None and R.check_value("seating", asked) != seating:
            raise BnbError(
                f"{what}: the seating is part of the design ({seating}); drop the seating reading"
            )
        resolved["seating"] = seating
    if "," in resolved["variant"]:
        raise BnbError(
            f"{what}: one variant per player is not supported here (the design moves the "
            "players between seats); give one value"
        )
    return resolved


def play_games(
    config,
    games: int,
    *,
    start: int = 0,
    threads: int | None = None,
    keep: Callable[[str], bool] | None = None,
    chunk: int = CHUNK_GAMES,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Games ``start .. start+games-1`` of ``config`` as ``(seats, games)`` frames.

    Played in chunks (memory); ``keep`` selects the seat columns to keep.
    """
    seat_parts, game_parts = [], []
    done = 0
    while done < games:
        n = min(chunk, games - done)
        seats, games_df = _play_block(config, start + done, n, threads)
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


def _play_block(config, start: int, n: int, threads: int | None):
    """:func:`bnb_sim.runner.batch.play_block`, without numba's "first-class function type
    is experimental" warning (emitted once per config by the policy dispatch; harmless)."""
    from bnb_sim.games.builders_biomes.batch import play_block

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="First-class function type feature")
        return play_block(config, start, n, threads)


def _specs(policies: Sequence[str]):
    from bnb_sim.analysis.tournament_schedule import split_policy_list
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy

    return [parse_policy(p) for p in split_policy_list(list(policies))]


def _labels(policies: Sequence[str]) -> list[str]:
    return [s.label for s in _specs(policies)]


def _estimates(components, chosen=()) -> dict:
    """The estimated component values the games rest on (the report's warning)."""
    from bnb_sim.analysis.estimated import estimates_meta
    from bnb_sim.games.builders_biomes.components import Components, load_components

    if not isinstance(components, Components):
        components = load_components(components)
    return estimates_meta(components, chosen)
