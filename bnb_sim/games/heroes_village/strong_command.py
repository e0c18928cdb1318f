"""``bnb train --game hotv``: training a Heroes of the Village model.

The training core is :mod:`bnb_sim.games.heroes_village.strong_train`; this module is the
game's ``train`` hook (:data:`bnb_sim.core.protocol.HOOKS`): the shared ``bnb train`` checks
the files and gives the options, this reads them into a plan, runs it and says what it
wrote (the shared command prints the progress). ``bnb train show`` of a model is the
``show_model`` hook of the game's spec. Numba loads only when games play.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bnb_sim.core.protocol import CommandOutput

#: Defaults of the shared options where this game's differ from Builders & Biomes'.
DEALS = 500
CHECK_DEALS = 500


def plan(
    *, players, games, minutes, seed, deals, check_deals, start, components=None, readings=None,
    difficulty=None, buildings=None, teams=None, defaults=frozenset(), **_ignored,
):  # fmt: skip
    """``bnb train --game hotv``'s options as a checked
    :class:`~bnb_sim.games.heroes_village.strong_train.HotvTrainPlan` (CMA-ES over the team
    bot's weights); ``readings``: the ``--reading`` items, parsed."""
    from bnb_sim.games.heroes_village.strong_train import plan_training

    return plan_training(
        players=players, seed=seed, games=games, minutes=minutes,
        deals=DEALS if "deals" in defaults else deals,
        check_deals=CHECK_DEALS if "check_deals" in defaults else check_deals,
        teams=teams or 4, difficulty=difficulty, buildings=buildings, start=start,
        components=components, readings=dict(readings) if readings else None,
    )  # fmt: skip


def train_output(components, options: Mapping[str, Any]) -> CommandOutput:
    """The ``train`` hook (``bnb train --game hotv``): plan (a one-line error on bad input,
    before anything plays), train, and say so. ``options``: the shared command's (``out``,
    ``checkpoint``, ``resume``, ``threads``, ``dask``, ``progress``, ``readings``,
    ``defaults``, ...) and the game's own (``teams``, ``difficulty``, ``buildings``)."""
    from bnb_sim.games.heroes_village.strong_train import train_team

    planned = plan(**{**options, "components": components})
    dask = options.get("dask")
    if dask is not None:
        from bnb_sim.runner.dask_backend import check_address

        dask = check_address(dask)  # a bad address: one line before anything plays
    progress = options.get("progress")

    def tell(info: dict) -> None:  # the check's opponent is the team bot, not a field
        if progress is not None:
            progress({"against": planned.against, **info})

    result = train_team(planned, options["out"], checkpoint=options["checkpoint"],
                        resume=options.get("resume", False), threads=options.get("threads"),
                        progress=tell, dask=dask)  # fmt: skip
    payload = {"model": str(result.path), "generations": result.generations,
               "games": result.games, "check": result.check,
               "training": result.model.training}  # fmt: skip
    runs = f"{result.generations} generation{'' if result.generations == 1 else 's'}"
    text = (f"wrote {result.path}: {result.model.training['summary']} ({runs}, "
            f"{result.games:,} games)")  # fmt: skip
    return CommandOutput(text, payload)
