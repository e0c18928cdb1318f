"""Monte Carlo combat kernels (bnb_sim.games.builders_biomes.engine.combat) on hand-built token
arrays.

R-FIGHT-2 (reveal 3 + 1 per bow, chains, stop when empty), R-FIGHT-3 (hoe XP, pickaxe blocks),
R-FIGHT-4 (optimal TNT), R-FIGHT-5 (hearts sum vs mob hearts).
"""

from __future__ import annotations

import numpy as np
import pytest
from default_tokens import (  # noqa: E402
    BOW,
    DETONATE,
    EXTRA,
    FULL,
    HEARTS,
    HOE,
    POTATO,
    TOKENS,
)

from bnb_sim.games.builders_biomes.engine.combat import (
    N_STATS,
    STAT_HOE_XP,
    STAT_PICKAXE_BLOCKS,
    STAT_REVEALED,
    STAT_TNT_SPENT,
    STAT_WIN,
    STAT_WIN_NO_TNT,
    draw_token,
    plan_detonation,
    reveal_tokens,
    simulate_combats,
)
from bnb_sim.games.builders_biomes.engine.odds import exact_odds
from bnb_sim.rng import seed_stream

MASTER = np.uint64(0x1234_5678_9ABC_DEF0)


def pile(**counts: int) -> np.ndarray:
    names = ["wood", "stone", "potato", "iron", "diamond", "bow", "hoe", "pickaxe", "tnt"]
    out = np.zeros(9, np.int64)
    for name, count in counts.items():
        out[names.index(name)] = count
    return out


def rng(game: int = 0, stream: int = 1) -> np.ndarray:
    state = np.empty(4, np.uint64)
    seed_stream(state, MASTER, game, stream)
    return state


def simulate(counts, hearts, n, master=MASTER, stream=3, fight_reveal=3):
    return simulate_combats(
        counts, *TOKENS, np.int64(fight_reveal), np.int64(hearts), np.int64(n), master, stream
    )


# --------------------------------------------------------------------------- draw_token


def test_draw_token_removes_one_token_and_empties_the_pile_exactly():  # R-FIGHT-2
    counts = np.array([2, 0, 3, 1], np.int64)
    state = rng()
    drawn = [draw_token(counts, 6 - k, state) for k in range(6)]
    assert counts.tolist() == [0, 0, 0, 0]
    assert sorted(drawn) == [0, 0, 2, 2, 2, 3]


def test_draw_token_is_uniform_over_tokens():  # R-FIGHT-2: a shuffled pile
    state = rng(7)
    n = 20_000
    seen = np.zeros(3, np.int64)
    for _ in range(n):
        counts = np.array([1, 0, 3], np.int64)
        seen[draw_token(counts, 4, state)] += 1
    assert seen[1] == 0
    p = 0.25
    assert abs(seen[0] / n - p) < 4 * np.sqrt(p * (1 - p) / n)


# --------------------------------------------------------------------------- reveal_tokens


def test_reveal_stops_when_the_pile_is_exhausted():  # R-FIGHT-2
    counts = pile(wood=1, potato=1)
    revealed = np.zeros(9, np.int64)
    assert reveal_tokens(counts, 2, EXTRA, 3, rng(), revealed) == 2
    assert revealed.tolist() == pile(wood=1, potato=1).tolist()
    assert counts.sum() == 0


def test_bows_chain_until_the_third_non_bow():  # R-FIGHT-2: a bow revealed by a bow adds one
    for game in range(200):
        counts = pile(bow=4, potato=5)
        revealed = np.zeros(9, np.int64)
        k = reveal_tokens(counts, 9, EXTRA, 3, rng(game), revealed)
        assert revealed[POTATO] == 3  # stops exactly at the third non-bow
        assert k == 3 + revealed[BOW]


def test_all_bows_reveals_everything():  # R-FIGHT-2
    counts = pile(bow=6)
    revealed = np.zeros(9, np.int64)
    assert reveal_tokens(counts, 6, EXTRA, 3, rng(), revealed) == 6


# --------------------------------------------------------------------------- plan_detonation


def plan(revealed, hearts, tok_hearts=HEARTS, tok_detonate=DETONATE):
    detonated = np.full(revealed.shape[0], 99, np.int64)
    win, win_no_tnt, spent = plan_detonation(revealed, tok_hearts, tok_detonate, hearts, detonated)
    return bool(win), bool(win_no_tnt), int(spent), detonated.tolist()


def test_tnt_not_detonated_when_already_winning():  # R-FIGHT-4
    assert plan(pile(iron=1, diamond=1, tnt=1), 7) == (True, True, 0, [0] * 9)


def test_tnt_as_few_as_needed():  # R-FIGHT-4
    assert plan(pile(wood=1, tnt=3), 6) == (True, False, 1, pile(tnt=1).tolist())
    assert plan(pile(wood=1, tnt=3), 7) == (True, False, 2, pile(tnt=2).tolist())
    assert plan(pile(tnt=3), 15) == (True, False, 3, pile(tnt=3).tolist())


