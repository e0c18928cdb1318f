"""Fights and weapons: R-FIGHT-1..6 and R-WEAPON-1, through the Game API.

Outcome distributions of fights played by the engine are compared with the exact odds of
``bnb_sim.combat_odds`` (within 4 standard errors).
"""

from __future__ import annotations

import math

import engine_helpers as H
import numpy as np
import pytest

from bnb_sim import combat_odds
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import state as S
from bnb_sim.games.builders_biomes.engine.scoring import end_game

START = {"wooden_sword": 1, "stone_sword": 1, "poisonous_potato": 3}


def _mob_next_to_centre(game, stack=5, face_up=True, **criteria):
    t = H.tile(game, **criteria)
    H.put_on_top(game, stack, t, face_up=face_up)
    return t


def _spec(pile: dict) -> str:
    return ",".join(f"{name}*{count}" for name, count in pile.items() if count)


# ---- R-FIGHT-1 --------------------------------------------------------------------------
def test_r_fight_1_needs_a_face_up_mob_next_to_the_character():
    # R-FIGHT-1
    game = H.new_game(2, seed=1)
    mob = _mob_next_to_centre(game, face_up=False, kind="hunger", species="zombie")
    building = H.tile(game, kind="building")
    H.put_on_top(game, 6, building)  # a face-up building is not a mob
    assert H.FIGHT not in game.legal_actions()
    H.put_on_top(game, 5, mob, face_up=True)
    assert H.FIGHT in game.legal_actions()
    H.set_position(game, 0, H.point(4, 4))  # far away
    assert H.FIGHT not in game.legal_actions()
    H.set_position(game, 0, H.point(1, 2))  # also next to stack 5
    H.play(game, H.FIGHT)
    assert game.legal_actions() == [5]
    H.assert_consistent(game)


# ---- R-FIGHT-2..5: deterministic cases ----------------------------------------------------
def test_r_fight_2_reveal_stops_when_the_pile_is_exhausted():
    # R-FIGHT-2
    game = H.new_game(2, seed=2, log=True)
    _mob_next_to_centre(game, kind="hunger", species="enderman")
    H.set_pile(game, 0, {"stone_sword": 1, "wooden_sword": 1})
    events = H.fight(game, 5)
    tokens = sorted(e["text"] for e in events if e["event"] == "token")
    assert tokens == ["reveals stone_sword", "reveals wooden_sword"]  # 2 tokens, not 3


def test_r_fight_2_every_bow_reveals_one_more_and_chains():
    # R-FIGHT-2
    game = H.new_game(2, seed=3, log=True)
    _mob_next_to_centre(game, kind="hunger", species="enderman")
    # 2 bows + 2 potatoes: whatever the order, the bows chain until everything is revealed
    H.set_pile(game, 0, {"bow": 2, "poisonous_potato": 2})
    events = H.fight(game, 5)
    assert sum(e["event"] == "token" for e in events) == 4
    # 1 bow + 3 potatoes: 4 revealed if the bow is among the first 3 (probability 3/4)
    H.set_pile(game, 0, {"bow": 1, "poisonous_potato": 3})
    counts = []
    snapshot = game._pub.copy(), game._hid.copy()
    for _ in range(400):
        game._pub[:], game._hid[:] = snapshot
        H.set_turn(game, 0)
        events = H.fight(game, 5)
        counts.append(sum(e["event"] == "token" for e in events))
    assert set(counts) == {3, 4}
    share = counts.count(4) / len(counts)
    assert abs(share - 0.75) < 4 * math.sqrt(0.75 * 0.25 / len(counts))


def test_r_fight_3_golden_hoe_gives_xp_win_or_lose():
    # R-FIGHT-3
    game = H.new_game(2, seed=4, log=True)
    _mob_next_to_centre(game, kind="hunger", species="enderman")  # 6 hearts: a sure loss
    H.set_pile(game, 0, {"golden_hoe": 1, "poisonous_potato": 2})
    events = H.fight(game, 5)
    assert [e["event"] for e in events if e["event"] in ("hoe", "fight_end")] == [
        "hoe",
        "fight_end",
    ]
    assert game._pub[S.C_LAST_WIN] == 0
    assert H.xp_by_source(game, 0)[S.XP_HOES] == 2 and game.xp()[0] == 2


