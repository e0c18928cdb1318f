"""``bnb tune policy`` and ``bnb tune game``: search parameters toward a target (docs/tuning.md).

Both write a tuning folder (``--out``): ``tune.json`` (the spec and every finished
evaluation; ``--resume`` continues an interrupted run from it), the answer (a weights TOML or
a component override), ``report.html``/``report.md``/PNGs/``summary.json``. Nothing heavy is
imported until a command runs.
"""

from __future__ import annotations

import contextlib
import shlex
import signal
import sys
from pathlib import Path

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.options import _load as _load_components
from bnb_sim.cli.options import game_option, reading_flags, readings_option
from bnb_sim.tune.store import OVERRIDE_FILE, WEIGHTS_FILE


def _components(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]):
    """The shared ``--components`` loader, remembering the paths (override file header)."""
    ctx.meta["bnb.tune.components"] = list(value)
    return _load_components(ctx, param, value)


def _common(default_out: str):
    """Options of both sub-commands."""

    def decorate(func):
        opts = [
            game_option,
            click.option(
                "--budget",
                type=click.IntRange(1, None),
                required=True,
                help="Games to spend in all (search, re-evaluation and the final "
                "check together); never exceeded.",
            ),
            click.option(
                "--components",
                "components",
                metavar="FILE",
                multiple=True,
                callback=_components,
                help="Component data (TOML): a complete file or an override "
                "(repeatable). Default: the built-in data.",
            ),
            click.option(
                "--seed",
                type=click.IntRange(0, 2**63 - 1),
                default=0,
                show_default=True,
                help="Master seed: the same seed gives the same candidates, games and answer.",
            ),
            click.option(
                "--threads",
                type=click.IntRange(1, 1024),
                default=None,
                help="Engine threads (default: all cores); with --dask local, the number of "
                "worker processes. Results do not depend on it.",
            ),
            click.option(
                "--dask",
                "dask",
                metavar="ADDRESS",
                default=None,
                help="Play the evaluations on Dask: 'local' (a local cluster of one-thread "
                "worker processes) or a scheduler address such as tcp://host:8786. The "
                "answer is the same as without.",
            ),
            reading_flags("tune"),
            readings_option,
            click.option(
                "--out",
                "-o",
                type=click.Path(path_type=Path, file_okay=False),
                default=Path(default_out),
                show_default=True,
                help="Tuning folder: tune.json, the answer and the report.",
            ),
            click.option(
                "--resume",
                is_flag=True,
                help="Continue the interrupted run in --out (same options).",
            ),
            click.option(
                "--force",
                "-f",
                is_flag=True,
                help="Start again, replacing the tuning run in --out.",
            ),
            click.option(
                "--json", "as_json", is_flag=True, help="Print the result as one JSON object."
            ),
            click.option("--quiet", "-q", is_flag=True, help="No progress on stderr."),
            click.option(
                "--yes",
                "-y",
                is_flag=True,
                help="Allow a budget above the games limit of bnb simulate.",
            ),
        ]
        for opt in reversed(opts):
            func = opt(func)  # --game first: it is eager and --components loads its data
        return func

    return decorate


@click.group("tune")
def tune() -> None:
    """Tune a bot's parameters or the game's component values toward a target, with
    intervals on fresh seeds (docs/tuning.md)."""


def _readings(game, reading: tuple[str, ...], flags: dict) -> dict:
    """The ``--reading`` items, checked by the game's tune hooks, with its reading flags
    (``--variant``; another game's is one line) read by its ``parse_readings`` hook."""
    from bnb_sim.cli.game_hooks import protocol_game
    from bnb_sim.cli.options import cli_readings, refuse_foreign_options
    from bnb_sim.cli.protocol_cmds import reading_aliases
    from bnb_sim.tune.hooks import tune_hooks

    if any(flags.values()):  # another game's flag (--variant with --game hotv): one line
        refuse_foreign_options(click.get_current_context(), game)
    aliases = reading_aliases(protocol_game(game), flags)
    parsed = tune_hooks(game.name).parse_readings(reading, None)
    if any(value is not None for value in aliases.values()):
        parsed = cli_readings(tuple(reading), protocol_game(game), **aliases)
    return parsed


