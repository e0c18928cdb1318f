"""``bnb luck``, ``bnb value`` and ``bnb ladder`` from Python (docs/experiments.md)::

    import bnb_sim
    k = bnb_sim.luck(rungs=["random", "greedy"], groups=50, per_group=10)
    k.table()            # DataFrame: rung, source, share, lo, hi, n (then "rest" per rung)
    k.pairs              # adjacent rungs head to head: skill share, the weaker rung's wins
    v = bnb_sim.value(["buy:crafting_table"], players=3, expansion="farmers-market")
    v.options[0].effect  # mean_diff, lo, hi, n, p_value: the option's worth with its interval
    d = bnb_sim.ladder(["random", "greedy", "heuristic"], games=200)
    d.steps              # each step's score with its interval, verdict, upsets

Each takes the command's options as keywords, checks them all (a wrong type is a
``TypeError``, a bad value one :class:`~bnb_sim.errors.BnbError` line) before any game is
played, plays the same games as the command with the same arguments and returns its result
object (the numbers the command's ``--json`` prints); ``out=FOLDER`` also writes the report.
Heroes of the Village: ``game="hotv"`` and its own options (``pets``, ``difficulty``,
``buildings``). Nothing is printed unless ``progress=True``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from bnb_sim import _args

__all__ = ["ladder", "luck", "value"]


def _say(shown: bool):
    if not shown:
        return None
    import sys

    return lambda text: print(text, file=sys.stderr)


def _components(game, components: Any, expansion: str | None):
    """Components as the command loads them: an object as given, else files (and the
    expansion) through the game's loader; anything else is one line."""
    from bnb_sim.runner.game_run_config import check_component_arg

    check_component_arg(game.game, components)
    if components is not None and hasattr(components, "content_hash"):
        return components
    load = game.entry("load_components")
    paths = [] if components is None else components
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    return load(paths, expansion=expansion) if expansion else load(paths)


def _game(game):
    from bnb_sim.games import get_game

    if game is not None:
        _args.text(game, "game")
    return get_game(game)


def _reading_texts(readings: Mapping[str, str] | None) -> tuple[str, ...]:
    if readings is None:
        return ()
    if not isinstance(readings, Mapping):
        from bnb_sim.errors import ArgumentTypeError

        raise ArgumentTypeError(f"readings must be a mapping of NAME: VALUE, got "
                                f"{_args.show(readings)}")  # fmt: skip
    return tuple(f"{k}={v}" for k, v in readings.items())


def luck(
    rungs: Sequence[str] | str | None = None,
    *,
    game: str | None = None,
    players: int | None = None,
    outcome: str = "win",
    groups: int = 200,
    per_group: int = 25,
    pair_games: int | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    components: Any = None,
    expansion: str | None = None,
    readings: Mapping[str, str] | None = None,
    threads: int | None = None,
    out: str | os.PathLike | None = None,
    progress: bool = False,
    yes: bool = False,
    options: Mapping[str, Any] | None = None,
    **game_options: Any,
):
    """Luck or skill (``bnb luck``): for each rung (that bot in every seat) and each chance
    source, the share of the outcome's variance the source decides alone and with its
    interactions (95% bootstrap intervals over groups), then adjacent rungs head to head.
    Returns a :class:`~bnb_sim.analysis.luck_report.LuckResult`."""
    from bnb_sim.analysis.luck_report import build_luck_report
    from bnb_sim.runner.luck_play import plan_luck, run_luck
    from bnb_sim.study_args import _command_options, _given_options, _out, _policy_list, _threads

    spec = _game(game)
    game_options = _command_options(spec.name, _given_options(options, game_options), "luck")
    labels = _policy_list(rungs, "rungs") if rungs is not None else None
    if players is not None:
        players = _args.integer(players, "players", 2, 4)
    _args.text(outcome, "outcome")
    groups = _args.integer(groups, "groups", 10, 100_000)
    per_group = _args.integer(per_group, "per_group", 2, 10_000)
    if pair_games is not None:
        pair_games = _args.integer(pair_games, "pair_games", 0, 10_000_000)
    bootstrap = _args.integer(bootstrap, "bootstrap", 0, 100_000)
    seed = _args.integer(seed, "seed", 0, 2**63 - 1)
    shown = _args.boolean(progress, "progress")
    plan = plan_luck(
        spec, rungs=labels, groups=groups, per_group=per_group, pair_games=pair_games,
        n_boot=bootstrap, threads=_threads(threads), yes=_args.boolean(yes, "yes"),
        players=players, seed=seed, outcome=outcome,
        components=_components(spec, components, expansion),
        reading=_reading_texts(readings), **game_options,
    )  # fmt: skip
    folder = _out(out)
    result = run_luck(plan, progress=_say(shown))
    if folder is not None:
        build_luck_report(result).write(folder)
    return result


