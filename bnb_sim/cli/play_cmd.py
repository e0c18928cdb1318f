"""``bnb play``: play one game and print it turn by turn (or as one JSON object).

The game is game ``--game-index`` of a run with the same seed, players, policies, components,
variant and seating: ``bnb play`` replays exactly what a batch run played there.

Numba, numpy and pandas load only inside the command body, so ``bnb --help`` and
``bnb play --help`` stay fast.
"""

from __future__ import annotations

from typing import Any

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.options import (
    cli_readings,
    complete_policy,
    components_option,
    defaults_of,
    game_option,
    game_options,
    other_game_handler,
    readings_option,
)


def _stopping_notice() -> None:
    click.echo("Ctrl-C: stopping after the decision in progress (press Ctrl-C again to stop "
               "now)", err=True)  # fmt: skip


@click.command("play")
@game_option
@game_options("play")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the run.")
@click.option("--players", type=int, default=2, show_default=True, help="2 to 4 players.")
@click.option(
    "--policy",
    "policies",
    multiple=True,
    metavar="SPEC",
    help="Policy of a player, in player order (repeat; cycled over the players). "
    "random, greedy, heuristic[:weights], strong[:model.toml], mc[:...], ismcts[:...], "
    "bot:FILE.toml, or a plugin. Default: heuristic.",
    shell_complete=complete_policy,
)
@click.option("--game-index", type=int, default=0, show_default=True, help="Which game of the run.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@components_option
@readings_option
@click.option("--quiet", "-q", is_flag=True, help="No notice on stderr while the engine compiles.")
def play(
    seed: int,
    players: int,
    policies: tuple[str, ...],
    game_index: int,
    as_json: bool,
    components: Any,
    reading: tuple[str, ...],
    quiet: bool = False,
    game=None,
    **game_specific,
) -> None:
    """Play one game and print it turn by turn: actions, what was revealed and drawn, fights
    with the tokens shown, scoring choices and points, and the final table."""
    if game_index < 0:
        raise click.BadParameter(f"must be >= 0, got {game_index}", param_hint="'--game-index'")
    if seed < 0:
        raise click.BadParameter(f"must be >= 0, got {seed}", param_hint="'--seed'")
    from bnb_sim.feedback import compile_notice

    ctx = click.get_current_context()
    if other_game_handler(ctx, "play", game):  # refuses another game's options
        return
    from bnb_sim.cli.game_hooks import need_hook, protocol_game
    from bnb_sim.cli.protocol_cmds import reading_aliases, without_reading_flags

    proto = protocol_game(game)
    transcript = _transcript_of(proto) or need_hook(proto, "play_transcript", "bnb play")
    aliases = reading_aliases(proto, ctx.params)  # its --variant and the like
    options = {
        **without_reading_flags(game_specific),  # the game's own options (e.g. --pets)
        "seed": seed,
        "players": players,
        "policies": list(policies),
        "game_index": game_index,
        "readings": cli_readings(reading, game=proto, **aliases),
        "as_json": as_json,
        "on_interrupt": _stopping_notice,  # Ctrl-C works inside a long decision
        "defaults": defaults_of(ctx),
    }
    with compile_notice(not quiet, game=proto.name):
        out = transcript(components, options)
    for note in out.notes:
        click.echo(note, err=True)
    if as_json and out.payload is not None:
        click.echo(jsonsafe.dumps(out.payload))
    else:  # a game that lays out its JSON itself gives it as the text
        click.echo(out.text)


def _transcript_of(proto):
    """The game's own telling (its ``play_transcript`` hook), else, for a game with a
    step-by-step ``Game``, the shared one from its event log; None: neither (one line)."""
    from bnb_sim.core.protocol import has_step_api, hook

    own = hook(proto, "play_transcript")
    if own is not None or not has_step_api(proto):
        return own
    from bnb_sim.runner.step_transcript import step_transcript

    return lambda components, options: step_transcript(proto, components, options)