def _check_budget(budget: int, yes: bool) -> None:
    from bnb_sim.errors import BnbError
    from bnb_sim.runner.simulate import MAX_GAMES_WITHOUT_YES

    if budget > MAX_GAMES_WITHOUT_YES and not yes:
        raise BnbError(
            f"tune: --budget {budget:,} is above {MAX_GAMES_WITHOUT_YES:,} games; add --yes "
            "to confirm"
        )


def _resume_command() -> str:
    args = [a for a in sys.argv[1:] if a not in ("--resume", "--force", "-f")]
    return shlex.join(["bnb", *args, "--resume"])


def _bar(enabled: bool, total: int, initial_text: str | None = None):
    """``(advance(n), say(text), close())`` around a tqdm bar on stderr (ETA included)."""
    if not enabled:
        return None, None, lambda: None
    from tqdm import tqdm

    bar = tqdm(
        total=total,
        unit=" games",
        unit_scale=True,
        file=sys.stderr,
        dynamic_ncols=True,
        smoothing=0.05,
        mininterval=0.5,
        desc="tune",
    )

    def advance(n: int) -> None:
        bar.update(int(n))

    def say(text: str) -> None:
        bar.write(text, file=sys.stderr)

    return advance, say, bar.close


@contextlib.contextmanager
def _tuning_folder(out: Path, *, resume: bool, force: bool, dask: str | None):
    """The tuning folder, checked and locked (one writer) until the answer and the report
    are written; Ctrl-C or SIGTERM keep the finished evaluations and say how to go on."""
    from bnb_sim.interruptible import terminate_as_interrupt
    from bnb_sim.tune.store import TUNE_FILE, open_tune_folder

    if dask is not None:  # before anything is written: a bad address, Dask not installed
        from bnb_sim.runner.dask_backend import check_address

        check_address(dask)
    lock = open_tune_folder(out, resume=resume, force=force)
    try:
        with terminate_as_interrupt() as signals:
            try:
                yield lock
            except KeyboardInterrupt:
                how = "Stopped by SIGTERM" if signals else "Interrupted"
                click.echo(
                    f"{how}: the finished evaluations are kept in {out / TUNE_FILE}. Resume with:",
                    err=True,
                )
                click.echo(f"  {_resume_command()}", err=True)
                sys.exit(128 + (signals[0] if signals else signal.SIGINT))
    finally:
        lock.release()


def _run(runner, plan, out, *, lock, resume, force, threads, dask, quiet, as_json):
    """Run with a progress bar."""
    advance, say, close = _bar(not (quiet or as_json), sum(plan.planned_games.values()))
    try:
        return runner(
            plan, out, resume=resume, force=force, threads=threads, dask=dask, progress=say,
            advance=advance, lock=lock,
        )  # fmt: skip
    finally:
        close()


def _emit(as_json: bool, result: dict, text: str, files: dict) -> None:
    from bnb_sim.analysis.report_builder import _jsonable

    if as_json:
        click.echo(jsonsafe.dumps(_jsonable({**result, "files": files}), indent=2))
    else:
        click.echo(text)
        click.echo(f"report: {files['html']}")


def _command_line() -> str:
    return shlex.join(["bnb", *sys.argv[1:]])


