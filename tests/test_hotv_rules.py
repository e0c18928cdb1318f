"""Heroes of the Village rules (R-HV-1 .. R-HV-11) on states built by hand."""

from __future__ import annotations

import numpy as np
import pytest

from bnb_sim.errors import SpecError
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village.components import load_components
from bnb_sim.games.heroes_village.engine import can_hold, end_turn, free_lay, place_mob
from tests.hotv_helpers import Game, comps_with

WOOD, SAND, STONE, RED, DARK = L.WOOD, L.SAND, L.STONE, L.REDSTONE, L.DARKNESS
NO_PETS = ("none", "none")


def free_path_darkness(g, n):
    """Move ``n`` darkness blocks from the path to the supply (to set up a pouch)."""
    for i in range(n):
        g.s[L.S_PATH_DARK + i] = 0
        g.s[L.S_SUPPLY + DARK] += 1


def mob_on(g, tile):
    assert place_mob(g.s, g.k, tile, g.log)
    return int(g.k[L.K_TOKEN_VALUE + g.s[L.S_TILE_MOB + tile]])


# ----------------------------------------------------------------------------- R-HV-10 set-up


def test_r_hv_10_setup_pouch_stacks_path_and_buildings():
    g = Game(pets=("wolf", "cat", "fox"))
    assert g.pouch() == [1, 1, 1, 0, 1]
    assert [int(g.s[L.S_STACK_H + i]) for i in range(3)] == [6, 6, 6]
    assert g.illager == 9
    assert list(g.s[L.S_PATH_DARK : L.S_PATH_DARK + 3]) == [1, 1, 1]
    # the 25 blocks: supply + pouch + path
    assert sum(g.supply()) + sum(g.pouch()) + 3 == 25
    assert g.supply() == [5, 5, 5, 3, 0]
    # one building of each level (R-HV-10: three of nine in three levels)
    levels = sorted(g.comps.buildings[int(b)]["level"] for b in g.s[L.S_CHOSEN : L.S_CHOSEN + 3])
    assert levels == [1, 2, 3]
    assert [int(p) for p in g.pets[:3]] == [L.WOLF, L.CAT, L.FOX]


def test_r_hv_10_easy_difficulty_starts_on_space_11():
    assert Game(start=11).illager == 11


def test_r_hv_10_two_to_four_players():
    from bnb_sim.games.heroes_village.runner import make_config

    comps = load_components()
    for n in (2, 3, 4):
        assert make_config(comps, n, ["team"], None).n_players == n
    for n in (1, 5):
        with pytest.raises(SpecError, match="2 to 4 players"):
            make_config(comps, n, ["team"], None)


def test_r_hv_10_the_shuffle_depends_on_the_game_index():
    a, b = Game(index=0), Game(index=1)
    assert list(a.s[L.S_STACK : L.S_STACK + 6]) != list(b.s[L.S_STACK : L.S_STACK + 6])
    again = Game(index=0)
    assert np.array_equal(a.s, again.s)


# ----------------------------------------------------------------------------- R-HV-2 turn


def test_r_hv_2_a_turn_is_two_actions_and_the_same_action_may_repeat():
    g = Game(pets=NO_PETS, comps=comps_with(illagers=["blank"]))
    assert g.s[L.S_SEAT] == 0
    g.act(L.A_EXPLORE + 0)
    assert g.s[L.S_SEAT] == 0 and g.s[L.S_ACTIONS_LEFT] == 1
    g.act(L.A_EXPLORE + 0)  # the same action again
    assert g.s[L.S_SEAT] == 1 and g.s[L.S_TURN] == 1
    assert g.s[L.S_ACTIONS_LEFT] == 2


def test_r_hv_2_discarding_is_free_and_not_an_action():
    g = Game(pets=NO_PETS)
    g.give(0, WOOD)
    g.act(L.A_DISCARD + WOOD)
    assert g.s[L.S_ACTIONS_LEFT] == 2 and g.inv(0)[WOOD] == 0


# ----------------------------------------------------------------------------- R-HV-3 explore


def test_r_hv_3_explore_puts_the_back_blocks_into_the_pouch():
    g = Game(pets=NO_PETS)
    tile = int(g.s[L.S_STACK + 5])  # top of stack 0
    back = list(g.k[L.K_TILE_BACK + tile * 5 : L.K_TILE_BACK + tile * 5 + 5])
    before = g.pouch()
    g.act(L.A_EXPLORE + 0)
    assert g.pouch() == [a + b for a, b in zip(before, back, strict=True)]
    assert g.s[L.S_TILE_LAID + tile] == 0 and g.s[L.S_STACK_H] == 5


