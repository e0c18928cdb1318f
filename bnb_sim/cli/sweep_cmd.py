"""``bnb sweep --set PATH=V1,V2,...``: the same games under component variants, for every
game: a competitive game's paired effects against the baseline (win rates, and XP, fights or
game length where its rows have them; :mod:`bnb_sim.runner.sweep_play`), a cooperative
game's team win rate per variant (:mod:`bnb_sim.cli.sweep_team`), chosen by the protocol's
outcome kind."""

from __future__ import annotations

import click

from bnb_sim.cli.options import (
    command_params,
    components_option,
    game_option,
    game_options,
    json_option,
    out_option,
    policy_options,
    refuse_foreign_options,
    yes_option,
)
from bnb_sim.cli.run_cmd import (
    echo_written,
    play_options,
    prepare_out,
    progress_printer,
    warm_and_meter,
)


@click.command("sweep")
@game_option
@game_options("sweep")
@click.option(
    "--set",
    "sets",
    multiple=True,
    required=True,
    metavar="PATH=V1,V2,...",
    help="A component value and the values to try, e.g. mobs.enderman.hearts=5,6,7 "
    "(repeat for a grid; see --zip).",
)
@click.option(
    "--zip",
    "zip_mode",
    is_flag=True,
    help="Pair the i-th values of every --set instead of trying every combination.",
)
@click.option(
    "--games",
    type=click.IntRange(2, 10_000_000),
    default=2000,
    show_default=True,
    help="Games per variant (the same game indices for every variant).",
)
@click.option(
    "--players", type=click.IntRange(2, 4), default=4, show_default=True, help="Players per game."
)
@policy_options(
    default=("heuristic", "greedy", "random", "random"),
    help="A player's policy, repeat per player (in player order, cycled over the players).",
)
@components_option
@play_options
@out_option("reports/sweep", "Report folder (created if needed).")
@json_option
@yes_option
def sweep(
    sets,
    zip_mode,
    games,
    players,
    policies,
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
    """Re-run one simulation under each component variant on the same seeds and report the
    effect on seat fairness (first-player advantage, balance, seat win rates), win rates and
    XP (paired differences against the component file's values, 95% intervals), as tables
    and plots."""
    ctx = click.get_current_context()
    refuse_foreign_options(ctx, game)
    params, defaults = command_params(ctx, policies=policies)
    if game.outcome == "cooperative":  # the team's win rate per variant
        from bnb_sim.cli.sweep_team import team_sweep

        team_sweep(**params, defaults=defaults)
        return
    from bnb_sim.analysis.sweep_report import build_sweep_report, format_sweep
    from bnb_sim.analysis.sweep_variants import game_variants, parse_set_option
    from bnb_sim.analysis.tournament_schedule import split_policy_list
    from bnb_sim.cli.protocol_cmds import option_values
    from bnb_sim.runner.budget import confirm_games
    from bnb_sim.runner.design_play import design_readings
    from bnb_sim.runner.sweep_play import run_sweep

    if game.hook("studies") is None:  # the defaults above are the first game's: its own
        policies = [game.game.default_policy] if "policies" in defaults else policies
        players = None if "players" in defaults else players
    parsed = [parse_set_option(s) for s in sets]
    mode = "zip" if zip_mode else "grid"
    variants = game_variants(game.game, components, parsed, mode)  # bad paths fail here
    confirm_games(len(variants) * games, "sweep", yes=yes)
    policy_list = split_policy_list(policies)[:players]
    design_readings(readings, None, seating="rotate", what="sweep", game=game.name)
    prepare_out(out)
    with warm_and_meter(quiet, [players], game=game.name):
        result = run_sweep(
            games=games,
            players=players,
            policies=policy_list,
            mode=mode,
            seed=seed,
            components=components,
            readings=readings,
            threads=threads,
            variants=variants,
            progress=progress_printer(quiet),
            yes=yes,
            game=game.name,
            options=option_values(game.game, game_specific),
        )
    written = build_sweep_report(result).write(out)
    if not as_json:
        click.echo(format_sweep(result))
    echo_written(written, as_json)
