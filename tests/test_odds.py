"""Exact combat odds (bnb_sim.games.builders_biomes.engine.odds), the all-piles table, the façade
and ``bnb odds``.

Oracles: brute force over every order of small piles, and a closed form for piles whose only
extra-reveal tokens are bows (the revealed tokens are those up to the third non-bow: a
uniform 3-subset of the non-bows plus a negative-hypergeometric number of bows).
Rules: R-FIGHT-2, R-FIGHT-3, R-FIGHT-4, R-FIGHT-5.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from default_tokens import (  # noqa: E402
    BOW,
    DIAMOND,
    FULL,
    HOE,
    IRON,
    NAMES,
    PICKAXE,
    POTATO,
    START,
    STONE,
    TABLE,
    TNT,
    TOKENS,
    WOOD,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from bnb_sim.errors import BnbError, SpecError
from bnb_sim.games.builders_biomes import odds as odds_api
from bnb_sim.games.builders_biomes.engine.odds import exact_odds, pile_index, pile_table

MOBS = {"spider": 1, "zombie": 2, "skeleton": 3, "creeper": 4, "witch": 5, "enderman": 6}
FULL_SPEC = (
    "wooden_sword,stone_sword*3,potato*3,iron_sword*4,diamond_sword*2,bow*2,hoe*2,pickaxe*2,tnt*2"
)


def counts_of(**named: int) -> np.ndarray:
    short = ["wood", "stone", "potato", "iron", "diamond", "bow", "hoe", "pickaxe", "tnt"]
    out = np.zeros(9, np.int64)
    for name, count in named.items():
        out[short.index(name)] = count
    return out


@pytest.fixture(scope="module")
def comps():
    """The default components; the hand-built arrays above restate their weapon tokens."""
    comps = odds_api.get_components(None)
    for name, values in zip(
        ("tok_hearts", "tok_extra_reveals", "tok_xp", "tok_blocks", "tok_detonate"),
        TOKENS,
        strict=True,
    ):
        assert getattr(comps.arrays, name).tolist() == values.tolist(), name
    assert comps.weapon_names == NAMES and comps.mob_hearts == MOBS
    return comps


# --------------------------------------------------------------------------- oracles


def best_detonation(revealed: Counter, hearts: int, tok_hearts, tok_detonate):
    """(win, win_no_tnt, spent) by trying every detonation subset (R-FIGHT-4, R-FIGHT-5)."""
    base = sum(tok_hearts[t] * c for t, c in revealed.items())
    if base >= hearts:
        return True, True, 0
    kinds = [t for t in revealed if tok_detonate[t] > 0]
    best = None
    for used in itertools.product(*(range(revealed[t] + 1) for t in kinds)):
        total = base + sum(
            u * (tok_detonate[t] - tok_hearts[t]) for u, t in zip(used, kinds, strict=True)
        )
        if total >= hearts and (best is None or sum(used) < best):
            best = sum(used)
    return (best is not None), False, (best or 0)


def brute_force(counts, tokens, fight_reveal, h_max):
    """Average over every order of the token instances (R-FIGHT-2)."""
    tok_hearts, tok_extra, tok_xp, tok_blocks, tok_detonate = tokens
    instances = [t for t, c in enumerate(counts) for _ in range(c)]
    outcomes: Counter = Counter()
    for order in itertools.permutations(instances):
        owed, shown = fight_reveal, []
        for t in order:
            if owed <= 0:
                break
            shown.append(t)
            owed += tok_extra[t] - 1
        outcomes[tuple(sorted(shown))] += 1
    n_orders = math.factorial(len(instances))
    return score(outcomes, n_orders, tokens, h_max)


def score(outcomes: Counter, total: float, tokens, h_max):
    tok_hearts, _, tok_xp, tok_blocks, tok_detonate = tokens
    out = {
        "p_win": np.zeros(h_max + 1),
        "p_no": np.zeros(h_max + 1),
        "spent": np.zeros(h_max + 1),
        "revealed": 0.0,
        "xp": 0.0,
        "blocks": 0.0,
    }
    for shown, weight in outcomes.items():
        p = weight / total
        revealed = Counter(shown)
        out["revealed"] += p * len(shown)
        out["xp"] += p * sum(tok_xp[t] for t in shown)
        out["blocks"] += p * sum(tok_blocks[t] for t in shown)
        for h in range(h_max + 1):
            win, win_no, spent = best_detonation(revealed, h, tok_hearts, tok_detonate)
            out["p_win"][h] += p * win
            out["p_no"][h] += p * win_no
            out["spent"][h] += p * spent
    return out


def closed_form_bows(counts, tokens, fight_reveal, h_max):
    """Bows (+1 reveal) are the only extra-reveal tokens: a second, independent oracle."""
    bows = int(counts[BOW])
    others = [t for t, c in enumerate(counts) if t != BOW for _ in range(c)]
    m, f = len(others), fight_reveal
    outcomes: Counter = Counter()
    if m <= f:  # the pile runs out before the reveals do
        outcomes[tuple(sorted(others + [BOW] * bows))] = 1.0
        return score(outcomes, 1.0, tokens, h_max)
    n_subsets = math.comb(m, f)
    for subset in itertools.combinations(others, f):
        for x in range(bows + 1):  # bows before the f-th non-bow: negative hypergeometric
            p_x = math.comb(x + f - 1, x) * math.comb(bows - x + m - f, bows - x)
            p_x /= math.comb(bows + m, bows)
            outcomes[tuple(sorted(subset + (BOW,) * x))] += p_x / n_subsets
    return score(outcomes, 1.0, tokens, h_max)


def exact(counts, tokens=TOKENS, fight_reveal=3, h_max=12):
    p_win, p_no, spent, dist, rev, xp, blocks = exact_odds(
        np.asarray(counts, np.int64), *tokens, fight_reveal, h_max
    )
    return {
        "p_win": p_win,
        "p_no": p_no,
        "spent": spent,
        "dist": dist,
        "revealed": rev,
        "xp": xp,
        "blocks": blocks,
    }


def assert_same(got, want, tol=1e-12):
    for key in ("p_win", "p_no", "spent", "revealed", "xp", "blocks"):
        np.testing.assert_allclose(got[key], want[key], rtol=0, atol=tol, err_msg=key)


SMALL_PILES = [
    counts_of(wood=1, stone=1, potato=3),  # the starting pile
    counts_of(wood=1, potato=1),  # fewer than 3 tokens
    counts_of(bow=1),
    counts_of(bow=2, iron=1, potato=2, tnt=1),  # bows chaining
    counts_of(bow=3, hoe=1, pickaxe=1, tnt=2, wood=1),
    counts_of(bow=4, potato=2, diamond=1, stone=1),
    counts_of(tnt=3, potato=2, stone=1, hoe=1, bow=1),
]


@pytest.mark.parametrize("counts", SMALL_PILES, ids=lambda c: "-".join(map(str, c)))
def test_exact_equals_brute_force_over_all_orders(
    counts,
):  # R-FIGHT-2 R-FIGHT-3 R-FIGHT-4 R-FIGHT-5
    assert_same(exact(counts), brute_force(counts, TOKENS, 3, 12))


def test_exact_equals_brute_force_with_chained_double_reveals():  # R-FIGHT-2: chains
    # a custom token revealing 2 more, and two detonatable kinds (5 and 3 hearts)
    tokens = (
        np.array([1, 0, 2, 0, 1], np.int64),
        np.array([2, 0, 0, 0, 1], np.int64),
        np.array([0, 1, 0, 0, 0], np.int64),
        np.array([0, 0, 1, 0, 0], np.int64),
        np.array([0, 0, 0, 5, 3], np.int64),
    )
    for counts in ([1, 2, 1, 1, 2], [2, 1, 2, 2, 1], [0, 3, 1, 2, 2]):
        for reveal in (1, 2, 3):
            assert_same(exact(counts, tokens, reveal, 10), brute_force(counts, tokens, reveal, 10))


@pytest.mark.parametrize(
    "counts",
    [
        counts_of(bow=2, wood=1, stone=1, potato=3),
        counts_of(bow=3, iron=2, potato=2, tnt=2, hoe=1, pickaxe=1),
        counts_of(bow=5, diamond=1, potato=1),  # fewer than 3 non-bows
        FULL,
    ],
    ids=["start+2bows", "mixed", "short", "full21"],
)
def test_exact_equals_negative_hypergeometric_closed_form(counts):  # R-FIGHT-2 R-FIGHT-4
    assert_same(exact(counts, h_max=14), closed_form_bows(counts, TOKENS, 3, 14))


def test_exact_refuses_a_key_space_beyond_int64():
    # 64 tokens of 64 different kinds: 2**64 revealed multisets cannot be keyed in an int64
    n = 64
    tokens = (np.arange(n), np.zeros(n, np.int64), np.zeros(n), np.zeros(n), np.zeros(n))
    tokens = tuple(np.asarray(t, np.int64) for t in tokens)
    with pytest.raises(ValueError, match="distinct token kinds"):
        exact_odds(np.ones(n, np.int64), *tokens, 3, 5)


# --------------------------------------------------------------------------- R-FIGHT-4


def test_tnt_spent_on_a_hand_computable_pile():  # R-FIGHT-4
    # tnt, wooden sword, 2 potatoes: 3 of 4 revealed; the sword shows with P = 3/4
    got = exact(counts_of(tnt=1, wood=1, potato=2), h_max=7)
    assert got["p_no"][1] == pytest.approx(0.75, abs=1e-15)
    assert got["p_win"][1] == pytest.approx(1.0, abs=1e-15)  # TNT covers the other 1/4
    assert got["spent"][1] == pytest.approx(0.25, abs=1e-15)  # ... and only then is used
    assert got["p_win"][2] == pytest.approx(0.75, abs=1e-15)  # needs the TNT, shown w.p. 3/4
    assert got["spent"][2] == pytest.approx(0.75, abs=1e-15)
    assert got["p_win"][6] == pytest.approx(0.5, abs=1e-15)  # TNT and sword both: 1/2
    assert got["p_win"][7] == 0.0


def test_tnt_as_few_as_needed_and_never_when_winning():  # R-FIGHT-4
    got = exact(counts_of(tnt=3), h_max=16)  # all three always revealed
    assert got["spent"].tolist() == [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 0]
    got = exact(counts_of(diamond=3, tnt=2), h_max=12)  # 3 of 5 revealed
    assert got["p_no"][4] == 1.0 and got["spent"][4] == 0.0  # base >= 4 always: no TNT


def test_potatoes_only_never_win():  # R-FIGHT-5 (potato 0 hearts)
    got = exact(counts_of(potato=5), h_max=6)
    assert got["p_win"][0] == 1.0
    assert got["p_win"][1:].tolist() == [0.0] * 6 and got["p_no"][1:].tolist() == [0.0] * 6


def test_starting_pile_against_a_skeleton_is_three_in_ten(comps):  # R-FIGHT-5
    odds = odds_api.combat_odds("stone_sword,wooden_sword,potato*3", mob="skeleton")
    assert odds.p_win == pytest.approx(0.3, abs=1e-12)
    assert odds.p_win_no_tnt == odds.p_win and odds.expected_tnt_spent == 0.0
    assert odds.mobs == ["skeleton"]


# --------------------------------------------------------------------------- properties

pile_counts = st.lists(st.integers(0, 3), min_size=9, max_size=9).filter(lambda c: sum(c) > 0)


@settings(max_examples=150, deadline=None)
@given(pile_counts)
def test_properties_of_exact_odds(counts):  # R-FIGHT-4 R-FIGHT-5
    got = exact(counts, h_max=40)
    tol = 1e-12
    for key in ("p_win", "p_no"):
        assert ((got[key] >= -tol) & (got[key] <= 1 + tol)).all()
        assert (np.diff(got[key]) <= tol).all()  # non-increasing in the mob's hearts
    assert (got["p_win"] >= got["p_no"] - tol).all()  # TNT is only ever used to win
    assert abs(got["dist"].sum() - 1.0) < 1e-12
    # optimal TNT wins exactly when the most achievable hearts reach the mob's hearts
    tail = np.cumsum(got["dist"][::-1])[::-1]
    n = min(41, tail.shape[0])
    np.testing.assert_allclose(got["p_win"][:n], tail[:n], atol=1e-12)
    # each TNT-dependent win spends at least one and at most every TNT in the pile
    extra_wins = got["p_win"] - got["p_no"]
    assert (got["spent"] >= extra_wins - tol).all()
    assert (got["spent"] <= extra_wins * counts[TNT] + tol).all()
    # reveals: 3, more with bows, never more than the pile
    assert min(3, sum(counts)) - tol <= got["revealed"] <= sum(counts) + tol


@settings(max_examples=60, deadline=None)
@given(pile_counts)
def test_adding_a_bow_never_lowers_expected_revealed(counts):  # R-FIGHT-2
    # (adding a non-bow CAN: {bow, 3 swords} reveals 4, {bow, 4 swords} only 3.6 on average)
    more = np.array(counts)
    more[BOW] += 1
    assert exact(more)["revealed"] >= exact(counts)["revealed"] - 1e-12


@settings(max_examples=60, deadline=None)
@given(pile_counts, st.sampled_from([WOOD, STONE, IRON, DIAMOND]))
def test_upgrading_a_potato_never_lowers_p_win(counts, sword):  # R-FIGHT-5
    # (adding a potato CAN lower p_win: it dilutes the pile)
    if counts[POTATO] == 0:
        return
    better = np.array(counts)
    better[POTATO] -= 1
    better[sword] += 1
    assert (exact(better)["p_win"] >= exact(counts)["p_win"] - 1e-12).all()


@settings(max_examples=60, deadline=None)
@given(pile_counts)
def test_without_bows_the_reveal_is_min_3_n(counts):  # R-FIGHT-2 R-FIGHT-3
    counts = list(counts)
    counts[BOW] = 0
    if sum(counts) == 0:
        return
    got = exact(counts)
    k = min(3, sum(counts))
    assert got["revealed"] == pytest.approx(k, abs=1e-12)
    assert got["xp"] == pytest.approx(2 * counts[HOE] * k / sum(counts), abs=1e-12)
    assert got["blocks"] == pytest.approx(counts[PICKAXE] * k / sum(counts), abs=1e-12)


# --------------------------------------------------------------------------- pile_table


@pytest.fixture(scope="module")
def table():
    return pile_table(START, TABLE, *TOKENS, 3, 7)


def test_pile_table_size_for_default_data(table):
    assert table.p_win.shape == (3645, 8)
    assert table.e_revealed.shape == (3645,)
    assert table.mins.tolist() == [1, 1, 3, 0, 0, 0, 0, 0, 0]  # TNT may drop to 0


def test_pile_table_rows_equal_direct_exact_odds(table):
    rng = np.random.default_rng(5)
    piles = [START, FULL, START + counts_of(tnt=0)] + [
        table.mins + np.array([rng.integers(0, r) for r in table.radix]) for _ in range(25)
    ]
    for counts in piles:
        row = pile_index(np.asarray(counts, np.int64), table.mins, table.strides)
        want = exact(counts, h_max=7)
        assert table.p_win[row].tolist() == want["p_win"].tolist()
        assert table.p_win_no_tnt[row].tolist() == want["p_no"].tolist()
        assert table.e_tnt_spent[row].tolist() == want["spent"].tolist()
        assert table.e_revealed[row] == want["revealed"]
        assert table.e_hoe_xp[row] == want["xp"]
        assert table.e_pickaxe_blocks[row] == want["blocks"]
    assert pile_index(FULL, table.mins, table.strides) == 3644


def test_pile_table_for_fewer_hearts_is_the_larger_tables_first_columns():
    """Each heart value's column is filled on its own, so the table for ``h_max`` 4 is the
    first five columns of the table for 9, bit for bit: what lets the bots' tables keep one
    pile table for every mob hearts (policies/tables.py)."""
    small, large = pile_table(START, TABLE, *TOKENS, 3, 4), pile_table(START, TABLE, *TOKENS, 3, 9)
    for field in ("p_win", "p_win_no_tnt", "e_tnt_spent"):
        assert np.array_equal(getattr(small, field), getattr(large, field)[:, :5])
    for field in ("e_hoe_xp", "e_pickaxe_blocks", "e_revealed"):
        assert np.array_equal(getattr(small, field), getattr(large, field))


def test_the_bots_tables_fill_one_pile_table_for_every_mob_hearts(comps, monkeypatch):
    """Components that differ only in a mob's hearts (a game tuning's candidates) share one
    pile table, cut to the heart columns each needs: equal to tables built from nothing."""
    from bnb_sim.games.builders_biomes.policies import tables as bots

    variants = [comps.with_values({"mobs.enderman.hearts": h}, origin="test") for h in (8, 3, 6)]
    monkeypatch.setattr(bots, "_PILE_TABLES", {})
    fresh = []
    for variant in variants:
        bots._PILE_TABLES.clear()
        fresh.append(bots.build_policy_tables(variant.arrays))
    from bnb_sim.games.builders_biomes.engine import odds as engine

    filled, fill = [], engine.pile_table

    def counting(*args):
        filled.append(args[-1])  # h_max
        return fill(*args)

    monkeypatch.setattr(engine, "pile_table", counting)
    for variant, want in zip(variants, fresh, strict=True):
        got = bots.build_policy_tables(variant.arrays)
        for field in want._fields:
            assert np.array_equal(getattr(got, field), getattr(want, field)), field
    assert filled == [8]  # the first (the most hearts) served all three


def test_pile_table_empty_rows_and_size_limit():
    # a sword and a TNT on the table, nothing at the start: row 0 is the empty pile
    hearts, zero, detonate = np.array([1, 0]), np.zeros(2, np.int64), np.array([0, 5])
    small = pile_table(zero, np.array([1, 1]), hearts, zero, zero, zero, detonate, 3, 5)
    assert small.p_win.shape == (2 * 2, 6)
    assert small.p_win[0].tolist() == [0.0] * 6 and small.e_revealed[0] == 0.0
    assert small.p_win[1].tolist() == [1.0] * 6  # just the TNT: detonated up to 5 hearts
    assert small.p_win[3].tolist() == [1.0] * 6 and small.p_win_no_tnt[3, 1:].sum() == 1.0
    with pytest.raises(BnbError, match="rows"):
        n = 21
        pile_table(np.zeros(n), np.ones(n), *(np.zeros(n),) * 5, 3, 6)  # 2**21 rows


# --------------------------------------------------------------------------- façade


def test_parse_pile_names_aliases_repeats_and_whitespace(comps):
    counts = odds_api.parse_pile(" stone_sword , wooden_sword,potato * 3,bow*2, tnt ", comps)
    assert counts[comps.resolve_weapon("poisonous_potato")] == 3
    assert counts[comps.resolve_weapon("bow")] == 2
    assert counts.sum() == 8
    same = odds_api.parse_pile({"stone_sword": 1, "wooden_sword": 1, "potato": 3}, comps)
    assert same.tolist() == odds_api.parse_pile("stone_sword,wooden_sword,potato*3", comps).tolist()


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("sword", "unknown weapon token 'sword'.*valid:.*bow"),
        ("bow*0", "positive integer"),
        ("bow*x", "positive integer"),
        ("bow*-1", "positive integer"),
        ("bow*1.5", "positive integer"),
        ("bow*", "positive integer"),
        ("potato*65", "more than the limit of 64"),
        ("potato*40,bow*25", "more than the limit of 64"),
        ("bow*" + "9" * 5000, "more than the limit of 64"),
        ("", "empty pile"),
        ("   ", "empty pile"),
        ("bow,,tnt", "empty item at position 2"),
        ("bow,", "empty item"),
        ("*3", "malformed item"),
        ("bow**2", "malformed item"),
        ("bow;tnt", "malformed item"),
        ({"bow": 0}, "positive integer"),
        ({"bow": True}, "positive integer"),
        ({"axe": 1}, "unknown weapon token"),
        (42, "expected a spec string"),
    ],
)
def test_parse_pile_errors_name_the_bad_part(comps, spec, match):
    with pytest.raises(SpecError, match=match) as info:
        odds_api.parse_pile(spec, comps)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("hearts", [0, -1, 1.5, True, "3", None])
def test_hearts_must_be_a_positive_integer(comps, hearts):
    with pytest.raises(SpecError, match="hearts|mob"):
        odds_api.combat_odds("bow", hearts)


def test_combat_odds_and_table(comps):  # R-FIGHT-4 R-FIGHT-5
    odds = odds_api.combat_odds(FULL_SPEC, 4)
    want = exact(FULL, h_max=4)
    assert odds.p_win == want["p_win"][4] and odds.p_win_no_tnt == want["p_no"][4]
    assert odds.expected_tnt_spent == want["spent"][4]
    assert odds.mobs == ["creeper"] and odds.simulated is None
    assert sum(odds.hearts_distribution.values()) == pytest.approx(1.0, abs=1e-12)
    assert {"name": "tnt", "count": 2, "hearts": 0} in odds.pile
    data = json.loads(json.dumps(odds.to_dict()))
    assert data["p_win"] == odds.p_win and "simulated" not in data
    assert odds_api.combat_odds(FULL_SPEC, mob="Creeper") == odds
    assert odds_api.combat_odds("potato", 99).p_win == 0.0  # beyond the pile's reach
    rows = odds_api.combat_odds_table(FULL_SPEC)
    assert [row.hearts for row in rows] == sorted(set(comps.mob_hearts.values()))
    assert rows[3] == odds
    with pytest.raises(SpecError, match="not both"):
        odds_api.combat_odds("bow", 3, mob="spider")
    with pytest.raises(SpecError, match="unknown mob 'dragon'.*enderman"):
        odds_api.combat_odds("bow", mob="dragon")


def test_simulate_combat_intervals_and_determinism(comps):  # R-FIGHT-2..R-FIGHT-5
    odds = odds_api.combat_odds(FULL_SPEC, 5, simulate=20_000, seed=3)
    sim = odds.simulated
    assert sim["n"] == 20_000 and sim["seed"] == 3
    for key in ("p_win", "p_win_no_tnt", "expected_revealed", "expected_tnt_spent"):
        est = sim[key]
        assert est["low"] <= est["estimate"] <= est["high"]
        assert abs(est["estimate"] - getattr(odds, key)) <= 4 * est["se"] + 1e-12
    again = odds_api.simulate_combat(FULL_SPEC, 5, 20_000, seed=3)
    assert again == sim
    assert odds_api.simulate_combat(FULL_SPEC, 5, 20_000, seed=4) != sim
    assert json.loads(json.dumps(odds.to_dict()))["simulated"]["n"] == 20_000
    with pytest.raises(SpecError, match="n must be"):
        odds_api.simulate_combat("bow", 1, 0)
    with pytest.raises(SpecError, match="seed"):
        odds_api.simulate_combat("bow", 1, 10, seed=-1)


def test_wilson_interval_at_the_edges():
    low, high = odds_api._wilson(100, 100)
    assert high == 1.0 and 0.96 < low < 0.97
    low, high = odds_api._wilson(3, 50)
    assert (round(low, 3), round(high, 3)) == (0.021, 0.162)  # docs/design.md, "Statistics"


# --------------------------------------------------------------------------- CLI


def run_cli(capsys, *args):
    from bnb_sim.cli import main

    with pytest.raises(SystemExit) as info:
        main(["odds", *args])
        raise SystemExit(0)
    out = capsys.readouterr()
    return info.value.code or 0, out.out, out.err


def test_cli_json_single(comps, capsys):
    code, out, err = run_cli(capsys, "--pile", FULL_SPEC, "--hearts", "4", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    for key in (
        "hearts",
        "p_win",
        "p_win_no_tnt",
        "expected_revealed",
        "expected_hoe_xp",
        "expected_pickaxe_blocks",
        "expected_tnt_spent",
        "pile",
    ):
        assert key in data
    assert data["hearts"] == 4 and data["p_win"] == odds_api.combat_odds(FULL_SPEC, 4).p_win
    assert set(data["pile"][0]) == {"name", "count", "hearts"}


def test_cli_table_mob_and_simulate(comps, capsys):
    code, out, _ = run_cli(capsys, "--pile", "stone_sword,wooden_sword,potato*3", "--json")
    table = json.loads(out)["table"]
    assert code == 0 and [row["hearts"] for row in table] == [1, 2, 3, 4, 5, 6]
    assert table[2]["mobs"] == ["skeleton"] and table[2]["p_win"] == pytest.approx(0.3)

    code, out, _ = run_cli(capsys, "--pile", "stone_sword,wooden_sword,potato*3")
    assert code == 0 and "skeleton" in out and "30.00%" in out

    code, out, _ = run_cli(capsys, "--pile", FULL_SPEC, "--mob", "enderman")
    assert code == 0 and "Against 6 hearts (enderman)" in out and "P(win)" in out

    args = ("--pile", FULL_SPEC, "--mob", "witch", "--simulate", "5000", "--seed", "2")
    code, out, _ = run_cli(capsys, *args, "--json")
    sim = json.loads(out)["simulated"]
    assert code == 0 and sim["n"] == 5000 and sim["p_win"]["low"] <= sim["p_win"]["high"]
    code, out, _ = run_cli(capsys, *args)
    assert code == 0 and "MC " in out and "95%" in out


def test_cli_components_file(comps, capsys, tmp_path):
    override = tmp_path / "box.toml"
    known = 'provenance = "known"\nsource = "my box"\n'
    override.write_text(
        f"[mobs.enderman]\nhearts = 7\n{known}\n[weapons.tnt]\ndetonate_hearts = 6\n{known}"
    )
    args = ("--pile", "tnt,potato*2", "--components", str(override), "--json")
    code, out, _ = run_cli(capsys, *args, "--mob", "enderman")
    data = json.loads(out)
    assert code == 0 and data["hearts"] == 7 and data["mobs"] == ["enderman"]
    assert data["p_win"] == 0.0  # 6 hearts from the TNT is one short
    code, out, _ = run_cli(capsys, *args, "--hearts", "6")
    assert json.loads(out)["p_win"] == pytest.approx(1.0)
    code, _, err = run_cli(capsys, "--pile", "bow", "--components", str(tmp_path / "none.toml"))
    assert code == 2 and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ("--pile", "sword", "--hearts", "3"),
        ("--pile", "bow*0", "--hearts", "3"),
        ("--pile", "bow,,tnt", "--hearts", "3"),
        ("--pile", "bow", "--hearts", "0"),
        ("--pile", "bow", "--hearts", "x"),
        ("--pile", "bow", "--hearts", "3", "--mob", "spider"),
        ("--pile", "bow", "--mob", "dragon"),
        ("--pile", "bow", "--hearts", "3", "--simulate", "0"),
        ("--pile", "bow", "--hearts", "3", "--simulate", "10000001"),
        ("--pile", "bow", "--hearts", "3", "--seed", "-1"),
        ("--hearts", "3"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(comps, capsys, args):
    code, out, err = run_cli(capsys, *args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("bnb: error:")


def test_cli_limits_match_the_facade():
    from bnb_sim.cli import odds_cmd

    assert odds_cmd.MAX_SIMULATE == odds_api.MAX_SIMULATE


def test_cli_subprocess_is_lazy_and_clean():
    code = (
        "import sys; from bnb_sim.cli import odds_cmd; "
        "assert 'numba' not in sys.modules and 'pandas' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    bad = subprocess.run(
        [sys.executable, "-c", "import sys; from bnb_sim.cli import main; main(sys.argv[1:])"]
        + ["odds", "--pile", "bow*x", "--hearts", "3"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
