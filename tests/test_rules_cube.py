"""The block cube: R-CUBE-1 (exposure), R-CUBE-2 (two blocks, re-evaluated), R-CUBE-3 (emerald
is wild), against a brute-force reference and through the Game API."""

from __future__ import annotations

import engine_helpers as H
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bnb_sim.api import collectable
from bnb_sim.errors import BnbError
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import state as S


def reference_collectable(cube: np.ndarray, min_sides: int = 2) -> np.ndarray:
    """R-CUBE-1 read literally: top face exposed and >= 2 side faces exposed (outside of the
    cube, or an empty neighbour in the same layer); the bottom face never counts."""
    out = np.zeros((4, 4, 4), bool)
    for layer in range(4):
        for row in range(4):
            for col in range(4):
                if not cube[layer, row, col]:
                    continue
                top = layer == 0 or not cube[layer - 1, row, col]
                sides = 0
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                    r, c = row + dr, col + dc
                    if not (0 <= r < 4 and 0 <= c < 4) or not cube[layer, r, c]:
                        sides += 1
                out[layer, row, col] = top and sides >= min_sides
    return out


cubes = st.lists(st.booleans(), min_size=64, max_size=64).map(
    lambda bits: np.array(bits).reshape(4, 4, 4)
)
sparse_or_dense = st.integers(1, 9).flatmap(
    lambda d: st.lists(st.integers(0, 9), min_size=64, max_size=64).map(
        lambda xs: (np.array(xs) < d).reshape(4, 4, 4)
    )
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(cubes, sparse_or_dense))
def test_r_cube_1_collectable_matches_brute_force(cube):
    # R-CUBE-1
    assert np.array_equal(collectable(cube), reference_collectable(cube))


@settings(max_examples=60, deadline=None)
@given(cubes, st.integers(0, 4))
def test_r_cube_1_collectable_with_other_side_counts(cube, sides):
    # R-CUBE-1
    assert np.array_equal(collectable(cube, sides), reference_collectable(cube, sides))


def test_r_cube_1_bottom_face_never_counts():
    # R-CUBE-1
    cube = np.ones((4, 4, 4), bool)
    cube[0] = False  # layer 1 taken away
    cube[2, 1, 1] = False  # hole under layer 2 r2c2: its bottom face is open
    got = collectable(cube)
    assert not got[1, 1, 1]  # top exposed, bottom open, no side exposed: not collectable
    cube[1, 1, 2] = False  # now one side is exposed too: still only one side
    assert not collectable(cube)[1, 1, 1]
    cube[1, 0, 1] = False  # second side: collectable
    assert collectable(cube)[1, 1, 1]
    # a block whose top is covered is never collectable, whatever its sides
    lone = np.zeros((4, 4, 4), bool)
    lone[2, 2, 2] = lone[1, 2, 2] = True
    assert not collectable(lone)[2, 2, 2] and collectable(lone)[1, 2, 2]


def test_r_cube_1_api_validates_input():
    # R-CUBE-1
    with pytest.raises(BnbError, match="shape"):
        collectable(np.ones((4, 4), bool))
    with pytest.raises(BnbError):
        collectable(np.full((4, 4, 4), 2))


def test_r_cube_1_engine_offers_exactly_the_collectable_blocks():
    # R-CUBE-1
    game = H.new_game(2, seed=3)
    snapshot = game._pub.copy(), game._hid.copy()
    rng = np.random.default_rng(5)
    for trial in range(40):
        game._pub[:] = snapshot[0]
        game._hid[:] = snapshot[1]
        keep = rng.random(64) < rng.uniform(0.2, 0.95)
        keep[H.pos(0, 0, 0)] = True  # the cube is never empty
        H.set_cube(game, keep)
        H.assert_consistent(game)
        expected = np.flatnonzero(reference_collectable(keep.reshape(4, 4, 4)).reshape(64))
        H.play(game, H.COLLECT)
        assert game.legal_actions() == expected.tolist(), trial


