"""Set-up and turn structure: R-SETUP-1..4, R-TURN-1..3, through the Game API."""

from __future__ import annotations

from collections import Counter

import engine_helpers as H
import numpy as np
import pytest
from scipy.stats import chisquare

from bnb_sim.errors import BnbError
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import state as S
from bnb_sim.games.builders_biomes.engine.geometry import (
    cell_of_slot,
    cells_next_to,
    slot_of_cell,
    stack_of_cell,
)
from bnb_sim.games.builders_biomes.game import Game


# ---- R-SETUP-1 --------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_r_setup_1_piles_boards_and_xp(players):
    # R-SETUP-1
    game = H.new_game(players, seed=3, game_index=5)
    comps = game.config.components
    start = {name: 0 for name in comps.weapon_names}
    start.update(wooden_sword=1, stone_sword=1, poisonous_potato=3)
    for seat in range(players):
        assert dict(zip(comps.weapon_names, H.pile(game, seat), strict=True)) == start
        assert H.xp_by_source(game, seat) == [0] * S.N_XP
        assert H.supply(game, seat) == [0] * 5
    assert game.xp() == [0] * players
    boards = [int(game._pub[L.P_BOARD_ID + s]) for s in range(players)]
    assert len(set(boards)) == players  # each player has an own board
    for seat in range(players):
        printed = H.printed_biomes(game, seat)
        assert sorted(set(printed)) == [0, 1, 2, 3]  # the four biomes are printed
        for v in range(4):  # the biome masks show the printed biomes
            expected = sum(1 << sp for sp in range(9) if printed[sp] == v)
            assert game._pub[L.mask_at(seat, 0, v)] == expected
            assert game._pub[L.mask_at(seat, 1, v)] == 0  # no buildings yet
            assert game._pub[L.mask_at(seat, 2, v)] == 0
        assert all(game._pub[L.P_BOARD_TOP + seat * 9 + sp] == -1 for sp in range(9))
    H.assert_consistent(game)


@pytest.mark.parametrize("players", [1, 5])
def test_r_setup_1_player_count_outside_2_to_4_is_refused(players):
    # R-SETUP-1
    with pytest.raises(BnbError, match="players must be between 2 and 4"):
        H.config(players, ["random"])
    with pytest.raises(BnbError, match="players must be between 2 and 4"):
        H.new_game(players, ["random"])
    with pytest.raises(BnbError):
        H.config(0, ["random"])


# ---- R-SETUP-2 --------------------------------------------------------------------------
def test_r_setup_2_sixteen_face_down_stacks_of_four():
    # R-SETUP-2
    game = H.new_game(2, seed=1)
    assert [int(h) for h in game._pub[L.P_STACK_H : L.P_STACK_H + 16]] == [4] * 16
    assert all(game._pub[L.P_TOP_UP + s] == -1 for s in range(16))  # all face-down
    assert game._pub[S.C_UP_BUILDINGS] == 0 and game._pub[S.C_UP_MOBS] == 0
    stacks = game.reveal()["stacks"][:, :4]
    assert sorted(stacks.reshape(-1).tolist()) == list(range(64))  # every tile once
    other = H.new_game(2, seed=1, game_index=1).reveal()["stacks"][:, :4]
    assert not np.array_equal(stacks, other)  # shuffled per game


