"""``bnb sensitivity --finding NAME``: which estimated component values move a finding most."""

from __future__ import annotations

import click

from bnb_sim.cli.options import (
    components_option,
    game_option,
    game_options,
    json_option,
    other_game_handler,
    out_option,
    policy_options,
    yes_option,
)
from bnb_sim.cli.run_cmd import play_options, prepare_out, progress_printer, warm_and_meter
from bnb_sim.runner.sensitivity import DEFAULT_GAMES, DEFAULT_SCREEN_GAMES, DEFAULT_TOP


@click.command("sensitivity")
@game_option
@game_options("sensitivity")
@click.option(
    "--finding",
    required=True,
    metavar="NAME",
    help="The finding to explain: first_player_advantage, balance, seat_win_rate:S, "
    "team_win_rate (cooperative games) or game_length.",
)
@click.option(
    "--estimate",
    "estimates",
    multiple=True,
    metavar="KEY",
    help="Only these estimates (dotted keys, * for one part, a table for all below it; "
    "repeatable). Default: every estimate with a range.",
)
@click.option(
    "--screen-games",
    type=click.IntRange(2, 10_000_000),
    default=DEFAULT_SCREEN_GAMES,
    show_default=True,
    help="Games per value in the screening of every estimate.",
)
@click.option(
    "--games",
    type=click.IntRange(2, 10_000_000),
    default=DEFAULT_GAMES,
    show_default=True,
    help="Fresh games per value for the estimates chosen by the screening (and the baseline).",
)
@click.option(
    "--top",
    type=click.IntRange(1, 500),
    default=DEFAULT_TOP,
    show_default=True,
    help="How many estimates the screening passes on to the fresh games.",
)
@click.option(
    "--players", type=click.IntRange(2, 4), default=None, help="Players per game (default 4)."
)
@policy_options(help="A player's policy, repeat per player (cycled). Default: heuristic.")
@click.option(
    "--attach",
    type=click.Path(file_okay=False),
    default=None,
    metavar="RUN",
    help="Also save the answer into run folder RUN (same game and players): its `bnb report` "
    "then flags in its key findings each estimate the finding hinges on.",
)
@click.option(
    "--dask", metavar="local|ADDRESS", default=None,
    help="Play the games on Dask: 'local' (worker processes, --threads of them) or a "
    "scheduler address. The same numbers as on one machine.",
)  # fmt: skip
@components_option
@play_options
@out_option("reports/sensitivity", "Report folder (created if needed).")
@json_option
@yes_option
def sensitivity(
    finding,
    estimates,
    screen_games,
    games,
    top,
    players,
    policies,
    attach,
    dask,
    components,
    seed,
    threads,
    readings,
    quiet,
    out,
    as_json,
    yes,
    game=None,
    **game_specific,
) -> None:
    """Move each estimated component value across its plausible range, one at a time, on the
    same seeds as the shipped values, and rank the estimates by how far they move FINDING:
    a screening of every estimate on a few games, then the largest on fresh games (95%
    intervals), a tornado plot and a report that leads with the answer."""
    from bnb_sim.analysis.sensitivity import parse_finding
    from bnb_sim.analysis.sensitivity_report import build_sensitivity_report, format_sensitivity
    from bnb_sim.cli.options import echo_report
    from bnb_sim.runner.sensitivity import make_setup, run_sensitivity

    ctx = click.get_current_context()
    other_game_handler(ctx, "sensitivity", game, policies=policies)  # refuses foreign options
    parse_finding(finding)  # a bad name fails before anything is played
    setup = make_setup(
        game,
        components=components,
        players=players,
        policies=policies or None,
        seed=seed,
        readings=readings,
        threads=threads,
        dask=dask,
        reading=ctx.params.get("reading") or (),
        **game_specific,
    )
    if attach is not None:  # a wrong folder fails before anything is played
        from bnb_sim.analysis.sensitivity_attach import check_attach
        from bnb_sim.games import get_game

        check_attach(attach, (game or get_game(None)).name, setup.params["players"])
    prepare_out(out)
    with warm_and_meter(quiet, [setup.params["players"]], game=getattr(game, "name", None)):
        result = run_sensitivity(
            finding,
            setup,
            screen_games=screen_games,
            games=games,
            top=top,
            estimates=estimates,
            progress=progress_printer(quiet),
            yes=yes,
        )
    written = build_sensitivity_report(result).write(out)
    if attach is not None:
        from bnb_sim.analysis.sensitivity_attach import attach_sensitivity
        from bnb_sim.analysis.sensitivity_report import sensitivity_findings

        path = attach_sensitivity(result, sensitivity_findings(result), attach, report=out)
        if not as_json:
            click.echo(f"saved the answer into {path}: `bnb report {attach}` flags it")
    if not as_json:
        click.echo(format_sensitivity(result))
    echo_report(written, as_json)
