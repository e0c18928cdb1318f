"""The Farmer's Market's "may" items are the player's decisions (R-FM-5), and the expansion's
readings (R-FM-4, R-FM-5, R-FM-9; R-TURN-2 with the three-actions item), through the Game API
on the expansion's data."""

from __future__ import annotations

import engine_helpers as H
import pytest
from fm_helpers import BUY, FM, fm_game, give_item, set_vegetables, veg

from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import state as S

PASS = S.PASS
WEAK_PILE = {"wooden_sword": 1, "stone_sword": 1, "poisonous_potato": 3}
MOB_STACK = H.stack_at(1, 1)


def _events(events, name):
    return [e for e in events if e["event"] == name]


def _may(game, seat, may):
    """(offered, declined) of a "may" ability for ``seat``."""
    pub = game._pub
    return int(pub[L.may_at(seat, may, 0)]), int(pub[L.may_at(seat, may, 1)])


def _fight_game(items=(), policies=("random",), readings=None, pile=None):
    """Seat 0 next to the strongest hunger mob on MOB_STACK with a pile that cannot beat it
    (3 of wooden sword, stone sword and potatoes), owning ``items``."""
    game = fm_game(2, policies=policies, log=True, readings=readings or {})
    mob = max(H.tiles(game, kind="hunger"), key=lambda t: H.tile_attr(game, L.TILE_HEARTS, t))
    H.put_on_top(game, MOB_STACK, mob)
    H.set_position(game, 0, H.points_next_to_stack(MOB_STACK)[0])
    H.set_pile(game, 0, pile or WEAK_PILE)
    for item in items:
        give_item(game, 0, item)
    return game


# ---- R-FM-5: the bed's second fight ------------------------------------------------------------
def test_r_fm_5_bed_second_fight_is_the_players_decision():
    game = _fight_game(["bed"])
    events = H.play(game, H.FIGHT, MOB_STACK)
    assert _events(events, "fight_end")[0]["a"] == 0  # lost
    assert game.phase == "bed" and game.legal_actions() == [0, PASS]
    events = H.play(game, PASS)
    assert [e["event"] for e in events][:1] == ["may_declined"]
    assert not _events(events, "refight") and game.phase == "turn"
    assert int(game._pub[S.C_ACTIONS_DONE]) == 1  # the fight action is over
    assert int(game._pub[L.stat_at(0, S.S_FIGHTS)]) == 1
    assert _may(game, 0, S.MAY_BED) == (1, 1)
    H.assert_consistent(game)


def test_r_fm_5_bed_fights_again_when_taken_and_only_once():
    game = _fight_game(["bed"])
    H.play(game, H.FIGHT, MOB_STACK)
    events = H.play(game, 0)
    assert len(_events(events, "refight")) == 1 and len(_events(events, "token")) == 3
    assert game.phase == "turn"  # lost again: no third fight
    assert int(game._pub[L.stat_at(0, S.S_FIGHTS)]) == 2
    assert _may(game, 0, S.MAY_BED) == (1, 0)


def test_r_fm_5_bed_is_not_offered_without_the_bed():
    game = _fight_game()
    H.play(game, H.FIGHT, MOB_STACK)
    assert game.phase == "turn" and int(game._pub[S.C_ACTIONS_DONE]) == 1


# ---- R-FM-5: the collect-3 item's third block -------------------------------------------------
@pytest.mark.parametrize("take_third", [True, False])
def test_r_fm_5_collect_three_third_block_may_be_declined(take_third):
    game = fm_game(2, log=True)
    give_item(game, 0, "collect_three")
    H.play(game, H.COLLECT)
    for _ in range(2):  # the rulebook's two blocks are no choice
        assert PASS not in game.legal_actions()
        H.play(game, game.legal_actions()[0])
    assert game.phase == "collect" and PASS in game.legal_actions()
    H.play(game, game.legal_actions()[0] if take_third else PASS)
    assert game.phase == "turn" and int(game._pub[S.C_ACTIONS_DONE]) == 1
    assert sum(H.supply(game, 0)) == (3 if take_third else 2)
    assert _may(game, 0, S.MAY_THIRD_BLOCK) == (1, 0 if take_third else 1)
    H.assert_consistent(game)


