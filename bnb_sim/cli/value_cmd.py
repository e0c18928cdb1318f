"""``bnb value``: what an option is worth to a bot, by restricted play (docs/experiments.md)."""

from __future__ import annotations

from pathlib import Path

import click

from bnb_sim.cli.options import (
    components_option,
    game_option,
    game_options,
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
from bnb_sim.errors import BnbError


@click.command("value")
@game_option
@game_options("value")
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="OPTION",
    help="What to value (repeat for several): an action type (collect, explore, build, fight, "
    "weapon, buy), buy:ITEM, fight:MOB, build:TYPE, or a group: all-items, all-mobs, "
    "all-types, all-actions. Heroes of the Village: a pet (fox) or all-pets.",
)
@click.option(
    "--mode",
    type=click.Choice(["never", "always"]),
    default="never",
    show_default=True,
    help="never: the bot may not take the option (value = allowed minus forbidden); always: "
    "it takes the option whenever legal (value = forced minus free).",
)
@click.option(
    "--policy",
    default="heuristic",
    show_default=True,
    help="The bot whose options are valued (any policy spec).",
)
@click.option(
    "--opponent",
    "opponents",
    multiple=True,
    help="Opponents (repeat; cycled over the other seats). Default: the same bot.",
)
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option(
    "--games",
    type=click.IntRange(2, 100_000_000),
    default=4000,
    show_default=True,
    help="Game indices per option (the free run plays them once more).",
)
@click.option(
    "--dask",
    metavar="ADDRESS",
    default=None,
    help="Play on a Dask cluster: 'local' or a scheduler address (as bnb simulate).",
)
@click.option(
    "--attach",
    metavar="RUN",
    type=click.Path(file_okay=False),
    default=None,
    help="Save the values into this run folder (value.json): its report then shows them in "
    "the Farmer's Market items or pet section.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@out_option(None, "Also write a report (md, html, summary.json, value.json) into this folder.")
@components_option
@play_options
@yes_option
def value(
    options,
    mode,
    policy,
    opponents,
    players,
    games,
    dask,
    attach,
    as_json,
    out,
    components,
    seed,
    threads,
    readings,
    quiet,
    yes,
    game=None,
    **game_specific,
) -> None:
    """What is an option worth? The same bot plays with the option forbidden (--mode never)
    or forced (--mode always) against the unrestricted bot, on the same game indices with the
    seats rotated; the answer is the difference in its win share with a 95% interval and n,
    ranked, best and worst named only when the data separate them.

    \b
    bnb value --option buy:crafting_table --players 3 --expansion farmers-market
    bnb value --option all-items --players 3 --expansion farmers-market --games 4000
    bnb value --option fight --option fight:enderman --players 2
    bnb value --game hotv --option all-pets --players 2 --games 2000"""
    ctx = click.get_current_context()
    if other_game_handler(ctx, "value", game):
        return
    own = game.entry("value_study") if game is not None else None
    if own is not None:  # a game that values its own options (Heroes of the Village: pets)
        _game_value(own, ctx, options=options, mode=mode, policy=policy, opponents=opponents,
                    players=players, games=games, seed=seed, components=components,
                    threads=threads, dask=dask, attach=attach, as_json=as_json, out=out,
                    quiet=quiet, yes=yes, game_options=game_specific)  # fmt: skip
        return
    from bnb_sim.analysis.value_report import publish_value
    from bnb_sim.runner.value_study import run_value

    if not options:
        raise BnbError("value: give at least one --option (e.g. --option buy:crafting_table)")
    if attach is not None and not (Path(attach) / "run.json").is_file():
        raise BnbError(f"--attach {attach}: not a run folder (no run.json)")
    if dask is not None:  # a bad address: one line before the report folder is made
        from bnb_sim.runner.dask_backend import check_address

        check_address(dask)
    if out is not None:
        prepare_out(out)
    say = progress_printer(quiet or as_json)
    with warm_and_meter(quiet or as_json, [players]):
        result = run_value(
            options, policy=policy, players=players, games=games, seed=seed, mode=mode,
            opponents=opponents, components=components, readings=readings, threads=threads,
            dask=dask, say=say, yes=yes,
        )  # fmt: skip
    publish_value(result, as_json=as_json, attach=attach, out=out, echo=click.echo,
                  echo_written=echo_written)  # fmt: skip


def _game_value(play, ctx, *, options, policy, dask, threads, attach, as_json, out, quiet,
                game_options, **common) -> None:  # fmt: skip
    """``bnb value --game NAME`` for a game with a ``value_study`` entry: the same checks,
    report folder and output as the first game's, the game's own play (its ``--reading``
    items and options passed on; the game's default policy when ``--policy`` is not given)."""
    from bnb_sim.analysis.value_report import publish_value
    from bnb_sim.runner.dask_blocks import open_blocks

    if not options:
        raise BnbError("value: give at least one --option (e.g. --option all-pets)")
    if attach is not None and not (Path(attach) / "run.json").is_file():
        raise BnbError(f"--attach {attach}: not a run folder (no run.json)")
    blocks = open_blocks(dask, threads)  # a bad address: one line, before anything is written
    given = ctx.get_parameter_source("policy") == click.core.ParameterSource.COMMANDLINE
    if out is not None:
        prepare_out(out)
    say = None if (quiet or as_json) else (lambda text: click.echo(text, err=True))
    extra = {name: value for name, value in game_options.items() if value is not None}
    result = play(list(options), policy=policy if given else None, threads=threads, dask=dask,
                  blocks=blocks, reading=ctx.params.get("reading") or (), say=say, **common,
                  **extra)  # fmt: skip
    publish_value(result, as_json=as_json, attach=attach, out=out, echo=click.echo,
                  echo_written=echo_written)  # fmt: skip
