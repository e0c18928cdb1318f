"""Rule readings (``bnb readings``, ``--reading NAME=VALUE``, ``readings={...}``): every value
of every reading changes the game as its rule says, on hand-built states (engine_helpers),
and the readings reach run.json, resume, reports and experiment files."""

from __future__ import annotations

import json

import engine_helpers as H
import numpy as np
import pytest

from bnb_sim.cli import main
from bnb_sim.errors import BnbError, RunError
from bnb_sim.games.builders_biomes import readings as R
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import state as S
from bnb_sim.games.builders_biomes.engine.scoring import end_game, round_points


def run_cli(capsys, args) -> tuple[int, str, str]:
    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


ONE_BY_ONE = {"hunger": "one-by-one"}


def _main_actions(game) -> None:
    """Explore without moving, then collect two blocks (the two main actions)."""
    H.play(game, H.EXPLORE, H.point(2, 2), H.COLLECT)
    H.collect_first(game)


def _events(events, name):
    return [e for e in events if e["event"] == name]


# ---- the registry and the CLI --------------------------------------------------------------
def test_every_reading_has_values_a_default_and_a_rule():
    assert list(R.READINGS) == [
        "hunger",
        "bonus_biomes",
        "bow",
        "pickaxe",
        "boards",
        "seating",
        "variant",
        "fm_new_farm",
        "fm_collect_xp",
        "fm_empty_buy",
        "fm_end_structures",
        "fm_covered_vegetables",
        "fm_bed_reveal",
    ]
    for reading in R.READINGS.values():
        assert reading.default in reading.values and reading.rule.startswith("R-")
        assert len(reading.values) >= 2 and reading.why_default
    assert R.DEFAULT.to_dict()["hunger"] == "together"
    assert R.DEFAULT.to_dict()["bonus_biomes"] == "visible"


