"""``bnb robustness``: how far a simulation's findings hold across play strength."""

from __future__ import annotations

from pathlib import Path

import click

from bnb_sim.cli.options import (
    cli_readings,
    components_option,
    game_option,
    game_options,
    json_option,
    out_option,
    readings_option,
    refuse_foreign_options,
    yes_option,
)
from bnb_sim.cli.run_cmd import echo_written, prepare_out, progress_printer, warm_and_meter


@click.command("robustness")
@game_option
@game_options("robustness")
@click.option(
    "--rungs",
    default=None,
    metavar="A,B,...",
    help="The rungs of play strength, weakest first, comma-separated policy specs (at least "
    "2). Default: greedy,heuristic,strong (Heroes of the Village: random,team,strong).",
)
@click.option(
    "--policy", default=None, metavar="SPEC",
    help="Also measure this policy's win rate in one seat against each rung's bot in the "
    "others (seats rotating; Builders & Biomes): does its edge hold against weaker and "
    "stronger tables?",
)  # fmt: skip
@click.option(
    "--players", "-p", type=click.IntRange(2, 4), default=None,
    help="Players per game. Default: 4 (Heroes of the Village: 3).",
)  # fmt: skip
@click.option(
    "--games", "-n", type=click.IntRange(2, 2_000_000), default=None,
    help="Game indices per rung (every rung plays 0..N-1: the same deals). Default: 50,000 "
    "(Heroes of the Village: 10,000 per pet team); about 30 s a rung on 2 cores.",
)  # fmt: skip
@click.option(
    "--run",
    "run_dir",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="Take the set-up (game, players, seed, expansion, components, readings) from this "
    "run folder, and record the verdicts in it: its `bnb report` then shows them.",
)
@components_option
@readings_option
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True,
              help="Master seed: the same seed gives the same games and numbers.")  # fmt: skip
@click.option(
    "--threads",
    type=click.IntRange(1, 1024),
    default=None,
    help="Threads for the engine (default: all cores); results do not depend on it.",
)
@click.option(
    "--dask", metavar="local|ADDRESS", default=None,
    help="Play each rung's games on Dask: 'local' or a scheduler address (the same numbers).",
)  # fmt: skip
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
@out_option("reports/robustness", "Report folder (created if needed).")
@json_option
@yes_option
def robustness(
    rungs, policy, players, games, run_dir, components, reading, seed, threads, dask,
    quiet, out, as_json, yes, game=None, **game_specific,
) -> None:  # fmt: skip
    """Re-measure a simulation's headline findings (seat win rates, first-player advantage,
    balance, game length; Farmer's Market item effects; Heroes of the Village: team win rate
    and pet effects) with every seat playing each rung's bot, on the same game indices, and
    say for each whether it holds at every rung, changes size (by how much, with a 95%
    interval) or changes sign. Writes a report (verdicts first, with a plot of each finding
    across the rungs) and summary.json.

    \b
    Example:
      bnb robustness --players 4 --rungs greedy,heuristic,strong --games 10000
      bnb simulate -n 100000 --players 3 -o runs/fpa3 && bnb robustness --run runs/fpa3
    """
    from bnb_sim.analysis.robustness_report import (
        build_robustness_report,
        format_robustness,
        write_run_link,
    )
    from bnb_sim.cli.game_hooks import protocol_game
    from bnb_sim.cli.protocol_cmds import reading_aliases, without_reading_flags
    from bnb_sim.runner.robustness_play import game_play, run_robustness

    ctx = click.get_current_context()
    from bnb_sim.games import get_game

    refuse_foreign_options(ctx, game or get_game(None))
    expansion = ctx.meta.get("bnb.expansion")
    aliases = reading_aliases(protocol_game(game), ctx.params)  # its --variant and the like
    options = {k: v for k, v in without_reading_flags(game_specific).items() if v is not None}
    if run_dir is not None:
        from bnb_sim.runner.robustness_setup import setup_from_run

        given = {name for name in ctx.params if _given(ctx, name)}
        setup = setup_from_run(run_dir, given)
        game, players, seed = setup["game"], setup["players"], setup["seed"]
        components, expansion = setup["components"], setup["expansion"]
        readings = setup["readings"]
        options.update(setup["options"])
    play = game_play(game)
    if run_dir is None:
        readings = cli_readings(tuple(reading), protocol_game(game), **aliases)
        if players is None:
            players = play.default_players
    labels = play.check_rungs(rungs.split(",") if rungs else list(play.default_rungs), players)
    if dask is not None:  # a bad address: one line before the report folder is made
        from bnb_sim.runner.dask_backend import check_address

        check_address(dask)
    prepare_out(out)
    steps = None if play.warms_engine else {}  # a game that warms up as it plays
    with warm_and_meter(quiet or as_json, [players], steps=steps):
        result = run_robustness(
            labels, players, games, game=game, seed=seed, components=components,
            readings=readings, expansion=expansion, threads=threads, dask=dask,
            progress=progress_printer(quiet or as_json), yes=yes, policy=policy, **options,
        )  # fmt: skip
    written = build_robustness_report(result).write(out)
    if run_dir is not None:
        write_run_link(run_dir, result, written, setup["run_id"])
    if as_json:
        echo_written(written, as_json=True)
        return
    click.echo(format_robustness(result))
    echo_written(written)
    if run_dir is not None:
        click.echo(f"recorded in {run_dir}: `bnb report {run_dir}` shows the verdicts")


def _given(ctx: click.Context, name: str) -> bool:
    if name not in ctx.params:
        return False
    source = ctx.get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")
