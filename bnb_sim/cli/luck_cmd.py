"""``bnb luck``: how much of the outcome each chance source decides, at each rung of play."""

from __future__ import annotations

import click

from bnb_sim.cli.options import (
    components_option,
    game_option,
    game_options,
    json_option,
    other_game_handler,
    out_option,
    readings_option,
    yes_option,
)
from bnb_sim.cli.run_cmd import echo_written, prepare_out, progress_printer


@click.command("luck")
@game_option
@game_options("luck")
@click.option(
    "--rungs",
    default=None,
    help="Policies, weakest first, comma-separated; each plays every seat in turn. Default: "
    "random,greedy,heuristic (Builders & Biomes), random,team (Heroes of the Village).",
)
@click.option(
    "--players",
    type=click.IntRange(2, 4),
    default=None,
    help="Players. Default: 2 (Builders & Biomes), 3 (Heroes of the Village).",
)
@click.option(
    "--outcome",
    default="win",
    show_default=True,
    help="What varies: win (player 1's share of the win; the team's win in Heroes of the "
    "Village) or margin (Builders & Biomes: player 1's XP minus the others' mean).",
)
@click.option(
    "--groups",
    type=click.IntRange(10, 100_000),
    default=200,
    show_default=True,
    help="Groups per source and rung: a group's games share that source's draws.",
)
@click.option(
    "--per-group",
    type=click.IntRange(2, 10_000),
    default=25,
    show_default=True,
    help="Games per group (the other sources vary between them).",
)
@click.option(
    "--pair-games",
    type=click.IntRange(0, 10_000_000),
    default=None,
    help="Games (deals) each pair of adjacent rungs plays head to head; 0 skips the skill "
    "part. Default: groups x per-group.",
)
@click.option(
    "--bootstrap",
    type=click.IntRange(0, 100_000),
    default=1000,
    show_default=True,
    help="Bootstrap resamples (over groups, and over games head to head).",
)
@components_option
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=0,
    show_default=True,
    help="Master seed: the same seed gives the same games and numbers.",
)
@click.option(
    "--threads",
    type=click.IntRange(1, 1024),
    default=None,
    help="Threads for the engine. Default: all cores. Results do not depend on it.",
)
@click.option(
    "--dask", metavar="local|ADDRESS", default=None,
    help="Play the designs on Dask: 'local' (worker processes, --threads of them) or a "
    "scheduler address. The same numbers as on one machine.",
)  # fmt: skip
@readings_option
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
@out_option("reports/luck", "Report folder (created if needed).")
@json_option
@yes_option
def luck(game=None, **options) -> None:
    """Luck or skill? For each rung (every seat plays that bot) and each chance source (B&B:
    seat draw, cube, tile deal, weapon tokens, boards, market, fight draws, the bots' own
    random choices; HotV: set-up stacks, pouch, fight dice, Illager die, bots), groups of
    games share that source's draws while the rest varies: the share of the outcome's
    variance the source explains alone, with a 95% bootstrap interval. Adjacent rungs then
    meet head to head: how often the weaker one wins and the skill share. A report with a
    plot and summary.json; --json prints the numbers."""
    from bnb_sim.analysis.luck_report import build_luck_report, format_luck
    from bnb_sim.analysis.tournament_schedule import split_policy_list
    from bnb_sim.games import get_game
    from bnb_sim.runner.luck_play import plan_luck, run_luck

    game = game if game is not None else get_game(None)
    # refuse another game's options (--pets with Builders & Biomes); no game has a handler
    other_game_handler(click.get_current_context(), "luck_handler", game)
    out, as_json, quiet = options.pop("out"), options.pop("as_json"), options.pop("quiet")
    rungs = options.pop("rungs")
    options.pop("expansion", None)  # already applied to --components
    plan = plan_luck(
        game,
        rungs=split_policy_list([rungs]) if rungs else None,
        groups=options.pop("groups"),
        per_group=options.pop("per_group"),
        pair_games=options.pop("pair_games"),
        n_boot=options.pop("bootstrap"),
        threads=options.pop("threads"),
        dask=options.pop("dask"),
        yes=options.pop("yes"),
        **options,
    )
    prepare_out(out)
    say = progress_printer(quiet or as_json) or (lambda _text: None)
    pairs = max(len(plan.rungs) - 1, 0) * plan.pair_games
    say(f"luck: {plan.total_games:,} games ({len(plan.rungs)} rungs x {plan.designs} designs "
        f"of {plan.design_games:,} games, {pairs:,} head to head)")  # fmt: skip
    from bnb_sim.feedback import compile_notice

    with compile_notice(not (quiet or as_json), game=game.name):
        result = run_luck(plan, progress=say)
    written = build_luck_report(result).write(out)
    if as_json:
        echo_written(written, as_json=True)
        return
    click.echo(format_luck(result))
    echo_written(written)