def test_bnb_readings_lists_them_and_json(capsys):
    code, out, _ = run_cli(capsys, ["readings"])
    assert code == 0
    for name, reading in R.READINGS.items():
        assert f"{name}  ({reading.rule})" in out
        assert all(value in out for value in reading.values)
    assert "* together" in out and "* visible" in out
    code, out, _ = run_cli(capsys, ["readings", "--json"])
    rows = {r["name"]: r for r in json.loads(out)["readings"]}
    assert rows["bow"]["default"] == "always" and rows["bow"]["rule"] == "R-FIGHT-2"
    assert set(rows["hunger"]["values"]) == {"together", "one-by-one"}
    # the shorter flags of a reading (the game's reading_flags), in text and JSON
    assert rows["seating"]["flags"] == ["--seating VALUE", "--fixed-seats (= fixed)"]
    assert rows["hunger"]["flags"] == []
    code, out, _ = run_cli(capsys, ["readings", "pickaxe"])
    assert "also set with --pickaxe VALUE" in out


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["readings", "nope"], "unknown reading 'nope'; readings: hunger, bonus_biomes"),
        (["simulate", "-n", "5", "--reading", "hunger=later"], "'later' is not one of together"),
        (["simulate", "-n", "5", "--reading", "colour=red"], "unknown reading 'colour'"),
        (["simulate", "-n", "5", "--reading", "hunger"], "--reading expects NAME=VALUE"),
        (
            ["simulate", "-n", "5", "--variant", "beginner", "--reading", "variant=standard"],
            "--variant (variant=beginner) conflicts with reading variant=standard",
        ),
        (
            ["simulate", "-n", "5", "--fixed-seats", "--reading", "seating=rotate"],
            "--fixed-seats (seating=fixed) conflicts with reading seating=rotate",
        ),
        (
            ["play", "--pickaxe", "optional", "--reading", "pickaxe=mandatory"],
            "--pickaxe (pickaxe=optional) conflicts with reading pickaxe=mandatory",
        ),
        (
            ["simulate", "-n", "5", "-p", "2", "--reading", "variant=beginner,standard,standard"],
            "reading variant: 3 values for 2 players",
        ),
        (
            [
                "tournament",
                "--policies",
                "random,greedy",
                "--games",
                "4",
                "--reading",
                "seating=random",
            ],
            "tournament: the seating is part of the design (fixed)",
        ),
        (
            ["compare", "random", "greedy", "--precision", "0.1", "--reading", "seating=random"],
            "compare: the seating is part of the design (fixed)",
        ),
        (
            [
                "sweep",
                "--set",
                "mobs.enderman.hearts=5,7",
                "--reading",
                "variant=beginner,standard",
            ],
            "sweep: one variant per player is not supported here",
        ),
    ],
)
def test_bad_readings_are_one_line_with_the_choices(tmp_path, capsys, args, fragment):
    writes = args[0] in ("simulate", "tournament", "compare", "sweep")
    code, out, err = run_cli(capsys, [*args, "--out", tmp_path / "x"] if writes else args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and fragment in err, err
    assert not (tmp_path / "x").exists()  # nothing written


def test_python_api_readings_and_aliases():
    cfg = H.config(2, readings={"hunger": "one-by-one", "variant": ["beginner", "standard"]})
    assert cfg.readings["hunger"] == "one-by-one" and cfg.variant == "beginner,standard"
    assert H.config(2, variant="beginner").readings["variant"] == "beginner"
    assert H.config(2, pickaxe_optional=False).readings["pickaxe"] == "mandatory"
    assert (
        H.config(2, seating="fixed").readings == H.config(2, readings={"seating": "fixed"}).readings
    )
    assert H.config(2, variant="beginner,beginner").variant == "beginner"  # one value suffices
    with pytest.raises(BnbError, match="conflicts with reading seating=random"):
        H.config(2, seating="fixed", readings={"seating": "random"})
    with pytest.raises(BnbError, match="'sometimes' is not one of always | choose"):
        H.config(2, readings={"bow": "sometimes"})


# ---- R-TURN-2: hunger ------------------------------------------------------------------------
def test_r_turn_2_together_returns_any_number_in_one_step_after_the_main_actions():
    # R-TURN-2 (hunger=together, the default)
    game = H.new_game(2, seed=7, log=True)
    for t in H.tiles(game, kind="hunger")[:2]:
        H.give_mob(game, 0, t)
    _main_actions(game)
    assert game.phase == "hunger" and game.current_seat == 0
    assert game.legal_actions() == [0, 1, 2]  # none, one or both
    events = H.play(game, 2)
    assert len(_events(events, "spend_hunger")) == 2  # both returned in one step
    assert game._pub[L.P_N_HUNGER] == 0 and game.phase == "turn"
    assert {H.COLLECT, H.EXPLORE, H.PASS} <= set(game.legal_actions())  # repeats allowed
    H.play(game, H.EXPLORE, H.point(2, 2))
    assert game.current_seat == 0  # one extra action still paid for
    H.play(game, H.EXPLORE, H.point(2, 1))
    assert game.current_seat == 1
    assert game._pub[L.stat_at(0, S.S_HUNGER_SPENT)] == 2
    H.assert_consistent(game)


def test_r_turn_2_together_returning_none_ends_the_turn_and_keeps_the_mobs():
    # R-TURN-2 (hunger=together)
    game = H.new_game(2, seed=7)
    H.give_mob(game, 0, H.tile(game, kind="hunger"))
    _main_actions(game)
    H.play(game, 0)
    assert game.current_seat == 1 and game._pub[L.P_N_HUNGER] == 1


def _hunger_turn_with_a_spider_won_in_the_extra_action(readings):
    game = H.new_game(2, seed=8, log=True, readings=readings)
    spider = H.tile(game, kind="hunger", species="spider")
    H.put_on_top(game, 5, spider)  # stack 5 is next to the central point
    H.give_mob(game, 0, H.tile(game, kind="hunger", species="zombie"))
    H.set_pile(game, 0, {"stone_sword": 1, "wooden_sword": 1})  # 3 hearts: a sure win
    H.assert_consistent(game)
    _main_actions(game)
    if game.phase == "hunger":
        H.play(game, 1)
    H.fight(game, 5)  # the extra action wins the spider
    assert game._pub[S.C_LAST_WIN] == 1 and game._pub[L.P_N_HUNGER] == 1
    return game


def test_r_turn_2_together_a_mob_won_in_an_extra_action_cannot_pay_this_turn():
    # R-TURN-2 (hunger=together): the tiles were returned before the spider was won
    game = _hunger_turn_with_a_spider_won_in_the_extra_action({})
    assert game.current_seat == 1  # the turn is over; the spider waits for the next turn
    H.assert_consistent(game)


def test_r_turn_2_one_by_one_a_mob_won_in_an_extra_action_pays_for_the_next():
    # R-TURN-2 (hunger=one-by-one)
    game = _hunger_turn_with_a_spider_won_in_the_extra_action(ONE_BY_ONE)
    assert game.current_seat == 0 and game.phase == "turn"
    events = H.play(game, H.EXPLORE, H.point(2, 2))
    assert _events(events, "spend_hunger")[0]["a"] == H.tile(game, kind="hunger", species="spider")
    assert game.current_seat == 1
    H.assert_consistent(game)


def test_r_turn_2_together_a_mob_won_in_a_main_action_can_be_returned():
    # R-TURN-2 (hunger=together): the return comes after both main actions
    game = H.new_game(2, seed=8)
    H.put_on_top(game, 5, H.tile(game, kind="hunger", species="spider"))
    H.set_pile(game, 0, {"stone_sword": 1, "wooden_sword": 1})
    H.fight(game, 5)
    H.play(game, H.EXPLORE, H.point(2, 2))
    assert game.phase == "hunger" and game.legal_actions() == [0, 1]


@pytest.mark.parametrize("policy", ["random", "greedy", "heuristic"])
def test_r_turn_2_bots_return_at_most_what_they_hold(policy):
    # R-TURN-2 (hunger=together): the count is the policy's decision
    game = H.new_game(2, [policy], seed=3)
    for t in H.tiles(game, kind="hunger")[:3]:
        H.give_mob(game, 0, t)
    _main_actions(game)
    assert game.phase == "hunger"
    choice = game.policy_action()
    assert 0 <= choice <= 3
    H.play(game, choice)
    assert game._pub[L.P_N_HUNGER] == 3 - choice


# ---- R-END-1: bonus_biomes -------------------------------------------------------------------
@pytest.mark.parametrize(("reading", "counts_printed"), [("visible", True), ("built", False)])
def test_r_end_1_biome_bonus_counts_printed_biomes_only_when_visible(reading, counts_printed):
    # R-END-1 (bonus_biomes=visible | built)
    game = H.new_game(2, seed=5, readings={"bonus_biomes": reading})
    forest = H.value(game, "biome", "forest")
    mob = H.tile(game, kind="bonus", bonus=("biome", "forest"))
    H.give_mob(game, 0, mob)
    printed = H.printed_biomes(game, 0)
    other = next(space for space, b in enumerate(printed) if b != forest)
    H.place_building(game, 0, other, H.tile(game, kind="building", biome="forest"))
    uncovered_forests = sum(1 for space, b in enumerate(printed) if b == forest and space != other)
    assert uncovered_forests > 0
    end_game(game._pub, game._hid, game._k)
    per_space = H.tile_attr(game, L.TILE_BONUS_XP, mob)
    spaces = 1 + (uncovered_forests if counts_printed else 0)
    assert H.xp_by_source(game, 0)[S.XP_BONUS_MOBS] == per_space * spaces
    H.assert_consistent(game)


def test_r_end_1_material_bonus_is_the_same_under_both_readings():
    # R-END-1: materials exist only on buildings, whatever bonus_biomes says
    xp = []
    for reading in ("visible", "built"):
        game = H.new_game(2, seed=5, readings={"bonus_biomes": reading})
        H.give_mob(game, 0, H.tile(game, kind="bonus", bonus=("material", "wood")))
        H.place_building(game, 0, 4, H.tile(game, kind="building", material="wood"))
        end_game(game._pub, game._hid, game._k)
        xp.append(H.xp_by_source(game, 0)[S.XP_BONUS_MOBS])
    assert xp[0] == xp[1] > 0


# ---- R-FIGHT-2: bow --------------------------------------------------------------------------
START = {"wooden_sword": 1, "stone_sword": 1, "poisonous_potato": 3}


def test_r_fight_2_default_data_has_three_bows_so_six_reveals_happen():
    # R-FIGHT-2: "4, 5 or even 6" tokens with several bows
    comps = H.default_components()
    assert comps.arrays.tok_table[comps.resolve_weapon("bow")] == 3
    assert int(comps.arrays.tok_table.sum()) == 16
    from bnb_sim import combat_odds

    odds = combat_odds("wooden_sword,stone_sword,potato*3,bow*3", 6)
    assert odds.expected_revealed > 3.5
    sims = combat_odds("wooden_sword,stone_sword,potato*3,bow*3", 6, simulate=20_000)
    assert sims.simulated["expected_revealed"]["high"] > 3.5


def _fight_with_bows(readings, answer):
    """A fight with three bows in the pile; ``answer`` to every bow offer (0 reveal, PASS
    decline). Returns (tokens revealed in order, bow offers asked)."""
    game = H.new_game(2, seed=12, log=True, readings=readings)
    H.put_on_top(game, 5, H.tile(game, kind="hunger", species="enderman"))
    H.set_pile(game, 0, {**START, "bow": 3})
    events = H.play(game, H.FIGHT, 5)
    offers = 0
    while game.phase == "bow":
        assert game.legal_actions() == [0, H.PASS]
        offers += 1
        events += H.play(game, answer)
    assert game.phase != "bow"
    H.assert_consistent(game)
    return [e["a"] for e in _events(events, "token")], offers


def test_r_fight_2_always_reveals_after_every_bow_without_asking():
    # R-FIGHT-2 (bow=always, the default)
    tokens, offers = _fight_with_bows({}, 0)
    assert offers == 0
    bows = sum(1 for t in tokens if t == H.weapon(H.new_game(2), "bow"))
    assert bows >= 1 and len(tokens) == 3 + bows  # each bow revealed one more


def test_r_fight_2_choose_asks_after_each_bow_and_decline_stops_the_extra_reveal():
    # R-FIGHT-2 (bow=choose)
    always, _ = _fight_with_bows({}, 0)
    taken, offers = _fight_with_bows({"bow": "choose"}, 0)
    assert taken == always and offers >= 1  # taking every reveal = the `always` reading
    declined, offers = _fight_with_bows({"bow": "choose"}, H.PASS)
    assert declined == always[:3] and offers >= 1  # only the base reveals


def _bow_decision_state(policy, readings, mob_species):
    """Seat 0 mid-fight, asked about a bow's extra reveal: wooden + stone sword + bow revealed
    (3 hearts), potatoes and two pickaxes still in the pile."""
    game = H.new_game(2, [policy], seed=2, readings={"bow": "choose", **readings})
    mob = H.tile(game, kind="hunger", species=mob_species)
    H.put_on_top(game, 5, mob)
    H.set_pile(game, 0, {**START, "bow": 1, "stone_pickaxe": 2})
    pub = game._pub
    pub[S.C_PHASE] = S.PH_BOW
    pub[S.C_FIGHT_STACK] = 5
    pub[S.C_FIGHT_TILE] = mob
    pub[S.C_BOW_OFFERS] = 1
    for name in ("wooden_sword", "stone_sword", "bow"):
        pub[L.P_FIGHT_REVEALED + H.weapon(game, name)] = 1
    pub[S.C_FIGHT_HEARTS] = sum(
        int(game._k[L.K_TOK + L.TOK_HEARTS * L.MAX_TOKEN_TYPES + H.weapon(game, n)])
        for n in ("wooden_sword", "stone_sword", "bow")
    )
    return game


@pytest.mark.parametrize("policy", ["greedy", "heuristic"])
def test_r_fight_2_choose_bots_reveal_while_the_mob_is_not_beaten(policy):
    # R-FIGHT-2 (bow=choose): the extra token can only help an unfinished fight
    game = _bow_decision_state(policy, {"pickaxe": "mandatory"}, "enderman")
    assert game.policy_action() == 0


@pytest.mark.parametrize(
    ("pickaxe", "expected"), [("mandatory", H.PASS), ("optional", 0)], ids=["mandatory", "optional"]
)
def test_r_fight_2_choose_bot_declines_when_won_and_a_forced_block_would_hurt(pickaxe, expected):
    # R-FIGHT-2 (bow=choose) with R-FIGHT-3: the spider (1 heart) is beaten; what is left to
    # reveal is potatoes and pickaxes, and this bot dislikes blocks (block_base < 0)
    game = _bow_decision_state("heuristic:block_base=-1", {"pickaxe": pickaxe}, "spider")
    assert game.policy_action() == expected
    game = _bow_decision_state("heuristic", {"pickaxe": pickaxe}, "spider")
    assert game.policy_action() == 0  # the normal heuristic likes a block: reveal


# ---- R-SETUP-4: boards and seating -----------------------------------------------------------
def test_r_setup_4_boards_fixed_gives_player_i_board_i_random_deals():
    # R-SETUP-4 (boards=fixed | random)
    dealt = set()
    for g in range(8):
        fixed = H.new_game(3, seed=1, game_index=g, readings={"boards": "fixed"})
        dealt_game = H.new_game(3, seed=1, game_index=g)
        for seat in range(3):
            assert fixed._pub[L.P_BOARD_ID + seat] == fixed.player_of_seat(seat)
            dealt.add((seat, int(dealt_game._pub[L.P_BOARD_ID + seat])))
        # the other set-up streams do not move: the same cube, tiles and tokens
        np.testing.assert_array_equal(fixed._hid[: L.H_PILE], dealt_game._hid[: L.H_PILE])
    assert len(dealt) > 3 * 2  # random boards differ between games


def test_r_setup_4_seating_reading_and_its_alias_agree():
    # R-SETUP-4 (seating=fixed, alias --fixed-seats / seating=)
    a = H.new_game(3, ["random", "greedy", "heuristic"], seed=4, game_index=2, seating="fixed")
    b = H.new_game(
        3, ["random", "greedy", "heuristic"], seed=4, game_index=2, readings={"seating": "fixed"}
    )
    assert [a.player_of_seat(s) for s in range(3)] == [0, 1, 2]
    np.testing.assert_array_equal(a._pub, b._pub)


# ---- R-SCORE-4: variant per player -----------------------------------------------------------
@pytest.mark.parametrize("game_index", [0, 1])
def test_r_score_4_beginner_rule_per_player_follows_the_player(game_index):
    # R-SCORE-4 (variant=beginner,standard): player 0 scores by the beginner rule
    game = H.new_game(2, seed=3, game_index=game_index, readings={"variant": "beginner,standard"})
    wood = H.tiles(game, kind="building", material="wood")
    for seat in range(2):
        for i, space in enumerate((0, 2, 6, 8)):  # four corners: no two connected
            H.place_building(game, seat, space, wood[4 * seat + i])
    card = int(game._k[L.K_SCORE_CARD + 4 + H.value(game, "material", "wood")])
    for seat in range(2):
        beginner = game.player_of_seat(seat) == 0
        got = round_points(game._pub, game._k, seat, 1, H.value(game, "material", "wood"))
        assert got == (4 if beginner else 1) * card


@pytest.mark.parametrize(("variant", "spaces"), [("standard", 1), ("beginner", 4)])
def test_r_score_4_one_value_for_everyone(variant, spaces):
    # R-SCORE-4 (variant=standard | beginner)
    game = H.new_game(2, seed=3, readings={"variant": variant})
    wood = H.tiles(game, kind="building", material="wood")
    for i, space in enumerate((0, 2, 6, 8)):
        H.place_building(game, 1, space, wood[i])
    card = int(game._k[L.K_SCORE_CARD + 4 + H.value(game, "material", "wood")])
    assert (
        round_points(game._pub, game._k, 1, 1, H.value(game, "material", "wood")) == spaces * card
    )


# ---- R-FIGHT-3: pickaxe ------------------------------------------------------------------------
@pytest.mark.parametrize(("value", "may_decline"), [("optional", True), ("mandatory", False)])
def test_r_fight_3_pickaxe_reading(value, may_decline):
    # R-FIGHT-3 (pickaxe=optional | mandatory)
    game = H.new_game(2, seed=6, readings={"pickaxe": value})
    H.put_on_top(game, 5, H.tile(game, kind="hunger", species="enderman"))
    H.set_pile(game, 0, {"stone_pickaxe": 1, "poisonous_potato": 2})
    H.play(game, H.FIGHT, 5)
    assert game.phase == "pickaxe" and (H.PASS in game.legal_actions()) == may_decline


# ---- whole games: legal decisions, invariants, determinism ---------------------------------
NON_DEFAULT = [
    {"hunger": "one-by-one"},
    {"bonus_biomes": "built"},
    {"bow": "choose", "pickaxe": "mandatory"},
    {"bow": "choose"},
    {"boards": "fixed"},
    {"seating": "random"},
    {"seating": "fixed"},
    {"pickaxe": "mandatory"},
    {"variant": "beginner,standard,beginner"},
]


@pytest.mark.parametrize(
    "readings", NON_DEFAULT, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items())
)
def test_invariants_hold_under_every_non_default_reading(readings):
    from bnb_sim.games.builders_biomes.batch import play_block

    config = H.config(3, ["random", "greedy", "heuristic"], seed=17, readings=readings, check=True)
    _, games = play_block(config, 0, 3000)  # raises on an illegal decision or a broken invariant
    assert len(games) == 3000 and (games.round_c_turn == games.turns).all()


