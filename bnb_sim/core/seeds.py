"""A user seed's master key, shared by every game (docs/design.md, "Random streams").

Each game's counter-based streams (:mod:`bnb_sim.rng`) start from this one key, so a game
is a pure function of (seed, game index) whichever game it is.
"""

from __future__ import annotations


def master_key(seed: int):
    """The 64-bit master key (``numpy.uint64``) of a user seed (SeedSequence spreads nearby
    seeds apart)."""
    import numpy as np

    return np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0]