def test_r_fight_3_stone_pickaxe_collects_a_block_at_once():
    # R-FIGHT-3
    game = H.new_game(2, seed=5, log=True)
    _mob_next_to_centre(game, kind="hunger", species="enderman")
    H.set_pile(game, 0, {"stone_pickaxe": 1, "poisonous_potato": 2})
    snapshot = game._pub.copy(), game._hid.copy()
    seen = set()
    for _ in range(30):  # the block comes at once, before the remaining reveals
        game._pub[:], game._hid[:] = snapshot
        H.play(game, H.FIGHT, 5)
        assert game.phase == "pickaxe"
        seen.add(int(game._pub[L.P_FIGHT_REVEALED : L.P_FIGHT_REVEALED + 16].sum()))
    assert seen == {1, 2, 3}
    corners = [H.pos(0, 0, 0), H.pos(0, 0, 3), H.pos(0, 3, 0), H.pos(0, 3, 3)]
    assert game.legal_actions() == corners + [H.PASS]  # R-CUBE-1 blocks; may decline
    events = H.play(game, H.pos(0, 3, 3))
    take = [e for e in events if e["event"] == "take_block"]
    assert len(take) == 1 and take[0]["c"] == 1  # by the pickaxe
    assert sum(H.supply(game, 0)) == 1
    H.assert_consistent(game)


def test_r_fight_3_pickaxe_block_can_trigger_scoring():
    # R-FIGHT-3
    game = H.new_game(2, seed=6, log=True)
    _mob_next_to_centre(game, kind="hunger", species="enderman")
    keep = [p for p in range(64) if p >= 16 or p == H.pos(0, 2, 2)]
    H.set_cube(game, keep)  # one block left in layer 1
    H.set_pile(game, 0, {"stone_pickaxe": 1, "poisonous_potato": 2})
    H.play(game, H.FIGHT, 5)
    H.play(game, H.pos(0, 2, 2))
    assert game._pub[S.C_ROUNDS_PENDING] == 1
    H.play(game, H.EXPLORE, H.point(2, 2))
    assert game.phase == "score" and game._pub[S.C_SCORE_ROUND] == 0
    H.assert_consistent(game)


def test_r_fight_3_pickaxe_is_optional_or_forced_by_the_option():
    # R-FIGHT-3
    game = H.new_game(2, seed=6, pickaxe_optional=False)
    _mob_next_to_centre(game, kind="hunger", species="enderman")
    H.set_pile(game, 0, {"stone_pickaxe": 1, "poisonous_potato": 2})
    H.play(game, H.FIGHT, 5)
    assert game.phase == "pickaxe" and H.PASS not in game.legal_actions()


@pytest.mark.parametrize(
    "species, detonate, wins",
    [("creeper", 0, 0), ("creeper", 1, 1), ("enderman", 1, 0)],  # 4 and 6 hearts
)
def test_r_fight_4_tnt_leaves_the_game_only_when_detonated(species, detonate, wins):
    # R-FIGHT-4
    game = H.new_game(2, seed=7, log=True)
    _mob_next_to_centre(game, kind="hunger", species=species)
    H.set_pile(game, 0, {"tnt": 1, "poisonous_potato": 2})
    tnt = H.weapon(game, "tnt")
    H.play(game, H.FIGHT, 5)
    assert game.phase == "tnt" and game.legal_actions() == [0, 1]
    events = H.play(game, detonate)
    assert game._pub[S.C_LAST_WIN] == wins  # 0 hearts, or 5 when detonated (win or lose)
    end = [e for e in events if e["event"] == "fight_end"][0]
    assert end["b"] == 5 * detonate
    assert H.pile(game, 0)[tnt] == 1 - detonate
    assert game._pub[L.stat_at(0, S.S_TNT)] == detonate
    H.assert_consistent(game)  # token conservation counts detonated TNT


