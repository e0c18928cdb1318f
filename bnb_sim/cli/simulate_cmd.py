"""``bnb simulate``: play N seeded games into a run directory (docs/run-format.md).

numba, pandas, pyarrow and dask are imported inside the command, so ``bnb --help`` and
``bnb simulate --help`` stay cheap.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.options import (
    OutPath,
    cli_readings,
    complete_policy,
    expansion_option,
    game_option,
    game_options,
    other_game_handler,
    readings_option,
)
from bnb_sim.cli.options import _load as _load_components

# Same as bnb_sim.runner.simulate.MAX_GAMES_WITHOUT_YES (kept here to avoid the import).
MAX_GAMES_WITHOUT_YES = 100_000_000


def _remember_components(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]):
    """The shared ``--components`` loader, remembering the paths for the resume command."""
    ctx.meta["bnb.simulate.components"] = list(value)
    return _load_components(ctx, param, value)


@click.command("simulate")
@game_option
@game_options("simulate")
@click.option("--games", "-n", type=int, required=True, help="Number of games to play.")
@click.option(
    "--players",
    "-p",
    type=int,
    default=None,
    help="Players per game (2-4). Default: one per --policy, or 4 with a single policy.",
)
@click.option(
    "--policy",
    "policies",
    multiple=True,
    metavar="SPEC",
    help="A player's policy, repeat per player (cycled over the players): random, greedy, "
    "heuristic, heuristic:weights.toml, heuristic:board=1.5, strong, strong:model.toml, mc[:...], "
    "ismcts[:...], bot:FILE.toml, or a plugin. Default: heuristic.",
    shell_complete=complete_policy,
)
@click.option("--seed", type=int, default=0, show_default=True, help="Master seed of the run.")
@click.option(
    "--out",
    "-o",
    "out",
    type=OutPath(path_type=Path, file_okay=False),
    required=True,
    help="Run directory to write (Parquet parts + run.json).",
)
@click.option(
    "--threads",
    "-t",
    type=int,
    default=None,
    help="Numba threads (default: all); with --dask local, the number of worker processes.",
)
@click.option(
    "--chunk-size",
    type=int,
    default=None,
    help="Games per chunk / Parquet part (default: about 0.5-1 s of work; on --resume, the "
    "run's own).",
)
@click.option(
    "--components",
    "components",
    metavar="FILE",
    multiple=True,
    callback=_remember_components,
    help="Component data (TOML): a complete file, or an override of the defaults "
    "(repeat to stack overrides). Default: the built-in data with its estimates.",
)
@expansion_option
@readings_option
@click.option("--resume", is_flag=True, help="Continue an interrupted run in --out.")
@click.option("--force", "-f", is_flag=True, help="Overwrite an existing run in --out.")
@click.option(
    "--dask",
    "dask",
    metavar="local|ADDRESS",
    default=None,
    help="Play the chunks on Dask: 'local' (worker processes on this machine, one thread "
    "each) or a scheduler address such as tcp://host:8786.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help=f"Allow more than {MAX_GAMES_WITHOUT_YES:,} games.",
)
@click.option(
    "--check", is_flag=True, help="Check the rule invariants after every decision (slow)."
)
def simulate(
    games: int,
    players: int | None,
    policies: tuple[str, ...],
    seed: int,
    out: Path,
    threads: int | None,
    chunk_size: int | None,
    components,
    reading: tuple[str, ...],
    resume: bool,
    force: bool,
    dask: str | None,
    as_json: bool,
    quiet: bool,
    yes: bool,
    check: bool,
    game=None,
    **game_specific,
) -> None:
    """Play N seeded games and store every seat's result in a run directory.

    One Parquet part per chunk under OUT/seats and OUT/games, plus OUT/run.json (parameters,
    seed, components, versions, machine, timing). Ctrl-C (exit 130) stops after the current
    chunk, SIGTERM (exit 143) at once; both print the command that resumes the run; the resumed
    run has exactly the rows of an uninterrupted one; OUT is locked while the run goes on.
    The same seed gives the same rows for any --threads, --chunk-size or --dask.

    \b
    Example:
      bnb simulate --games 1000000 --players 4 --policy heuristic --policy random \\
          --seed 1 --out runs/h-vs-r
    """
    ctx = click.get_current_context()
    other_game_handler(ctx, "simulate", game)  # another game's options: one line, exit 2
    from bnb_sim.cli.game_hooks import protocol_game
    from bnb_sim.cli.simulate_output import command_argv, option_argv, reading_items
    from bnb_sim.games import get_game

    proto = protocol_game(game)
    named = [] if game == get_game(None) else ["--game", proto.name]  # the default: unsaid
    plan, options = _plan(proto, named, ctx.params)
    own = {name: value for name, value in options.items() if name in game_specific}
    argv = command_argv(named, dict(
        games=games, players=players, policies=policies, seed=seed, out=out, threads=threads,
        chunk_size=chunk_size, options=option_argv(proto, own), dask=dask, check=check,
        readings=reading_items(proto, plan.config, reading), yes=yes, quiet=quiet,
        as_json=as_json,
    ))  # fmt: skip
    _run(proto, plan, argv, desc=proto.name if named else "", as_json=as_json, quiet=quiet)


def _plan(game, named: list[str], p: dict):
    """``(plan, options)``: every input checked (one line on a bad one), the game's run
    config made from the command's parameters ``p`` (``options``: what ``make_config`` or
    ``make_run_config`` was given), the ``--yes`` threshold counted on its game rows."""
    from bnb_sim.cli.protocol_cmds import option_values, reading_aliases
    from bnb_sim.runner.budget import confirm_games
    from bnb_sim.runner.game_run_config import rows_per_game
    from bnb_sim.runner.run_plan import RunPlan, check_run

    aliases = reading_aliases(game, p)  # the game's --variant and the like
    components, readings = _readings(game, p["components"], p["reading"], aliases)
    checked = check_run(p["games"], p["seed"], threads=p["threads"], chunk_size=p["chunk_size"],
                        out=p["out"], resume=p["resume"], force=p["force"],
                        dask=p["dask"])  # fmt: skip
    options = {**option_values(game, p), "check": p["check"]}
    if readings is not None:
        options["readings"] = readings
    make = getattr(game, "make_run_config", None) or game.make_config  # a run's own config
    config = make(components, players=p["players"], policies=list(p["policies"]),
                  seed=checked["seed"], options=options)  # fmt: skip
    confirm_games(checked["games"] * rows_per_game(config), " ".join(["simulate", *named]),
                  yes=p["yes"])  # fmt: skip
    plan = RunPlan(config=config, games=checked["games"], chunk_size=checked["chunk_size"],
                   threads=checked["threads"], out=p["out"], resume=p["resume"],
                   force=p["force"], dask=checked["dask"], game=game,
                   components=components)  # fmt: skip
    return plan, options


def _readings(game, components, reading: tuple[str, ...], aliases: dict):
    """``(components, readings)``: the command's ``--reading`` items (and alias flags) set on
    the components where the game takes them so (its ``with_readings``), else parsed by its
    ``parse_readings`` hook for the config (``options["readings"]``; None: not asked)."""
    from bnb_sim.cli.protocol_cmds import command_components

    if callable(getattr(game, "with_readings", None)):
        return command_components(game, components, reading), None
    return components, cli_readings(reading, game, **aliases)


def _run(game, plan, argv: list[str], *, desc: str, as_json: bool, quiet: bool) -> None:
    """Play ``plan`` into its folder with a progress meter; print the summary, or on Ctrl-C
    or SIGTERM what is stored and the command that resumes the run (exit 130 or 143)."""
    from bnb_sim.cli.simulate_output import progress_bar, run_output
    from bnb_sim.core.protocol import entry_hook
    from bnb_sim.runner.run_dir import run_to_dir
    from bnb_sim.runner.run_summary import RunInterrupted
    from bnb_sim.runner.simulate import cli_command

    progress, close_bar, write = progress_bar(not quiet, desc)
    # a game that compiles ahead (its warm_engine entry) does so here, announced, not in a
    # silent first chunk
    if entry_hook(game, "warm_engine") is not None and plan.dask is None:
        from bnb_sim import feedback

        feedback.warm_engine([plan.config.n_players], notice=not quiet, config=plan.config)
    try:
        summary = run_to_dir(
            plan,
            progress=progress,
            command=cli_command([*argv, *(["--resume"] if plan.resume else [])]),
            resume_command=cli_command([*argv, "--resume"]),
            handle_sigint=True,
            notice=write,
        )
    except RunInterrupted as stop:
        close_bar()
        if as_json:
            click.echo(jsonsafe.dumps(stop.partial(), indent=2))
        click.echo(stop.report(), err=True)
        sys.exit(stop.exit_code)
    finally:
        close_bar()
    output = run_output(game, plan.config, summary, plan.games, plan.out)
    click.echo(jsonsafe.dumps(output.payload, indent=2) if as_json else output.text)
