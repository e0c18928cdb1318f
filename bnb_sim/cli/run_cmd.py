"""``bnb run EXPERIMENT.toml``: play every item of an experiment file and write one report.

Also holds the options shared by ``tournament``, ``compare`` and ``sweep`` (seed, threads,
rule variant, output folder, quiet). Nothing heavy is imported at module level: the engine
(numba) is imported only when games are played.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from bnb_sim.cli.options import (
    cli_readings,
    echo_report,
    json_option,
    out_option,
    readings_option,
    write_template,
    yes_option,
)
from bnb_sim.cli.out_folder import prepare_out
from bnb_sim.errors import BnbError


def play_options(func):
    """``--seed``, ``--threads``, ``--reading`` and ``--quiet``; the command gets ``readings``
    (a dict of the readings given) instead of ``reading`` and the game's reading flags such
    as ``--variant`` (``reading_flags``, added with the game's options)."""
    func = _merge_readings(func)
    func = click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")(func)
    func = readings_option(func)
    func = click.option(
        "--threads",
        type=click.IntRange(1, 1024),
        default=None,
        help="Threads for the engine. Default: all cores. Results do not depend on it.",
    )(func)
    func = click.option(
        "--seed",
        type=click.IntRange(0, 2**63 - 1),
        default=0,
        show_default=True,
        help="Master seed: the same seed gives the same games and numbers.",
    )(func)
    return func


def _merge_readings(func):
    """Turn the ``reading`` argument and the reading flags (``--variant``) into one
    ``readings`` dict, read by the
    command's game (its ``--game``; none: the default game). A game that sets its readings
    on its components (``with_readings``) gets an empty dict: the command's body sets them
    from its ``--reading`` items (``protocol_cmds.command_components``)."""
    import functools

    from bnb_sim.cli.game_hooks import protocol_game
    from bnb_sim.cli.options import refuse_foreign_options
    from bnb_sim.cli.protocol_cmds import reading_aliases, without_reading_flags

    @functools.wraps(func)
    def wrapper(*args, reading=(), **kwargs):
        spec, ctx = kwargs.get("game"), click.get_current_context(silent=True)
        if spec is not None and ctx is not None:
            refuse_foreign_options(ctx, spec)  # --variant of another game: its one line first
        game = protocol_game(spec)
        aliases = reading_aliases(game, kwargs)
        kwargs = without_reading_flags(kwargs)
        if callable(getattr(game, "with_readings", None)):
            readings = {}
        else:
            readings = cli_readings(tuple(reading), game, **aliases)
        return func(*args, readings=readings, **kwargs)

    return wrapper


def progress_printer(quiet: bool):
    if quiet:
        return None

    def say(text: str) -> None:
        click.echo(text, err=True)

    return say


def warm_and_meter(quiet: bool, players, steps=None, game: str | None = None):
    """A context for a command that plays games: first the kernels are compiled (announced
    when the cache is cold, bnb_sim.feedback.compile_notice) or loaded, then every game
    played shows in a progress meter with rate and ETA (a bar on a terminal, a plain line
    every 10 s on a pipe). Yields the seconds spent compiling/loading the kernels.

    The kernels are the batch kernel of ``game`` (a name; None: the first game) for each of
    ``players`` (:func:`bnb_sim.feedback.warm_game`), or, given ``steps``
    (:func:`experiment_warmups`), exactly those warm-up functions."""
    import contextlib

    from bnb_sim.feedback import compile_notice, games_meter, warm_game

    @contextlib.contextmanager
    def block():
        if steps is None:
            counts = [int(n) for n in players if n] or [2]
            seconds = warm_game(game, counts, notice=not quiet)
        else:
            start = time.perf_counter()
            with compile_notice(not quiet, game=sorted({key[0] for key in steps})):
                for step in steps.values():
                    step()
            seconds = time.perf_counter() - start
        with games_meter(not quiet):
            yield seconds

    return block()


def experiment_warmups(items) -> dict:
    """``{engine key: warm-up function}`` for the engines the items of an experiment play,
    each once. An item that names its engine says so with ``warmup()`` (``(key, step)``);
    the others (simulations, tournaments, sweeps, comparisons, ladders, values, tunings)
    play their game's engine for their player count (:func:`bnb_sim.feedback.warmup_step`
    of the item's ``game``)."""
    from bnb_sim import feedback

    steps: dict = {}
    for spec in items:
        if callable(getattr(spec, "warmup", None)):
            key, step = spec.warmup()
        else:
            n = int(getattr(spec, "players", None) or 2)
            key, step = feedback.warmup_step(getattr(spec, "game", None), n)
        steps.setdefault(key, step)
    return dict(sorted(steps.items(), key=lambda kv: str(kv[0]), reverse=True))


def echo_written(written: dict, as_json: bool = False) -> None:
    echo_report(written, as_json)


def command_line() -> str:
    return " ".join(["bnb", *sys.argv[1:]])


@click.command("run")
@click.argument(
    "experiment_file", required=False, type=click.Path(path_type=Path), metavar="EXPERIMENT"
)
@click.option(
    "--builtin",
    metavar="NAME",
    default=None,
    help="Run a bundled experiment instead of a file (e.g. demo).",
)
@out_option(
    None,
    "Report folder (created if needed). Default: reports/<experiment name>. "
    "With --template: the file to write.",
)
@click.option(
    "--threads",
    type=click.IntRange(1, 1024),
    default=None,
    help="Threads for the engine (overrides [experiment] threads). Default: all cores.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
@json_option
@click.option(
    "--template",
    is_flag=True,
    help="Print a commented, valid experiment file to start from (or write it to --out FILE).",
)
@yes_option
def run(
    experiment_file: Path | None,
    builtin: str | None,
    out: Path | None,
    threads: int | None,
    quiet: bool,
    as_json: bool,
    template: bool,
    yes: bool,
) -> None:
    """Run the simulations, tournaments, sweeps and comparisons of EXPERIMENT (a TOML file,
    see docs/experiments.md) and write one report: report.html, report.md, PNGs and
    summary.json.

    `bnb run --builtin demo --out reports/demo` is the demo (`make demo`);
    `bnb run --template --out my_experiment.toml` writes a file to start from.
    """
    from bnb_sim.analysis.experiment import builtin_path, load_experiment

    if template:
        if experiment_file is not None or builtin is not None:
            raise BnbError("run: --template takes no EXPERIMENT file or --builtin")
        write_template("experiment.toml", out)
        return
    if (experiment_file is None) == (builtin is None):
        raise BnbError("run: give an EXPERIMENT file or --builtin NAME (one of them)")
    path = builtin_path(builtin) if builtin else experiment_file
    experiment = load_experiment(path)
    from bnb_sim.runner.budget import confirm_games, experiment_games

    confirm_games(experiment_games(experiment), f"run: {path}", yes=yes)
    if out is None:
        out = Path("reports") / (builtin or Path(path).stem)
    prepare_out(out)
    say = progress_printer(quiet)
    started = time.perf_counter()

    from bnb_sim.runner.experiments import run_experiment

    steps = experiment_warmups(experiment.items)  # only the engines its items play
    with warm_and_meter(quiet, (), steps) as compile_seconds:
        outcomes = run_experiment(experiment, threads=threads, progress=say, yes=yes)
    from bnb_sim.analysis.experiment_report import build_experiment_report

    builder = build_experiment_report(
        experiment,
        outcomes,
        command=command_line(),
        seconds=time.perf_counter() - started,
        compile_seconds=compile_seconds,
    )
    written = builder.write(out)
    if say:
        say(f"done in {time.perf_counter() - started:.1f} s")
    echo_written(written, as_json)
