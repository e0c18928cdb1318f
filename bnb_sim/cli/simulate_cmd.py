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


def _components(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]):
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
    callback=_components,
    help="Component data (TOML): a complete file, or an override of the defaults "
    "(repeat to stack overrides). Default: the built-in data with its estimates.",
)
@expansion_option
@readings_option
@click.option(
    "--variant",
    type=click.Choice(["standard", "beginner"]),
    default=None,
    help="Rules variant, = --reading variant=... (beginner: scoring counts matching spaces, "
    "R-SCORE-4). Default: standard.",
)
@click.option(
    "--seating",
    type=click.Choice(["rotate", "fixed", "random"]),
    default=None,
    help="Who starts, = --reading seating=...: rotate (default; player g % P starts game g, "
    "so seat effects cancel), fixed (the given order) or random.",
)
@click.option(
    "--fixed-seats", is_flag=True, help="Keep the given order in every game (= --seating fixed)."
)
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
@click.option(
    "--pickaxe",
    type=click.Choice(["optional", "mandatory"]),
    default=None,
    help="= --reading pickaxe=...: a revealed stone pickaxe lets the player take a block "
    "(R-FIGHT-3): may the player decline it? Default: optional (docs/rules.md).",
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
    variant: str | None,
    seating: str | None,
    fixed_seats: bool,
    resume: bool,
    force: bool,
    dask: str | None,
    as_json: bool,
    quiet: bool,
    yes: bool,
    check: bool,
    pickaxe: str | None,
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
    if other_game_handler(click.get_current_context(), "simulate", game):
        return
    from bnb_sim.errors import BnbError
    from bnb_sim.runner.run_dir import run_to_dir
    from bnb_sim.runner.run_plan import changed_settings, plan_run
    from bnb_sim.runner.run_summary import RunInterrupted
    from bnb_sim.runner.simulate import cli_command

    if fixed_seats and seating not in (None, "fixed"):
        raise BnbError(f"--fixed-seats contradicts --seating {seating}")
    readings = cli_readings(
        reading, **{"--variant": variant, "--seating": seating, "--pickaxe": pickaxe,
                    "--fixed-seats": "fixed" if fixed_seats else None},
    )  # fmt: skip
    plan = plan_run(
        games, players, list(policies) or ["heuristic"], seed, components=components,
        readings=readings, threads=threads, chunk_size=chunk_size, out=out,
        resume=resume, force=force, dask=dask, check=check, yes=yes,
    )  # fmt: skip
    changed = changed_settings(plan.game, plan.config)  # --reading items not the defaults
    argv = _argv(
        games=games, players=players, policies=policies, seed=seed, out=out, threads=threads,
        chunk_size=chunk_size, readings=changed.get("readings", {}), dask=dask,
        as_json=as_json, quiet=quiet, yes=yes, check=check,
    )  # fmt: skip
    show_bar = not quiet and sys.stderr.isatty()
    progress, close_bar, write = _progress_bar(show_bar)
    if not quiet and not show_bar:  # a pipe or a log: a plain line every 10 s (rate, ETA)
        from bnb_sim.feedback import PlainMeter

        progress = PlainMeter()
    if dask is None:  # a cold cache compiles here, announced, not in a silent first chunk
        from bnb_sim.feedback import warm_engine

        warm_engine([plan.config.n_players], notice=not quiet, config=plan.config)
    try:
        summary = run_to_dir(
            plan,
            progress=progress,
            command=cli_command([*argv, *(["--resume"] if resume else [])]),
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
    if as_json:
        click.echo(jsonsafe.dumps(summary.to_dict(), indent=2))
    else:
        click.echo(summary.text())


def _argv(**p) -> list[str]:
    """The command's arguments in a canonical order, without --resume/--force (run.json's
    ``command``, and with ``--resume`` added, the command that resumes the run)."""
    args = ["simulate", "--games", str(p["games"])]
    if p["players"] is not None:
        args += ["--players", str(p["players"])]
    for policy in p["policies"]:
        args += ["--policy", policy]
    args += ["--seed", str(p["seed"]), "--out", str(p["out"])]
    if p["threads"] is not None:
        args += ["--threads", str(p["threads"])]
    if p["chunk_size"] is not None:
        args += ["--chunk-size", str(p["chunk_size"])]
    ctx = click.get_current_context()
    if ctx.meta.get("bnb.expansion"):  # Farmer's Market (cli/options.py)
        args += ["--expansion", ctx.meta["bnb.expansion"]]
    for path in ctx.meta.get("bnb.simulate.components", []):
        args += ["--components", str(path)]
    for name, value in p["readings"].items():
        args += ["--reading", f"{name}={value}"]
    if p["dask"] is not None:
        args += ["--dask", p["dask"]]
    for flag in ("check", "yes", "quiet"):
        if p[flag]:
            args.append(f"--{flag}")
    if p["as_json"]:
        args.append("--json")
    return args


def _progress_bar(enabled: bool):
    """``(progress(done, total), close(), write(message))`` for a tqdm bar on stderr."""
    state: dict = {}

    def write(message: str) -> None:
        bar = state.get("bar")
        if bar is not None:
            bar.write(message, file=sys.stderr)
        else:
            click.echo(message, err=True)

    if not enabled:
        return None, lambda: None, write

    from tqdm import tqdm

    def progress(done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None:
            state["bar"] = tqdm(
                total=total,
                initial=done,
                unit=" games",
                unit_scale=True,
                file=sys.stderr,
                dynamic_ncols=True,
                smoothing=0.1,
                mininterval=0.5,
            )
        else:
            bar.update(done - bar.n)

    def close() -> None:
        bar = state.pop("bar", None)
        if bar is not None:
            bar.close()

    return progress, close, write