@pytest.mark.parametrize("readings", NON_DEFAULT[:5], ids=lambda r: ",".join(r))
def test_games_are_a_function_of_seed_and_index_under_readings(readings):
    from bnb_sim.runner.simulate import simulate

    kw = dict(readings=readings, seed=5)
    one = simulate(300, 3, ["random", "greedy", "heuristic"], threads=1, chunk_size=300, **kw)
    two = simulate(300, 3, ["random", "greedy", "heuristic"], threads=2, chunk_size=70, **kw)
    assert one.equals(two)
    default = simulate(300, 3, ["random", "greedy", "heuristic"], seed=5, threads=1)
    assert not one.equals(default)  # the reading changes the games


# ---- runs, reports and experiment files ------------------------------------------------------
def test_run_json_records_the_readings_and_resume_refuses_a_mismatch(tmp_path):
    from bnb_sim.runner.simulate import simulate
    from bnb_sim.runner.storage import read_meta

    out = tmp_path / "run"
    simulate(40, 2, ["random"], 3, out=out, readings={"hunger": "one-by-one"}, chunk_size=20)
    params = read_meta(out)["params"]
    assert params["readings"] == {**R.DEFAULT.to_dict(), "hunger": "one-by-one"}
    with pytest.raises(RunError, match="readings"):
        simulate(40, 2, ["random"], 3, out=out, resume=True, chunk_size=20)
    simulate(40, 2, ["random"], 3, out=out, resume=True, chunk_size=20, readings=ONE_BY_ONE)


