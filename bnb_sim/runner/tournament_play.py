"""Playing a round-robin tournament: every table of the schedule in every cyclic seating on the
same seeds (:func:`play_tournament`), then its analysis (:func:`run_tournament`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.errors import BnbError
from bnb_sim.feedback import expect_games
from bnb_sim.runner.budget import confirm_games, tournament_games
from bnb_sim.runner.design_play import (
    Progress,
    _config,
    _estimates,
    _labels,
    _say,
    _specs,
    design_readings,
    play_games,
)
from bnb_sim.runner.study_hooks import game_name as study_game
from bnb_sim.runner.study_hooks import study_hooks

# the columns a tournament keeps (the rest is dropped to save memory)
_TOURNAMENT_SEAT_COLUMNS = ("game", "seat", "player", "policy", "rank", "won", "xp")
# the game columns it keeps, those the game has (``winners``: the shared wins, else counted)
_TOURNAMENT_GAME_COLUMNS = ("game", "winners", "turns")


def _own_options(options: Mapping[str, Any] | None) -> dict:
    """The ``options`` keyword of a config, given only when the game has options of its own
    (a game whose options are the commands' own takes no such keyword)."""
    return {"options": dict(options)} if options else {}


def entrant_labels(
    specs: Sequence[str],
    players: int,
    game: str | None = None,
    *,
    distinct: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> list[str]:
    """The label of each entrant's policy spec, checked before any game is played: by the
    game's ``policy_labels`` hook where it has one (``distinct``, the command's name: one
    spec listed twice however written is refused too), else by its ``studies`` hooks and a
    config of each entrant (an unknown policy is the game's own one-line error)."""
    from bnb_sim.core.protocol import hook
    from bnb_sim.core.registry import get_game

    labels = hook(get_game(study_game(game)), "policy_labels")
    if labels is not None:
        return list(labels(list(specs), distinct=distinct))
    hooks = study_hooks(game)
    parsed = [hooks.parse_policy(spec) for spec in specs]
    for spec in parsed:
        _config(players, [spec], game=game, **_own_options(options))
    if distinct:
        hooks.check_distinct(parsed, distinct)
    return [spec.label for spec in parsed]


def play_tournament(
    policies: Sequence[str],
    players: int,
    games: int,
    *,
    seed: int = 0,
    components=None,
    readings=None,
    variant: str | None = None,
    threads: int | None = None,
    progress: Progress = None,
    yes: bool = False,
    game: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, list[tuple[str, ...]]]:
    """Play every table of the round robin in every cyclic seating on seeds ``0..games-1``.

    ``game``: the registered game that plays (None: the default game), ``options`` its own
    options (e.g. a goal), given to its config. Returns ``(seats, games, combos)``; ``game``
    is a unique id ``(combo * players + rotation) * games + seed_index`` and ``seed_index``
    the game index.
    """
    from bnb_sim.analysis.tournament_schedule import schedule, seatings

    confirm_games(tournament_games(len(policies), players, games), "tournament", yes=yes)
    hooks = study_hooks(game)
    chosen = design_readings(readings, variant, seating="fixed", what="tournament", game=game)
    specs = _specs(policies, game)
    hooks.check_distinct(specs, "tournament")
    by_label = {s.label: s for s in specs}
    labels = [s.label for s in specs]
    combos = schedule(labels, players)
    components = hooks.load_components(components)
    games = int(games)
    if games < 1:
        raise BnbError("tournament: games must be at least 1")
    _say(
        progress,
        f"  {len(combos)} table(s) x {players} seatings x {games:,} seeds = "
        f"{len(combos) * players * games:,} games",
    )
    expect_games(len(combos) * players * games)
    seat_parts, game_parts = [], []
    for c, combo in enumerate(combos):
        for r, seating in enumerate(seatings(combo)):
            config = _config(
                players,
                [by_label[p] for p in seating],
                seed=seed,
                components=components,
                readings=chosen,
                game=game,
                **_own_options(options),
            )
            seats, games_df = play_games(
                config, games, threads=threads, game=game,
                keep=lambda col: col in _TOURNAMENT_SEAT_COLUMNS,
            )  # fmt: skip
            uid_base = (c * players + r) * games
            seats = seats.assign(
                seed_index=seats["game"].to_numpy(),
                game=seats["game"].to_numpy() + uid_base,
                policy=seats["policy"].astype(str),
                combo=np.int32(c),
                rotation=np.int8(r),
            )
            games_df = games_df[[c for c in _TOURNAMENT_GAME_COLUMNS if c in games_df]].assign(
                seed_index=games_df["game"].to_numpy(),
                game=games_df["game"].to_numpy() + uid_base,
            )
            seat_parts.append(seats)
            game_parts.append(games_df)
    seats = pd.concat(seat_parts, ignore_index=True)
    games_all = pd.concat(game_parts, ignore_index=True)
    return seats, games_all, combos


def run_tournament(
    policies: Sequence[str],
    players: int,
    games: int,
    *,
    seed: int = 0,
    components=None,
    readings=None,
    variant: str | None = None,
    threads: int | None = None,
    n_boot: int = 200,
    anchor: str | None = "auto",
    name: str | None = None,
    progress: Progress = None,
    yes: bool = False,
    game: str | None = None,
    options: Mapping[str, Any] | None = None,
):
    """Play and analyse a tournament of ``game`` (None: the default game; ``options``: its
    own options); returns a :class:`~bnb_sim.analysis.tournament.TournamentResult`."""
    from bnb_sim.analysis.tournament_analysis import analyse_tournament

    seats, games_df, combos = play_tournament(
        policies,
        players,
        games,
        seed=seed,
        components=components,
        readings=readings,
        variant=variant,
        threads=threads,
        progress=progress,
        yes=yes,
        game=game,
        options=options,
    )
    labels = _labels(policies, game)
    chosen = design_readings(readings, variant, seating="fixed", what="tournament", game=game)
    return analyse_tournament(
        seats,
        games_df,
        policies=labels,
        players=players,
        seed=seed,
        n_boot=n_boot,
        anchor=anchor,
        combos=combos,
        name=name,
        params={
            "policies": labels,
            "players": int(players),
            "games": int(games),
            "seed": int(seed),
            "variant": chosen.get("variant"),
            "readings": chosen,
            "bootstrap": int(n_boot),
            "estimated": _estimates(components, game=game),
            **({"options": dict(options)} if options else {}),
        },
        game=game,
    )