def test_r_hv_3_a_tile_is_laid_with_what_is_available():
    g = Game(pets=NO_PETS)
    tile = int(g.s[L.S_STACK + 5])
    back = list(g.k[L.K_TILE_BACK + tile * 5 : L.K_TILE_BACK + tile * 5 + 5])
    shown = [b for b in range(4) if back[b] > 0]
    gone = shown[0]
    g.set_pouch([g.pouch()[b] + (g.supply()[b] if b == gone else 0) for b in range(5)])
    before = g.pouch()
    g.act(L.A_EXPLORE + 0)
    expected = [before[b] + (back[b] if b != gone else 0) for b in range(5)]
    assert g.pouch() == expected and g.s[L.S_TILE_LAID + tile] == 0


def test_r_hv_3_tiles_are_laid_free_while_every_top_is_unavailable():
    g = Game(pets=NO_PETS)
    g.set_pouch([a + b for a, b in zip(g.pouch(), g.supply(), strict=True)])  # supply empty
    free_lay(g.s, g.k, g.log)
    assert g.s[L.S_TILES_LAID] == 18 and g.s[L.S_FREE_TILES] == 18
    assert g.s[L.S_ACTIONS_LEFT] == 2  # not an action
    g.check()


def test_r_hv_3_free_laying_stops_at_a_usable_top():
    g = Game(pets=NO_PETS)
    keep_red = g.supply()[RED]
    g.set_pouch([g.pouch()[b] + (g.supply()[b] if b != RED else 0) for b in range(5)])
    assert g.supply()[RED] == keep_red
    free_lay(g.s, g.k, g.log)
    tops = [int(g.s[L.S_STACK + st * L.MAX_TILES + g.s[L.S_STACK_H + st] - 1])
            for st in range(3) if g.s[L.S_STACK_H + st] > 0]  # fmt: skip
    assert any(g.k[L.K_TILE_BACK + t * 5 + RED] > 0 for t in tops)
    assert g.s[L.S_FREE_TILES] == g.s[L.S_TILES_LAID]


# ----------------------------------------------------------------------------- R-HV-4 collect


def test_r_hv_4_matching_blocks_go_to_the_inventory_darkness_back_and_a_mob_appears():
    g = Game(pets=NO_PETS)
    tile = g.lay(WOOD)
    g.set_pouch([2, 0, 0, 0, 1])
    g.act(L.A_COLLECT + tile)
    assert g.inv(0) == [2, 0, 0, 0, 0]
    assert g.pouch() == [0, 0, 0, 0, 1]  # the darkness went back
    assert g.s[L.S_TILE_MOB + tile] >= 0
    mask = g.legal()
    assert not mask[L.A_COLLECT + tile] and mask[L.A_FIGHT + tile]  # the mob blocks the tile


def test_r_hv_4_one_mob_at_most_per_collect():
    g = Game(pets=NO_PETS)
    free_path_darkness(g, 2)
    tile = g.lay(SAND)
    g.set_pouch([0, 0, 0, 0, 3])
    g.act(L.A_COLLECT + tile)
    assert g.s[L.S_MOBS_SPAWNED] == 1 and g.pouch()[DARK] == 3


def test_r_hv_4_fewer_than_three_blocks_draws_all():
    g = Game(pets=NO_PETS)
    tile = g.lay(STONE)
    g.set_pouch([0, 0, 2, 0, 0])
    g.act(L.A_COLLECT + tile)
    assert g.inv(0)[STONE] == 2 and sum(g.pouch()) == 0


def test_r_hv_4_other_blocks_go_back_and_redstone_goes_to_its_slot():
    g = Game(pets=NO_PETS)
    tile = g.lay(WOOD)
    g.set_pouch([0, 1, 0, 2, 0])
    g.act(L.A_COLLECT + tile)
    assert g.inv(0) == [0, 0, 0, 1, 0]  # one redstone slot; the sand and a redstone go back
    assert g.pouch() == [0, 1, 0, 1, 0]


def test_r_hv_4_matching_blocks_need_a_free_slot():
    g = Game(pets=NO_PETS)
    tile = g.lay(WOOD)
    g.give(0, STONE, 3)
    g.set_pouch([3, 0, 0, 0, 0])
    g.act(L.A_COLLECT + tile)
    assert g.inv(0)[WOOD] == 0 and g.pouch()[WOOD] == 3


def test_r_hv_4_a_tile_without_a_symbol_cannot_be_collected():
    g = Game(pets=NO_PETS)
    tile = g.lay(L.NO_SYMBOL)
    assert not g.legal()[L.A_COLLECT + tile]


