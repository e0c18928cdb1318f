"""``bnb odds``: exact combat odds of a weapon pile (R-FIGHT-2 to R-FIGHT-5).

The odds come from the game's ``odds`` hook (:data:`bnb_sim.core.protocol.HOOKS`; the first
game's text is :mod:`bnb_sim.games.builders_biomes.odds_text`). Numba loads only inside the
command body, so ``bnb --help`` and ``bnb odds --help`` stay fast.
"""

from __future__ import annotations

import contextlib
from typing import Any

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.options import components_option, game_option, game_options, other_game_handler

# the same as the first game's odds.MAX_SIMULATE (kept here to avoid the import)
MAX_SIMULATE = 10_000_000


@click.command("odds")
@game_option
@game_options("odds")
@click.option(
    "--mob",
    default=None,
    metavar="NAME",
    help="Take the hearts from this mob (Heroes of the Village: a fight value or a mob).",
)
@components_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option(
    "--simulate",
    type=int,
    default=None,
    metavar="N",
    help=f"Also run N Monte Carlo fights (1 to {MAX_SIMULATE:,}) as a check.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for --simulate.")
@click.option(
    "--quiet", "-q", is_flag=True, help="No notice on stderr while --simulate's kernel compiles."
)
def odds(
    mob: str | None,
    components: Any,
    as_json: bool,
    simulate: int | None,
    seed: int,
    quiet: bool = False,
    game=None,
    **game_specific,
) -> None:
    """Exact odds of winning one fight, by the game's rules.

    Builders & Biomes (R-FIGHT-2 to R-FIGHT-5): a weapon pile (--pile) against --hearts or
    --mob, or with neither a table over every heart value a mob has. TNT is detonated only
    when that turns a loss into a win, as few as needed; every revealed bow reveals one more
    token (the reading bow=always: under bow=choose a player may reveal less, so these are
    the odds of a player who always takes the reveal). Heroes of the Village (--game hotv):
    the fight die against a fight value or mob (--mob), with a pet's help (--pet).

    \b
    Examples:
      bnb odds --pile stone_sword,bow*2,tnt --hearts 5
      bnb odds --game hotv --mob 6 --pet wolf
    """
    if other_game_handler(click.get_current_context(), "odds", game):
        return
    from bnb_sim.cli.game_hooks import need_hook, protocol_game

    exact = need_hook(protocol_game(game), "odds", "exact odds (bnb odds)")
    if simulate is not None and not 1 <= simulate <= MAX_SIMULATE:
        raise click.BadParameter(
            f"must be from 1 to {MAX_SIMULATE:,}, got {simulate}", param_hint="'--simulate'"
        )
    if seed < 0:
        raise click.BadParameter(f"must be >= 0, got {seed}", param_hint="'--seed'")

    # exact odds are plain Python; only --simulate loads (and may first compile) a kernel
    if simulate:
        from bnb_sim.feedback import compile_notice

        notice = compile_notice(not quiet, game=None if game is None else game.name)
    else:
        notice = contextlib.nullcontext()
    options = {**game_specific, "mob": mob,  # the game's own, e.g. --pile, --pet
               "simulate": simulate or 0, "seed": seed, "as_json": as_json}  # fmt: skip
    with notice:
        out = exact(components, options)
    click.echo(jsonsafe.dumps(out.payload, indent=2) if as_json else out.text)
