"""``bnb ladder``: a ladder of play strength, each rung against the next on paired seeds."""

from __future__ import annotations

import click

from bnb_sim.cli.options import (
    components_option,
    game_option,
    json_option,
    other_game_handler,
    out_option,
    yes_option,
)
from bnb_sim.cli.run_cmd import (
    echo_written,
    play_options,
    prepare_out,
    progress_printer,
    warm_and_meter,
)

_DEFAULT = "random,greedy,heuristic,ismcts:iterations=16,ismcts:iterations=64,strong"


@click.command("ladder")
@game_option
@click.option(
    "--rungs",
    default=_DEFAULT,
    show_default=True,
    help="The rungs, weakest first, comma-separated policy specs (at least 2).",
)
@click.option(
    "--players", type=click.IntRange(2, 4), default=2, show_default=True, help="Seats per table."
)
@click.option(
    "--games",
    type=click.IntRange(2, 10_000_000),
    default=200,
    show_default=True,
    help="Seeds: every step plays game indices 0..N-1 in every seating of its tables "
    "(2 players: 2N games per step).",
)
@click.option(
    "--bootstrap",
    type=click.IntRange(0, 100_000),
    default=1000,
    show_default=True,
    help="Bootstrap resamples (over seeds) for the step and rating intervals.",
)
@components_option
@play_options
@out_option("reports/ladder", "Report folder (created if needed).")
@json_option
@yes_option
def ladder(
    rungs,
    players,
    games,
    bootstrap,
    components,
    seed,
    threads,
    readings,
    quiet,
    out,
    as_json,
    yes,
    game=None,
) -> None:
    """Each rung plays the next on the same seeds with the seats rotated: the upper rung's
    score with a 95% interval and n per step, a Bradley-Terry Elo scale over all rungs, the
    skill depth (steps whose lower bound is above 50%) and how often the weaker rung still
    wins; a report with the scale's plot and summary.json."""
    from bnb_sim.errors import BnbError
    from bnb_sim.games import DEFAULT_GAME

    ctx = click.get_current_context()
    if other_game_handler(ctx, "ladder", game):  # a game that brings its own ladder
        return
    if game is not None and game.name != DEFAULT_GAME:
        raise BnbError(f"ladder: {game.title} has no ladder yet (Builders & Biomes only)")
    expansion = ctx.meta.get("bnb.expansion")
    from bnb_sim.analysis.ladder import build_ladder_report, format_ladder
    from bnb_sim.runner.budget import confirm_games
    from bnb_sim.runner.experiments import design_readings
    from bnb_sim.runner.ladder_play import check_rungs, ladder_games, run_ladder

    labels = check_rungs([rungs], players)  # bad input fails before play
    design_readings(readings, None, seating="fixed", what="ladder")
    confirm_games(ladder_games(len(labels), players, games), "ladder", yes=yes)
    prepare_out(out)
    with warm_and_meter(quiet or as_json, [players]):
        result = run_ladder(
            labels,
            players,
            games,
            seed=seed,
            components=components,
            readings=readings,
            threads=threads,
            n_boot=bootstrap,
            expansion=expansion,
            progress=progress_printer(quiet or as_json),
            yes=yes,
        )
    written = build_ladder_report(result).write(out)
    if as_json:
        echo_written(written, as_json=True)
        return
    click.echo(format_ladder(result))
    echo_written(written)
