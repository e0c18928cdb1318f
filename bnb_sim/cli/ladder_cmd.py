"""``bnb ladder``: a ladder of play strength, each rung against the next on paired seeds."""

from __future__ import annotations

import click

from bnb_sim.cli.options import (
    components_option,
    game_option,
    game_options,
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

_DEFAULT = "random,heuristic:board=0,greedy,heuristic,ismcts:iterations=64,strong"
_GAMES = 200  # seeds per seating of a competitive game's ladder


@click.command("ladder")
@game_option
@game_options("ladder")
@click.option(
    "--rungs",
    default=None,
    help="The rungs, weakest first, comma-separated policy specs (at least 2). Default: "
    f"{_DEFAULT} (Builders & Biomes); random,team,strong (Heroes of the Village).",
)
@click.option(
    "--players", type=click.IntRange(2, 4), default=2, show_default=True, help="Seats per table."
)
@click.option(
    "--games",
    type=click.IntRange(2, 10_000_000),
    default=None,
    help=f"Seeds: every step plays game indices 0..N-1 in every seating of its tables "
    f"(2 players: 2N games per step). Default: {_GAMES}. A cooperative game (Heroes of the "
    "Village): games per rung, the same indices for every rung; default 20,000.",
)
@click.option(
    "--bootstrap",
    type=click.IntRange(0, 100_000),
    default=1000,
    show_default=True,
    help="Bootstrap resamples (over seeds) for the step and rating intervals.",
)
@click.option(
    "--luck",
    is_flag=True,
    help="Also measure luck and skill at the rungs (as `bnb luck`: --luck-groups x 25 games "
    "per chance source and rung; search rungs are left out): each chance source's share "
    "of the outcome in the report, next to how often the weaker rung wins.",
)
@click.option(
    "--luck-groups",
    type=click.IntRange(10, 100_000),
    default=200,
    show_default=True,
    help="With --luck: groups of 25 games per chance source and rung (each group shares "
    "that source's draws).",
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
    luck,
    luck_groups,
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
    """Each rung plays the next on the same seeds with the seats rotated: the upper rung's
    score with a 95% interval and n per step, a Bradley-Terry Elo scale over all rungs, the
    skill depth (steps whose lower bound is above 50%) and how often the weaker rung still
    wins; a report with the scale's plot and summary.json. In a cooperative game (Heroes of
    the Village) the rungs are team policies on the same games: each rung's team win rate
    and each step's paired difference (95% interval, McNemar test)."""
    from bnb_sim.cli.protocol_cmds import option_values, protocol_of
    from bnb_sim.games import get_game

    ctx = click.get_current_context()
    if other_game_handler(ctx, "ladder", game):  # a game that brings its own ladder
        return
    game = game or get_game(None)
    if game.outcome == "cooperative":
        _team_ladder(ctx, game, rungs, players, games, components, seed, threads, readings,
                     quiet, out, as_json, yes, game_specific, (luck, luck_groups))  # fmt: skip
        return
    expansion = ctx.meta.get("bnb.expansion")
    own = {k: v for k, v in option_values(protocol_of(game), game_specific).items()
           if v is not None}  # fmt: skip
    from bnb_sim.analysis.ladder import build_ladder_report, format_ladder
    from bnb_sim.runner.budget import confirm_games
    from bnb_sim.runner.design_play import design_readings
    from bnb_sim.runner.ladder_play import check_rungs, ladder_games, run_ladder

    games = _GAMES if games is None else games
    labels = check_rungs([rungs or _default_rungs(game)], players, game.name)  # fails first
    design_readings(readings, None, seating="fixed", what="ladder", game=game.name)
    confirm_games(ladder_games(len(labels), players, games), "ladder", yes=yes)
    luck_plan = _plan_luck((luck, luck_groups), game, labels, quiet, yes=yes,
                           players=players, seed=seed, components=components,
                           readings=readings, threads=threads)  # fmt: skip
    prepare_out(out)
    with warm_and_meter(quiet or as_json, [players], game=game.name):
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
            game=game.name,
            options=own,
        )
    report = _with_luck(build_ladder_report(result), luck_plan, quiet or as_json)
    written = report.write(out)
    if as_json:
        echo_written(written, as_json=True)
        return
    click.echo(format_ladder(result))
    echo_written(written)


def _plan_luck(luck: tuple[bool, int], game, rungs, quiet: bool, **options):
    """The luck design of ``--luck`` (checked and confirmed before any game is played), or
    None; the head-to-head games are the ladder's own (``pair_games=0``). The note on left-out
    search rungs goes to stderr, so it shows with --json too (only -q hides it)."""
    wanted, groups = luck
    if not wanted:
        return None
    from bnb_sim.errors import BnbError
    from bnb_sim.runner.luck_play import luck_rungs, plan_luck

    kept, left_out = luck_rungs(game, rungs)
    if not kept:
        raise BnbError("ladder --luck: every rung is a search bot, too slow for a luck design")
    if left_out and not quiet:
        click.echo(f"ladder --luck: leaves out the search rungs {', '.join(left_out)} "
                   "(thousands of times slower per game)", err=True)  # fmt: skip
    return plan_luck(game, rungs=kept, groups=groups, pair_games=0, **options)


def _with_luck(builder, luck_plan, quiet: bool):
    """The ladder's report, with the luck sections and findings when ``--luck`` asked."""
    if luck_plan is None:
        return builder
    from bnb_sim.analysis.luck_report import add_luck_to_report
    from bnb_sim.feedback import compile_notice
    from bnb_sim.runner.luck_play import run_luck

    say = progress_printer(quiet) or (lambda _text: None)
    with compile_notice(not quiet, game=luck_plan.game.name):
        result = run_luck(luck_plan, progress=say)
    return add_luck_to_report(builder, result)


def _given(ctx: click.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def _default_rungs(game) -> str:
    """The game's default rungs (its ``ladder_rungs`` hook), or one line asking for them."""
    from bnb_sim.cli.game_hooks import need_hook
    from bnb_sim.cli.protocol_cmds import protocol_of

    return ",".join(
        need_hook(protocol_of(game), "ladder_rungs", "default rungs: give --rungs A,B,...")()
    )


def _team_ladder(ctx, game, rungs, players, games, components, seed, threads, readings, quiet,
                 out, as_json, yes, options, luck=(False, 0)) -> None:  # fmt: skip
    """The ladder of a cooperative game: team policies on the same game indices."""
    from bnb_sim.analysis.team_ladder import build_team_ladder_report, format_team_ladder
    from bnb_sim.analysis.tournament_schedule import split_policy_list
    from bnb_sim.cli.protocol_cmds import command_components, protocol_of
    from bnb_sim.errors import BnbError
    from bnb_sim.runner.team_ladder import plan_team_ladder, run_team_ladder

    if readings:  # parsed for the config: this game's ladder does not take them so
        raise BnbError(f"ladder: --reading does not apply to {game.title}'s ladder")
    # a game that sets its readings on its components: its rungs play under them
    components = command_components(protocol_of(game), components, ctx.params.get("reading"))
    if _given(ctx, "bootstrap"):
        raise BnbError("ladder: --bootstrap does not apply to a cooperative game's ladder "
                       "(its intervals are paired over game indices)")  # fmt: skip
    plan = plan_team_ladder(
        game,
        split_policy_list([rungs]) if rungs else None,
        players=players if _given(ctx, "players") else None,
        games=games,
        seed=seed,
        components=components,
        yes=yes,
        options=options,
    )  # bad input fails before the report folder is made
    luck_plan = _plan_luck(luck, game, plan.rungs, quiet, yes=yes,
                           players=getattr(plan.team, "players", players),
                           seed=seed, components=components, threads=threads,
                           **options)  # fmt: skip
    prepare_out(out)
    with warm_and_meter(quiet or as_json, [plan.team.players], game=game.name):
        result = run_team_ladder(plan, threads=threads, progress=progress_printer(quiet or as_json))
    report = _with_luck(build_team_ladder_report(result), luck_plan, quiet or as_json)
    written = report.write(out)
    if as_json:
        echo_written(written, as_json=True)
        return
    click.echo(format_team_ladder(result))
    echo_written(written)
