"""``bnb train`` and ``bnb train show`` of Builders & Biomes (the game's ``train`` and
``show_model`` hooks): train a ``strong`` model, and say what one values.

Training is the core of :mod:`bnb_sim.games.builders_biomes.strong_train` (CMA-ES over the
model's weights by self-play against a field; docs/policies.md, "strong"); the command keeps
its options, the checkpoint beside ``--out`` and Ctrl-C.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bnb_sim.core.protocol import CommandOutput


def _field(text: str) -> tuple[str, ...]:
    """``--field A,B,...``: the policy specs of the fixed opponents."""
    return tuple(spec.strip() for spec in str(text).split(",") if spec.strip())


def train_output(components: Any, options: Mapping[str, Any]) -> CommandOutput:
    """Plan (a one-line error on bad input, before anything plays), train, and say so
    (``options``: ``bnb train``'s, with this game's ``field`` and ``self_every``)."""
    from bnb_sim.games.builders_biomes.strong_train import plan_training, train_strong

    plan = plan_training(
        players=options["players"], seed=options["seed"], games=options.get("games"),
        minutes=options.get("minutes"), opponents=_field(options["field"]),
        self_every=options["self_every"], deals=options["deals"],
        check_deals=options["check_deals"], start=options.get("start"),
        components=components, readings=options.get("readings"),
    )  # fmt: skip
    dask = options.get("dask")
    if dask is not None:
        from bnb_sim.runner.dask_backend import check_address

        dask = check_address(dask)  # a bad address: one line before anything plays
    result = train_strong(plan, options["out"], checkpoint=options["checkpoint"],
                          resume=options.get("resume", False), threads=options.get("threads"),
                          progress=options.get("progress"), dask=dask)  # fmt: skip
    check = result.check
    payload = {"model": str(result.path), "generations": result.generations,
               "games": result.games, "check": check,
               "training": result.model.training}  # fmt: skip
    text = (
        f"wrote {result.path}: mean score {check['score']:.3f} [{check['low']:.3f}, "
        f"{check['high']:.3f}] against heuristic on {check['deals']:,} fresh deals "
        f"({result.generations} generation{'' if result.generations == 1 else 's'}, "
        f"{result.games:,} games)"
    )
    return CommandOutput(text, payload)


def show_output(file: str) -> CommandOutput:
    """What the strong model in ``file`` values, in words and numbers."""
    from bnb_sim.games.builders_biomes.strong_model import STAGE_KEYS, load_model
    from bnb_sim.games.builders_biomes.strong_show import describe, sentences

    model = load_model(file)
    stages = {key: model.stage(i) for i, key in enumerate(STAGE_KEYS)}
    payload = {"file": file, "players": model.players, "expansion": model.expansion,
               "training": model.training, "stages": stages,
               "in_words": sentences(model)}  # fmt: skip
    return CommandOutput("\n".join(describe(model)), payload)
