"""The game-playing side of a cooperative game's ladder (``bnb ladder`` for a game whose
``outcome`` is ``"cooperative"``): every rung, a team policy, plays the same game indices.

The game gives one entry point, ``team_play(players=, seed=, components=, **options)``,
returning a setting object with ``label(spec)`` (a rung's label, or one clear error),
``won(spec, games, threads)`` (team won per game index ``0 .. games-1``), ``setting`` (the
setting in words), ``params()`` and ``default_rungs`` / ``default_games``; the statistics are
:mod:`bnb_sim.analysis.team_ladder`. The kernels are warmed before the rungs play by the
game's shared warm-up (:func:`bnb_sim.feedback.warm_game`: its ``compile_jobs``), not by the
setting. Nothing here names a game or imports numba.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bnb_sim.errors import BnbError
from bnb_sim.runner.budget import confirm_games

__all__ = ["TeamLadderPlan", "plan_team_ladder", "run_team_ladder"]


@dataclass
class TeamLadderPlan:
    """A checked cooperative ladder: the game, its setting, the rungs and the games."""

    game: Any  # bnb_sim.games.GameSpec
    team: Any  # the game's setting object (see the module doc)
    rungs: list[str]
    games: int
    seed: int


def plan_team_ladder(
    game,
    rungs: Sequence[str] | None,
    *,
    players: int | None = None,
    games: int | None = None,
    seed: int = 0,
    components=None,
    yes: bool = False,
    options: dict | None = None,
) -> TeamLadderPlan:
    """Check everything before a game is played: the setting (the game's own checks), at
    least two rungs, none twice (by label), each a policy of the game, the game count."""
    from bnb_sim.analysis.tournament_schedule import split_policy_list

    play = game.entry("team_play")
    if play is None:
        raise BnbError(f"ladder: {game.title} has no ladder yet")
    team = play(players=players, seed=seed, components=components, **(options or {}))
    specs = split_policy_list(list(rungs)) if rungs else list(team.default_rungs)
    if len(specs) < 2:
        raise BnbError("ladder: needs at least 2 rungs (--rungs A,B,...)")
    labels = [team.label(s) for s in specs]
    for i, label in enumerate(labels):
        if label in labels[:i]:
            raise BnbError(f"ladder: rung '{label}' is listed twice; list it once")
    games = int(team.default_games if games is None else games)
    if games < 2:
        raise BnbError("ladder: games must be at least 2")
    confirm_games(len(labels) * games, "ladder", yes=yes)
    return TeamLadderPlan(game, team, labels, games, int(seed))


def run_team_ladder(plan: TeamLadderPlan, *, threads: int | None = None, progress=None):
    """Play every rung on game indices ``0 .. games-1`` and analyse the ladder; returns a
    :class:`~bnb_sim.analysis.team_ladder.TeamLadderResult`."""
    from bnb_sim.analysis.team_ladder import analyse_team_ladder

    won, seconds = {}, []
    for i, rung in enumerate(plan.rungs):
        if progress is not None:
            progress(f"  rung {i + 1}/{len(plan.rungs)}: {rung}")
        start = time.perf_counter()
        won[rung] = plan.team.won(rung, plan.games, threads)
        seconds.append(time.perf_counter() - start)
    params = {**plan.team.params(), "rungs": plan.rungs, "games": plan.games, "seed": plan.seed}
    return analyse_team_ladder(
        won,
        players=plan.team.players,
        seed=plan.seed,
        seconds=seconds,
        setting=plan.team.setting,
        title=plan.game.title,
        params=params,
    )