def test_cli_reading_reaches_run_json_and_the_report(tmp_path, capsys):
    from bnb_sim.runner.storage import read_meta

    run = tmp_path / "run"
    args = ["simulate", "-n", "30", "-p", "2", "--policy", "random", "--out", run, "-q"]
    code, _, err = run_cli(
        capsys, [*args, "--reading", "bonus_biomes=built", "--pickaxe", "mandatory"]
    )
    assert code == 0, err
    meta = read_meta(run)
    assert meta["params"]["readings"]["bonus_biomes"] == "built"
    assert meta["params"]["readings"]["pickaxe"] == "mandatory"
    assert "--reading bonus_biomes=built" in meta["command"]
    code, _, err = run_cli(capsys, ["report", run, "--out", tmp_path / "rep"])
    assert code == 0, err
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "bonus_biomes=built" in text and "reading bonus_biomes" in text


def test_experiment_file_readings_per_item_and_conflicts(tmp_path):
    from bnb_sim.analysis.experiment import parse_experiment

    doc = {
        "experiment": {"readings": {"hunger": "one-by-one"}},
        "simulation": [
            {"name": "a", "games": 10, "policies": ["random"]},
            {"name": "b", "games": 10, "policies": ["random"], "readings": {"bow": "choose"}},
        ],
    }
    exp = parse_experiment(doc, "x.toml", tmp_path)
    assert exp.items[0].readings == {"hunger": "one-by-one"}
    assert exp.items[1].readings == {"hunger": "one-by-one", "bow": "choose"}
    bad = {"simulation": [{"games": 10, "policies": ["random"], "variant": "beginner",
                           "readings": {"variant": "standard"}}]}  # fmt: skip
    with pytest.raises(BnbError, match=r"x.toml: simulation\[1\].readings: variant"):
        parse_experiment(bad, "x.toml", tmp_path)
    bad = {"tournament": [{"games": 4, "policies": ["random", "greedy"],
                           "readings": {"seating": "random"}}]}  # fmt: skip
    with pytest.raises(BnbError, match="seating is part of the design"):
        parse_experiment(bad, "x.toml", tmp_path)
    bad = {"simulation": [{"games": 4, "policies": ["random"],
                           "readings": {"variant": "beginner,standard,standard"}}]}  # fmt: skip
    with pytest.raises(BnbError, match="3 values for 2 players"):
        parse_experiment(bad, "x.toml", tmp_path)
    bad = {"simulation": [{"games": 4, "policies": ["random"], "readings": {"bow": "never"}}]}
    with pytest.raises(BnbError, match="'never' is not one of always | choose"):
        parse_experiment(bad, "x.toml", tmp_path)


