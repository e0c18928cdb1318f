"""The ``random`` policy: uniform over the legal decisions (like every built-in bot it is not
offered to give up extra actions it paid for with hunger mobs: ``engine/play.py``)."""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.engine.bits import kth_set_bit, popcount
from bnb_sim.games.builders_biomes.engine.state import PASS
from bnb_sim.rng import bounded_row


@kernel(inline="always")
def choose_random(mask, pass_ok, rng, row):
    """Pick one legal decision uniformly with stream ``rng[row]`` (the seat's policy stream)."""
    n_bits = popcount(mask)
    n = n_bits + (1 if pass_ok else 0)
    if n == 0:
        return -1
    if n == 1:
        return 64 if n_bits == 0 else kth_set_bit(mask, 0)
    k = bounded_row(rng, row, n)
    if k == n_bits:
        return PASS
    return kth_set_bit(mask, k)