def test_r_setup_2_tokens_on_the_border_of_a_6x6_grid_without_corners():
    # R-SETUP-2
    game = H.new_game(2, seed=2)
    comps = game.config.components
    tokens = game.reveal()["tokens"]
    assert (tokens >= 0).all() and game._pub[S.C_TOKENS] == 0xFFFF
    table = dict(zip(comps.weapon_names, comps.arrays.tok_table.tolist(), strict=True))
    counted = Counter(comps.weapon_names[t] for t in tokens)
    assert {n: counted.get(n, 0) for n in table} == table
    assert sum(table.values()) == 16
    # the spots are the 16 border cells of the 6x6 grid without its corners, the stacks the
    # 4x4 inner cells
    cells = {cell_of_slot(s) for s in range(16)}
    border = {(r, c) for r in range(6) for c in range(6) if r in (0, 5) or c in (0, 5)}
    assert cells == border - {(0, 0), (0, 5), (5, 0), (5, 5)}
    assert all(slot_of_cell(*cell_of_slot(s)) == s for s in range(16))
    assert sorted(stack_of_cell(r, c) for r in range(1, 5) for c in range(1, 5)) == list(range(16))
    # adjacency tables in k agree with the four cells around each crossing point
    for p in range(25):
        stacks = sum(1 << stack_of_cell(*c) for c in cells_next_to(p) if stack_of_cell(*c) >= 0)
        slots = sum(1 << slot_of_cell(*c) for c in cells_next_to(p) if slot_of_cell(*c) >= 0)
        assert game._k[L.K_ADJ_STACKS + p] == stacks
        assert game._k[L.K_ADJ_SLOTS + p] == slots


def test_r_setup_2_weapon_spots_next_to_a_corner_point():
    # R-SETUP-2
    game = H.new_game(2, seed=2)
    assert H.WEAPON not in game.legal_actions()  # the centre touches only stacks
    H.set_position(game, 0, H.point(0, 0))
    assert H.WEAPON in game.legal_actions()
    H.play(game, H.WEAPON)
    # point (0,0) touches the empty corner, spot 0 (cell (0,1)) and spot 8 (cell (1,0))
    assert game.legal_actions() == [0, 8]


# ---- R-SETUP-3 --------------------------------------------------------------------------
def test_r_setup_3_block_counts_and_full_cube():
    # R-SETUP-3
    game = H.new_game(3, seed=4)
    comps = game.config.components
    blocks = game.reveal()["blocks"].reshape(64)
    counts = Counter(comps.block_names[b] for b in blocks)
    assert counts == {"wood": 16, "sand": 14, "stone": 12, "obsidian": 10, "emerald": 12}
    assert H.occupancy(game).all()
    vis = game._pub[L.P_VIS_BLOCK : L.P_VIS_BLOCK + 64]
    # layer 1 (index 0) is the top: all of it is visible; the inside of the cube is hidden
    assert (vis[:16] == blocks[:16]).all()
    assert vis[H.pos(1, 1, 1)] == -2 and vis[H.pos(3, 2, 2)] == -2
    assert vis[H.pos(3, 0, 0)] == blocks[H.pos(3, 0, 0)]  # an outer side face is visible


def test_r_setup_3_materials_are_uniformly_random():
    # R-SETUP-3
    config = H.config(2, ["random"], seed=9)
    n = 2000
    positions = [H.pos(0, 0, 0), H.pos(1, 1, 2), H.pos(3, 3, 3)]
    seen = np.zeros((len(positions), 5), np.int64)
    for i in range(n):
        blocks = Game(config, i)._hid[L.H_BLOCK : L.H_BLOCK + 64]
        for j, p in enumerate(positions):
            seen[j, blocks[p]] += 1
    expected = n * np.array([16, 14, 12, 10, 12]) / 64
    for j in range(len(positions)):
        assert chisquare(seen[j], expected).pvalue > 1e-3, seen[j]


# ---- R-SETUP-4 --------------------------------------------------------------------------
def test_r_setup_4_everyone_starts_on_the_central_crossing():
    # R-SETUP-4
    game = H.new_game(4, seed=5)
    assert [int(game._pub[L.P_POS + s]) for s in range(4)] == [H.point(2, 2)] * 4
    assert game.current_seat == 0 and game.phase == "turn"


def test_r_setup_4_seating_rotate_and_fixed():
    # R-SETUP-4
    for g in range(6):
        rotate = Game(H.config(3, ["random"], seed=1, seating="rotate"), g)
        fixed = Game(H.config(3, ["random"], seed=1, seating="fixed"), g)
        assert rotate.player_of_seat(0) == g % 3
        assert [fixed.player_of_seat(s) for s in range(3)] == [0, 1, 2]


