"""The game-playing side of ``bnb ladder``: every rung against the next on the same seeds.

Each adjacent pair of rungs plays a two-policy round robin of
:func:`bnb_sim.runner.experiments.play_tournament` (two players: ``[lower, upper]`` and
``[upper, lower]``; more players: every table of the two policies in all its cyclic
seatings) on game indices ``0 .. games-1``. All pairs use the same indices, so a seed's deal
recurs at every step and the seed stays the bootstrap unit of the whole ladder
(:func:`bnb_sim.analysis.ladder.analyse_ladder`). Nothing here imports numba at import time.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.errors import BnbError
from bnb_sim.runner.budget import confirm_games, tournament_games
from bnb_sim.runner.study_hooks import game_name as study_game
from bnb_sim.runner.study_hooks import study_hooks

__all__ = ["ladder_games", "play_ladder", "run_ladder"]


def ladder_games(n_rungs: int, players: int, games: int) -> int:
    """Games a ladder plays: each of the ``n_rungs - 1`` steps is a two-policy round robin."""
    return max(int(n_rungs) - 1, 0) * tournament_games(2, players, games)


def check_rungs(rungs: Sequence[str], players: int, game: str | None = None) -> list[str]:
    """The rung labels, or one clear error: at least two rungs, none listed twice, each a
    policy of ``game`` (a registered competitive game's name; None: the default game)."""
    from bnb_sim.analysis.tournament_schedule import split_policy_list

    hooks = study_hooks(game)
    specs = [hooks.parse_policy(p) for p in split_policy_list(list(rungs))]
    if len(specs) < 2:
        raise BnbError("ladder: needs at least 2 rungs (--rungs A,B,...)")
    hooks.check_distinct(specs, "ladder")
    if not 2 <= int(players) <= 4:
        raise BnbError(f"ladder: players must be between 2 and 4, got {players}")
    return [s.label for s in specs]


def play_ladder(
    rungs: Sequence[str],
    players: int,
    games: int,
    *,
    seed: int = 0,
    components=None,
    readings=None,
    threads: int | None = None,
    progress=None,
    yes: bool = False,
    game: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, list[tuple[str, ...]], list[float]]:
    """Play every step of the ladder; ``(seats, games, tables, seconds per step)``.

    The column ``game`` is made unique over the whole ladder; ``seed_index`` is the game
    index (the seed) and ``step`` the index of the lower rung of the pair. ``game`` (the
    argument): the registered game that plays (None: the default game), ``options`` its own.
    """
    from bnb_sim.runner.tournament_play import play_tournament

    labels = check_rungs(rungs, players, game)
    games = int(games)
    if games < 2:
        raise BnbError("ladder: games must be at least 2 (the bootstrap resamples seeds)")
    confirm_games(ladder_games(len(labels), players, games), "ladder", yes=yes)
    components = study_hooks(game).load_components(components)
    per_step = tournament_games(2, players, games)
    seat_parts, game_parts, tables, seconds = [], [], [], []
    for step, (lower, upper) in enumerate(zip(labels, labels[1:], strict=False)):
        if progress is not None:
            progress(f"  step {step + 1}/{len(labels) - 1}: {upper} vs {lower}")
        start = time.perf_counter()
        seats, games_df, combos = play_tournament(
            [lower, upper],
            players,
            games,
            seed=seed,
            components=components,
            readings=readings,
            threads=threads,
            yes=True,  # the whole ladder was confirmed above
            game=game,
            options=options,
        )
        seconds.append(time.perf_counter() - start)
        offset = step * per_step
        seat_parts.append(seats.assign(game=seats["game"].to_numpy() + offset, step=np.int16(step)))
        game_parts.append(
            games_df.assign(game=games_df["game"].to_numpy() + offset, step=np.int16(step))
        )
        tables += combos
    seats_all = pd.concat(seat_parts, ignore_index=True)
    seats_all["policy"] = seats_all["policy"].astype(str)
    return seats_all, pd.concat(game_parts, ignore_index=True), tables, seconds


def run_ladder(
    rungs: Sequence[str],
    players: int,
    games: int,
    *,
    seed: int = 0,
    components=None,
    readings=None,
    threads: int | None = None,
    n_boot: int = 1000,
    expansion: str | None = None,
    progress=None,
    yes: bool = False,
    game: str | None = None,
    options: Mapping[str, Any] | None = None,
):
    """Play and analyse a ladder (``expansion`` only names the components' expansion in the
    parameters) of ``game`` (None: the default game) with its ``options``; returns a
    :class:`~bnb_sim.analysis.ladder.LadderResult`."""
    from bnb_sim.analysis.ladder import analyse_ladder
    from bnb_sim.runner.design_play import design_readings

    labels = check_rungs(rungs, players, game)
    chosen = design_readings(readings, None, seating="fixed", what="ladder", game=game)
    seats, games_df, tables, seconds = play_ladder(
        labels,
        players,
        games,
        seed=seed,
        components=components,
        readings=readings,
        threads=threads,
        progress=progress,
        yes=yes,
        game=game,
        options=options,
    )
    own = {k: v for k, v in (options or {}).items() if v is not None}
    return analyse_ladder(
        seats,
        games_df,
        rungs=labels,
        players=players,
        seed=seed,
        n_boot=n_boot,
        combos=tables,
        seconds=seconds,
        params={
            "rungs": labels,
            "players": int(players),
            "games": int(games),
            "seed": int(seed),
            "expansion": expansion,
            "variant": chosen.get("variant"),
            "readings": chosen,
            "bootstrap": int(n_boot),
            "game": study_game(game),
            **({"options": own} if own else {}),  # a game's own options, where given
        },
    )
