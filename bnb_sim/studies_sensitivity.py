"""``bnb sensitivity`` from Python (docs/experiments.md, "Sensitivity to the estimates")::

    import bnb_sim
    s = bnb_sim.sensitivity("first_player_advantage", players=3, expansion="farmers-market")
    s.ranking          # DataFrame: key, range, reason, largest effect, lo, hi, n (largest first)
    s.hinges           # the values under which the finding moves beyond its own interval
    s.screen           # every estimate on the screening games (``selected`` marks the chosen)
    h = bnb_sim.sensitivity("team_win_rate", game="hotv", players=3, out="reports/hs")

The same checks and numbers as the command; nothing is printed unless ``progress=True``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from bnb_sim import _args
from bnb_sim.errors import ArgumentTypeError

__all__ = ["sensitivity"]


def _components(game, components: Any, expansion: str | None):
    from bnb_sim.games import get_game
    from bnb_sim.runner.game_run_config import check_component_arg

    spec = game if hasattr(game, "entry") else get_game(game)
    check_component_arg(spec.game, components)
    if components is not None and hasattr(components, "estimate_ranges"):
        return components
    load = spec.entry("load_components")
    paths = [] if components is None else components
    return load(paths, expansion=expansion) if expansion else load(paths)


def sensitivity(
    finding: str,
    *,
    game: str | None = None,
    players: int | None = None,
    policies: Sequence[str] | str | None = None,
    estimates: Sequence[str] | str = (),
    screen_games: int = 500,
    games: int = 10_000,
    top: int = 8,
    seed: int = 0,
    components: Any = None,
    expansion: str | None = None,
    readings: Mapping[str, str] | None = None,
    threads: int | None = None,
    dask: str | None = None,
    out: str | os.PathLike | None = None,
    progress: bool = False,
    yes: bool = False,
    options: Mapping[str, Any] | None = None,
    **game_options: Any,
):
    """Which estimated component values move ``finding`` most (``bnb sensitivity``).

    Every estimate with a plausible range (or those ``estimates`` name: dotted keys, ``*``
    for one part) is moved alone to each end of its range or each other choice and played on
    ``screen_games`` games (the baseline's indices); the ``top`` with the largest screening
    reach are played again on ``games`` fresh games. The game's own options (Heroes of the
    Village: ``pets``, ``difficulty``, ``buildings``), as keywords or ``options={...}``, go
    to its set-up. ``dask``: ``"local"``
    or a scheduler address plays the games on Dask workers (the same numbers).

    Returns a :class:`~bnb_sim.analysis.sensitivity.SensitivityResult`; with ``out`` the
    report is written there too.
    """
    from bnb_sim.analysis.sensitivity import parse_finding
    from bnb_sim.analysis.sensitivity_report import build_sensitivity_report
    from bnb_sim.runner.sensitivity import make_setup, run_sensitivity
    from bnb_sim.study_args import _command_options, _game_readings, _given_options, _out, _playing

    parse_finding(finding)
    if isinstance(estimates, str):
        estimates = [estimates]
    if not all(isinstance(e, str) for e in estimates):
        raise ArgumentTypeError(f"estimates must be dotted keys, got {_args.show(estimates)}")
    if isinstance(policies, str):
        policies = [p.strip() for p in policies.split(",") if p.strip()]
    screen_games = _args.integer(screen_games, "screen_games", 2, 10_000_000)
    games = _args.integer(games, "games", 2, 10_000_000)
    top = _args.integer(top, "top", 1, 500)
    seed = _args.integer(seed, "seed", 0)
    if players is not None:
        players = _args.integer(players, "players", 2, 4)
    if expansion is not None:
        _args.text(expansion, "expansion")
    # a game that takes readings on its components (Heroes of the Village) gets them there
    components, readings = _game_readings(game, components, readings, "sensitivity")
    game_options = _command_options(game, _given_options(options, game_options), "sensitivity")
    setup = make_setup(
        game, components=_components(game, components, expansion), players=players,
        policies=policies, seed=seed, readings=readings, threads=threads, dask=dask,
        **game_options,
    )  # fmt: skip
    folder = _out(out)
    with _playing(progress, [setup.params["players"]], game):  # the game's kernels only
        result = run_sensitivity(
            finding, setup, screen_games=screen_games, games=games, top=top,
            estimates=list(estimates), yes=_args.boolean(yes, "yes"),
        )  # fmt: skip
    if folder is not None:
        build_sensitivity_report(result).write(folder)
    return result
