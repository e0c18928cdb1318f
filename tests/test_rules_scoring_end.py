"""Scoring rounds and the end: R-SCORE-1..4, R-END-1..3 and the worked examples E1..E5,
through the engine's scoring functions, the Game API and ``largest_group``/``count_matching``.
"""

from __future__ import annotations

import engine_helpers as H
import numpy as np
import pytest

from bnb_sim.api import count_matching, largest_group
from bnb_sim.errors import BnbError
from bnb_sim.games.builders_biomes.batch import play_block
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import state as S
from bnb_sim.games.builders_biomes.engine.scoring import end_game, round_points, start_round

A, B, C = 0, 1, 2


def _board(game, seat, spec):
    """Fill the seat's 9 spaces with distinct buildings matching ``spec[space]``."""
    in_stacks = {t for s in range(16) for t in H.stack_tiles(game, s)}
    for space, criteria in enumerate(spec):
        candidates = [t for t in H.tiles(game, kind="building", **criteria) if t in in_stacks]
        assert candidates, criteria
        in_stacks.discard(candidates[0])
        H.place_building(game, seat, space, candidates[0])
    H.assert_consistent(game)


def _not(char, value, game):
    """Criteria for a building whose ``char`` is anything but ``value`` (the first other)."""
    names = game.config.components.values[char]
    return {char: next(n for n in names if n != value)}


def _score_round(game, rnd, choices):
    """Run round ``rnd`` now with the given value (by name) for each deciding seat in turn."""
    start_round(game._pub, game._hid, game._k, rnd)
    chars = ("biome", "material", "type")
    seats = []
    for name in choices:
        seats.append(game.current_seat)
        H.play(game, H.value(game, chars[rnd], name))
    return seats


# ---- worked examples ----------------------------------------------------------------------
def test_e1_four_connected_desert_spaces_diagonal_does_not_join():
    # E1
    game = H.new_game(2, seed=1)
    d = {"biome": "desert"}
    x = {"biome": "mountains"}
    y = {"biome": "snowy_tundra"}
    _board(game, 0, [d, d, x, d, d, y, x, y, d])  # desert at 0,1,3,4 and 8 (diagonal)
    desert = H.value(game, "biome", "desert")
    assert round_points(game._pub, game._k, 0, A, desert) == 16
    _score_round(game, A, ["desert", "forest"])
    assert H.xp_by_source(game, 0)[S.XP_ROUND_A] == 16
    grid = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]])
    assert largest_group(grid, 1) == 4 and count_matching(grid, 1) == 5


def test_e2_five_connected_wood_buildings():
    # E2
    game = H.new_game(2, seed=2)
    w = {"material": "wood"}
    o = {"material": "stone"}
    _board(game, 0, [w, w, w, w, o, o, w, o, o])
    assert round_points(game._pub, game._k, 0, B, H.value(game, "material", "wood")) == 15
    _score_round(game, B, ["wood", "wood"])
    assert H.xp_by_source(game, 0)[S.XP_ROUND_A + B] == 15
    grid = np.array([["w", "w", "w"], ["w", "s", "s"], ["w", "s", "s"]])
    assert largest_group(grid, "w") * 3 == 15


def test_e3_bridges_and_the_better_of_dwellings_and_animal_houses():
    # E3
    game = H.new_game(2, ["heuristic", "greedy"], seed=3)
    br, dw, ah, de = ({"type": t} for t in ("bridge", "dwelling", "animal_house", "decoration"))
    _board(game, 0, [br, br, br, de, dw, de, dw, de, ah])
    _board(game, 1, [dw, dw, br, ah, ah, de, br, de, br])
    pts = {
        name: [round_points(game._pub, game._k, s, C, H.value(game, "type", name)) for s in (0, 1)]
        for name in ("bridge", "dwelling", "animal_house", "decoration")
    }
    assert pts["bridge"][0] == 18
    assert pts["dwelling"][1] == 8 and pts["animal_house"][1] == 10
    # the built-in policies pick the maximum (R-SCORE-2)
    start_round(game._pub, game._hid, game._k, C)
    for expected in ("bridge", "animal_house"):
        choice = game.policy_action()
        assert choice == H.value(game, "type", expected)
        H.play(game, choice)
    assert H.xp_by_source(game, 0)[S.XP_ROUND_A + C] == 18
    assert H.xp_by_source(game, 1)[S.XP_ROUND_A + C] == 10
    grid = np.array([["dw", "dw", "br"], ["ah", "ah", "de"], ["br", "de", "br"]])
    assert largest_group(grid, "ah") * 5 == 10 and largest_group(grid, "br") == 1