# ----------------------------------------------------------------------------- R-HV-5 inventory


def test_r_hv_5_three_general_slots_and_one_redstone_slot():
    g = Game(pets=NO_PETS)
    g.give(0, WOOD)
    g.give(0, DARK if g.supply()[DARK] else SAND)
    g.give(0, STONE)
    assert not can_hold(g.s, g.k, 0, SAND) and not can_hold(g.s, g.k, 0, DARK)
    assert can_hold(g.s, g.k, 0, RED)
    g.give(0, RED)
    assert not can_hold(g.s, g.k, 0, RED)


def test_r_hv_5_darkness_takes_a_general_slot():
    g = Game(pets=NO_PETS)
    free_path_darkness(g, 1)
    g.give(0, DARK)
    g.give(0, WOOD, 2)
    assert not can_hold(g.s, g.k, 0, STONE)


# ----------------------------------------------------------------------------- R-HV-6 fight


def test_r_hv_6_a_roll_that_reaches_the_value_defeats_the_mob_after_one_roll():
    g = Game(pets=NO_PETS, comps=comps_with(fight=[6]))
    tile = g.lay(WOOD)
    mob_on(g, tile)
    g.set_pouch([0, 0, 0, 0, 0])
    g.act(L.A_FIGHT + tile)
    assert g.s[L.S_TILE_MOB + tile] == -1 and g.s[L.S_MOBS_DEFEATED] == 1
    assert g.stat(0, L.T_ROLLS) == 1


def test_r_hv_6_three_rolls_at_most_and_the_mob_stays_after_a_lost_fight():
    g = Game(pets=NO_PETS, comps=comps_with(fight=[4]))
    tile = g.lay(WOOD)
    value = mob_on(g, tile)
    g.fight_on(tile)
    if value > 4:
        assert g.stat(0, L.T_ROLLS) == 3 and g.s[L.S_TILE_MOB + tile] >= 0
    else:
        assert g.s[L.S_TILE_MOB + tile] == -1


def test_r_hv_6_arrow_moves_the_illager_away_and_illager_face_toward_the_village():
    g = Game(pets=NO_PETS, comps=comps_with(fight=["arrow"]), start=5)
    tile = g.lay(WOOD)
    mob_on(g, tile)
    g.fight_on(tile)
    assert g.illager == 8
    g = Game(pets=NO_PETS, comps=comps_with(fight=["illager"]), start=10)
    tile = g.lay(WOOD)
    mob_on(g, tile)
    g.fight_on(tile)
    assert g.illager == 7 and g.s[L.S_TILE_MOB + tile] >= 0


def test_r_hv_6_the_reward_draws_three_and_a_darkness_block_may_be_kept():
    g = Game(pets=NO_PETS, comps=comps_with(fight=[6]))
    tile = g.lay(WOOD)
    mob_on(g, tile)
    g.set_pouch([1, 1, 0, 0, 1])
    g.act(L.A_FIGHT + tile)
    assert g.s[L.S_PHASE] == L.PH_PICK
    mask = g.legal()
    assert mask[L.A_PICK + DARK] and mask[L.A_PICK + WOOD] and mask[L.A_PICK_NONE]
    g.act(L.A_PICK + DARK)
    assert g.inv(0)[DARK] == 1 and g.pouch() == [1, 1, 0, 0, 0]
    assert g.s[L.S_PHASE] == L.PH_ACTION and g.s[L.S_ACTIONS_LEFT] == 1


# ----------------------------------------------------------------------------- R-HV-7 build


def test_r_hv_7_a_finished_building_moves_the_illager_away():
    g = Game(pets=NO_PETS, chosen=(0, 3, 6))  # well: 2 wood + 1 sand
    g.give(0, WOOD, 2)
    g.give(0, SAND)
    g.act(L.A_BUILD + 0)
    assert g.s[L.S_DONE] == 1 and g.s[L.S_BUILT] == 1 and g.illager == 10
    assert g.inv(0) == [0, 0, 0, 0, 0]


def test_r_hv_7_blocks_stay_on_a_building_until_it_is_finished():
    g = Game(pets=NO_PETS, chosen=(0, 3, 6))
    g.give(0, WOOD, 1)
    g.act(L.A_BUILD + 0)
    assert list(g.s[L.S_NEED : L.S_NEED + 5]) == [1, 1, 0, 0, 0] and g.s[L.S_DONE] == 0
    g.give(1, WOOD)
    g.give(1, SAND)
    g.s[L.S_SEAT] = 1  # players work together on the buildings
    g.act(L.A_BUILD + 0)
    assert g.s[L.S_DONE] == 1


