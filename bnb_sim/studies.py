"""Tournaments, comparisons, sweeps and experiment files from Python: the code of ``bnb
tournament``, ``bnb compare``, ``bnb sweep`` and ``bnb run``, with the same checks, the same
games and the same numbers (docs/simulate.md, "Python").

::

    import bnb_sim
    t = bnb_sim.tournament(["heuristic", "greedy", "random"], players=2, games=500)
    t.ratings                      # DataFrame: policy, elo, lo, hi, games
    c = bnb_sim.compare("heuristic", "greedy", precision=0.03, out="reports/c")
    c.verdict, c.difference        # the verdict and the win-rate difference with its interval
    s = bnb_sim.sweep({"mobs.enderman.hearts": [5, 6, 7]}, games=2000, policies=["heuristic"])
    s.win_effects                  # DataFrame: variant, policy, mean_diff, lo, hi, n, p_value
    e = bnb_sim.run_experiment(builtin="demo", out="reports/demo")

Each returns the dataclass the command's report is built from (tables are tidy DataFrames of
numbers with n and 95% intervals); ``out=FOLDER`` also writes that report (``report.html``,
``report.md``, PNGs, ``summary.json``), as the command does. Bad input raises a
:class:`~bnb_sim.errors.BnbError` with one line before any game is played. Nothing is printed
unless ``progress=True`` (a bar with rate and ETA on stderr).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bnb_sim import _args
from bnb_sim.errors import ArgumentTypeError, BnbError
from bnb_sim.study_args import (
    _components,
    _game_options,
    _given_options,
    _out,
    _playing,
    _policy_list,
    _threads,
    _write,
)

__all__ = ["ExperimentResult", "compare", "run_experiment", "sweep", "tournament"]


# --------------------------------------------------------------------------------------
# the four


def tournament(
    policies: Sequence[str] | str,
    players: int | None = None,
    games: int = 1000,
    *,
    seed: int = 0,
    components: Any = None,
    expansion: str | None = None,
    readings: Mapping[str, str] | None = None,
    variant: str | None = None,
    threads: int | None = None,
    bootstrap: int = 200,
    anchor: str | None = "auto",
    out: str | os.PathLike | None = None,
    progress: bool = False,
    yes: bool = False,
    game: str | None = None,
    options: Mapping[str, Any] | None = None,
    **game_options: Any,
):
    """Round robin of ``policies`` (``bnb tournament``): every combination of ``players`` of
    them at a table, each in all its seatings, on the seeds ``0 .. games-1``; ``players``
    None: 2, or a cooperative game's own count.

    Returns a :class:`~bnb_sim.analysis.tournament.TournamentResult`: ``ratings``
    (Bradley-Terry Elo with bootstrap intervals over seeds; ``anchor`` pinned to 0: ``"auto"``
    is ``random`` when it plays, None the mean), ``win_rates``, ``win_rates_by_seat``,
    ``xp``, the head-to-head matrices ``h2h_score``/``h2h_lo``/``h2h_hi``/``h2h_n``,
    ``n_games``, ``tie_rate``. ``components``: a Components, a path or a list of paths (None:
    the defaults); ``expansion``: ``"farmers-market"``; ``readings``: rule readings by name.
    ``game``: a registered game's name or alias (None: the default game), ``options`` its own
    options (``{"pets": "wolf,cat"}``, or as keywords: ``pets="wolf,cat"``). A cooperative
    game's entrants are team policies,
    each in every seat: the result is then the data of ``bnb tournament --game NAME --json``
    (a ranking by team win rate with paired differences and McNemar tests).
    """
    from bnb_sim.analysis.study_hooks import game_protocol
    from bnb_sim.analysis.tournament_report import build_tournament_report
    from bnb_sim.analysis.tournament_schedule import schedule
    from bnb_sim.runner.budget import confirm_games, tournament_games
    from bnb_sim.runner.design_play import design_readings
    from bnb_sim.runner.study_hooks import game_name
    from bnb_sim.runner.tournament_play import entrant_labels, run_tournament

    options = _given_options(options, game_options)
    specs = _policy_list(policies, "policies")
    players = None if players is None else _args.integer(players, "players", 2, 4)
    games = _args.integer(games, "games", 2)
    seed = _args.integer(seed, "seed", 0)
    bootstrap = _args.integer(bootstrap, "bootstrap", 0, 100_000)
    if anchor is not None:
        anchor = _args.text(anchor, "anchor")
    yes = _args.boolean(yes, "yes")
    threads = _threads(threads)
    name = None if game is None else game_name(_args.text(game, "game"))
    if game_protocol(name).outcome == "cooperative":
        from bnb_sim.studies_team import team_tournament

        return team_tournament(name, specs, players, games, seed=seed, components=components,
                               readings=readings, threads=threads, out=out, progress=progress,
                               yes=yes, options=options)  # fmt: skip
    players = 2 if players is None else players
    own = {k: v for k, v in _game_options(name, options, "tournament").items() if v is not None}
    schedule(entrant_labels(specs, players, name, options=own), players)
    entrant_labels(specs, players, name, distinct="tournament", options=own)
    chosen = design_readings(readings, variant, seating="fixed", what="tournament", game=name)
    confirm_games(tournament_games(len(specs), players, games), "tournament", yes=yes)
    comps = _components(components, expansion, name)
    folder = _out(out)
    with _playing(progress, [players], name):
        result = run_tournament(
            specs, players, games, seed=seed, components=comps, readings=chosen,
            threads=threads, n_boot=bootstrap, anchor=anchor, yes=yes, game=name,
            options=own,
        )  # fmt: skip
    _write(build_tournament_report(result) if folder else None, folder)
    return result


def compare(
    a: str,
    b: str,
    *,
    opponents: Sequence[str] | str = (),
    players: int | None = None,
    sprt: tuple[float, float] | None = None,
    precision: float | None = None,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int = 200_000,
    seed: int = 0,
    components: Any = None,
    expansion: str | None = None,
    readings: Mapping[str, str] | None = None,
    variant: str | None = None,
    threads: int | None = None,
    out: str | os.PathLike | None = None,
    progress: bool = False,
    yes: bool = False,
    game: str | None = None,
    options: Mapping[str, Any] | None = None,
    **game_options: Any,
):
    """Is policy ``a`` better than ``b``? (``bnb compare``) Both play the same seeds: head to
    head with the seats swapped, or (``opponents``) in turn in the same seat against the same
    opponents. It stops by the SPRT decision (``sprt=(elo0, elo1)`` with errors ``alpha``,
    ``beta``), the ``precision`` target (the 95% half-width of the win-rate difference), or
    after ``max_games``; with neither rule it plays ``max_games``.

    Returns a :class:`~bnb_sim.analysis.compare.CompareResult`: ``verdict``, ``decision``,
    ``difference`` (win-rate difference with its 95% interval), ``score``, ``elo``, ``rates``,
    ``n_games``, ``n_pairs`` and the stopping ``reason``. ``game``: a registered game's name
    or alias (None: the default game), with ``options``, its own options (``{"goal": 10}``,
    or as keywords: ``goal=10``); a cooperative game's teams are compared in pairs of team
    games, and the result is the data ``bnb compare --game NAME --json`` prints.
    """
    from bnb_sim.analysis import compare as C
    from bnb_sim.analysis.study_hooks import game_protocol
    from bnb_sim.runner.budget import confirm_games
    from bnb_sim.runner.compare_play import check_policies, run_compare
    from bnb_sim.runner.design_play import design_readings
    from bnb_sim.runner.study_hooks import game_name

    options = _given_options(options, game_options)
    a, b = _args.text(a, "a"), _args.text(b, "b")
    name = game_name(_args.text(game, "game")) if game is not None else None
    own = {k: v for k, v in _game_options(name, options, "compare").items() if v is not None}
    rivals = _policy_list(opponents, "opponents") if opponents else []
    if players is not None:
        players = _args.integer(players, "players", 2, 4)
    if sprt is not None:
        if not isinstance(sprt, list | tuple) or len(sprt) != 2:
            raise ArgumentTypeError(f"sprt must be a pair (elo0, elo1), got {_args.show(sprt)}")
        sprt = (float(sprt[0]), float(sprt[1]))
    max_games = _args.integer(max_games, "max_games", 4, 100_000_000)
    seed = _args.integer(seed, "seed", 0)
    yes = _args.boolean(yes, "yes")
    threads = _threads(threads)
    if (sprt is None) == (precision is None):
        raise BnbError("compare: give exactly one of sprt=(elo0, elo1) and precision=H")
    C.make_rule(sprt, precision, alpha, beta)
    if game_protocol(name).outcome == "cooperative":  # team pairs (bnb compare --game NAME)
        from bnb_sim.studies_team import team_compare

        return team_compare(name, a, b, players=players, sprt=sprt, precision=precision,
                            alpha=alpha, beta=beta, max_games=max_games, seed=seed,
                            components=components, readings=readings, options=own,
                            threads=threads, out=out, yes=yes, rivals=rivals)  # fmt: skip
    confirm_games(max_games, "compare", yes=yes)
    check_policies([a, b, *rivals], players=players, game=name, options=own)
    if not rivals and players not in (None, 2):
        raise BnbError("compare: a head-to-head comparison (no opponents) has 2 players")
    if rivals and players is not None and len(rivals) > players - 1:
        raise BnbError(f"compare: {len(rivals)} opponents do not fit {players} players")
    design = "rotate" if rivals else "fixed"
    chosen = design_readings(readings, variant, seating=design, what="compare", game=name)
    comps = _components(components, expansion, name)
    folder = _out(out)
    with _playing(progress, [players or (len(rivals) + 2 if rivals else 2)], game=name):
        result = run_compare(
            a, b, opponents=rivals, players=players, sprt=sprt, precision=precision,
            alpha=alpha, beta=beta, max_games=max_games, seed=seed, components=comps,
            readings=chosen, threads=threads, yes=yes, game=name, options=own,
        )  # fmt: skip
    _write(C.build_compare_report(result) if folder else None, folder)
    return result


def sweep(
    sets: Mapping[str, Sequence[Any]] | Sequence[tuple[str, Sequence[Any]]],
    *,
    game: str | None = None,
    games: int = 2000,
    players: int | None = None,
    policies: Sequence[str] | str | None = None,
    zip: bool = False,
    seed: int = 0,
    components: Any = None,
    expansion: str | None = None,
    readings: Mapping[str, str] | None = None,
    variant: str | None = None,
    threads: int | None = None,
    out: str | os.PathLike | None = None,
    progress: bool = False,
    yes: bool = False,
    options: Mapping[str, Any] | None = None,
    **game_options: Any,
):
    """The same games under component variants (``bnb sweep``): ``sets`` maps a dotted
    component path to the values to try (``{"mobs.enderman.hearts": [5, 6, 7]}``); the
    variants are every combination (or, with ``zip=True``, the i-th values together), and
    each is compared with the baseline ``components`` on the same seeds. ``policies`` are
    cycled over the ``players`` seats, which rotate.

    ``game``: a registered game's name or alias (None: the default game, whose defaults are
    4 players and ``["heuristic"]``; another game's are its default policy and its own
    player count), ``options`` its own options (``{"pets": "wolf,cat,fox"}``, or as
    keywords). A
    cooperative game's sweep is ``bnb sweep --game NAME --json``'s data: each variant's
    team win rate and its paired difference from the first (the component file's values).

    Returns a :class:`~bnb_sim.analysis.sweep.SweepResult`: ``win_rates``, ``win_effects``,
    ``xp``, ``xp_effects``, ``source_effects``, ``fights``, ``length``, ``ties`` (paired
    differences against the baseline, with 95% intervals, n and p-values; the XP, fights
    and length tables are empty for a game whose rows lack those columns).
    """
    from bnb_sim.analysis.sweep_report import build_sweep_report
    from bnb_sim.analysis.sweep_variants import game_variants
    from bnb_sim.runner.budget import confirm_games
    from bnb_sim.runner.design_play import design_readings
    from bnb_sim.runner.sweep_play import run_sweep

    options = _given_options(options, game_options)
    parsed = _sweep_sets(sets)
    games = _args.integer(games, "games", 2, 10_000_000)
    seed = _args.integer(seed, "seed", 0)
    yes = _args.boolean(yes, "yes")
    threads = _threads(threads)
    mode = "zip" if _args.boolean(zip, "zip") else "grid"
    spec = _game_spec(game)
    if spec.outcome == "cooperative":  # the team win rate per variant (bnb sweep --game NAME)
        from bnb_sim.studies_team import team_sweep

        if expansion is not None or variant is not None:
            raise BnbError(f"sweep: {spec.title} takes no expansion or variant")
        return team_sweep(
            spec.name, parsed, mode=mode, games=games, players=None if players is None else
            _args.integer(players, "players", 1, 64), policies=None if policies is None
            else _policy_list(policies, "policies"), seed=seed, components=components,
            readings=readings, options=options, threads=threads, out=out, progress=progress,
            yes=yes,
        )  # fmt: skip
    own = spec.hook("studies") is not None
    own_options = {
        k: v for k, v in _game_options(spec.name, options, "sweep").items() if v is not None
    }
    comps = _components(components, expansion, spec.name)
    players = (4 if own else None) if players is None else _args.integer(players, "players", 2, 4)
    default = ["heuristic"] if own else [spec.game.default_policy]
    policy_list = default if policies is None else _policy_list(policies, "policies")
    if not policy_list:
        raise BnbError("sweep: name at least one policy")
    policy_list = policy_list[:players]  # cycled over the seats, as the command does
    variants = game_variants(spec.game, comps, parsed, mode)
    confirm_games(len(variants) * games, "sweep", yes=yes)
    chosen = design_readings(readings, variant, seating="rotate", what="sweep", game=spec.name)
    folder = _out(out)
    with _playing(progress, [players], None if own else spec.name):
        result = run_sweep(
            games=games, players=players, policies=policy_list, mode=mode, seed=seed,
            components=comps, readings=chosen, threads=threads, variants=variants, yes=yes,
            game=spec.name, options=own_options,
        )  # fmt: skip
    _write(build_sweep_report(result) if folder else None, folder)
    return result


def _sweep_sets(sets: Any) -> list[tuple[str, list]]:
    """``[(path, [values...])]`` of :func:`sweep`'s ``sets`` (ArgumentTypeError if malformed)."""
    if isinstance(sets, Mapping):
        pairs = list(sets.items())
    elif isinstance(sets, list | tuple) and all(
        isinstance(s, list | tuple) and len(s) == 2 for s in sets
    ):
        pairs = [tuple(s) for s in sets]
    else:
        raise ArgumentTypeError(
            "sets must map component paths to lists of values "
            f"({{'mobs.enderman.hearts': [5, 6]}}), got {_args.show(sets)}"
        )
    parsed = []
    for path, values in pairs:
        path = _args.text(path, "a sets path")
        if isinstance(values, str) or not isinstance(values, list | tuple) or not values:
            raise ArgumentTypeError(
                f"sets[{path!r}] must be a non-empty list of values, got {_args.show(values)}"
            )
        parsed.append((path, list(values)))
    return parsed


def _game_spec(game: Any):
    """The registry entry of ``game`` (a name or alias; None: the default game)."""
    from bnb_sim.games import get_game

    return get_game(None if game is None else _args.text(game, "game"))


@dataclass
class ExperimentResult:
    """A played experiment file: its items' outcomes in file order.

    ``outcomes[i].result`` is ``(seats, games, meta)`` for a ``[[simulation]]`` item and a
    TournamentResult, CompareResult, SweepResult (or the item's own result, for a tuning or
    Heroes of the Village item) otherwise; ``outcomes[i].spec`` is the item as parsed and
    ``outcomes[i].seconds`` its playing time. ``report`` holds the written paths when
    ``out`` was given.
    """

    experiment: Any
    outcomes: list[Any]
    seconds: float
    compile_seconds: float
    report: dict[str, Any] | None = field(default=None)

    def __getitem__(self, name: str) -> Any:
        """The result of the item called ``name``."""
        for outcome in self.outcomes:
            if outcome.spec.name == name:
                return outcome.result
        names = ", ".join(o.spec.name for o in self.outcomes)
        raise KeyError(f"no item {name!r} in this experiment (items: {names})")

    def __repr__(self) -> str:
        items = ", ".join(f"{o.spec.kind} '{o.spec.name}'" for o in self.outcomes)
        return (
            f"<ExperimentResult {self.experiment.title!r}: {len(self.outcomes)} items "
            f"({items}); {self.seconds:.1f} s>"
        )


def run_experiment(
    path: str | os.PathLike | None = None,
    *,
    builtin: str | None = None,
    out: str | os.PathLike | None = None,
    threads: int | None = None,
    progress: bool = False,
    yes: bool = False,
) -> ExperimentResult:
    """Play an experiment file (``bnb run``; docs/experiments.md): a TOML ``path``, or a
    ``builtin`` one by name (``"demo"``). Its games are counted first (above 100,000,000
    nothing plays without ``yes=True``). With ``out`` the one report of the whole experiment
    is written there. Returns an :class:`ExperimentResult` (``result["item name"]`` is one
    item's result)."""
    from bnb_sim.analysis.experiment import builtin_path, load_experiment
    from bnb_sim.analysis.experiment_report import build_experiment_report
    from bnb_sim.runner import experiments as runner
    from bnb_sim.runner.budget import confirm_games, experiment_games

    if (path is None) == (builtin is None):
        raise BnbError("run_experiment: give a path or builtin=NAME (one of them)")
    if builtin is not None:
        source = builtin_path(_args.text(builtin, "builtin"))
    else:
        source = _args.path(path, "path")
    yes = _args.boolean(yes, "yes")
    experiment = load_experiment(source)
    confirm_games(experiment_games(experiment), f"run: {source}", yes=yes)
    threads = _threads(threads)
    folder = _out(out)
    started = time.perf_counter()
    counts = [getattr(spec, "players", None) or 2 for spec in experiment.items]
    with _playing(progress, counts):
        compile_seconds = time.perf_counter() - started
        say = _say if _args.boolean(progress, "progress") else None
        outcomes = runner.run_experiment(experiment, threads=threads, progress=say, yes=yes)
    seconds = time.perf_counter() - started
    result = ExperimentResult(experiment, outcomes, seconds, compile_seconds)
    if folder is not None:
        builder = build_experiment_report(
            experiment, outcomes, seconds=seconds, compile_seconds=compile_seconds
        )
        result.report = builder.write(folder)
    return result


def _say(text: str) -> None:
    import sys

    print(text, file=sys.stderr, flush=True)
