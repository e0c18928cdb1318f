"""Restricted play: ``never``/``always`` lists of a policy (bot files and spec suffixes) are
applied to the legal set, so no rule or fallback can break them (engine/restrict.py)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from bnb_sim.errors import PolicyError
from bnb_sim.games.builders_biomes.policies.registry import parse_policy
from bnb_sim.games.builders_biomes.run_config import GameConfig
from bnb_sim.runner.simulate import simulate

FM = "farmers-market"


def _player(seats, player=0):
    return seats[seats["player"] == player]


@pytest.fixture(scope="module")
def fm_free():
    return simulate(150, 3, ["heuristic"], 11, expansion=FM, threads=1)


def test_r_fm_4_never_buy_an_item_is_never_bought_and_the_others_still_are(fm_free):
    """R-FM-4 under restriction: the crafting table is bought by the free bot, never by the
    restricted one, which still buys other items."""
    assert _player(fm_free)["item_crafting_table"].sum() > 0
    seats = simulate(
        150, 3, ["heuristic+never=buy:crafting_table", "heuristic", "heuristic"], 11,
        expansion=FM, threads=1,
    )  # fmt: skip
    mine = _player(seats)
    assert mine["item_crafting_table"].sum() == 0
    assert mine["items_bought"].sum() > 0
    assert _player(seats, 1)["item_crafting_table"].sum() > 0  # the others are free


def test_r_fm_4_always_buy_an_item_buys_it_whenever_affordable(fm_free):
    forced = simulate(
        150, 3, ["heuristic+always=buy:minecart", "heuristic", "heuristic"], 11,
        expansion=FM, threads=1,
    )  # fmt: skip
    bought = _player(forced)["item_minecart"].sum()
    assert bought > _player(fm_free)["item_minecart"].sum()
    assert (_player(forced)["bought_round_minecart"] == 0).sum() > 0  # early: when first legal


def test_never_buy_at_all(fm_free):
    seats = simulate(60, 3, ["heuristic+never=buy", "heuristic", "heuristic"], 11,
                     expansion=FM, threads=1)  # fmt: skip
    assert _player(seats)["items_bought"].sum() == 0


def test_r_fight_1_never_fight_and_never_one_mob():
    free = simulate(80, 2, ["heuristic"], 5, threads=1)
    assert _player(free)["fights"].sum() > 0
    seats = simulate(80, 2, ["heuristic+never=fight", "heuristic"], 5, threads=1)
    assert _player(seats)["fights"].sum() == 0
    assert _player(seats, 1)["fights"].sum() > 0
    some = simulate(80, 2, ["greedy+never=fight:zombie,fight:spider", "greedy"], 5, threads=1)
    mine = _player(some)
    assert mine["fights_zombie"].sum() == 0 and mine["fights_spider"].sum() == 0
    assert mine["fights"].sum() > 0


def test_r_build_1_never_build_a_type():
    seats = simulate(60, 2, ["heuristic+never=build:dwelling", "heuristic"], 2, threads=1)
    mine = _player(seats)
    assert mine["built_dwelling"].sum() == 0
    assert mine["buildings_built"].sum() > 0


def test_always_fight_fights_more():
    free = simulate(60, 2, ["greedy"], 4, threads=1)
    forced = simulate(60, 2, ["greedy+always=fight", "greedy"], 4, threads=1)
    assert _player(forced)["fights"].sum() > _player(free)["fights"].sum()


def test_r_turn_1_never_explore_still_ends_every_game():
    """With explore forbidden a turn may end when nothing else is legal (R-TURN-1: only legal
    actions may be chosen; the engine ends a turn with no legal main action left)."""
    seats = simulate(30, 2, ["random+never=explore", "random"], 1, threads=1)
    assert len(seats) == 60


def test_a_bot_files_never_fight_beats_its_own_fight_rule_and_fallback(tmp_path):
    bot = tmp_path / "nofight.toml"
    bot.write_text(
        'name = "nofight"\nfallback = "heuristic"\nnever = ["fight"]\n\n'
        '[[turn]]\nchoose = "fight"\n'
    )
    seats = simulate(60, 2, [f"bot:{bot}", "heuristic"], 3, threads=1)
    assert _player(seats)["fights"].sum() == 0


def test_unrestricted_rows_do_not_change_with_the_restriction_code():
    """A spec without a suffix gives the same rows as before (pinned in test_base_pinned);
    here: the same spec twice, once through the suffix parser with an empty restriction."""
    a = simulate(20, 2, ["heuristic"], 9, threads=1)
    spec = parse_policy("heuristic")
    assert spec.never == () and spec.always == ()
    b = simulate(20, 2, [spec], 9, threads=1)
    assert a.equals(b)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("heuristic+never=figth", "'figth' is not an action type (did you mean 'fight'?)"),
        ("heuristic+never=weapon:x", "only buy, fight, build take a target"),
        ("heuristic+never=fight+always=fight:zombie", "forbidden by 'never'"),
        ("heuristic+never=fight,fight", "listed twice"),
    ],
)
def test_bad_restrictions_are_one_line_errors(spec, message):
    with pytest.raises(PolicyError, match=re.escape(message)):
        parse_policy(spec)


def test_names_are_checked_against_the_components_with_a_did_you_mean():
    with pytest.raises(PolicyError, match=r"no item 'crafting_tabel' \(did you mean"):
        GameConfig.create(3, ["heuristic+never=buy:crafting_tabel"], expansion=FM)
    with pytest.raises(PolicyError, match="needs the Farmer's Market expansion"):
        GameConfig.create(2, ["heuristic+never=buy"])


def test_a_bot_files_bad_name_names_the_file_and_the_key(tmp_path):
    bot = tmp_path / "b.toml"
    bot.write_text('never = ["fight:endermen"]\n')
    with pytest.raises(PolicyError, match=r"bot file .*b\.toml: 'never': 'fight:endermen': no mob"):
        GameConfig.create(2, [f"bot:{bot}"])
    bot.write_text('always = "figth"\n')
    with pytest.raises(PolicyError, match=r"b\.toml: 'always': 'figth' is not an action type"):
        parse_policy(f"bot:{bot}")


def test_restrictions_go_into_k_per_player():
    from bnb_sim.games.builders_biomes.engine import layout as L

    config = GameConfig.create(3, ["heuristic", "heuristic+never=fight:enderman"])
    k = config.kernel_inputs[0]
    assert k[L.K_RESTRICT_ON] == 1
    rows = k[L.K_RESTRICT_PLAYERS :].reshape(L.MAX_SEATS, L.RESTRICT_SIZE)
    enderman = config.components.mob_names.index("enderman")
    assert rows[1, L.RX_NEVER_MOBS] == 1 << enderman
    assert not rows[0].any() and not rows[2].any()
    free = GameConfig.create(3, ["heuristic"]).kernel_inputs[0]
    assert not np.any(free[L.K_RESTRICT :])
