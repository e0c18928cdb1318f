"""The base game's rows are pinned: an option added to the engine (the Farmer's Market
expansion, R-FM-*) must leave games without it exactly as they were."""

from __future__ import annotations

import hashlib

import pytest

from bnb_sim.runner.simulate import simulate

PINNED = [
    (2, ("random",), 3, "cbffc7daf9b4455c"),
    (3, ("greedy", "random"), 5, "b55fa1ec69211f42"),
    (4, ("heuristic", "greedy"), 7, "c179cfa0f497202c"),
    (2, ("heuristic", "random"), 9, "f1d7d705cd77c29a"),
]


@pytest.mark.parametrize(("players", "policies", "seed", "digest"), PINNED)
def test_base_game_rows_are_unchanged(players, policies, seed, digest):
    rows = simulate(40, players, list(policies), seed, threads=1)
    got = hashlib.sha256(rows.to_csv(index=False).encode()).hexdigest()[:16]
    assert got == digest
