"""Playing a round-robin tournament: every table of the schedule in every cyclic seating on the
same seeds (:func:`play_tournament`), then its analysis (:func:`run_tournament`).
"""

from __future__ import annotations

from collections.abc import Sequence

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
from bnb_sim.runner.study_hooks import study_hooks

# the columns a tournament keeps (the rest is dropped to save memory)
_TOURNAMENT_SEAT_COLUMNS = ("game", "seat", "player", "policy", "rank", "won", "xp")


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
) -> tuple[pd.DataFrame, pd.DataFrame, list[tuple[str, ...]]]:
    """Play every table of the round robin in every cyclic seating on seeds ``0..games-1``.

    Returns ``(seats, games, combos)``; ``game`` is a unique id
    ``(combo * players + rotation) * games + seed_index`` and ``seed_index`` the game index.
    """
    from bnb_sim.analysis.tournament_schedule import schedule, seatings

    confirm_games(tournament_games(len(policies), players, games), "tournament", yes=yes)
    hooks = study_hooks()
    chosen = design_readings(readings, variant, seating="fixed", what="tournament")
    specs = _specs(policies)
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
            )
            seats, games_df = play_games(
                config, games, threads=threads, keep=lambda col: col in _TOURNAMENT_SEAT_COLUMNS
            )
            uid_base = (c * players + r) * games
            seats = seats.assign(
                seed_index=seats["game"].to_numpy(),
                game=seats["game"].to_numpy() + uid_base,
                policy=seats["policy"].astype(str),
                combo=np.int32(c),
                rotation=np.int8(r),
            )
            games_df = games_df[["game", "winners", "turns"]].assign(
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
):
    """Play and analyse a tournament; returns a :class:`~bnb_sim.analysis.tournament.
    TournamentResult`."""
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
    )
    labels = _labels(policies)
    chosen = design_readings(readings, variant, seating="fixed", what="tournament")
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
            "variant": chosen["variant"],
            "readings": chosen,
            "bootstrap": int(n_boot),
            "estimated": _estimates(components),
        },
    )
