"""Farmer's Market rules (R-FM-1 .. R-FM-10), through the Game API on the expansion's data."""

from __future__ import annotations

import engine_helpers as H
import numpy as np
import pytest
from fm_helpers import BUY, FM, fm_components, fm_game, fm_xp, give_item, set_vegetables, veg

from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import market as M
from bnb_sim.games.builders_biomes.engine import state as S


# ---- R-FM-1, R-FM-2, R-FM-8: tiles and marketplace -------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_r_fm_1_eighty_tiles_in_sixteen_stacks_of_five(players):
    game = fm_game(players, place=False)
    assert [int(game._pub[L.P_STACK_H + s]) for s in range(16)] == [5] * 16
    tiles = sorted(int(t) for s in range(16) for t in H.stack_tiles(game, s))
    assert tiles == list(range(80))
    farms = [t for t in range(80) if game._k[L.K_FM_TILE_VEG + t] > 0]
    assert len(farms) == 16


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r_fm_2_r_fm_8_marketplace_four_x_face_up_four_a_four_b(players):
    comps = fm_components()
    items = comps.data["farmers_market"]["items"]
    seen = set()
    for g in range(30):
        game = fm_game(players, game_index=g, place=False)
        market = [int(game._hid[L.H_FM_MARKET + s]) for s in range(12)]
        shown = [int(game._pub[L.P_FM_MARKET + s]) for s in range(12)]
        assert shown == market[:4] + [-1] * 8  # A and B items are face-down
        names = [comps.item_names[i] for i in market]
        assert [items[n]["letter"] for n in names] == ["X"] * 4 + ["A"] * 4 + ["B"] * 4
        assert len(set(market)) == 12  # 12 of the 18 items, the rest stay in the box
        assert int(game._pub[L.P_FM_MARKET_UP]) == 0b1111  # only X face-up at the start
        assert all(game._hid[L.H_FM_MARKET + s] == -1 for s in range(12, L.MAX_MARKET))
        seen.update(names)
    assert seen == set(comps.item_names)  # every item comes into play in some game


def test_r_fm_2_a_items_after_round_a_b_items_after_round_b():
    game = fm_game(2)
    M.after_round_fm(game._pub, game._hid, game._k, 0)
    assert int(game._pub[L.P_FM_MARKET_UP]) == 0xFF
    assert game._pub[L.P_FM_MARKET + 7] == game._hid[L.H_FM_MARKET + 7] >= 0
    M.after_round_fm(game._pub, game._hid, game._k, 1)
    assert int(game._pub[L.P_FM_MARKET_UP]) == 0xFFF
    H.assert_consistent(game)


# ---- R-FM-3: farmland and vegetables ---------------------------------------------------
@pytest.mark.parametrize(("players", "start"), [(2, 4), (3, 2), (4, 2)])
def test_r_fm_3_farmland_on_a_forest_space_chosen_by_the_seat(players, start):
    game = fm_game(players, place=False)
    forest = int(game._k[L.K_FM_FOREST])
    for seat in range(players):
        assert game.phase == "farmland" and game.current_seat == seat
        printed = H.printed_biomes(game, seat)
        legal = game.legal_actions()
        assert legal == [s for s in range(9) if printed[s] == forest]
        game.apply_action(legal[-1])  # the seat's choice, not the first space
        assert int(game._pub[L.P_FM_FARMLAND + seat]) == legal[-1]
        assert veg(game, seat) == start  # side "2": 2 x 2, side "3-4": 2 x 1 (estimates)
    assert game.phase == "turn" and game.current_seat == 0
    assert int(game._pub[L.P_FM_SUPPLY]) == 32 - start * players
    H.assert_consistent(game)


def test_r_fm_3_r_fm_9_refill_only_visible_farming_structures():
    # R-FM-3, R-FM-9: refills after rounds A and B only, on visible structures only
    game = fm_game(2)
    set_vegetables(game, 0, 0)
    set_vegetables(game, 1, 0)
    covered = int(game._pub[L.P_FM_FARMLAND + 1])
    plain = H.tile(game, kind="building")
    assert game._k[L.K_FM_TILE_VEG + plain] == 0
    # seat 1 builds over its farmland: the structure is covered
    M.on_build(game._pub, game._k, 1, covered, plain)
    H.place_building(game, 1, covered, plain)
    M.after_round_fm(game._pub, game._hid, game._k, 0)
    assert veg(game, 0) == 4  # refilled
    assert veg(game, 1) == 0  # a covered farmland grows nothing
    M.after_round_fm(game._pub, game._hid, game._k, 2)  # no refill after round C
    H.assert_consistent(game)


