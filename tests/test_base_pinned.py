"""The base game's rows are pinned: an option added to the engine (the Farmer's Market
expansion, R-FM-*) must leave games without it exactly as they were."""

from __future__ import annotations

import hashlib

import pytest

from bnb_sim.runner.simulate import simulate

# (players, policies, seed, digest of the rows, digest of the rows without the columns added
# since the first pin: the XP totals after rounds A and B, which record and change nothing)
PINNED = [
    (2, ("random",), 3, "2a8189b2b274da78", "cbffc7daf9b4455c"),
    (3, ("greedy", "random"), 5, "c8f415cc6438dde1", "b55fa1ec69211f42"),
    (4, ("heuristic", "greedy"), 7, "2479fe7ad6554d84", "c179cfa0f497202c"),
    (2, ("heuristic", "random"), 9, "fe1b8fe4e9132dcc", "f1d7d705cd77c29a"),
]
ADDED_COLUMNS = ["total_xp_after_a", "total_xp_after_b"]


def _digest(rows) -> str:
    return hashlib.sha256(rows.to_csv(index=False).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("players", "policies", "seed", "digest", "outcomes"), PINNED)
def test_base_game_rows_are_unchanged(players, policies, seed, digest, outcomes):
    rows = simulate(40, players, list(policies), seed, threads=1)
    assert _digest(rows.drop(columns=ADDED_COLUMNS)) == outcomes  # the games themselves
    assert _digest(rows) == digest