def value(
    options: Sequence[str] | str,
    *,
    game: str | None = None,
    mode: str = "never",
    policy: str | None = None,
    opponents: Sequence[str] = (),
    players: int = 2,
    games: int = 4000,
    seed: int = 0,
    components: Any = None,
    expansion: str | None = None,
    readings: Mapping[str, str] | None = None,
    threads: int | None = None,
    dask: str | None = None,
    out: str | os.PathLike | None = None,
    progress: bool = False,
    yes: bool = False,
    **game_options: Any,
):
    """What is an option worth (``bnb value``): the same bot with the option forbidden
    (``mode="never"``) or forced (``"always"``) against the unrestricted bot on the same game
    indices, each option's paired difference in win share with its 95% interval, ranked
    (Heroes of the Village: each pet against its replacement, ``options=["all-pets"]``).
    Returns a :class:`~bnb_sim.analysis.value.ValueResult`."""
    from bnb_sim.analysis.value_report import build_value_report
    from bnb_sim.errors import BnbError
    from bnb_sim.study_args import _out, _policy_list, _threads

    spec = _game(game)
    words = [options] if isinstance(options, str) else options
    if not isinstance(words, list | tuple) or not all(isinstance(w, str) for w in words):
        from bnb_sim.errors import ArgumentTypeError

        raise ArgumentTypeError(f"options must be a list of strings, got {_args.show(options)}")
    if not words:
        raise BnbError("value: give at least one option (e.g. options=['buy:crafting_table'])")
    _args.text(mode, "mode")
    players = _args.integer(players, "players", 2, 4)
    games = _args.integer(games, "games", 2, 100_000_000)
    seed = _args.integer(seed, "seed", 0, 2**63 - 1)
    rivals = _policy_list(list(opponents), "opponents") if opponents else []
    shown = _args.boolean(progress, "progress")
    yes = _args.boolean(yes, "yes")
    comps = _components(spec, components, expansion)
    play = spec.entry("value_study")
    if play is not None:  # a game that values its own options (Heroes of the Village: pets)
        from bnb_sim.study_args import _command_options

        game_options = _command_options(spec.name, game_options, "value")
        result = play(list(words), mode=mode, policy=policy, players=players, games=games,
                      seed=seed, components=comps, reading=_reading_texts(readings),
                      threads=_threads(threads), dask=dask, opponents=rivals, yes=yes,
                      say=_say(shown), **game_options)  # fmt: skip
    else:
        if game_options:
            raise BnbError(f"value: {', '.join(sorted(game_options))} is not an option of "
                           f"{spec.title}")  # fmt: skip
        from bnb_sim.runner.value_study import run_value

        result = run_value(
            list(words), policy=_args.text(policy or "heuristic", "policy"), players=players,
            games=games, seed=seed, mode=mode, opponents=rivals, components=comps,
            readings=dict(readings) if readings else None, threads=_threads(threads),
            dask=dask, say=_say(shown), yes=yes,
        )  # fmt: skip
    folder = _out(out)
    if folder is not None:
        build_value_report(result).write(folder)
    return result