def test_e4_a_single_snowy_tundra_space():
    # E4
    game = H.new_game(2, seed=4)
    snowy = H.value(game, "biome", "snowy_tundra")
    # the printed boards never show two equal biomes side by side: single spaces
    assert snowy in H.printed_biomes(game, 1)
    assert round_points(game._pub, game._k, 1, A, snowy) == 6
    s, f = {"biome": "snowy_tundra"}, {"biome": "forest"}
    _board(game, 0, [f, f, f, f, s, f, f, f, f])
    assert round_points(game._pub, game._k, 0, A, snowy) == 6
    assert largest_group(np.eye(3), 1) == 1


def test_e5_end_game_bonus_mobs():
    # E5
    game = H.new_game(2, seed=5)
    for bonus in (
        ("biome", "forest"),
        ("material", "obsidian"),
        ("type", "animal_house"),
        ("material", "sand"),
    ):
        H.give_mob(game, 0, H.tile(game, kind="bonus", bonus=bonus))
    # 2 forests, 1 obsidian building, 2 animal houses, no sand building on the board
    spec = [
        {"biome": "forest", "material": "wood", "type": "decoration"},
        {"biome": "forest", "material": "wood", "type": "dwelling"},
        {"biome": "mountains", "material": "wood", "type": "animal_house"},
        {"biome": "mountains", "material": "wood", "type": "animal_house"},
        {"biome": "mountains", "material": "obsidian", "type": "dwelling"},
        {"biome": "desert", "material": "wood", "type": "decoration"},
        {"biome": "desert", "material": "stone", "type": "decoration"},
        {"biome": "desert", "material": "stone", "type": "decoration"},
        {"biome": "desert", "material": "wood", "type": "dwelling"},
    ]
    _board(game, 0, spec)
    end_game(game._pub, game._hid, game._k)
    assert H.xp_by_source(game, 0)[S.XP_BONUS_MOBS] == 4 + 3 + 6 + 0 == 13
    grids = [np.array([[c[key] for c in spec[r * 3 : r * 3 + 3]] for r in range(3)])
             for key in ("biome", "material", "type")]  # fmt: skip
    by_api = (
        2 * count_matching(grids[0], "forest")
        + 3 * count_matching(grids[1], "obsidian")
        + 3 * count_matching(grids[2], "animal_house")
        + 2 * count_matching(grids[1], "sand")
    )
    assert by_api == 13
    assert game.is_over()


# ---- R-SCORE-1 --------------------------------------------------------------------------
def test_r_score_1_round_waits_for_the_end_of_the_turn_and_extra_actions():
    # R-SCORE-1
    game = H.new_game(2, seed=6, log=True)
    H.set_cube(game, [p for p in range(64) if p >= 16 or p == H.pos(0, 1, 1)])
    H.give_mob(game, 0, H.tile(game, kind="hunger"))
    H.play(game, H.COLLECT, H.pos(0, 1, 1))
    assert game._pub[S.C_ROUNDS_PENDING] == 1 and game.phase == "collect"
    H.collect_first(game, 1)
    H.play(game, H.EXPLORE, H.point(2, 2))
    assert game.phase == "hunger" and game._pub[S.C_ROUNDS_PENDING] == 1  # R-TURN-2
    H.play(game, 1)  # return the hunger mob: one extra action left
    assert game.phase == "turn" and game._pub[S.C_ROUNDS_PENDING] == 1
    H.play(game, H.EXPLORE, H.point(2, 2))  # the extra action
    assert game.phase == "score" and game._pub[S.C_SCORE_ROUND] == A
    assert game._pub[S.C_ROUND_TURN + A] == 1