def test_r_cube_2_no_pass_in_collect_without_the_item():
    game = fm_game(2)
    H.play(game, H.COLLECT)
    assert PASS not in game.legal_actions()
    H.play(game, game.legal_actions()[0])
    assert PASS not in game.legal_actions()


# ---- R-FM-5: the reveal-4 item's extra token ----------------------------------------------------
@pytest.mark.parametrize("take", [True, False])
def test_r_fm_5_reveal_four_extra_token_is_a_decision(take):
    game = _fight_game(["reveal_four"])
    events = H.play(game, H.FIGHT, MOB_STACK)
    assert len(_events(events, "token")) == 3 and game.phase == "reveal_four"
    assert game.legal_actions() == [0, PASS]
    events += H.play(game, 0 if take else PASS)
    assert len(_events(events, "token")) == (4 if take else 3)
    assert game.phase == "turn" and len(_events(events, "fight_end")) == 1
    assert _may(game, 0, S.MAY_FOURTH_TOKEN) == (1, 0 if take else 1)
    H.assert_consistent(game)


# ---- F9: the bed with the reveal-4 item (reading fm_bed_reveal) -----------------------------
@pytest.mark.parametrize(("reading", "second"), [("three", 3), ("item", 4)])
def test_r_fm_5_bed_second_fight_reveals_three_unless_the_reading_applies_reveal_four(
    reading, second
):
    game = _fight_game(["bed", "reveal_four"], readings={"fm_bed_reveal": reading})
    events = H.play(game, H.FIGHT, MOB_STACK, 0)  # the first fight: 3 + the item's one
    assert len(_events(events, "token")) == 4 and game.phase == "bed"
    events = H.play(game, 0)
    if reading == "item":
        assert game.phase == "reveal_four"
        events += H.play(game, 0)
    assert len(_events(events, "token")) == second and game.phase == "turn"


# ---- F1: a buy action buys something (reading fm_empty_buy) ---------------------------------
@pytest.mark.parametrize(("reading", "may_end_empty"), [("forbidden", False), ("allowed", True)])
def test_r_fm_4_buy_action_buys_something_unless_the_reading_allows_none(reading, may_end_empty):
    game = fm_game(2, readings={"fm_empty_buy": reading})
    set_vegetables(game, 0, 8)
    H.play(game, BUY)
    assert game.phase == "buy" and (PASS in game.legal_actions()) == may_end_empty
    if may_end_empty:
        H.play(game, PASS)
        assert game.phase == "turn" and int(game._pub[L.P_FM_BOUGHT]) == 0
        return
    cheapest = min(
        game.legal_actions(), key=lambda s: game._k[L.K_FM_ITEM + game._pub[L.P_FM_MARKET + s]]
    )
    H.play(game, cheapest)
    if game.phase == "buy":  # something else is affordable: now the buying may end
        assert PASS in game.legal_actions()
        H.play(game, PASS)
    assert int(game._pub[L.P_FM_BOUGHT]) == 1 and int(game._pub[S.C_ACTIONS_DONE]) == 1


def test_r_fm_4_buy_is_not_an_action_when_nothing_is_affordable():
    game = fm_game(2)
    set_vegetables(game, 0, 0)
    assert BUY not in game.legal_actions()