@pytest.mark.parametrize(("reading", "filled"), [("empty", 0), ("filled", 2)])
def test_r_fm_9_new_farm_starts_filled_is_a_reading(reading, filled):
    # R-FM-9: whether a new farm starts filled is the reading fm_new_farm
    game = fm_game(2, readings={"fm_new_farm": reading})
    farm = next(t for t in range(80) if game._k[L.K_FM_TILE_VEG + t] == 2)
    space = next(s for s in range(9) if s != int(game._pub[L.P_FM_FARMLAND + 0]))
    M.on_build(game._pub, game._k, 0, space, farm)
    H.place_building(game, 0, space, farm)
    assert int(game._pub[L.veg_at(0, space)]) == filled
    H.assert_consistent(game)


# ---- R-FM-4: buying ---------------------------------------------------------------------
def test_r_fm_4_buy_any_number_of_items_in_one_action_paid_from_farmland():
    game = fm_game(2, log=True)
    pub = game._pub
    set_vegetables(game, 0, 4)
    market = [int(pub[L.P_FM_MARKET + s]) for s in range(4)]
    costs = [int(game._k[L.K_FM_ITEM + i]) for i in market]
    assert BUY in game.legal_actions()
    H.play(game, BUY)
    # R-FM-4: the action buys something; PASS ends the buying only after a purchase
    assert game.phase == "buy" and S.PASS not in game.legal_actions()
    assert game.legal_actions() == [s for s in range(4) if costs[s] <= 4]
    first = min(range(4), key=lambda s: costs[s])
    events = H.play(game, first)
    assert [e["event"] for e in events] == ["buy"]
    assert veg(game, 0) == 4 - costs[first]
    assert int(pub[L.P_FM_SUPPLY]) == 32 - 8 + costs[first]
    assert (int(pub[L.P_FM_OWNED + 0]) >> market[first]) & 1
    if game.phase == "buy":  # another item in the same action
        second = game.legal_actions()[0]
        H.play(game, second)
        if game.phase == "buy":
            H.play(game, S.PASS)
        assert int(pub[L.P_FM_BOUGHT + 0]) == 2
    assert game.phase == "turn" and int(pub[S.C_ACTIONS_DONE]) == 1  # buying is one action
    assert BUY not in game.legal_actions()  # two different actions (R-TURN-1)
    H.assert_consistent(game)


def test_r_fm_4_no_buy_without_vegetables_or_face_up_items():
    game = fm_game(2)
    set_vegetables(game, 0, 0)
    assert BUY not in game.legal_actions()
    set_vegetables(game, 0, 4)
    game._pub[L.P_FM_MARKET_UP] = 0
    assert BUY not in game.legal_actions()


# ---- R-FM-5: abilities ------------------------------------------------------------------
@pytest.mark.parametrize(("name", "extra"), [("minecart", 3), ("unlimited_move", 25)])
def test_r_fm_5_movement_items(name, extra):
    game = fm_game(2)
    H.set_position(game, 0, H.point(0, 0))
    H.play(game, H.EXPLORE)
    base = set(game.legal_actions())
    game = fm_game(2)
    H.set_position(game, 0, H.point(0, 0))
    give_item(game, 0, name)
    H.play(game, H.EXPLORE)
    far = set(game.legal_actions())
    assert base < far
    if extra == 25:
        assert far == set(range(25))
    else:  # 0 to 3 steps
        assert H.point(0, 3) in far and H.point(0, 4) not in far and H.point(0, 2) in base


def test_r_fm_5_crafting_table_any_block_is_an_emerald():
    game = fm_game(2)
    t = H.tile(game, kind="building", material="wood")
    cost = sum(H.tile_cost(game, t))
    H.put_on_top(game, H.stack_at(1, 1), t)
    H.set_position(game, 0, H.points_next_to_stack(H.stack_at(1, 1))[0])
    H.set_supply(game, 0, {"stone": cost})
    assert H.BUILD not in game.legal_actions()
    give_item(game, 0, "crafting_table")
    assert H.BUILD in game.legal_actions()
    H.play(game, H.BUILD, H.stack_at(1, 1), 8)
    assert H.supply(game, 0) == [0] * 5
    H.assert_consistent(game)