def test_r_score_1_several_layers_in_one_turn_score_a_b_c_in_order():
    # R-SCORE-1
    game = H.new_game(2, seed=7, log=True)
    H.set_cube(game, [p for p in range(64) if p >= 48 or p in (0, 16, 32)])
    H.give_mob(game, 0, H.tile(game, kind="hunger"))
    H.play(game, H.COLLECT, H.pos(0, 0, 0), H.pos(1, 0, 0))  # empties layers 1 and 2
    assert game._pub[S.C_ROUNDS_PENDING] == 3
    H.play(game, H.EXPLORE, H.point(2, 2), 1)  # then return the hunger mob (R-TURN-2)
    H.play(game, H.COLLECT, H.pos(2, 0, 0))  # extra action: layer 3
    H.collect_first(game, 1)
    assert game._pub[S.C_ROUNDS_PENDING] == 7
    rounds = []
    while not game.is_over():
        assert game.phase == "score"
        rounds.append(int(game._pub[S.C_SCORE_ROUND]))
        H.play(game, game.policy_action())
    assert rounds == [A, A, B, B, C, C]
    assert [e["a"] for e in game.log if e["event"] == "round"] == [A, B, C]
    assert int(game._pub[S.C_ROUNDS_DONE]) == 7


# ---- R-SCORE-2 --------------------------------------------------------------------------
def test_r_score_2_from_the_player_whose_turn_it_was_and_the_choice_is_recorded():
    # R-SCORE-2
    game = H.new_game(3, ["random"], seed=8)
    H.set_cube(game, [p for p in range(64) if p >= 16 or p == H.pos(0, 2, 2)])
    H.set_turn(game, 1)
    H.play(game, H.COLLECT, H.pos(0, 2, 2))
    H.collect_first(game, 1)
    H.play(game, H.EXPLORE, int(game._pub[L.P_POS + 1]))
    assert game.phase == "score"
    names = game.config.components.values["biome"]
    expected = {}
    seats = []
    for seat_choice in ("desert", "forest", "snowy_tundra"):
        seat = game.current_seat
        seats.append(seat)
        v = H.value(game, "biome", seat_choice)
        expected[seat] = (v, int(round_points(game._pub, game._k, seat, A, v)))
        H.play(game, v)
    assert seats == [1, 2, 0]
    for seat, (v, points) in expected.items():
        assert H.xp_by_source(game, seat)[S.XP_ROUND_A] == points  # the chosen value counts
        assert game._pub[L.stat_at(seat, S.S_CHOICE + A)] == v
    assert game.current_seat == 2 and game.phase == "turn"  # R-TURN-3
    game._pub[S.C_PHASE] = S.PH_OVER
    result = {row["seat"]: row for row in game.result()}
    assert result[0]["choice_a"] == names[expected[0][0]] == "snowy_tundra"


# ---- R-SCORE-3, R-SCORE-4 -------------------------------------------------------------------
def test_r_score_3_round_a_counts_printed_biomes_b_and_c_only_buildings():
    # R-SCORE-3
    game = H.new_game(2, seed=9)
    card = game._k[L.K_SCORE_CARD : L.K_SCORE_CARD + 12].reshape(3, 4)
    printed = np.array(H.printed_biomes(game, 0)).reshape(3, 3)
    for v in range(4):
        assert round_points(game._pub, game._k, 0, A, v) == card[A, v] * largest_group(printed, v)
        assert round_points(game._pub, game._k, 0, B, v) == 0
        assert round_points(game._pub, game._k, 0, C, v) == 0
    t = H.tile(game, kind="building", material="sand", type="bridge")
    H.place_building(game, 0, 4, t)
    sand, bridge = H.value(game, "material", "sand"), H.value(game, "type", "bridge")
    assert round_points(game._pub, game._k, 0, B, sand) == card[B, sand]
    assert round_points(game._pub, game._k, 0, C, bridge) == card[C, bridge]
    assert sum(round_points(game._pub, game._k, 0, B, v) for v in range(4)) == card[B, sand]


@pytest.mark.parametrize("variant", ["standard", "beginner"])
def test_r_score_4_beginner_variant_counts_every_matching_space(variant):
    # R-SCORE-4
    game = H.new_game(2, seed=10, variant=variant)
    card = game._k[L.K_SCORE_CARD : L.K_SCORE_CARD + 12].reshape(3, 4)
    printed = np.array(H.printed_biomes(game, 0)).reshape(3, 3)
    forest = H.value(game, "biome", "forest")
    assert count_matching(printed, forest) == 3 and largest_group(printed, forest) == 1
    for v in range(4):
        spaces = count_matching(printed, v) if variant == "beginner" else largest_group(printed, v)
        assert round_points(game._pub, game._k, 0, A, v) == card[A, v] * spaces
    _score_round(game, A, ["forest", "forest"])
    expected = 9 if variant == "beginner" else 3
    assert H.xp_by_source(game, 0)[S.XP_ROUND_A] == expected


