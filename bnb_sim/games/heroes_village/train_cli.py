"""``bnb train --game hotv``: training a Heroes of the Village model.

The training core is :mod:`bnb_sim.games.heroes_village.strong_train`; this module reads the
command's options into a plan (the ``train_plan`` entry: the shared ``bnb train`` checks
the files, runs it and prints the progress and the result). ``bnb train show`` of a model
is the ``show_model`` hook of the game's spec. Numba loads only when games play.
"""

from __future__ import annotations

import click

#: Defaults of the shared options where this game's differ from Builders & Biomes'.
DEALS = 500
CHECK_DEALS = 500


def train_options(func):
    """``--teams``, ``--difficulty`` and ``--buildings`` on ``bnb train``."""
    func = click.option(
        "--teams",
        type=click.IntRange(1, 20),
        default=None,
        help="Heroes of the Village: pet teams drawn per generation (default 4).",
    )(func)
    func = click.option(
        "--buildings",
        default=None,
        metavar="CHOICE",
        help="Heroes of the Village: the three buildings (1,5,9) or one drawn per game from "
        "each level (level:1,2,3, the default).",
    )(func)
    return click.option(
        "--difficulty",
        type=click.Choice(["standard", "easy", "normal"]),
        default=None,
        help="Heroes of the Village: the Illager's start the model is trained for (standard, "
        "the default, or easy; normal is an old name of standard).",
    )(func)


def plan(
    *, players, games, minutes, seed, deals, check_deals, start, components=None, reading=(),
    difficulty=None, buildings=None, teams=None, defaults=frozenset(), **_ignored,
):  # fmt: skip
    """The ``train_plan`` entry: ``bnb train --game hotv``'s options as a checked
    :class:`~bnb_sim.games.heroes_village.strong_train.HotvTrainPlan` (CMA-ES over the team
    bot's weights); the shared command runs it with the ``train_run`` entry."""
    from bnb_sim.games.heroes_village.readings import parse_assignments
    from bnb_sim.games.heroes_village.strong_train import plan_training

    return plan_training(
        players=players, seed=seed, games=games, minutes=minutes,
        deals=DEALS if "deals" in defaults else deals,
        check_deals=CHECK_DEALS if "check_deals" in defaults else check_deals,
        teams=teams or 4, difficulty=difficulty, buildings=buildings, start=start,
        components=components, readings=parse_assignments(reading) if reading else None,
    )  # fmt: skip
