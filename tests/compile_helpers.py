"""Compile-job targets for tests/test_compile.py (run in child processes)."""

from __future__ import annotations

import numpy as np


def _listen() -> list:
    from numba.core import event

    compiled: list = []

    class Count(event.Listener):
        def on_start(self, ev):
            compiled.append(ev.data["dispatcher"].py_func.__qualname__)

        def on_end(self, ev):
            pass

    event.register("numba:compile", Count())
    return compiled


def compile_cube() -> None:
    from bnb_sim.api import collectable

    collectable(np.ones((4, 4, 4), bool))


def expect_cube_cached() -> None:
    compiled = _listen()
    compile_cube()
    if compiled:
        raise RuntimeError(f"compiled again: {compiled}")


def broken() -> None:
    raise RuntimeError("failed on purpose")


def compile_popcount(kind: str) -> None:
    from bnb_sim.games.builders_biomes.engine.bits import popcount

    popcount(np.uint64(7) if kind == "uint64" else np.int64(7))


def count_loaded() -> None:
    from bnb_sim.games.builders_biomes.engine.bits import popcount

    compiled = _listen()
    popcount(np.uint64(7))
    popcount(np.int64(7))
    loaded = sum(popcount.stats.cache_hits.values())
    print(f"loaded {loaded} compiled {len(compiled)}")