def test_experiment_items_play_under_their_readings(tmp_path):
    from bnb_sim.analysis.experiment import parse_experiment
    from bnb_sim.runner.experiments import run_item

    doc = {
        "simulation": [
            {"name": "s", "games": 30, "policies": ["random"], "readings": {"hunger": "one-by-one"}}
        ],
        "tournament": [
            {
                "name": "t",
                "games": 4,
                "policies": ["random", "greedy"],
                "readings": {"bonus_biomes": "built"},
            },
        ],  # fmt: skip
    }
    exp = parse_experiment(doc, "x.toml", tmp_path)
    seats, games, meta = run_item(exp.items[0])
    assert meta["params"]["readings"]["hunger"] == "one-by-one"
    result = run_item(exp.items[1])
    assert result.params["readings"]["bonus_biomes"] == "built"
    assert result.params["readings"]["seating"] == "fixed"  # the tournament's design

    from bnb_sim.analysis.tournament import tournament_sections

    texts = [str(vars(b)) for s in tournament_sections(result) for b in s.blocks]
    assert any("bonus_biomes=built" in t for t in texts)  # the report states the readings


_WEAPON_PROV = (
    'provenance = { hearts = "estimate", extra_reveals = "known", xp_on_reveal = "known", '
    'blocks_on_reveal = "known", detonate_hearts = "known", start_count = "known", '
    'table_count = "estimate" }\nsource = "RULES.md"\nreason = "the data before the third bow"\n'
)
TWO_BOWS = (
    f"[weapons.bow]\ntable_count = 2\n{_WEAPON_PROV}\n"
    f"[weapons.iron_sword]\ntable_count = 4\n{_WEAPON_PROV}"
)


def test_r_turn_2_one_by_one_replays_the_engine_before_the_readings(tmp_path):
    # R-TURN-2 (hunger=one-by-one) is the engine's behaviour before the readings existed: with
    # the two-bow data it plays exactly the games it played then (hash taken from that engine)
    import hashlib

    from bnb_sim.runner.simulate import simulate

    override = tmp_path / "two_bows.toml"
    override.write_text(TWO_BOWS)
    df = simulate(
        300, 3, ["random", "greedy", "heuristic"], seed=9, threads=1,
        components=str(override), readings=ONE_BY_ONE,
    )  # fmt: skip
    cols = ["game", "seat", "player", "xp", "rank", "hunger_spent", "fights", "turns"]
    digest = hashlib.sha256(np.ascontiguousarray(df[cols].to_numpy(np.int64)).tobytes())
    assert digest.hexdigest()[:16] == "3ef27d178354dbe7"