@pytest.mark.parametrize("cost", [1, 3])
def test_r_fm_5_cheaper_buildings_one_block_less_and_one_block_free(cost):
    game = fm_game(2)
    t = next(x for x in H.tiles(game, kind="building") if sum(H.tile_cost(game, x)) == cost)
    H.put_on_top(game, H.stack_at(1, 1), t)
    H.set_position(game, 0, H.points_next_to_stack(H.stack_at(1, 1))[0])
    material = int(np.argmax(H.tile_cost(game, t)))
    counts = [0] * 5
    counts[material] = cost - 1
    H.set_supply(game, 0, counts)
    assert H.BUILD not in game.legal_actions()
    give_item(game, 0, "cheaper_builds")
    assert H.BUILD in game.legal_actions()  # a 1-block building is free, still an action
    H.play(game, H.BUILD, H.stack_at(1, 1), 8)
    assert H.supply(game, 0) == [0] * 5
    assert int(game._pub[S.C_ACTIONS_DONE]) == 1
    H.assert_consistent(game)


def test_r_fm_5_jukebox_one_xp_per_lightning():
    game = fm_game(2)
    t = next(x for x in H.tiles(game, kind="building") if H.tile_attr(game, L.TILE_XP, x) > 0)
    H.put_on_top(game, H.stack_at(1, 1), t)
    H.set_position(game, 0, H.points_next_to_stack(H.stack_at(1, 1))[0])
    H.set_supply(game, 0, H.tile_cost(game, t))
    give_item(game, 0, "jukebox")
    H.play(game, H.BUILD, H.stack_at(1, 1), 8)
    assert fm_xp(game, 0, S.XP_ITEMS_PLAY) == 1
    assert fm_xp(game, 0, S.XP_BUILDINGS) == H.tile_attr(game, L.TILE_XP, t)


@pytest.mark.parametrize(("reading", "xp"), [("action", 1), ("block", 2)])
def test_r_fm_5_r_fm_10_collect_xp_per_action_or_per_block(reading, xp):
    game = fm_game(2, readings={"fm_collect_xp": reading})
    give_item(game, 0, "collect_xp")
    H.play(game, H.COLLECT)
    H.collect_first(game, 2)
    assert fm_xp(game, 0, S.XP_ITEMS_PLAY) == xp


def test_r_fm_5_collect_three_blocks():
    game = fm_game(2)
    give_item(game, 0, "collect_three")
    H.play(game, H.COLLECT)
    H.collect_first(game, 3)
    assert sum(H.supply(game, 0)) == 3
    assert game.phase == "turn"


def test_r_fm_5_r_fm_10_hunger_mob_gives_two_extra_actions():
    game = fm_game(2)
    hunger = H.tile(game, kind="hunger")
    H.give_mob(game, 0, hunger)
    give_item(game, 0, "hunger_actions")
    H.play(game, H.EXPLORE, int(game._pub[L.P_POS]))
    H.play(game, H.COLLECT)
    H.collect_first(game, 2)
    assert game.phase == "hunger"
    H.play(game, 1)
    assert int(game._pub[S.C_EXTRA_OWED]) == 2
    H.play(game, H.EXPLORE, int(game._pub[L.P_POS]))
    H.play(game, H.EXPLORE, int(game._pub[L.P_POS]))  # repeats allowed
    assert game.current_seat == 1 or game.phase == "score"


def test_r_fm_5_three_different_actions():
    game = fm_game(2)
    give_item(game, 0, "three_actions")
    here = int(game._pub[L.P_POS])
    H.play(game, H.EXPLORE, here)
    H.play(game, H.COLLECT)
    H.collect_first(game, 2)
    assert game.current_seat == 0 and game.phase == "turn"
    assert H.EXPLORE not in game.legal_actions() and H.COLLECT not in game.legal_actions()
    H.play(game, S.PASS)
    assert game.current_seat == 1


def _mob_fight_game(item=None, log=True):
    game = fm_game(2, log=log)
    mob = max(H.tiles(game, kind="hunger"), key=lambda t: H.tile_attr(game, L.TILE_HEARTS, t))
    H.put_on_top(game, H.stack_at(1, 1), mob)
    H.set_position(game, 0, H.points_next_to_stack(H.stack_at(1, 1))[0])
    H.set_pile(game, 0, {"wooden_sword": 1, "stone_sword": 1, "poisonous_potato": 3})
    if item:
        give_item(game, 0, item)
    return game


def test_r_fm_5_reveal_four_weapons():
    game = _mob_fight_game("reveal_four")
    events = H.fight(game, H.stack_at(1, 1))
    assert sum(e["event"] == "token" for e in events) == 4


def test_r_fm_5_bed_second_fight_after_a_loss():
    game = _mob_fight_game("bed")
    events = H.fight(game, H.stack_at(1, 1))
    names = [e["event"] for e in events]
    assert names.count("refight") == 1  # the mob's hearts beat this pile both times
    assert names.count("fight_end") == 2 and names.count("token") == 6
    assert int(game._pub[L.stat_at(0, S.S_FIGHTS)]) == 2
    H.assert_consistent(game)