@tune.command("policy")
@click.argument("policy")
@click.option(
    "--against",
    default=None,
    metavar="A,B,...",
    help="The field: one lineup per policy (the other seats filled cyclically). Required "
    "for a ranked game; a cooperative game (hotv) has none: the policy plays every seat.",
)
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME=LO..HI",
    help="A parameter and its range (repeat; NAME=LO..HI:int for an integer). Default: every "
    "heuristic weight but xp (hotv: every team-bot weight), from 0 to 3x its start value "
    "(at least 1).",
)
@click.option(
    "--population",
    type=click.IntRange(2, 1000),
    default=None,
    help="CMA-ES candidates per generation. Default: 4 + 3 ln(dimension).",
)
@click.option(
    "--sigma",
    type=float,
    default=0.2,
    show_default=True,
    help="CMA-ES start step, as a share of each parameter's range.",
)
@click.option(
    "--seeds-per-candidate",
    type=click.IntRange(1, 1_000_000),
    default=None,
    help="Seeds per candidate in the search (default: from the budget, about 20 generations).",
)
@click.option(
    "--top",
    type=click.IntRange(1, 50),
    default=3,
    show_default=True,
    help="Search candidates re-evaluated on fresh seeds (plus the CMA-ES mean).",
)
@click.option(
    "--sprt",
    nargs=2,
    type=float,
    default=None,
    metavar="ELO0 ELO1",
    help="Also give an SPRT verdict on the final comparison (H0: the tuned parameters are "
    "ELO0 Elo over the start, H1: ELO1; 5% errors), as bnb compare --sprt.",
)
@_common("reports/tune-policy")
def tune_policy(
    policy,
    against,
    players,
    params,
    population,
    sigma,
    seeds_per_candidate,
    top,
    sprt,
    game,
    budget,
    components,
    seed,
    threads,
    dask,
    reading,
    out,
    resume,
    force,
    as_json,
    quiet,
    yes,
    **flags,
) -> None:
    """Search POLICY's numeric parameters (heuristic weights, a search bot's budget, a bot
    file's [params] thresholds, a plugin's parameters; Heroes of the Village: the team bot's
    weights) for the best score with CMA-ES, re-evaluate the best candidates on fresh seeds,
    and compare the answer with the start on fresh seeds (difference with a 95% interval).
    The score: a ranked game's mean game score against a field (--against); a cooperative
    game's team win rate, every candidate on the same game indices.

    \b
    Examples:
      bnb tune policy heuristic --against greedy,heuristic --players 2 --budget 40000 \\
          --param board=0..3 --param weapon=0..3 --out reports/tune-h
      bnb tune policy team --game hotv --players 3 --budget 20000 \\
          --param complete=2..8 --param illager=0..4 --out reports/tune-team
    """
    from bnb_sim.analysis.tournament import split_policy_list
    from bnb_sim.tune.hooks import refuse_dask
    from bnb_sim.tune.policy_tune import plan_policy_tune, run_policy_tune, write_weights
    from bnb_sim.tune.report import build_policy_report, format_policy

    if against is None and game.outcome != "cooperative":  # a ranked game needs its field
        ctx = click.get_current_context()
        param = next(p for p in ctx.command.params if p.name == "against")
        raise click.MissingParameter(ctx=ctx, param=param)
    plan = plan_policy_tune(
        policy, against=split_policy_list(against or ""), players=players, budget=budget,
        params=params, seed=seed, population=population, sigma=sigma,
        seeds_per_candidate=seeds_per_candidate, top=top, components=components,
        readings=_readings(game, reading, flags), sprt=sprt or None,
        game=game.name,
    )  # fmt: skip
    _check_budget(budget, yes)
    refuse_dask(game.name, dask)
    with _tuning_folder(out, resume=resume, force=force, dask=dask) as lock:
        result = _run(
            run_policy_tune, plan, out, lock=lock, resume=resume, force=force,
            threads=threads, dask=dask, quiet=quiet, as_json=as_json,
        )  # fmt: skip
        weights = write_weights(
            out / WEIGHTS_FILE,
            plan.family,
            result["weights"],
            header=[f"tuned by: {_command_line()}"],
            spec=result["spec"],
            game=plan.game,
        )
        written = build_policy_report(result, command=_command_line()).write(out)
    files = {
        "weights": weights,
        "tune": out / "tune.json",
        "html": written["html"],
        "markdown": written["markdown"],
        "figures": written["figures"],
    }
    _emit(as_json, result, format_policy(result, weights), files)