def ladder(
    rungs: Sequence[str] | str | None = None,
    *,
    game: str | None = None,
    games: int = 200,
    players: int | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    components: Any = None,
    expansion: str | None = None,
    readings: Mapping[str, str] | None = None,
    threads: int | None = None,
    out: str | os.PathLike | None = None,
    progress: bool = False,
    yes: bool = False,
    options: Mapping[str, Any] | None = None,
    **game_options: Any,
):
    """A ladder of play strength (``bnb ladder``): each rung against the next on the same
    seeds with the seats rotated, each step's score with its 95% bootstrap interval, how
    often the weaker rung wins, an Elo scale and the skill depth; a
    :class:`~bnb_sim.analysis.ladder.LadderResult`. A cooperative game (``game="hotv"``,
    its ``pets``, ``difficulty``, ``buildings``) plays each rung's team on the same game
    indices: a :class:`~bnb_sim.analysis.team_ladder.TeamLadderResult`."""
    from bnb_sim.errors import BnbError
    from bnb_sim.study_args import (
        _command_options,
        _given_options,
        _out,
        _playing,
        _policy_list,
        _threads,
    )

    spec = _game(game)
    game_options = _command_options(spec.name, _given_options(options, game_options), "ladder")
    labels = _policy_list(rungs, "rungs") if rungs is not None else None
    if players is not None:
        players = _args.integer(players, "players", 2, 4)
    games = _args.integer(games, "games", 2, 10_000_000)
    seed = _args.integer(seed, "seed", 0, 2**63 - 1)
    shown = _args.boolean(progress, "progress")
    yes = _args.boolean(yes, "yes")
    if spec.outcome == "cooperative":
        from bnb_sim.study_args import _game_readings

        components, readings = _game_readings(spec.name, components, readings, "ladder")
        components = _components(spec, components, None)  # checked: one line if not data
        if readings:  # a team game whose readings are not set on its components
            raise BnbError(f"ladder: readings do not apply to {spec.title}'s ladder")
        if bootstrap != 1000:
            raise BnbError("ladder: bootstrap does not apply to a cooperative game's ladder "
                           "(its intervals are paired over game indices)")  # fmt: skip
        return _team_ladder(spec, labels, players, games, seed, components, threads, out,
                            shown, yes, game_options)  # fmt: skip
    from bnb_sim.analysis.ladder import build_ladder_report
    from bnb_sim.runner.ladder_play import check_rungs, run_ladder

    players = 2 if players is None else players
    labels = check_rungs(labels if labels is not None else _default_rungs(spec), players,
                         spec.name)  # fmt: skip
    bootstrap = _args.integer(bootstrap, "bootstrap", 0, 100_000)
    comps = _components(spec, components, expansion)
    folder = _out(out)
    with _playing(shown, [players], spec.name):
        result = run_ladder(
            labels, players, games, seed=seed, components=comps,
            readings=dict(readings) if readings else None, threads=_threads(threads),
            n_boot=bootstrap, expansion=expansion, progress=_say(shown), yes=yes,
            game=spec.name, options=game_options,
        )  # fmt: skip
    if folder is not None:
        build_ladder_report(result).write(folder)
    return result


def _default_rungs(spec) -> list[str]:
    """The game's default rungs (its protocol's ``ladder_rungs`` hook), else one line asking
    for them (as ``bnb ladder --game NAME`` does)."""
    from bnb_sim.core.registry import get_game
    from bnb_sim.errors import BnbError

    hook = getattr(get_game(spec.name), "ladder_rungs", None)
    if not callable(hook):
        raise BnbError(f"ladder: {spec.title} has no default rungs: give rungs=[A, B, ...]")
    return list(hook())


def _team_ladder(spec, labels, players, games, seed, components, threads, out, shown, yes,
                 options):  # fmt: skip
    """``bnb ladder --game NAME`` of a cooperative game, as the command plays it."""
    from bnb_sim.analysis.team_ladder import build_team_ladder_report
    from bnb_sim.feedback import games_meter, warm_game
    from bnb_sim.runner.team_ladder import plan_team_ladder, run_team_ladder
    from bnb_sim.study_args import _out, _threads

    plan = plan_team_ladder(spec, labels, players=players, games=games, seed=seed,
                            components=components, yes=yes, options=options)  # fmt: skip
    folder = _out(out)
    warm_game(spec.name, [plan.team.players], notice=False)
    with games_meter(shown):
        result = run_team_ladder(plan, threads=_threads(threads), progress=_say(shown))
    if folder is not None:
        build_team_ladder_report(result).write(folder)
    return result