def _end_game_xp(game, seat, name):
    give_item(game, seat, name)
    before = fm_xp(game, seat, "end")
    M.end_items(game._pub, game._hid, game._k)
    return fm_xp(game, seat, "end") - before


def test_r_fm_5_end_blocks_and_flat():
    game = fm_game(2)
    H.set_supply(game, 0, {"wood": 3, "emerald": 2})
    assert _end_game_xp(game, 0, "end_blocks") == 5
    game = fm_game(2)
    assert _end_game_xp(game, 0, "end_twenty") == 20


def test_r_fm_5_end_buildings_top_tiles_only():
    game = fm_game(2)
    farmland = int(game._pub[L.P_FM_FARMLAND])
    free = [s for s in range(9) if s != farmland]
    a, b, c = H.tiles(game, kind="building")[:3]
    H.place_building(game, 0, free[0], a)
    H.place_building(game, 0, free[0], b)  # covers a: only the top tile counts
    H.place_building(game, 0, free[1], c)
    # two top tiles and the visible farmland (fm_end_structures=farmland-counts, the default)
    assert _end_game_xp(game, 0, "end_buildings") == 6


def test_r_fm_5_end_mobs_per_defeated_mob():
    game = fm_game(2)
    for t in H.tiles(game, kind="bonus")[:3]:
        H.give_mob(game, 0, t)
    assert _end_game_xp(game, 0, "end_mobs") == 6


def test_r_fm_5_end_farmland_per_visible_farming_structure():
    game = fm_game(2)
    farm = next(t for t in range(80) if game._k[L.K_FM_TILE_VEG + t] > 0)
    space = next(s for s in range(9) if s != int(game._pub[L.P_FM_FARMLAND + 0]))
    M.on_build(game._pub, game._k, 0, space, farm)
    H.place_building(game, 0, space, farm)
    assert _end_game_xp(game, 0, "end_farmland") == 6  # farmland + farm tile


def test_r_fm_5_end_items_counts_every_item_the_bell_too():
    game = fm_game(2)
    give_item(game, 0, "bell")
    give_item(game, 0, "minecart")
    assert _end_game_xp(game, 0, "end_items") == 12


# ---- R-FM-6: farming in round C ----------------------------------------------------------
def test_r_fm_6_round_c_may_score_farming_structures():
    game = fm_game(2)
    pub = game._pub
    farmland = int(pub[L.P_FM_FARMLAND + 0])
    row, col = divmod(farmland, 3)
    near = next(
        r * 3 + c
        for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
        if 0 <= r < 3 and 0 <= c < 3
    )
    farm = next(t for t in range(80) if game._k[L.K_FM_TILE_VEG + t] > 0)
    M.on_build(pub, game._k, 0, near, farm)
    H.place_building(game, 0, near, farm)
    H.mark_rounds_done(game, 2)
    pub[S.C_SCORE_ROUND] = 2
    pub[S.C_SCORE_STEP] = 0
    pub[S.C_PHASE] = S.PH_SCORE
    assert game.legal_actions() == [0, 1, 2, 3, 4]
    game.apply_action(4)
    assert fm_xp(game, 0, "farming") == 2 * 2  # two connected spaces at 2 XP


def test_r_fm_6_base_game_round_c_has_no_farming_value():
    game = H.new_game(2)
    game._pub[S.C_SCORE_ROUND] = 2
    game._pub[S.C_PHASE] = S.PH_SCORE
    assert game.legal_actions() == [0, 1, 2, 3]


# ---- R-FM-7: laps, whole games ------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_r_fm_7_whole_games_are_consistent_and_laps_follow_xp(players):
    # R-FM-7 (laps), and the invariant checker on whole games (R-FM-3, R-FM-4, R-FM-8)
    from bnb_sim.runner.simulate import simulate

    policies = ["heuristic", "greedy", "random", "greedy"][:players]
    rows = simulate(30, players, policies, 5, expansion=FM, check=True, threads=1)
    xp_cols = [c for c in rows.columns if c.startswith("xp_")]
    assert (rows[xp_cols].sum(axis=1) == rows["xp"]).all()
    assert (rows["laps"] == rows["xp"] // 50).all()
    items = [c for c in rows.columns if c.startswith("item_")]
    assert len(items) == 18
    assert (rows[items].sum(axis=1) == rows["items_bought"]).all()
    assert rows["items_bought"].sum() > 0
