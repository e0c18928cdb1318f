"""Heroes of the Village: the texts' "may" as decisions, and the rule readings (issue 22).

R-HV-6 a fight may stop after a failed roll; R-HV-7 one build action may serve several
buildings (reading ``build``); R-HV-9 the Horse's second tile is a decision and the Cat's
two-darkness draw is a reading (``cat``); R-HV-3 free laying counts "needed" (reading
``free_lay``); R-HV-2 the starting player and the turn order.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village import policies as P
from bnb_sim.games.heroes_village.bots import B_FIGHT, B_SIZE, choose_random, choose_team
from tests.hotv_helpers import Game, comps_with

WOOD, SAND, STONE, RED, DARK = L.WOOD, L.SAND, L.STONE, L.REDSTONE, L.DARKNESS
NO_PETS = ("none", "none")
TEAM = np.array(P.TEAM_DEFAULTS, np.float64)


def mob_on(g, tile, value=None):
    """Put a mob on ``tile`` (of fight value ``value`` if given); its value."""
    from bnb_sim.games.heroes_village.engine import place_mob

    if value is not None:
        token = next(i for i, (_, v) in enumerate(g.comps.mob_tokens) if v == value)
        g.s[L.S_MOB_PILE + g.s[L.S_MOB_NEXT]] = token
    assert place_mob(g.s, g.k, tile, g.log)
    return int(g.k[L.K_TOKEN_VALUE + g.s[L.S_TILE_MOB + tile]])


def legal(g):
    mask = g.legal()
    return [a for a in range(L.N_ACTIONS) if mask[a]]


def team_choice(g, seat=0):
    return choose_team(TEAM, g.s, g.k, g.kf, g.legal(), g.rng, seat, np.zeros(B_SIZE))


# ----------------------------------------------------------------------------- R-HV-6 fights


def test_r_hv_6_a_player_may_stop_a_fight_after_a_failed_roll():
    g = Game(pets=NO_PETS, comps=comps_with(fight=["blank"]))
    tile = g.lay(WOOD)
    mob_on(g, tile)
    g.act(L.A_FIGHT + tile)
    assert g.s[L.S_PHASE] == L.PH_FIGHT and g.stat(0, L.T_ROLLS) == 1
    assert legal(g) == [L.A_FIGHT + tile, L.A_STOP]  # roll again, or stop
    assert g.s[L.S_ACTIONS_LEFT] == 1  # the fight is the turn's first action
    g.act(L.A_STOP)
    assert g.s[L.S_PHASE] == L.PH_ACTION and g.s[L.S_TILE_MOB + tile] >= 0  # the mob stays
    assert g.stat(0, L.T_ROLLS) == 1 and g.stat(0, L.T_FIGHTS_STOPPED) == 1
    assert g.s[L.S_FIGHTS_STOPPED] == 1 and g.s[L.S_ACTIONS_LEFT] == 1


def test_r_hv_6_rolling_on_uses_three_rolls_at_most_and_the_turn_goes_on():
    g = Game(pets=NO_PETS, comps=comps_with(fight=["blank"], illagers=["blank"]))
    tile = g.lay(WOOD)
    mob_on(g, tile)
    g.act(L.A_EXPLORE + 0)
    g.act(L.A_FIGHT + tile)
    g.act(L.A_FIGHT + tile)
    assert g.s[L.S_PHASE] == L.PH_FIGHT and g.s[L.S_SEAT] == 0
    g.act(L.A_FIGHT + tile)  # the third and last roll ends the fight, and the turn
    assert g.stat(0, L.T_ROLLS) == 3 and g.s[L.S_PHASE] == L.PH_ACTION
    assert g.s[L.S_SEAT] == 1 and g.stat(0, L.T_FIGHTS_STOPPED) == 0


def test_r_hv_6_a_stopped_fight_is_recorded_on_paper_without_moving_the_game_dice():
    g = Game(pets=NO_PETS, comps=comps_with(fight=["blank"]))
    tile = g.lay(WOOD)
    value = mob_on(g, tile)
    g.act(L.A_FIGHT + tile)
    fight_stream = g.rng[L.RNG_FIGHT].copy()
    g.act(L.A_STOP)
    assert np.array_equal(g.rng[L.RNG_FIGHT], fight_stream)  # the game's die did not move
    # the record holds one full fight (rolled to its end on paper), lost with this die
    assert g.stat(0, L.T_FIGHTS_BY_VALUE + value) == 1
    assert g.stat(0, L.T_WINS_BY_VALUE + value) == 0


def test_r_hv_6_the_panda_protection_is_fresh_for_the_next_fight_after_a_stop():
    g = Game(pets=("panda", "none"), comps=comps_with(fight=["illager"]), start=9)
    tile = g.lay(WOOD)
    mob_on(g, tile)
    g.act(L.A_FIGHT + tile)  # ignored by the Panda
    assert g.illager == 9 and g.s[L.S_PANDA_USED] == 1
    g.act(L.A_STOP)
    assert g.s[L.S_PANDA_USED] == 0
    g.act(L.A_FIGHT + tile)
    assert g.illager == 9  # a new fight: its first Illager face is ignored again


def fight_value_reference(comps, value, pos, rolls, panda, unblock, weights, pet=None):
    """The value of rolling on relative to stopping, by brute force over every face sequence
    (optimal stopping; ending on space 1 risks the Illagers die at the end of the turn)."""
    faces = comps.fight_faces
    bonus = comps.pet_strength["wolf"] if pet == "wolf" else 0
    last = comps.data["path"]["last_space"]
    w = {k: Fraction(v) for k, v in zip(P.TEAM_WEIGHTS, weights, strict=True)}
    die = comps.illager_faces
    doom = -w["lose"] * Fraction(die.count(L.FACE_ILLAGER), len(die))

    def end(pos):
        return doom if pos == 1 else Fraction(0)

    def roll(pos, rolls, panda):
        """The value (from the linear moves and where the fight ends) of rolling now."""
        total = Fraction(0)
        for face in faces:
            share = Fraction(1, len(faces))
            if face >= 0 and face + bonus >= value:
                total += share * (w["fight"] * unblock + end(pos))
                continue
            here, left, gain = pos, panda, Fraction(0)
            if face == L.FACE_ARROW and pos < last:
                here, gain = pos + 1, w["illager"]
            elif face == L.FACE_ILLAGER:
                if panda > 0:
                    left = panda - 1
                elif pos == 1:
                    total -= share * w["lose"]
                    continue
                else:
                    here, gain = pos - 1, -w["illager"]
            after = max(end(here), roll(here, rolls - 1, left)) if rolls > 1 else end(here)
            total += share * (gain + after)
        return total

    return float(roll(pos, rolls, panda) - end(pos))


@pytest.mark.parametrize(
    ("value", "pos", "rolls", "panda", "pet"),
    [(6, 1, 2, 0, None), (6, 1, 3, 1, "panda"), (5, 2, 2, 0, None), (4, 11, 3, 0, None),
     (6, 3, 3, 0, "wolf"), (6, 5, 1, 0, None), (5, 1, 1, 0, None)],
)  # fmt: skip
def test_r_hv_6_the_team_bot_values_rolling_on_by_the_exact_odds(value, pos, rolls, panda, pet):
    from bnb_sim.games.heroes_village.bot_fight import fight_value

    pets = (pet or "none", "none")
    g = Game(pets=pets, start=pos)
    buf = np.zeros(B_SIZE)
    for unblock in (1.0, 2.0):
        got = fight_value(TEAM, g.s, g.k, 0, value, unblock, rolls, panda, buf, B_FIGHT)
        want = fight_value_reference(g.comps, value, pos, rolls, panda, unblock, TEAM, pet)
        assert got == pytest.approx(want, abs=1e-12)


def _in_a_fight(start, pets=NO_PETS, rolls_done=1):
    g = Game(pets=pets, start=start)
    tile = g.lay(WOOD)
    mob_on(g, tile, 6)
    g.s[L.S_PHASE] = L.PH_FIGHT
    g.s[L.S_FIGHT_TILE] = tile
    g.s[L.S_FIGHT_ROLLS] = rolls_done
    g.s[L.S_ACTIONS_LEFT] = 1
    return g, tile


def test_r_hv_6_the_team_bot_stops_when_an_illager_face_would_risk_the_game():
    # on space 2 an Illager face leaves the Illager on 1, where the Illagers die at the end of
    # the turn can lose the game: against a 6 the bot stops
    g, tile = _in_a_fight(start=2)
    assert team_choice(g) == L.A_STOP
    # on space 1 the turn's end risks the game anyway, and only an arrow (or a building) saves
    # it: the bot rolls on; far from the village it always rolls on
    for start in (1, 6):
        g, tile = _in_a_fight(start=start)
        assert team_choice(g) == L.A_FIGHT + tile, start
    g, tile = _in_a_fight(start=2, pets=("panda", "none"))  # the Panda ignores that face
    assert team_choice(g) == L.A_FIGHT + tile


def test_r_hv_6_the_team_bot_stops_where_the_rolls_left_cost_more_than_the_win():
    # on the last space of the path an arrow cannot move the Illager: the last roll of a
    # fight against a 6 on a tile whose wood nobody needs costs more (an Illager face) than
    # the win is worth
    for pets, rolls_on in ((NO_PETS, False), (("wolf", "none"), True)):  # the Wolf wins on 5
        g, tile = _in_a_fight(start=11, pets=pets, rolls_done=2)
        g.set_pouch([0, 1, 1, 0, 1])
        g.give(0, WOOD, 3)
        g.give(1, WOOD, 3)  # the team holds every wood the buildings need
        assert (team_choice(g) == L.A_FIGHT + tile) == rolls_on, pets


def test_r_hv_6_the_team_bot_does_not_start_a_fight_it_would_stop_at_once():
    for start, fights in ((2, False), (8, True)):
        g = Game(pets=NO_PETS, start=start)
        tile = g.lay(WOOD)
        mob_on(g, tile, 6)
        mask = np.zeros(L.N_ACTIONS, np.bool_)
        mask[L.A_FIGHT + tile] = mask[L.A_PASS] = True  # the fight against nothing (worth 0)
        a = choose_team(TEAM, g.s, g.k, g.kf, mask, g.rng, 0, np.zeros(B_SIZE))
        assert (a == L.A_FIGHT + tile) == fights, start


def test_r_hv_6_the_random_bot_rolls_on_or_stops_at_random():
    g, tile = _in_a_fight(start=6)
    mask = g.legal()
    picks = {choose_random(mask, g.rng, 0) for _ in range(200)}
    assert picks == {L.A_FIGHT + tile, L.A_STOP}


# ----------------------------------------------------------------------------- R-HV-7 build


def _two_buildings(reading):
    g = Game(pets=NO_PETS, chosen=(0, 3, 6), comps=comps_with(extra={"readings.build": reading}))
    g.give(0, WOOD, 2)  # the well needs 2 wood + 1 sand, the house 2 wood + 2 sand
    g.give(0, SAND, 1)
    return g


def test_r_hv_7_one_build_action_may_hand_in_to_several_buildings():
    g = _two_buildings("several")
    g.s[L.S_NEED + 5], g.s[L.S_NEED + 6] = 1, 0  # the house: one wood left to give
    g.s[L.S_NEED + 0], g.s[L.S_NEED + 1] = 1, 1  # the well: 1 wood, 1 sand
    g.act(L.A_BUILD + 0)
    assert g.s[L.S_PHASE] == L.PH_BUILD and g.s[L.S_ACTIONS_LEFT] == 1
    assert legal(g) == [L.A_BUILD + 2, L.A_BUILD + 4, L.A_STOP]  # the house or the church
    g.act(L.A_BUILD + 2)  # the house, in the same action
    assert g.s[L.S_DONE + 0] == 1 and g.s[L.S_DONE + 1] == 1 and g.s[L.S_BUILT] == 2
    assert g.s[L.S_ACTIONS_LEFT] == 1 and g.stat(0, L.T_EXTRA_HAND_INS) == 1
    assert g.stat(0, L.T_BUILD) == 1 and g.s[L.S_PHASE] == L.PH_ACTION


def test_r_hv_7_the_player_may_stop_handing_in():
    g = _two_buildings("several")
    g.give(0, WOOD)  # 3 wood, 1 sand: the well takes 2 wood and the sand
    g.act(L.A_BUILD + 0)
    assert g.s[L.S_DONE + 0] == 1 and g.s[L.S_PHASE] == L.PH_BUILD
    g.act(L.A_STOP)
    assert g.s[L.S_PHASE] == L.PH_ACTION and g.inv(0)[WOOD] == 1
    assert g.s[L.S_ACTIONS_LEFT] == 1 and g.stat(0, L.T_EXTRA_HAND_INS) == 0


def test_r_hv_7_reading_build_one_ends_the_action_after_one_building():
    g = _two_buildings("one")
    g.s[L.S_NEED + 0], g.s[L.S_NEED + 1] = 1, 0  # the well: 1 wood
    g.act(L.A_BUILD + 0)
    assert g.s[L.S_DONE + 0] == 1 and g.s[L.S_PHASE] == L.PH_ACTION
    assert g.inv(0)[WOOD] == 1 and g.s[L.S_ACTIONS_LEFT] == 1  # the house: another action


def _play_team_games(comps, pets, games, check):
    """Team-bot games played decision by decision from Python; ``check(g, phase, a)`` sees
    the state after every decision ``a`` taken in ``phase``."""
    from bnb_sim.games.heroes_village.engine import apply_action, free_lay

    for index in range(games):
        g = Game(comps=comps, pets=pets, index=index)
        buf = np.zeros(B_SIZE)
        while g.s[L.S_PHASE] != L.PH_OVER and g.s[L.S_TURN] < 400:
            if g.s[L.S_PHASE] == L.PH_ACTION:
                free_lay(g.s, g.k, g.log)
            mask = g.legal()
            seat = int(g.s[L.S_SEAT])
            phase = int(g.s[L.S_PHASE])
            a = choose_team(TEAM, g.s, g.k, g.kf, mask, g.rng, seat, buf)
            apply_action(g.s, g.k, g.rng, a, g.log)
            check(g, phase, a, seat)


def test_r_hv_7_the_team_bot_leaves_no_block_another_building_needs():
    from bnb_sim.games.heroes_village.build import build_gain

    ended, left = [0], []

    def check(g, phase, a, seat):
        building = phase == L.PH_BUILD or (phase == L.PH_ACTION and L.A_BUILD <= a < L.A_DISCARD)
        if building and g.s[L.S_PHASE] != L.PH_BUILD and g.s[L.S_PHASE] != L.PH_OVER:
            ended[0] += 1  # a build action ended: nothing the seat holds fits a building
            left.extend(j for j in range(3) if not g.s[L.S_DONE + j]
                        and build_gain(g.s, g.k, seat, j, False) > 0)  # fmt: skip

    _play_team_games(comps_with(), ("wolf", "cat", "fox"), 40, check)
    assert ended[0] > 50 and left == []


# ----------------------------------------------------------------------------- R-HV-9 pets


def test_r_hv_9_the_horse_may_decline_its_second_tile_or_take_it_from_another_stack():
    g = Game(pets=("horse", "none"))
    g.act(L.A_EXPLORE + 0)
    assert legal(g) == [L.A_EXPLORE + 0, L.A_EXPLORE + 1, L.A_EXPLORE + 2, L.A_STOP]
    g.act(L.A_STOP)
    assert g.s[L.S_TILES_LAID] == 1 and g.stat(0, L.T_HORSE_DECLINED) == 1
    assert g.s[L.S_PHASE] == L.PH_ACTION and g.s[L.S_ACTIONS_LEFT] == 1
    g.act(L.A_EXPLORE + 0)
    g.act(L.A_EXPLORE + 2)  # the second tile from another stack
    heights = [int(g.s[L.S_STACK_H + st]) for st in range(3)]
    assert heights == [4, 6, 5] and g.stat(0, L.T_EXPLORE) == 2


def test_r_hv_9_the_team_bot_takes_the_horses_second_tile():
    g = Game(pets=("horse", "none"))
    g.act(L.A_EXPLORE + 0)
    assert team_choice(g) != L.A_STOP


@pytest.mark.parametrize(("reading", "mob"), [("first-block", True), ("first-draw", False)])
def test_r_hv_9_cat_reading_for_two_darkness_blocks_in_one_draw(reading, mob):
    g = Game(pets=("cat", "none"), comps=comps_with(extra={"readings.cat": reading}))
    g.s[L.S_PATH_DARK] = 0  # a second darkness block for the pouch
    g.s[L.S_SUPPLY + DARK] += 1
    tile = g.lay(WOOD)
    g.set_pouch([1, 0, 0, 0, 2])
    g.act(L.A_COLLECT + tile)  # draws 1 wood and 2 darkness
    assert (g.s[L.S_TILE_MOB + tile] >= 0) == mob
    assert g.stat(0, L.T_DARK_IGNORED) == (1 if mob else 2)
    if not mob:  # the Cat's protection is used up for this turn
        g.set_pouch([0, 0, 0, 0, 1])
        g.act(L.A_COLLECT + tile)
        assert g.s[L.S_TILE_MOB + tile] >= 0


@pytest.mark.parametrize("reading", ["first-block", "first-draw"])
def test_r_hv_9_the_team_bot_sees_the_cat_reading(reading):
    from bnb_sim.games.heroes_village.bots import B_P_MOB, _collect_value

    g = Game(pets=("cat", "none"), comps=comps_with(extra={"readings.cat": reading}))
    g.set_pouch([1, 0, 0, 0, 1])
    g.s[L.S_POUCH + DARK] += 1  # two darkness of three blocks (the test needs no conservation)
    buf = np.zeros(B_SIZE)
    buf[B_P_MOB] = -1.0
    _collect_value(TEAM, g.s, g.k, 0, L.CAT, WOOD, buf)
    assert (buf[B_P_MOB] > 0.5) == (reading == "first-block")


# ----------------------------------------------------------------------------- R-HV-3 free laying


def _all_tops_show(g, block):
    """Every stack top of ``g`` shows ``block`` only (the backs are rewritten in ``k``)."""
    for st in range(3):
        top = int(g.s[L.S_STACK + st * L.MAX_TILES + g.s[L.S_STACK_H + st] - 1])
        base = L.K_TILE_BACK + top * L.N_BLOCKS
        g.k[base : base + L.N_BLOCKS] = 0
        g.k[base + block] = 1


@pytest.mark.parametrize(("reading", "laid"), [("needed", True), ("available", False)])
def test_r_hv_3_free_lay_reading_counts_blocks_no_longer_needed(reading, laid):
    from bnb_sim.games.heroes_village.engine import free_lay

    # the well, the hut and the shed: level 1, no redstone needed
    g = Game(pets=NO_PETS, chosen=(0, 1, 2), comps=comps_with(extra={"readings.free_lay": reading}))
    _all_tops_show(g, RED)  # available (3 redstone in the supply) but not needed
    free_lay(g.s, g.k, g.log)
    assert (g.s[L.S_FREE_TILES] > 0) == laid
    assert g.s[L.S_ACTIONS_LEFT] == 2  # not an action


# ----------------------------------------------------------------------------- R-HV-2 turn order


def test_r_hv_2_seat_0_starts_and_play_proceeds_to_the_next_seat():
    g = Game(pets=("wolf", "cat", "fox"), comps=comps_with(illagers=["blank"]))
    seats = []
    for _ in range(7):
        seats.append(int(g.s[L.S_SEAT]))
        for _action in range(2):
            g.act(L.A_EXPLORE + next(st for st in range(3) if g.s[L.S_STACK_H + st]))
    assert seats == [0, 1, 2, 0, 1, 2, 0]


def test_r_hv_2_the_docs_state_the_starting_player_and_the_turn_order():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "rules-reference.md").read_text()
    part3 = text[text.index("## Part 3") :]
    rule = part3[part3.index("**R-HV-2**") :].split("\n- **")[0]
    assert "starting player" in rule and "seat 0" in rule and "to the left" in rule


# ----------------------------------------------------------------------------- decisions in runs


def test_the_decisions_appear_in_the_run_columns():
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.runner import make_config, play_block

    cfg = make_config(load_components(), 3, ["random"], "horse,cat,fox", seed=3)
    seats, games = play_block(cfg, 0, 300)
    for col in ("fights_stopped", "horse_tiles_declined", "extra_hand_ins"):
        assert seats[col].sum() > 0, col
    assert games["fights_stopped"].sum() == seats["fights_stopped"].sum()
    assert seats.loc[seats["pet"] != "horse", "horse_tiles_declined"].sum() == 0


def test_every_pet_team_plays_clean_games_with_every_reading_value():
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.readings import READINGS
    from bnb_sim.games.heroes_village.runner import make_config, play_arrays

    for name, reading in READINGS.items():
        for value in reading.values:
            comps = load_components().with_readings({name: value})
            cfg = make_config(comps, 4, ["team", "random"], "all", seed=11, check=True)
            for team in itertools.islice(cfg.teams, 0, None, 5):
                _, game_out = play_arrays(cfg, team, 0, 60)
                assert (game_out[:, 0] == L.ST_OK).all(), (name, value, team)