def test_r_hv_7_darkness_is_wild_when_building():
    g = Game(pets=NO_PETS, chosen=(0, 3, 6))
    free_path_darkness(g, 2)
    g.give(0, WOOD, 1)
    g.give(0, DARK, 2)
    mask = g.legal()
    assert mask[L.A_BUILD + 1]  # hand in with darkness as wild
    g.act(L.A_BUILD + 1)
    assert g.s[L.S_DONE] == 1 and g.inv(0) == [0, 0, 0, 0, 0]


def test_r_hv_7_discarded_blocks_go_back_to_the_supply():
    g = Game(pets=NO_PETS)
    g.give(0, STONE)
    supply = g.supply()[STONE]
    g.act(L.A_DISCARD + STONE)
    assert g.supply()[STONE] == supply + 1


# ----------------------------------------------------------------------------- R-HV-8 end of turn


def test_r_hv_8_the_illagers_die_moves_the_piece_at_the_end_of_a_turn():
    g = Game(pets=NO_PETS, comps=comps_with(illagers=["illager"]), start=8)
    g.act(L.A_EXPLORE + 0)
    assert g.illager == 8
    g.act(L.A_EXPLORE + 1)
    assert g.illager == 7
    # landing on space 7 put its darkness block into the pouch
    assert g.s[L.S_PATH_DARK + 0] == 0


def test_r_hv_8_a_blank_leaves_the_piece():
    g = Game(pets=NO_PETS, comps=comps_with(illagers=["blank"]))
    end_turn(g.s, g.k, g.rng, g.log)
    assert g.illager == 9


def test_r_hv_8_darkness_on_spaces_7_6_5_goes_into_the_pouch():
    g = Game(pets=NO_PETS, comps=comps_with(illagers=["illager"]), start=8)
    dark = g.pouch()[DARK]
    for _ in range(4):
        end_turn(g.s, g.k, g.rng, g.log)
    assert g.illager == 4 and g.pouch()[DARK] == dark + 3
    g.check()


# ----------------------------------------------------------------------------- R-HV-9 pets


def test_r_hv_9_wolf_adds_one_to_fight_rolls():
    for pet, defeated in (("wolf", True), ("none", False)):
        g = Game(pets=(pet, "none"), comps=comps_with(fight=[5]))
        tile = g.lay(WOOD)
        g.s[L.S_MOB_PILE + g.s[L.S_MOB_NEXT]] = len(g.comps.mob_tokens) - 1  # a value-6 mob
        assert mob_on(g, tile) == 6
        g.set_pouch([0, 0, 0, 0, 0])
        g.fight_on(tile)
        assert (g.s[L.S_TILE_MOB + tile] == -1) == defeated


def test_r_hv_9_cat_ignores_the_first_darkness_each_turn():
    g = Game(pets=("cat", "none"))
    tile = g.lay(WOOD)
    g.set_pouch([1, 0, 0, 0, 1])
    g.act(L.A_COLLECT + tile)
    assert g.s[L.S_TILE_MOB + tile] == -1 and g.stat(0, L.T_DARK_IGNORED) == 1
    g.set_pouch([0, 0, 0, 0, 1])
    g.act(L.A_COLLECT + tile)  # the second darkness of the turn counts
    assert g.s[L.S_TILE_MOB + tile] >= 0


def test_r_hv_9_fox_keeps_one_extra_non_matching_block_but_not_redstone():
    g = Game(pets=("fox", "none"))
    tile = g.lay(WOOD)
    g.set_pouch([1, 1, 0, 1, 0])
    g.s[L.S_INV + RED] = 0
    g.give(0, RED)  # the redstone slot is full, so the drawn redstone goes back
    g.act(L.A_COLLECT + tile)
    assert g.s[L.S_PHASE] == L.PH_PICK
    mask = g.legal()
    assert mask[L.A_PICK + SAND] and not mask[L.A_PICK + RED]
    g.act(L.A_PICK + SAND)
    assert g.inv(0) == [1, 1, 0, 1, 0] and g.stat(0, L.T_FOX) == 1
    h = Game(pets=("none", "none"))
    tile = h.lay(WOOD)
    h.set_pouch([1, 1, 0, 0, 0])
    h.act(L.A_COLLECT + tile)
    assert h.inv(0) == [1, 0, 0, 0, 0] and h.s[L.S_PHASE] == L.PH_ACTION


