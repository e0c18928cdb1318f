"""The fight speed checks of ``bnb bench`` (the game's ``bench_steps`` hook): exact combat
odds per second of the 21-token pile, and Monte Carlo combats per second.

Also used by ``scripts/bench_kernels.py``. Imports numba only when a check runs.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any


def _median(times: list[float]) -> float:
    import statistics

    return statistics.median(times)


def default_tokens():
    """Default component arrays, the five token-effect arrays, and the reveal count."""
    from bnb_sim.games.builders_biomes.components import load_components
    from bnb_sim.games.builders_biomes.components.arrays import RULE_FIGHT_REVEAL

    arrays = load_components().arrays
    names = ("tok_hearts", "tok_extra_reveals", "tok_xp", "tok_blocks", "tok_detonate")
    return arrays, tuple(getattr(arrays, n) for n in names), int(arrays.rules[RULE_FIGHT_REVEAL])


def exact_odds_per_second(seconds: float = 0.5) -> dict[str, Any]:
    """Exact odds of the 21-token pile (every starting and colourless token), warm."""
    from bnb_sim.games.builders_biomes.engine.odds import exact_odds

    arrays, tokens, reveal = default_tokens()
    pile = arrays.tok_start + arrays.tok_table
    exact_odds(pile, *tokens, reveal, 6)
    calls, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        exact_odds(pile, *tokens, reveal, 6)
        calls += 1
    dt = time.perf_counter() - t0
    return {"per_second": calls / dt, "ms": dt / calls * 1e3, "tokens": int(pile.sum())}


def monte_carlo_per_second(n: int = 1_000_000, repeats: int = 3) -> dict[str, Any]:
    """Monte Carlo combats per second with the full pile against 4 hearts."""
    import numpy as np

    from bnb_sim.games.builders_biomes.engine.combat import simulate_combats

    arrays, tokens, reveal = default_tokens()
    pile = arrays.tok_start + arrays.tok_table
    args = (np.int64(reveal), np.int64(4))
    master, stream = np.uint64(12345), np.int64(1)
    simulate_combats(pile, *tokens, *args, np.int64(10), master, stream)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        simulate_combats(pile, *tokens, *args, np.int64(n), master, stream)
        times.append(time.perf_counter() - t0)
    return {"combats_per_second": n / _median(times), "n": n}


def bench_steps(quick: bool = False, repeats: int = 3) -> list[tuple[str, str, Any]]:
    """``(result key, status line, measure)`` of each fight speed check of ``bnb bench``."""
    return [
        ("exact_odds", "exact odds/s", partial(exact_odds_per_second, 0.25 if quick else 0.5)),
        ("monte_carlo", "Monte Carlo combats/s", partial(monte_carlo_per_second, repeats=repeats)),
    ]
