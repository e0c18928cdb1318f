"""``bnb train --game hotv`` and ``bnb train show`` of a Heroes of the Village model.

The training core is :mod:`bnb_sim.games.heroes_village.strong_train`; this module reads the
command's options into a plan (the ``train_plan`` entry: the shared ``bnb train`` checks
the files, runs it and prints the progress and the result) and shows a model. Numba loads
only when games play.
"""

from __future__ import annotations

import click

from bnb_sim import jsonsafe

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


def describe(model) -> list[str]:
    """What a model values: each weight against the team bot's, with its meaning."""
    from bnb_sim.games.heroes_village.policies import TEAM_WEIGHTS

    training = model.training
    lines = [f"Heroes of the Village strong model {model.source or '(in memory)'}"]
    if training.get("summary"):
        lines.append(f"  trained: {training['summary']}")
    elif training.get("method"):
        lines.append(f"  trained: {training['method']}")
    lines.append("  weight          model    team  x      meaning")
    for (name, (default, meaning)), value in zip(TEAM_WEIGHTS.items(), model.weights,
                                                 strict=True):  # fmt: skip
        factor = f"{value / default:5.2f}" if default else "  -  "
        lines.append(f"  {name:<14}{value:7.3f}  {default:6.2f}  {factor}  {meaning}")
    return lines


def show(file: str, as_json: bool = False) -> None:
    """``bnb train show FILE`` for a Heroes of the Village model."""
    from bnb_sim.games.heroes_village.strong_model import load_model

    model = load_model(file)
    if as_json:
        payload = {"file": file, "game": "heroes_village", "training": model.training,
                   "weights": model.named()}  # fmt: skip
        click.echo(jsonsafe.dumps(payload, indent=2))
        return
    click.echo("\n".join(describe(model)))