def test_r_fight_5_hearts_at_least_the_mob_wins_and_the_tile_is_taken():
    # R-FIGHT-5
    game = H.new_game(2, seed=8)
    skeleton = _mob_next_to_centre(game, kind="hunger", species="skeleton")  # 3 hearts
    H.set_pile(game, 0, {"stone_sword": 1, "wooden_sword": 1, "poisonous_potato": 1})
    before = H.pile(game, 0)
    height = int(game._pub[L.P_STACK_H + 5])
    H.fight(game, 5)
    assert game._pub[S.C_LAST_WIN] == 1  # 3 hearts against 3: equal is enough
    assert game._pub[L.P_N_HELD] == 1 and game._pub[L.P_HELD] == skeleton
    assert H.xp_by_source(game, 0)[S.XP_MOBS] == H.tile_attr(game, L.TILE_XP, skeleton)
    assert game._pub[L.P_STACK_H + 5] == height - 1 and game._pub[L.P_TOP_UP + 5] == -1
    assert H.pile(game, 0) == before  # revealed tokens go back into the pile
    H.assert_consistent(game)


def test_r_fight_5_a_lost_mob_stays_face_up_where_it_is():
    # R-FIGHT-5
    game = H.new_game(2, seed=9)
    creeper = _mob_next_to_centre(game, kind="hunger", species="creeper")  # 4 hearts
    H.set_pile(game, 0, {"stone_sword": 1, "wooden_sword": 1, "poisonous_potato": 1})
    before = H.pile(game, 0)
    H.fight(game, 5)
    assert game._pub[S.C_LAST_WIN] == 0 and game.xp()[0] == 0
    assert game._pub[L.P_TOP_UP + 5] == creeper and game._pub[S.C_UP_MOBS] >> 5 & 1
    assert game._pub[L.P_N_HELD] == 0 and H.pile(game, 0) == before
    H.assert_consistent(game)


# ---- R-FIGHT-2..5: distributions against the exact odds -----------------------------------
def _fight_many(game, stack, n):
    pub0, hid0 = game._pub.copy(), game._hid.copy()
    rows = []
    for _ in range(n):
        game._pub[:], game._hid[:] = pub0, hid0
        H.fight(game, stack)
        tnt = int(game._pub[L.stat_at(0, S.S_TNT)])
        revealed = int(game._pub[L.P_FIGHT_REVEALED : L.P_FIGHT_REVEALED + 16].sum()) + tnt
        rows.append(
            (
                int(game._pub[S.C_LAST_WIN]),
                H.xp_by_source(game, 0)[S.XP_HOES],
                sum(H.supply(game, 0)),
                revealed,
                tnt,
            )
        )
    return np.array(rows, float)


@pytest.mark.parametrize(
    "extra, species",
    [
        ({"iron_sword": 1, "bow": 1, "golden_hoe": 1, "stone_pickaxe": 1, "tnt": 1}, "creeper"),
        ({"bow": 2, "golden_hoe": 2}, "zombie"),
        ({"tnt": 2, "diamond_sword": 1, "stone_pickaxe": 2}, "enderman"),
    ],
)
def test_r_fight_2_to_5_outcomes_match_the_exact_odds(extra, species):
    # R-FIGHT-2, R-FIGHT-3, R-FIGHT-4, R-FIGHT-5
    game = H.new_game(2, seed=10)
    mob = _mob_next_to_centre(game, kind="hunger", species=species)
    pile = dict(START)
    for name, count in extra.items():
        pile[name] = pile.get(name, 0) + count
    H.set_pile(game, 0, pile)
    H.assert_consistent(game)
    hearts = H.tile_attr(game, L.TILE_HEARTS, mob)
    odds = combat_odds(_spec(pile), hearts, components=game.config.components)
    rows = _fight_many(game, 5, 3000)
    n = len(rows)
    expected = [
        odds.p_win,
        odds.expected_hoe_xp,
        odds.expected_pickaxe_blocks,
        odds.expected_revealed,
        odds.expected_tnt_spent,
    ]
    names = ["win", "hoe xp", "pickaxe blocks", "revealed", "tnt spent"]
    for j, name in enumerate(names):
        sd = max(rows[:, j].std(), 1e-9)
        assert abs(rows[:, j].mean() - expected[j]) < 4 * sd / math.sqrt(n) + 1e-12, name