def test_r_setup_4_random_seating_comes_from_the_seed():
    # R-SETUP-4
    config = H.config(3, ["random"], seed=12, seating="random")
    firsts = [Game(config, g).player_of_seat(0) for g in range(600)]
    again = [Game(config, g).player_of_seat(0) for g in range(50)]
    assert again == firsts[:50]  # part of the seed: replays the same
    assert chisquare(np.bincount(firsts, minlength=3)).pvalue > 1e-3
    other = H.config(3, ["random"], seed=13, seating="random")
    assert [Game(other, g).player_of_seat(0) for g in range(50)] != firsts[:50]
    game = Game(config, 7)  # seats keep the order of the players (play passes to the left)
    first = game.player_of_seat(0)
    assert [game.player_of_seat(s) for s in range(3)] == [(first + s) % 3 for s in range(3)]


# ---- R-TURN-1 ---------------------------------------------------------------------------
def test_r_turn_1_two_different_actions_then_the_turn_passes():
    # R-TURN-1
    game = H.new_game(2, seed=6)
    assert {H.COLLECT, H.EXPLORE} <= set(game.legal_actions())
    assert H.PASS not in game.legal_actions()  # a turn cannot end before two actions
    H.play(game, H.COLLECT)
    H.collect_first(game)
    assert game.phase == "turn" and game.current_seat == 0
    legal = game.legal_actions()
    assert H.COLLECT not in legal and H.EXPLORE in legal and H.PASS not in legal
    H.play(game, H.EXPLORE, H.point(2, 2))  # exploring 0 steps is an action
    assert game.current_seat == 1 and game._pub[S.C_TURN_SEAT] == 1
    assert game._pub[S.C_ACTIONS_DONE] == 0 and game._pub[S.C_ACTIONS_USED] == 0


def _turns_of(log):
    turns, current = [], []
    for event in log:
        if event["event"] == "end_turn":
            turns.append((event["seat"], current))
            current = []
        elif event["event"] == "action":
            current.append(event)
    return turns


@pytest.mark.parametrize("players", [2, 4])
def test_r_turn_1_every_turn_has_exactly_two_different_main_actions(players):
    # R-TURN-1
    from bnb_sim.api import collectable

    for g in range(4):
        game = H.new_game(players, ["random", "heuristic"], seed=21, game_index=g, log=True)
        while not game.is_over():
            if game.phase == "turn" and game._pub[S.C_ACTIONS_DONE] < 2:
                legal = game.legal_actions()
                used = int(game._pub[S.C_ACTIONS_USED])
                assert (H.EXPLORE in legal) == (not used >> H.EXPLORE & 1)  # always possible
                cube = H.occupancy(game).reshape(4, 4, 4)
                can_collect = bool(collectable(cube).any()) and not used >> H.COLLECT & 1
                assert (H.COLLECT in legal) == can_collect
                assert all(not used >> a & 1 for a in legal)  # two *different* actions
                assert H.PASS not in legal
            game.apply_action(game.policy_action())
        turns = _turns_of(game.log)
        assert len(turns) == int(game._pub[S.C_TURN])
        for _seat, actions in turns:
            main = [e["a"] for e in actions if e["b"] == 0]
            assert len(main) == 2 and main[0] != main[1]


# ---- R-TURN-2 ---------------------------------------------------------------------------
ONE_BY_ONE = {"hunger": "one-by-one"}  # the rulebook's `together` is in test_readings.py