# ---- R-CUBE-2 ---------------------------------------------------------------------------
def test_r_cube_2_second_block_is_chosen_after_re_evaluation():
    # R-CUBE-2
    game = H.new_game(2, seed=4)
    blocks = game.reveal()["blocks"].reshape(64)
    H.play(game, H.COLLECT)
    corners = [H.pos(0, 0, 0), H.pos(0, 0, 3), H.pos(0, 3, 0), H.pos(0, 3, 3)]
    assert game.legal_actions() == corners  # a full cube: the four top corners
    H.play(game, H.pos(0, 0, 0))
    assert game.phase == "collect"
    legal = set(game.legal_actions())
    # uncovered by the first block: its two neighbours, and the block below (any layer)
    assert {H.pos(0, 0, 1), H.pos(0, 1, 0), H.pos(1, 0, 0)} <= legal
    H.play(game, H.pos(1, 0, 0))
    assert game.phase == "turn" and game._pub[S.C_ACTIONS_DONE] == 1
    expected = [0] * 5
    expected[blocks[H.pos(0, 0, 0)]] += 1
    expected[blocks[H.pos(1, 0, 0)]] += 1
    assert H.supply(game, 0) == expected
    assert game._pub[L.stat_at(0, S.S_BLOCKS_COLLECTED)] == 2
    H.assert_consistent(game)


def test_r_cube_2_only_one_collectable_block_gives_one_block():
    # R-CUBE-2
    game = H.new_game(2, seed=5)
    last = H.pos(3, 1, 2)
    material = int(game.reveal()["blocks"].reshape(64)[last])
    H.set_cube(game, [last])  # one block left (layers 1-3 were emptied this turn)
    H.mark_rounds_done(game, 2)
    game._pub[S.C_ROUNDS_PENDING] = 4
    game._pub[S.C_ROUND_TURN + 2] = game._pub[S.C_TURN]
    H.assert_consistent(game)
    H.play(game, H.COLLECT)
    assert game.legal_actions() == [last]
    H.play(game, last)
    assert game.phase == "turn" and game._pub[S.C_ACTIONS_DONE] == 1  # the action is over
    assert sum(H.supply(game, 0)) == 1 and H.supply(game, 0)[material] == 1
    assert H.COLLECT not in game.legal_actions()  # nothing left to collect
    H.assert_consistent(game)


# ---- R-CUBE-3 ---------------------------------------------------------------------------
def _building_next_to_centre(game, **criteria):
    t = H.tile(game, kind="building", **criteria)
    H.put_on_top(game, 5, t)  # stack 5 touches the central point
    return t


@pytest.mark.parametrize(
    "supply, paid",
    [
        ({"emerald": 2}, {"emerald": 2}),
        ({"stone": 1, "emerald": 3}, {"stone": 1, "emerald": 1}),
        ({"stone": 3, "emerald": 2}, {"stone": 2}),  # material first, emeralds kept
    ],
)
def test_r_cube_3_emerald_pays_for_any_material(supply, paid):
    # R-CUBE-3
    game = H.new_game(2, seed=6)
    t = _building_next_to_centre(game, material="stone", cost=2)
    assert H.tile_cost(game, t)[H.block(game, "stone")] == 2
    H.set_supply(game, 0, supply)
    spent_before = [int(game._pub[S.C_SPENT + b]) for b in range(5)]
    assert H.BUILD in game.legal_actions()
    H.play(game, H.BUILD, 5, 0)
    after = H.supply(game, 0)
    for name in ("stone", "emerald"):
        b = H.block(game, name)
        assert after[b] == supply.get(name, 0) - paid.get(name, 0)
        assert game._pub[S.C_SPENT + b] - spent_before[b] == paid.get(name, 0)
    H.assert_consistent(game)


def test_r_cube_3_not_enough_blocks_even_with_emeralds():
    # R-CUBE-3
    game = H.new_game(2, seed=6)
    _building_next_to_centre(game, material="stone", cost=3)
    H.set_supply(game, 0, {"stone": 1, "emerald": 1, "wood": 4})  # wood does not pay stone
    assert H.BUILD not in game.legal_actions()
    H.set_supply(game, 0, {"stone": 1, "emerald": 2})
    assert H.BUILD in game.legal_actions()