# ---- R-FIGHT-6 --------------------------------------------------------------------------
def test_r_fight_6_hunger_mob_is_kept_to_spend_and_bonus_mob_to_the_end():
    # R-FIGHT-6
    game = H.new_game(2, seed=11)
    zombie_bonus = _mob_next_to_centre(game, stack=5, kind="bonus", species="zombie")
    spider = _mob_next_to_centre(game, stack=6, kind="hunger", species="spider")
    H.set_pile(game, 0, {"stone_sword": 1, "wooden_sword": 1})  # 3 hearts: sure wins
    H.fight(game, 6)
    assert game._pub[L.P_N_HUNGER] == 1 and game._pub[L.P_HELD] == spider
    H.play(game, H.EXPLORE, H.point(2, 2))
    H.play(game, 1)  # R-TURN-2 (hunger=together): return the spider for one extra action
    H.play(game, H.FIGHT)  # the extra action, bought with the spider
    H.play(game, 5)
    assert game._pub[L.P_N_HUNGER] == 0 and game._pub[L.P_N_HELD] == 1
    assert game._pub[L.P_HELD] == zombie_bonus  # the bonus mob is kept
    xp_mobs = H.xp_by_source(game, 0)[S.XP_MOBS]
    assert xp_mobs == sum(H.tile_attr(game, L.TILE_XP, t) for t in (spider, zombie_bonus))
    # at the end the bonus mob scores (1 XP per wood building); the spent spider nothing
    wood = H.tiles(game, kind="building", material="wood")
    H.place_building(game, 0, 0, wood[0])
    H.place_building(game, 0, 8, wood[1])
    end_game(game._pub, game._hid, game._k)
    assert H.xp_by_source(game, 0)[S.XP_BONUS_MOBS] == 2
    assert H.xp_by_source(game, 0)[S.XP_MOBS] == xp_mobs
    H.assert_consistent(game)


# ---- R-WEAPON-1 -------------------------------------------------------------------------
def test_r_weapon_1_take_a_token_next_to_the_character():
    # R-WEAPON-1
    game = H.new_game(2, seed=12)
    tokens = game.reveal()["tokens"]
    assert H.WEAPON not in game.legal_actions()  # the centre has no token next to it
    H.set_position(game, 0, H.point(4, 4))  # next to spots 7 (cell (5,4)) and 15 ((4,5))
    obs = game.observation(0)
    # the identities of the tokens on the table are not part of what the seat sees
    shuffled = game._hid.copy()
    order = np.random.default_rng(1).permutation(16)
    shuffled[L.H_TOK_SLOT : L.H_TOK_SLOT + 16] = tokens[order]
    saved = game._hid.copy()
    game._hid[:] = shuffled
    assert np.array_equal(game.observation(0), obs)
    game._hid[:] = saved
    H.play(game, H.WEAPON)
    assert game.legal_actions() == [7, 15]
    before = H.pile(game, 0)
    H.play(game, 15)
    after = H.pile(game, 0)
    t = int(tokens[15])
    assert after[t] == before[t] + 1 and sum(after) == sum(before) + 1
    assert game.reveal()["tokens"][15] == -1 and not game._pub[S.C_TOKENS] >> 15 & 1
    own = game.observation(0)[L.P_OWN_PILE : L.P_OWN_PILE + len(after)]
    assert own.tolist() == after  # the owner knows the contents of the pile
    H.set_turn(game, 0)
    H.play(game, H.WEAPON)
    assert game.legal_actions() == [7]  # a taken token is gone
    H.assert_consistent(game)