def test_r_hv_9_panda_ignores_the_first_illager_face_of_a_fight():
    for pet, end in (("panda", 7), ("none", 6)):
        g = Game(pets=(pet, "none"), comps=comps_with(fight=["illager"]), start=9)
        tile = g.lay(WOOD)
        mob_on(g, tile)
        g.fight_on(tile)
        assert g.illager == end, pet


def test_r_hv_9_horse_may_lay_two_tiles_when_exploring():
    for pet, laid in (("horse", 2), ("none", 1)):
        g = Game(pets=(pet, "none"))
        g.act(L.A_EXPLORE + 2)
        if pet == "horse":  # the second tile is the player's decision (PH_HORSE)
            assert g.s[L.S_PHASE] == L.PH_HORSE and g.s[L.S_ACTIONS_LEFT] == 1
            g.act(L.A_EXPLORE + 2)
        assert g.s[L.S_TILES_LAID] == laid and g.s[L.S_STACK_H + 2] == 6 - laid
        assert g.s[L.S_PHASE] == L.PH_ACTION and g.s[L.S_ACTIONS_LEFT] == 1


def test_r_hv_9_llama_adds_one_slot_for_any_block():
    g = Game(pets=("llama", "none"))
    g.give(0, WOOD, 3)
    assert can_hold(g.s, g.k, 0, SAND)
    g.give(0, RED)
    assert can_hold(g.s, g.k, 0, RED)  # the extra slot may take a second redstone
    g.give(0, RED)
    assert not can_hold(g.s, g.k, 0, SAND) and not can_hold(g.s, g.k, 0, RED)
    h = Game(pets=("none", "none"))
    h.give(0, WOOD, 3)
    assert not can_hold(h.s, h.k, 0, SAND)


# ----------------------------------------------------------------------------- R-HV-1 the end


def test_r_hv_1_three_buildings_win_at_once():
    g = Game(pets=NO_PETS, chosen=(0, 1, 2))
    g.s[L.S_DONE] = g.s[L.S_DONE + 1] = 1
    g.s[L.S_BUILT] = 2
    for j in (0, 1):
        for b in range(5):
            g.s[L.S_HANDED + b] += g.s[L.S_NEED + j * 5 + b]
            g.s[L.S_SUPPLY + b] -= g.s[L.S_NEED + j * 5 + b]
            g.s[L.S_NEED + j * 5 + b] = 0
    g.give(0, STONE, 2)
    g.give(0, WOOD)
    g.act(L.A_BUILD + 4)
    assert g.s[L.S_PHASE] == L.PH_OVER and g.s[L.S_WON] == 1 and g.illager == 9


def test_r_hv_1_the_illager_reaching_the_village_loses():
    g = Game(pets=NO_PETS, comps=comps_with(illagers=["illager"]), start=1)
    g.act(L.A_EXPLORE + 0)
    g.act(L.A_EXPLORE + 0)
    assert g.s[L.S_PHASE] == L.PH_OVER and g.s[L.S_WON] == 0 and g.illager == 0
    assert not g.legal().any()


def test_r_hv_1_a_fight_can_lose_the_game():
    g = Game(pets=NO_PETS, comps=comps_with(fight=["illager"]), start=1)
    tile = g.lay(WOOD)
    mob_on(g, tile)
    g.act(L.A_FIGHT + tile)
    assert g.s[L.S_PHASE] == L.PH_OVER and g.s[L.S_LOST_IN_FIGHT] == 1
    assert g.stat(0, L.T_ROLLS) == 1  # the fight stops when the game ends


# ----------------------------------------------------------------------------- R-HV-11 dice data


def test_r_hv_11_the_fight_die_faces_come_from_the_components():
    comps = load_components()
    faces = comps.data["dice"]["fight"]["faces"]
    for known in (4, 5, 6, "arrow", "illager"):
        assert known in faces
    assert len(faces) == 6
    row = next(r for r in comps.provenance_rows() if r["key"] == "dice.fight.faces")
    assert row["provenance"] == "estimate" and "sixth" in row["reason"]


def test_r_hv_11_darkness_accumulates_in_the_pouch():
    g = Game(pets=NO_PETS, comps=comps_with(illagers=["illager"]))
    tile = g.lay(WOOD)
    g.set_pouch([0, 0, 0, 0, 1])
    g.act(L.A_COLLECT + tile)
    assert g.pouch()[DARK] == 1  # drawn darkness returns
    for _ in range(4):
        end_turn(g.s, g.k, g.rng, g.log)
    assert g.illager == 5 and g.pouch()[DARK] == 4  # and the path adds its three blocks
