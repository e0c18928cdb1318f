"""What the shared run path needs to know of Builders & Biomes (run hooks of its ``spec``).

``bnb simulate`` and ``bnb_sim.simulate`` (:mod:`bnb_sim.runner.run_plan`: a RunPlan that
carries the protocol object, ``spec.GAME``, which plays the run config), the studies' Dask
blocks (:mod:`bnb_sim.runner.dask_backend`) and ``bnb bench`` reach the game through the run
hooks of its protocol object (:func:`bnb_sim.games.entry_of_config`), which call these: how a
run config is made from user values, how it travels to a Dask worker as plain data and is
rebuilt there (also how a ``GameConfig`` pickles), and how large a default chunk is. Nothing
heavy is imported until an entry is called.
"""

from __future__ import annotations

from typing import Any

#: Games per thread in a default chunk (about 0.5-1 s of work): all-random tables (cheap
#: policies) and anything with a thinking policy.
PER_THREAD_RANDOM = 20_000
PER_THREAD_OTHER = 10_000


def create_config(players: int, policies, **options: Any):
    """The run config (:class:`GameConfig`) from user values: ``GameConfig.create``."""
    from bnb_sim.games.builders_biomes.run_config import GameConfig

    return GameConfig.create(players, policies, **options)


def games_per_thread(config) -> int:
    """Games per thread in a default chunk of ``config``'s run: more for all-random tables."""
    from bnb_sim.games.builders_biomes.policies.kinds import RANDOM

    all_random = all(p.kind == RANDOM for p in config.policies)
    return PER_THREAD_RANDOM if all_random else PER_THREAD_OTHER


def dask_payload(config) -> dict[str, Any]:
    """The config as plain data that any worker with bnb-sim installed can rebuild."""
    from bnb_sim.games.builders_biomes.run_config import config_payload

    return config_payload(config)


def dask_config(payload: dict[str, Any]):
    """Rebuild the :func:`dask_payload` config on a worker (the same component hash)."""
    from bnb_sim.games.builders_biomes.run_config import config_from_payload

    return config_from_payload(payload)