# ---- F3: the starting farmland and "+2 per structure built" (reading fm_end_structures) -------
@pytest.mark.parametrize(("reading", "xp"), [("farmland-counts", 6), ("buildings-only", 4)])
def test_r_fm_5_end_structures_counts_the_visible_farmland_per_reading(reading, xp):
    from bnb_sim.games.builders_biomes.engine import market as M

    game = fm_game(2, readings={"fm_end_structures": reading})
    farmland = int(game._pub[L.P_FM_FARMLAND])
    a, b = H.tiles(game, kind="building")[:2]
    free = [s for s in range(9) if s != farmland]
    H.place_building(game, 0, free[0], a)
    H.place_building(game, 0, free[1], b)
    give_item(game, 0, "end_buildings")
    M.end_items(game._pub, game._hid, game._k)
    assert int(game._pub[L.P_FM_XP_END]) == xp  # 2 buildings (+ the farmland) at 2 XP
    # once covered, the farmland is one structure (the building on top) under both readings
    game = fm_game(2, readings={"fm_end_structures": reading})
    M.on_build(game._pub, game._k, 0, farmland, a)
    H.place_building(game, 0, farmland, a)
    give_item(game, 0, "end_buildings")
    M.end_items(game._pub, game._hid, game._k)
    assert int(game._pub[L.P_FM_XP_END]) == 2


# ---- F7: vegetables of a covered structure (reading fm_covered_vegetables) ------------------
def _build_over_the_farmland(readings):
    game = fm_game(2, readings=readings)
    farmland = int(game._pub[L.P_FM_FARMLAND])
    t = H.tile(game, kind="building", material="wood")
    H.put_on_top(game, H.stack_at(1, 1), t)
    H.set_position(game, 0, H.points_next_to_stack(H.stack_at(1, 1))[0])
    H.set_supply(game, 0, H.tile_cost(game, t))
    supply = int(game._pub[L.P_FM_SUPPLY])
    held = veg(game, 0)
    assert held > 0
    H.play(game, H.BUILD, H.stack_at(1, 1), farmland)
    return game, supply, held


@pytest.mark.parametrize("reading", ["supply", "lost"])
def test_r_fm_9_covered_vegetables_go_back_or_stay_under_the_tile(reading):
    game, supply, held = _build_over_the_farmland({"fm_covered_vegetables": reading})
    assert veg(game, 0) == 0 and int(game._pub[L.P_FM_FARMLAND]) == -1
    back = held if reading == "supply" else 0
    assert int(game._pub[L.P_FM_SUPPLY]) == supply + back
    assert int(game._pub[L.P_FM_BURIED]) == held - back
    H.assert_consistent(game)  # the 32 tokens are conserved, buried ones included


# ---- F8: the three-actions item under hunger=one-by-one ----------------------------------------
def _three_actions_turn(hunger):
    game = fm_game(2, readings={"hunger": hunger})
    give_item(game, 0, "three_actions")
    H.give_mob(game, 0, H.tile(game, kind="hunger"))
    H.play(game, H.EXPLORE, int(game._pub[L.P_POS]))
    H.play(game, H.COLLECT)
    H.collect_first(game, 2)
    assert game.current_seat == 0 and game.phase == "turn"
    return game


def test_r_turn_2_r_fm_5_one_by_one_three_actions_owner_may_trade_the_third_for_extras():
    # the third action is a "may": after two, a repeat is an extra action paid with a hunger
    # mob that forgoes the third, as ending the main actions does under hunger=together
    game = _three_actions_turn("one-by-one")
    legal = game.legal_actions()
    assert H.EXPLORE in legal and H.COLLECT in legal and PASS in legal
    H.play(game, H.EXPLORE, int(game._pub[L.P_POS]))  # a repeat: an extra action
    assert int(game._pub[L.P_N_HUNGER]) == 0 and int(game._pub[L.stat_at(0, S.S_HUNGER_SPENT)]) == 1
    assert game.current_seat == 1  # the third main action was forgone; nothing left to pay