def test_tnt_kept_when_it_cannot_win():  # R-FIGHT-4: not detonated => stays, counts 0 hearts
    assert plan(pile(tnt=2, potato=1), 11) == (False, False, 0, [0] * 9)


def test_hearts_sum_decides_the_fight():  # R-FIGHT-5
    assert plan(pile(wood=1, stone=1, potato=1), 3)[:2] == (True, True)
    assert plan(pile(wood=1, stone=1, potato=1), 4)[:2] == (False, False)
    assert plan(pile(potato=3), 1)[:2] == (False, False)


def test_largest_detonation_first():  # R-FIGHT-4 with two detonatable kinds (5 and 3 hearts)
    tok_hearts = np.array([0, 0, 1], np.int64)
    tok_detonate = np.array([5, 3, 0], np.int64)
    revealed = np.array([1, 2, 0], np.int64)
    assert plan(revealed, 3, tok_hearts, tok_detonate) == (True, False, 1, [1, 0, 0])
    assert plan(revealed, 8, tok_hearts, tok_detonate) == (True, False, 2, [1, 1, 0])
    assert plan(revealed, 11, tok_hearts, tok_detonate) == (True, False, 3, [1, 2, 0])
    assert plan(revealed, 12, tok_hearts, tok_detonate) == (False, False, 0, [0, 0, 0])


# --------------------------------------------------------------------------- simulate_combats


def test_same_seed_same_numbers_other_stream_other_numbers():  # determinism (docs/design.md)
    first = simulate(FULL, 4, 5_000)
    simulate(pile(bow=3, tnt=2, wood=1), 2, 777, master=np.uint64(5), stream=9)
    again = simulate(FULL, 4, 5_000)
    assert np.array_equal(first, again)
    assert not np.array_equal(first, simulate(FULL, 4, 5_000, stream=4))
    assert not np.array_equal(first, simulate(FULL, 4, 5_000, master=np.uint64(99)))


def test_fight_i_uses_stream_i():  # each fight replays from (master, i, stream) alone
    counts = pile(bow=2, potato=3, iron=1, hoe=1)
    for i in range(5):
        state = np.empty(4, np.uint64)
        seed_stream(state, MASTER, i, 3)
        revealed = np.zeros(9, np.int64)
        k = reveal_tokens(counts.copy(), 7, EXTRA, 3, state, revealed)
        one_more = simulate(counts, 3, i + 1) - (simulate(counts, 3, i) if i else 0.0)
        assert one_more.shape == (N_STATS, 2)
        assert one_more[STAT_REVEALED, 0] == k
        assert one_more[STAT_HOE_XP, 0] == 2 * revealed[HOE]
        assert one_more[STAT_WIN_NO_TNT, 0] == float(revealed @ HEARTS >= 3)


@pytest.mark.parametrize(
    ("counts", "hearts"),
    [
        (FULL, 4),
        (FULL, 6),
        (pile(bow=3, tnt=2, hoe=1, pickaxe=1, potato=2), 5),
        (pile(wood=1, stone=1, potato=3), 3),
    ],
)
def test_monte_carlo_matches_exact_within_4_se(counts, hearts):  # R-FIGHT-2..R-FIGHT-5
    n = 200_000
    sums = simulate(counts, hearts, n, stream=11)
    p_win, p_no, e_spent, _, e_rev, e_xp, e_blocks = exact_odds(counts, *TOKENS, 3, hearts)
    exact = {
        STAT_WIN: p_win[hearts],
        STAT_WIN_NO_TNT: p_no[hearts],
        STAT_REVEALED: e_rev,
        STAT_HOE_XP: e_xp,
        STAT_PICKAXE_BLOCKS: e_blocks,
        STAT_TNT_SPENT: e_spent[hearts],
    }
    for stat, value in exact.items():
        mean = sums[stat, 0] / n
        var = max(sums[stat, 1] / n - mean * mean, 0.0)
        se = np.sqrt(var / n)
        assert abs(mean - value) <= 4 * se + 1e-12, (stat, mean, value, se)


def test_potatoes_only_never_win():  # R-FIGHT-5: potatoes are 0 hearts
    sums = simulate(pile(potato=5), 1, 1_000)
    assert sums[STAT_WIN, 0] == 0 and sums[STAT_WIN_NO_TNT, 0] == 0
    assert sums[STAT_REVEALED, 0] == 3 * 1_000


def test_hoe_and_pickaxe_accrue_win_or_lose():  # R-FIGHT-3
    sums = simulate(pile(hoe=2, pickaxe=1), 99, 100)
    assert sums[STAT_WIN, 0] == 0
    assert sums[STAT_HOE_XP, 0] == 100 * 4
    assert sums[STAT_PICKAXE_BLOCKS, 0] == 100 * 1
