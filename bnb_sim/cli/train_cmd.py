"""``bnb train``: make a ``strong`` model for your own box; ``bnb train show FILE``: what it values.

Training is the game's ``train`` hook (for Builders & Biomes CMA-ES over the ``strong``
model's weights by self-play against a field; docs/policies.md, "strong"). The model file is
written when the budget is spent, with a checkpoint after every generation beside it:
Ctrl-C keeps the finished generations and ``--resume`` continues them to the file an
uninterrupted run writes. Nothing heavy is imported until a command runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.options import (
    cli_readings,
    components_option,
    defaults_of,
    game_option,
    game_options,
    other_game_handler,
    readings_option,
)
from bnb_sim.errors import BnbError


def progress_printer(quiet: bool, against: str = "heuristic"):
    """The progress lines of a training run (stderr), or nothing with ``--quiet``."""

    def progress(info: dict) -> None:
        if quiet:
            return
        if info.get("stage") == "check":  # the game may name the check's opponent
            click.echo(f"  checking against {info.get('against', against)} on "
                       f"{info['deals']:,} fresh deals", err=True)  # fmt: skip
            return
        click.echo(
            f"  generation {info['generation']}: best {info['best']:.3f}, median "
            f"{info['median']:.3f}, {info['games']:,} games, {info['elapsed'] / 60:.1f} min",
            err=True,
        )

    return progress


def interrupted() -> SystemExit:
    """After Ctrl-C: say how to continue (the finished generations are in the checkpoint)."""
    again = " ".join(a for a in sys.argv[1:] if a not in ("--force", "--resume"))
    click.echo(f"interrupted; continue with: bnb {again} --resume", err=True)
    return SystemExit(130)


def out_and_checkpoint(out: Path | None, resume: bool, force: bool) -> Path:
    """The checkpoint beside ``--out``; BnbError if they exist without --resume or --force."""
    if out is None:
        raise BnbError("train: give --out FILE for the model")
    checkpoint = Path(str(out) + ".checkpoint.json")
    if not resume and not force and (out.exists() or checkpoint.exists()):
        raise BnbError(f"train: {out} or its checkpoint exists; --resume it or --force")
    return checkpoint


@click.group(
    invoke_without_command=True,
    help='Train a strong model (docs/policies.md, "strong"): '
    "bnb train --players 2 --minutes 60 --out my-model.toml; then play it as "
    "--policy strong:my-model.toml. `bnb train show FILE` says what a model values. "
    "Heroes of the Village: bnb train --game hotv --players 3 --minutes 10 --out hotv.toml.",
)
@game_option
@game_options("train")
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--games", type=click.IntRange(1, None), help="Budget in games (reproducible).")
@click.option(
    "--minutes",
    type=click.FloatRange(0, None, min_open=True),
    help="Budget in minutes of search (stops after the generation that runs out of time).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The model file to write (a checkpoint goes beside it: FILE.checkpoint.json).",
)
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)
@click.option(
    "--deals",
    type=click.IntRange(1, None),
    default=100,
    show_default=True,
    help="Deals per candidate and opponent in a generation (each played in every seat); "
    "--game hotv: game indices per candidate and pet team (default there 500).",
)
@click.option(
    "--check-deals",
    type=click.IntRange(2, None),
    default=1000,
    show_default=True,
    help="Fresh deals of the final check against heuristic (the score in the file); "
    "--game hotv: fresh game indices against the team bot, every pet team (default 500).",
)
@click.option(
    "--start",
    metavar="FILE",
    help="Start from this model (default: the heuristic's weights; --game hotv: the team bot's).",
)
@click.option("--resume", is_flag=True, help="Continue the run of the checkpoint beside --out.")
@click.option("--force", is_flag=True, help="Replace --out and its checkpoint if they exist.")
@click.option("--threads", type=click.IntRange(1, 1024), default=None)
@click.option(
    "--dask",
    "dask",
    metavar="local|ADDRESS",
    default=None,
    help="Play each generation's candidates on Dask: 'local' (worker processes on this "
    "machine) or a scheduler address such as tcp://host:8786 (the same model file).",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@components_option
@readings_option
@click.pass_context
def train(ctx, players, games, minutes, out, seed, deals, check_deals, start,
          resume, force, threads, dask, quiet, as_json, components, reading, game=None,
          **game_specific):  # fmt: skip
    if ctx.invoked_subcommand is not None:
        return
    if other_game_handler(ctx, "train", game):
        return
    from bnb_sim.cli.game_hooks import need_hook, protocol_game
    from bnb_sim.cli.protocol_cmds import option_values

    proto = protocol_game(game)
    train_model = need_hook(proto, "train", "bnb train")
    checkpoint = out_and_checkpoint(out, resume, force)
    options = {
        **option_values(proto, game_specific),  # the game's own (--field, --teams, ...)
        "players": players, "seed": seed, "games": games, "minutes": minutes,
        "deals": deals, "check_deals": check_deals, "start": start,
        "readings": cli_readings(reading, game=proto), "out": out, "checkpoint": checkpoint,
        "resume": resume, "threads": threads, "dask": dask,
        "progress": progress_printer(quiet), "as_json": as_json, "defaults": defaults_of(ctx),
    }  # fmt: skip
    try:
        result = train_model(components, options)
    except KeyboardInterrupt:
        raise interrupted() from None
    click.echo(jsonsafe.dumps(result.payload, indent=2) if as_json else result.text)


@train.command("show", help="What a strong model values, in words and numbers.")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the model as one JSON object.")
def show(file, as_json):
    from bnb_sim.cli.game_hooks import need_hook, protocol_game

    shown = need_hook(protocol_game(_game_of_model(file)), "show_model", "bnb train show")(file)
    click.echo(jsonsafe.dumps(shown.payload, indent=2) if as_json else shown.text)


def _game_of_model(file: str) -> str | None:
    """The game a model file names (None: the default game's, or a file that cannot be read:
    its loader then says why in one line)."""
    from bnb_sim.errors import SpecError
    from bnb_sim.games import get_game
    from bnb_sim.safe_io import UnreadableFile, load_toml

    try:
        head = load_toml(file, 64 * 1024).get("model")
        game = get_game(head.get("game")) if isinstance(head, dict) else None
    except (UnreadableFile, SpecError, OSError, ValueError, AttributeError):
        return None
    return game.name if game is not None else None