def test_r_turn_2_r_fm_5_one_by_one_a_new_action_type_is_the_free_third():
    game = _three_actions_turn("one-by-one")
    set_vegetables(game, 0, 8)
    H.play(game, BUY)
    H.play(game, game.legal_actions()[0])
    while game.phase == "buy":
        H.play(game, PASS)
    assert int(game._pub[L.P_N_HUNGER]) == 1 and int(game._pub[S.C_ACTIONS_DONE]) == 3
    assert game.current_seat == 0 and H.EXPLORE in game.legal_actions()  # an extra now


def test_r_turn_2_r_fm_5_together_three_actions_owner_ends_the_main_actions_with_pass():
    game = _three_actions_turn("together")
    assert H.EXPLORE not in game.legal_actions() and PASS in game.legal_actions()
    H.play(game, PASS)
    assert game.phase == "hunger"


# ---- the readings: listed, accepted, recorded, and the invariants hold under each ------------
FM_READINGS = {
    "fm_empty_buy": ("forbidden", "allowed"),
    "fm_end_structures": ("farmland-counts", "buildings-only"),
    "fm_covered_vegetables": ("supply", "lost"),
    "fm_bed_reveal": ("three", "item"),
}


def test_fm_readings_are_registered_with_the_texts_reading_as_default():
    from bnb_sim.games.builders_biomes import readings as R

    for name, values in FM_READINGS.items():
        reading = R.READINGS[name]
        assert tuple(reading.values) == values and reading.default == values[0]
        assert reading.rule.startswith("R-FM-")


@pytest.mark.parametrize(
    "readings", [{name: values[1]} for name, values in FM_READINGS.items()], ids=lambda r: str(r)
)
def test_invariants_hold_under_every_fm_reading(readings):
    from bnb_sim.games.builders_biomes.batch import play_block

    config = H.config(
        3, ["random", "greedy", "heuristic"], seed=23, readings=readings, check=True,
        components=None, expansion=FM,
    )  # fmt: skip
    seats, games = play_block(config, 0, 300)  # raises on a broken invariant
    assert len(games) == 300


