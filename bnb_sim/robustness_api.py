"""``bnb robustness`` from Python (docs/experiments.md, "How far do the findings hold?")::

    import bnb_sim
    r = bnb_sim.robustness(players=4, games=20_000, out="reports/robust4")
    r.verdict("first_player_advantage")   # verdict, lower, upper, diff, sim_lo, sim_hi, ...
    r.values                              # every finding at every rung with its 95% interval
    r.differences                         # every pair of rungs: paired difference, intervals
    h = bnb_sim.robustness(game="hotv", players=2, pets="all", rungs=["team", "strong"])

The same checks, games and numbers as the command; bad input raises a one-line
:class:`~bnb_sim.errors.BnbError` before any game is played.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from bnb_sim import _args

__all__ = ["robustness"]


def robustness(
    rungs: Sequence[str] | str | None = None,
    *,
    game: str | None = None,
    players: int | None = None,
    games: int | None = None,
    seed: int = 0,
    components: Any = None,
    expansion: str | None = None,
    readings: Mapping[str, str] | None = None,
    threads: int | None = None,
    dask: str | None = None,
    out: str | os.PathLike | None = None,
    progress: bool = False,
    yes: bool = False,
    policy: str | None = None,
    options: Mapping[str, Any] | None = None,
    **game_options: Any,
):
    """Every headline finding of the set-up at every rung (every seat the rung's bot, the same
    game indices), with paired differences and a verdict per finding; the game's own options
    (Heroes of the Village: ``pets``, ``difficulty``, ``buildings``) as keywords or
    ``options={...}``; ``policy``
    adds its win rate in one seat against each rung's bot (Builders & Biomes). Returns a
    :class:`~bnb_sim.analysis.robustness.RobustnessResult`; ``out=FOLDER`` also writes the
    report."""
    from bnb_sim.analysis.robustness_report import build_robustness_report
    from bnb_sim.feedback import games_meter
    from bnb_sim.runner.robustness_play import game_play, run_robustness
    from bnb_sim.study_args import (
        _command_options,
        _game_readings,
        _given_options,
        _out,
        _playing,
        _policy_list,
        _threads,
    )

    play = game_play(game)
    if players is None:
        players = play.default_players
    players = _args.integer(players, "players", 2, 4)
    labels = _policy_list(rungs, "rungs") if rungs is not None else list(play.default_rungs)
    labels = play.check_rungs(labels, players)
    if games is not None:
        games = _args.integer(games, "games", 2)
    seed = _args.integer(seed, "seed", 0)
    # a game that takes readings on its components (Heroes of the Village) gets them there,
    # checked; the mapping still goes to the study, which records it in its parameters
    components, _ = _game_readings(game, components, readings, "robustness")
    options = _command_options(game, _given_options(options, game_options), "robustness")
    from bnb_sim.games import get_game
    from bnb_sim.runner.game_run_config import check_component_arg

    check_component_arg(get_game(game).game, components)  # before the game's own loader
    components = play.prepare_components(components, expansion)
    folder = _out(out)
    shown = _args.boolean(progress, "progress")
    with _playing(shown, [players], game) if play.warms_engine else games_meter(shown):
        result = run_robustness(
            labels, players, games, game=game, seed=seed, components=components,
            readings=readings, expansion=expansion, threads=_threads(threads), dask=dask,
            progress=_say if shown else None, yes=_args.boolean(yes, "yes"), policy=policy,
            **options,
        )  # fmt: skip
    if folder is not None:
        build_robustness_report(result).write(folder)
    return result


def _say(text: str) -> None:
    import sys

    print(text, file=sys.stderr)