def test_r_turn_2_hunger_mob_buys_an_extra_action_that_may_repeat():
    # R-TURN-2 (reading hunger=one-by-one)
    game = H.new_game(2, seed=7, log=True, readings=ONE_BY_ONE)
    hunger = H.tiles(game, kind="hunger")
    H.give_mob(game, 0, hunger[0])
    H.give_mob(game, 0, hunger[1])
    H.assert_consistent(game)
    xp_before = game.xp()
    H.play(game, H.EXPLORE, H.point(2, 2), H.COLLECT)
    H.collect_first(game)
    # two main actions done; the hunger mobs keep the turn open
    assert game.phase == "turn" and game.current_seat == 0
    legal = game.legal_actions()
    assert {H.COLLECT, H.EXPLORE, H.PASS} <= set(legal)  # repeats allowed, may stop
    events = H.play(game, H.EXPLORE, H.point(2, 2))
    assert [e["event"] for e in events][:2] == ["spend_hunger", "action"]
    assert events[1]["b"] == 1  # an extra action
    assert game._pub[L.P_N_HUNGER] == 1 and game._pub[L.P_N_HELD] == 1
    H.play(game, H.EXPLORE, H.point(2, 1))  # the same action a third time
    assert game._pub[L.P_N_HUNGER] == 0
    assert game._pub[L.stat_at(0, S.S_HUNGER_SPENT)] == 2
    assert game.current_seat == 1  # nothing left to spend: the turn is over
    assert game.xp() == xp_before  # R-FIGHT-6: a spent hunger mob gives no points
    H.assert_consistent(game)


def test_r_turn_2_player_may_decline_the_extra_action():
    # R-TURN-2 (reading hunger=one-by-one)
    game = H.new_game(2, seed=7, readings=ONE_BY_ONE)
    H.give_mob(game, 0, H.tile(game, kind="hunger"))
    H.play(game, H.EXPLORE, H.point(2, 2))
    assert H.EXPLORE not in game.legal_actions()  # not twice as main actions
    H.play(game, H.COLLECT)
    H.collect_first(game)
    assert H.PASS in game.legal_actions()
    H.play(game, H.PASS)
    assert game.current_seat == 1 and game._pub[L.P_N_HUNGER] == 1


def test_r_turn_2_a_hunger_mob_won_this_turn_can_be_spent_this_turn():
    # R-TURN-2 (reading hunger=one-by-one)
    game = H.new_game(2, seed=8, log=True, readings=ONE_BY_ONE)
    spider = H.tile(game, kind="hunger", species="spider")
    H.put_on_top(game, 5, spider)  # stack 5 is next to the central point
    H.set_pile(game, 0, {"stone_sword": 1, "wooden_sword": 1})  # 3 hearts: a sure win
    H.assert_consistent(game)
    H.fight(game, 5)
    assert game._pub[S.C_LAST_WIN] == 1 and game._pub[L.P_N_HUNGER] == 1
    H.play(game, H.EXPLORE, H.point(2, 2))
    assert game.phase == "turn" and game.current_seat == 0
    events = H.play(game, H.COLLECT)
    assert events[0]["event"] == "spend_hunger" and events[0]["a"] == spider
    assert game._pub[L.P_N_HUNGER] == 0
    H.assert_consistent(game)


# ---- R-TURN-3 ---------------------------------------------------------------------------
@pytest.mark.parametrize("seating", ["rotate", "random"])
def test_r_turn_3_play_passes_to_the_left_and_scoring_keeps_the_order(seating):
    # R-TURN-3
    for g in range(3):
        game = H.new_game(3, ["random"], seed=31, game_index=g, log=True, seating=seating)
        game.play()
        turn_seats = [e["seat"] for e in game.log if e["event"] == "end_turn"]
        assert turn_seats == [i % 3 for i in range(len(turn_seats))]
        rounds = 0
        for i, event in enumerate(game.log):
            if event["event"] != "round":
                continue
            rounds += 1
            trigger = event["seat"]
            scores = game.log[i + 1 : i + 4]
            # R-SCORE-2: from the player whose turn it was, round the table
            assert [e["seat"] for e in scores] == [(trigger + j) % 3 for j in range(3)]
            later = [e for e in game.log[i:] if e["event"] == "action"]
            if later:  # R-TURN-3: the next turn is the next player's
                assert later[0]["seat"] == (trigger + 1) % 3
        assert rounds == 3