@tune.command("game")
@click.option(
    "--param",
    "params",
    multiple=True,
    required=True,
    metavar="PATH=LO..HI",
    help="A component value and its range (LO..HI, integers) or values (V1,V2,...); "
    "any key bnb sweep --set accepts. Repeat for more.",
)
@click.option(
    "--target",
    "targets",
    multiple=True,
    required=True,
    metavar="NAME=GOAL",
    help="first_player_advantage, balance, game_length, xp_share:SOURCE or "
    "win_rate:POLICY = a value, max or min; @W weighs it (repeat; docs/tuning.md). A "
    "cooperative game (hotv): win_rate (the team's) or game_length.",
)
@click.option("--players", type=click.IntRange(2, 4), default=4, show_default=True)
@click.option(
    "--policy",
    "policies",
    multiple=True,
    metavar="SPEC",
    help="A player's policy, in player order (repeat; cycled). Default: heuristic (hotv: team).",
)
@click.option(
    "--method",
    type=click.Choice(["auto", "grid", "ntbea"]),
    default="auto",
    show_default=True,
    help="auto: an exhaustive grid when the space is small, else NTBEA.",
)
@click.option(
    "--games-per-eval",
    type=click.IntRange(2, 10_000_000),
    default=None,
    help="Games per NTBEA evaluation (default: 25 per player, at least 100).",
)
@click.option(
    "--top",
    type=click.IntRange(1, 50),
    default=3,
    show_default=True,
    help="Best settings re-evaluated on fresh seeds (plus the baseline).",
)
@click.option(
    "--explore",
    type=float,
    default=1.0,
    show_default=True,
    help="NTBEA exploration: k = EXPLORE x the spread of the scores seen.",
)
@click.option(
    "--neighbours",
    type=click.IntRange(1, 10_000),
    default=50,
    show_default=True,
    help="NTBEA neighbours sampled per iteration.",
)
@_common("reports/tune-game")
def tune_game(
    params,
    targets,
    players,
    policies,
    method,
    games_per_eval,
    top,
    explore,
    neighbours,
    game,
    budget,
    components,
    seed,
    threads,
    dask,
    reading,
    out,
    resume,
    force,
    as_json,
    quiet,
    yes,
    **flags,
) -> None:
    """Search component values (integer ranges or value lists) toward one or more targets
    with NTBEA or a grid, replay the best settings on fresh seeds with 95% intervals, and
    write a component override with the answer.

    \b
    Examples:
      bnb tune game --param mobs.enderman.hearts=4..8 --param weapons.tnt.detonate_hearts=3..7 \\
          --target first_player_advantage=0 --target balance=max --players 4 --budget 40000
      bnb tune game --game hotv --param path.start_normal=6..11 --target win_rate=0.5 \\
          --players 3 --budget 20000
    """
    from bnb_sim.tune.game_tune import plan_game_tune, run_game_tune, write_override
    from bnb_sim.tune.hooks import refuse_dask
    from bnb_sim.tune.report import build_game_report, format_game

    files_given = click.get_current_context().meta.get("bnb.tune.components", [])
    plan = plan_game_tune(
        params=params, targets=targets, players=players, policies=list(policies), budget=budget,
        seed=seed, method=method, games_per_eval=games_per_eval, top=top, explore=explore,
        neighbours=neighbours, components=components, component_files=files_given,
        readings=_readings(game, reading, flags), game=game.name,
    )  # fmt: skip
    _check_budget(budget, yes)
    refuse_dask(game.name, dask)
    with _tuning_folder(out, resume=resume, force=force, dask=dask) as lock:
        result = _run(
            run_game_tune, plan, out, lock=lock, resume=resume, force=force, threads=threads,
            dask=dask, quiet=quiet, as_json=as_json,
        )  # fmt: skip
        override = write_override(
            plan, result["best"], out / OVERRIDE_FILE, header=[f"tuned by: {_command_line()}"]
        )
        written = build_game_report(result, override=override, command=_command_line()).write(out)
    files = {
        "components": override,
        "tune": out / "tune.json",
        "html": written["html"],
        "markdown": written["markdown"],
        "figures": written["figures"],
    }
    _emit(as_json, result, format_game(result, override), files)