# ---- R-END-1 ----------------------------------------------------------------------------
def test_r_end_1_game_ends_right_after_round_c_with_blocks_left_in_layer_4():
    # R-END-1
    game = H.new_game(2, ["random"], seed=11, log=True)
    H.set_cube(game, [p for p in range(64) if p >= 48 or p == H.pos(2, 1, 1)])
    H.mark_rounds_done(game, 2)
    bonus = H.tile(game, kind="bonus", bonus=("material", "wood"))  # 1 XP per wood building
    H.give_mob(game, 1, bonus)
    wood = H.tiles(game, kind="building", material="wood")
    H.place_building(game, 1, 0, wood[0])
    H.place_building(game, 1, 4, wood[1])
    H.place_building(game, 1, 8, wood[2])
    H.assert_consistent(game)
    H.play(game, H.COLLECT, H.pos(2, 1, 1))
    H.collect_first(game, 1)
    H.play(game, H.EXPLORE, H.point(2, 2))
    assert game.phase == "score" and game._pub[S.C_SCORE_ROUND] == C
    H.play(game, 0)
    H.play(game, 0)
    assert game.is_over() and game.legal_actions() == []
    assert int(H.occupancy(game).sum()) == 15  # layer 4 still holds blocks
    bonus_xp = H.tile_attr(game, L.TILE_BONUS_XP, bonus)
    assert H.xp_by_source(game, 1)[S.XP_BONUS_MOBS] == 3 * bonus_xp
    assert [e["event"] for e in game.log[-3:]] == ["score", "bonus", "game_over"]
    with pytest.raises(BnbError, match="over"):
        game.apply_action(0)


def test_r_end_1_batch_games_end_in_the_turn_of_round_c():
    # R-END-1
    config = H.config(3, ["random", "greedy", "heuristic"], seed=12)
    seats, games = play_block(config, 0, 300)
    assert (games.round_c_turn == games.turns).all()
    assert (games.round_a_turn <= games.round_b_turn).all()
    assert (games.round_b_turn <= games.round_c_turn).all()
    # only layer 4 may still hold blocks (it may also have been emptied earlier, from the
    # sides, R-CUBE-1); the game does not go on to collect them
    assert (games.cube_blocks_left <= 16).all() and (games.cube_blocks_left > 0).any()


# ---- R-END-2, R-END-3 ---------------------------------------------------------------------
def _finish_with(game, xp, blocks):
    for seat, (x, b) in enumerate(zip(xp, blocks, strict=True)):
        game._pub[L.xp_at(seat, S.XP_BUILDINGS)] = x
        H.set_supply(game, seat, [b // 3, b // 3, b - 2 * (b // 3), 0, 0])
    game._pub[S.C_PHASE] = S.PH_OVER
    H.assert_consistent(game)
    return {row["seat"]: row for row in game.result()}


def test_r_end_2_most_xp_wins_then_most_blocks_then_shared():
    # R-END-2
    game = H.new_game(3, seed=13)
    rows = _finish_with(game, [40, 40, 39], [2, 5, 9])
    assert [rows[s]["rank"] for s in range(3)] == [2, 1, 3]
    assert [rows[s]["won"] for s in range(3)] == [False, True, False]
    game = H.new_game(3, seed=13)
    rows = _finish_with(game, [40, 40, 39], [5, 5, 9])
    assert [rows[s]["rank"] for s in range(3)] == [1, 1, 3]  # a shared win
    assert [rows[s]["won"] for s in range(3)] == [True, True, False]


def test_r_end_3_xp_beyond_50_keeps_counting():
    # R-END-3
    game = H.new_game(2, seed=14)
    rows = _finish_with(game, [63, 51], [0, 9])
    assert rows[0]["xp"] == 63 and rows[1]["xp"] == 51 and rows[0]["won"]
    config = H.config(2, ["heuristic"], seed=14)
    seats, _ = play_block(config, 0, 200)
    assert seats.xp.max() > 50
    sources = [c for c in seats.columns if c.startswith("xp_")]
    assert (seats[sources].sum(axis=1) == seats.xp).all()
