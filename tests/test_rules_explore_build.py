"""Explore and build: R-EXPLORE-1, R-EXPLORE-2, R-BUILD-1..4, through the Game API."""

from __future__ import annotations

import engine_helpers as H
import pytest

from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import state as S
from bnb_sim.games.builders_biomes.engine.scoring import round_points


def _within(p: int, steps: int) -> list[int]:
    i, j = divmod(p, 5)
    return [q for q in range(25) if abs(q // 5 - i) + abs(q % 5 - j) <= steps]


# ---- R-EXPLORE-1 ------------------------------------------------------------------------
@pytest.mark.parametrize("start", [H.point(2, 2), H.point(0, 0), H.point(4, 1), H.point(1, 3)])
def test_r_explore_1_zero_one_or_two_orthogonal_steps(start):
    # R-EXPLORE-1
    game = H.new_game(2, seed=1)
    H.set_position(game, 0, start)
    H.play(game, H.EXPLORE)
    assert game.legal_actions() == _within(start, 2)  # Manhattan distance <= 2, 0 included
    assert start in game.legal_actions()


def test_r_explore_1_points_are_shared_and_nothing_blocks():
    # R-EXPLORE-1
    game = H.new_game(3, seed=2)
    H.set_position(game, 1, H.point(2, 3))
    H.set_position(game, 2, H.point(2, 3))
    for stack in (5, 6, 9, 10):  # the stacks around the centre are empty
        H.empty_stack(game, stack)
    H.set_pile(game, 1, {"iron_sword": 3, "stone_sword": 2})  # tokens taken from the table
    H.assert_consistent(game)
    H.play(game, H.EXPLORE)
    assert game.legal_actions() == _within(H.point(2, 2), 2)
    H.play(game, H.point(2, 3))
    assert [int(game._pub[L.P_POS + s]) for s in range(3)] == [H.point(2, 3)] * 3
    H.assert_consistent(game)


# ---- R-EXPLORE-2 ------------------------------------------------------------------------
def test_r_explore_2_reveals_the_top_tile_of_every_stack_next_to_the_character():
    # R-EXPLORE-2
    game = H.new_game(2, seed=3, log=True)
    stacks = game.reveal()["stacks"]
    events = H.play(game, H.EXPLORE, H.point(1, 1))  # touches stacks 0, 1, 4, 5
    revealed = {e["a"]: e["b"] for e in events if e["event"] == "reveal_tile"}
    assert revealed == {s: int(stacks[s, 3]) for s in (0, 1, 4, 5)}
    for s in range(16):
        expected = int(stacks[s, 3]) if s in (0, 1, 4, 5) else -1
        assert game._pub[L.P_TOP_UP + s] == expected
    # face-up tiles stay face-up when someone else explores elsewhere
    H.play(game, H.COLLECT)
    H.collect_first(game)
    H.play(game, H.EXPLORE, H.point(3, 3))  # seat 1 touches stacks 10, 11, 14, 15
    for s in (0, 1, 4, 5, 10, 11, 14, 15):
        assert game._pub[L.P_TOP_UP + s] == stacks[s, 3]
    H.assert_consistent(game)


def test_r_explore_2_a_tile_uncovered_later_stays_face_down_until_explored_next_to():
    # R-EXPLORE-2
    game = H.new_game(2, seed=4, log=True)
    t = H.tile(game, kind="building", material="wood", cost=1)
    H.put_on_top(game, 0, t)
    below = H.stack_tiles(game, 0)[-2]
    H.set_position(game, 0, H.point(1, 1))
    H.set_supply(game, 0, {"wood": 1})
    H.play(game, H.BUILD, 0, 4)
    assert game._pub[L.P_STACK_H + 0] == 3
    assert game._pub[L.P_TOP_UP + 0] == -1  # the uncovered tile is face-down
    assert below not in game.observation(1)[L.P_TOP_UP : L.P_TOP_UP + 16]
    H.play(game, H.COLLECT)
    H.collect_first(game)
    H.play(game, H.EXPLORE, H.point(3, 3))  # seat 1, not next to stack 0
    H.play(game, H.COLLECT)
    H.collect_first(game)
    assert game._pub[L.P_TOP_UP + 0] == -1  # still face-down
    events = H.play(game, H.EXPLORE, H.point(1, 1))  # seat 0 explores 0 steps next to it
    assert {"event": "reveal_tile", "a": 0, "b": below} in [
        {k: e[k] for k in ("event", "a", "b")} for e in events
    ]
    assert game._pub[L.P_TOP_UP + 0] == below
    H.assert_consistent(game)


# ---- R-BUILD-1 --------------------------------------------------------------------------
def test_r_build_1_needs_a_face_up_affordable_building_next_to_the_character():
    # R-BUILD-1
    game = H.new_game(2, seed=5)
    t = H.tile(game, kind="building", material="sand", cost=3)
    sand = H.block(game, "sand")
    H.put_on_top(game, 5, t, face_up=False)
    H.set_supply(game, 0, {"sand": 3})
    assert H.BUILD not in game.legal_actions()  # face-down
    H.put_on_top(game, 5, t, face_up=True)
    assert H.BUILD in game.legal_actions()
    H.set_supply(game, 0, {"sand": 2})
    assert H.BUILD not in game.legal_actions()  # cannot pay
    H.set_supply(game, 0, {"sand": 3})
    H.set_position(game, 0, H.point(4, 4))
    assert H.BUILD not in game.legal_actions()  # not next to it
    H.set_position(game, 0, H.point(2, 2))
    H.play(game, H.BUILD)
    assert game.legal_actions() == [5]
    in_play = sum(H.supply(game, 0)) + int(H.occupancy(game).sum())
    H.play(game, 5, 0)
    assert H.supply(game, 0)[sand] == 0
    assert game._pub[S.C_SPENT + sand] >= 3  # the paid blocks left the game
    assert sum(H.supply(game, 0)) + int(H.occupancy(game).sum()) == in_play - 3
    H.assert_consistent(game)


# ---- R-BUILD-2, R-BUILD-3, R-BUILD-4 ------------------------------------------------------
def test_r_build_2_any_space_also_on_top_of_an_earlier_building():
    # R-BUILD-2
    game = H.new_game(2, seed=6)
    first = H.tile(game, kind="building", biome="desert", material="wood", type="dwelling")
    second = H.tile(game, kind="building", biome="mountains", material="sand", type="bridge")
    H.put_on_top(game, 5, first)
    H.put_on_top(game, 6, second)
    H.set_supply(game, 0, [9, 9, 9, 9, 0])
    H.play(game, H.BUILD, 5)
    assert game.legal_actions() == list(range(9))
    H.play(game, 4)
    H.play(game, H.COLLECT)
    H.collect_first(game)
    H.play(game, H.EXPLORE, H.point(2, 0))  # seat 1
    H.play(game, H.COLLECT)
    H.collect_first(game)
    H.play(game, H.BUILD, 6)
    assert game.legal_actions() == list(range(9))  # an occupied space is allowed
    H.play(game, 4)
    assert game._pub[L.P_BOARD_TOP + 4] == second
    for c, name in enumerate(("biome", "material", "type")):
        for v in range(4):
            has = bool(game._pub[L.mask_at(0, c, v)] >> 4 & 1)
            assert has == (v == H.tile_attr(game, L.TILE_BIOME + c, second)), name
    dwelling = H.value(game, "type", "dwelling")
    assert round_points(game._pub, game._k, 0, 2, dwelling) == 0  # covered for good
    assert game._pub[L.stat_at(0, S.S_BUILDINGS_BUILT)] == 2
    H.assert_consistent(game)


def test_r_build_3_xp_icon_pays_at_once():
    # R-BUILD-3
    game = H.new_game(2, seed=7)
    t = H.tiles(game, kind="building", xp=3)[0]
    H.put_on_top(game, 5, t)
    H.set_supply(game, 0, H.tile_cost(game, t))
    H.play(game, H.BUILD, 5, 2)
    assert H.xp_by_source(game, 0)[S.XP_BUILDINGS] == 3 and game.xp()[0] == 3
    cheap = H.tiles(game, kind="building", xp=0)[0]
    H.set_turn(game, 0)  # a later turn of the same player
    H.put_on_top(game, 6, cheap)
    H.set_supply(game, 0, H.tile_cost(game, cheap))
    H.play(game, H.BUILD, 6, 3)
    assert game.xp()[0] == 3


def test_r_build_4_visible_biome_and_characteristics_of_a_space():
    # R-BUILD-4
    game = H.new_game(2, seed=8)
    printed = H.printed_biomes(game, 0)
    space = 0
    other_biome = (printed[space] + 1) % 4
    names = game.config.components.values
    t = H.tile(game, kind="building", biome=names["biome"][other_biome])
    H.put_on_top(game, 5, t)
    H.set_supply(game, 0, H.tile_cost(game, t))
    H.play(game, H.BUILD, 5, space)
    pub = game._pub
    assert pub[L.mask_at(0, 0, other_biome)] >> space & 1  # the building's biome shows
    assert not pub[L.mask_at(0, 0, printed[space])] >> space & 1  # not the printed one
    for sp in range(1, 9):  # other spaces: printed biome, no material, no type
        assert pub[L.mask_at(0, 0, printed[sp])] >> sp & 1
        for c in (1, 2):
            assert all(not pub[L.mask_at(0, c, v)] >> sp & 1 for v in range(4))
    material = H.tile_attr(game, L.TILE_MATERIAL, t)
    kind = H.tile_attr(game, L.TILE_TYPE, t)
    assert pub[L.mask_at(0, 1, material)] == 1 and pub[L.mask_at(0, 2, kind)] == 1
    H.assert_consistent(game)