def test_fm_readings_reach_run_json_and_the_report(tmp_path, capsys):
    from bnb_sim.cli import main
    from bnb_sim.runner.storage import read_meta

    run = tmp_path / "run"
    args = ["simulate", "-n", "20", "-p", "2", "--policy", "random", "--expansion", FM]
    for name, values in FM_READINGS.items():
        args += ["--reading", f"{name}={values[1]}"]
    try:
        main([*args, "--out", str(run), "-q"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    readings = read_meta(run)["params"]["readings"]
    assert {n: readings[n] for n in FM_READINGS} == {n: v[1] for n, v in FM_READINGS.items()}
    try:
        main(["report", str(run), "--out", str(tmp_path / "rep")])
    except SystemExit as exc:
        assert exc.code in (0, None)
    text = (tmp_path / "rep" / "report.md").read_text()
    assert all(f"{n}={v[1]}" in text for n, v in FM_READINGS.items())
    capsys.readouterr()


# ---- the rows count the "may" decisions; every policy kind meets them ------------------------
def test_r_fm_5_rows_count_offers_and_declines_and_random_declines_some():
    from bnb_sim.runner.simulate import simulate

    rows = simulate(200, 2, ["random"], 31, expansion=FM, threads=1, check=True)
    for may in ("bed", "third_block", "fourth_token"):
        assert (rows[f"{may}_declined"] <= rows[f"{may}_offered"]).all()
    offered = sum(int(rows[f"{m}_offered"].sum()) for m in ("bed", "third_block", "fourth_token"))
    declined = sum(int(rows[f"{m}_declined"].sum()) for m in ("bed", "third_block", "fourth_token"))
    assert offered > 0 and 0 < declined < offered  # random picks among the legal options


def test_bot_files_have_the_new_decisions(tmp_path):
    from bnb_sim.games.builders_biomes.engine.state import PHASE_NAMES
    from bnb_sim.games.builders_biomes.policies.priority_layout import N_PHASES, PHASES

    assert len(PHASE_NAMES) <= N_PHASES and PHASES["bed"][0] == S.PH_BED
    assert PHASES["reveal_four"][0] == S.PH_REVEAL_FOUR
    bot = tmp_path / "careful.toml"
    bot.write_text(
        "[[bed]]\nchoose = 'skip'\n[[reveal_four]]\nchoose = 'reveal'\n[[blocks]]\n"
        "choose = 'skip'\nwhen = 'layer_blocks_left <= 1'\n[[blocks]]\nchoose = 'best'\n"
    )
    game = _fight_game(["bed", "reveal_four"], policies=[f"bot:{bot}", "random"])
    H.set_turn(game, 0)
    H.play(game, H.FIGHT, MOB_STACK)
    assert game.phase == "reveal_four" and game.policy_action() == 0
    H.play(game, 0)
    assert game.phase == "bed" and game.policy_action() == PASS


@pytest.mark.parametrize("policy", ["greedy", "heuristic", "mc:rollouts=2", "ismcts:iterations=8"])
def test_r_fm_5_every_policy_kind_decides_the_may_items(policy):
    game = _fight_game(["bed", "reveal_four"], policies=[policy, "random"])
    H.play(game, H.FIGHT, MOB_STACK)
    assert game.phase == "reveal_four" and game.policy_action() in (0, PASS)
    H.play(game, 0)
    if game.phase == "bed":
        assert game.policy_action() in (0, PASS)


# ---- sensible bot choices ---------------------------------------------------------------------
def _bed_decision(policy, pile):
    game = _fight_game(["bed"], policies=[policy, "random"])
    H.play(game, H.FIGHT, MOB_STACK)
    assert game.phase == "bed"
    H.set_pile(game, 0, pile)  # the pile the second fight would use
    return game.policy_action()


@pytest.mark.parametrize("policy", ["greedy", "heuristic"])
def test_r_fm_5_bots_fight_again_when_they_can_win_and_not_when_they_cannot(policy):
    # the start pile and swords from the table: a second fight can win
    strong = {**WEAK_PILE, "stone_sword": 2, "iron_sword": 2, "diamond_sword": 1}
    assert _bed_decision(policy, strong) == 0
    # the start pile cannot reach the mob's hearts, and holds no hoe or pickaxe to gain from
    assert _bed_decision(policy, WEAK_PILE) == PASS


def _third_block_state(leading):
    """Seat 0 (heuristic, collect-3 item) has taken two blocks; the only collectable block
    left is the last of layer 1 (the cube keeps one column), so a third block triggers round
    A, which seat 0 leads or trails by a wide margin (one board covered by the biome of the
    best card value)."""
    game = fm_game(2, policies=["heuristic", "random"])
    give_item(game, 0, "collect_three")
    card = [int(game._k[L.K_SCORE_CARD + v]) for v in range(4)]
    buildings = H.tiles(game, kind="building")
    best = max(range(4), key=lambda v: card[v])
    same = [t for t in buildings if H.tile_attr(game, L.TILE_BIOME, t) == best][:9]
    assert len(same) == 9
    for space, t in enumerate(same):
        H.place_building(game, 0 if leading else 1, space, t)
    H.set_cube(game, [H.pos(layer, 1, 1) for layer in range(4)])
    pub = game._pub
    pub[S.C_PHASE] = S.PH_COLLECT
    pub[S.C_ACTION_TYPE] = S.ACT_COLLECT
    pub[S.C_ACTIONS_USED] |= 1 << S.ACT_COLLECT
    pub[S.C_BLOCKS_OWED] = 1
    assert game.legal_actions() == [H.pos(0, 1, 1), PASS]
    H.assert_consistent(game)
    return game


def test_r_fm_5_heuristic_declines_a_third_block_that_triggers_a_round_it_trails():
    assert _third_block_state(leading=False).policy_action() == PASS
    assert _third_block_state(leading=True).policy_action() == H.pos(0, 1, 1)
