"""Tests for bnb_sim.analysis.ratings: Bradley--Terry fit, Elo scale, pairwise counting."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bnb_sim.analysis.ratings import (
    ELO_PER_THETA,
    bradley_terry,
    bt_ratings,
    elo_from_theta,
    head_to_head,
    pairwise_from_games,
)


def mm_reference(wins: np.ndarray, iters: int = 20_000) -> np.ndarray:
    """Hunter (2004) MM iteration for the unregularised MLE (connected, no perfect records)."""
    n = wins + wins.T
    w = wins.sum(axis=1)
    gamma = np.ones(len(w))
    for _ in range(iters):
        denom = (n / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        gamma = w / denom
        gamma /= np.exp(np.log(gamma).mean())
    theta = np.log(gamma)
    return theta - theta.mean()


def simulate_wins(theta: np.ndarray, games_per_pair: int, rng: np.random.Generator) -> np.ndarray:
    p = len(theta)
    wins = np.zeros((p, p))
    for i in range(p):
        for j in range(i + 1, p):
            prob = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            k = rng.binomial(games_per_pair, prob)
            wins[i, j], wins[j, i] = k, games_per_pair - k
    return wins


def test_bt_recovers_known_strengths():
    truth = np.array([0.8, 0.3, 0.0, -0.4, -0.7])
    truth = truth - truth.mean()
    wins = simulate_wins(truth, 20_000, np.random.default_rng(1))
    theta = bradley_terry(wins)
    assert theta.mean() == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(theta, truth, atol=0.03)
    assert np.all(np.diff(theta) < 0)


def test_bt_matches_mm_mle_with_tiny_l2():
    wins = np.array([[0, 7, 3.5, 2], [3, 0, 6, 1], [4.5, 4, 0, 5], [1, 2, 3, 0]], dtype=float)
    np.testing.assert_allclose(bradley_terry(wins, l2=1e-9), mm_reference(wins), atol=1e-6)
    np.testing.assert_allclose(bradley_terry(wins, l2=0.0), mm_reference(wins), atol=1e-8)


def test_bt_stationarity_with_l2():
    """At the optimum: wins_i - expected wins_i = l2 * theta_i."""
    wins = np.array([[0, 5, 0], [1, 0, 2], [0, 0, 0]], dtype=float)  # includes a perfect record
    l2 = 0.05
    theta = bradley_terry(wins, l2=l2)
    games = wins + wins.T
    prob = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    grad = wins.sum(1) - (games * prob).sum(1) - l2 * theta
    np.testing.assert_allclose(grad, 0.0, atol=1e-9)


def test_bt_perfect_record_finite():
    wins = np.array([[0, 10], [0, 0]], dtype=float)
    theta = bradley_terry(wins)
    assert np.all(np.isfinite(theta))
    assert theta[0] > 2.0 > -2.0 > theta[1]
    # stronger prior shrinks it
    assert bradley_terry(wins, l2=1.0)[0] < theta[0]
    # all losses for one player in a 3-way round robin
    wins3 = np.array([[0, 6, 9], [4, 0, 9], [0, 0, 0]], dtype=float)
    theta3 = bradley_terry(wins3)
    assert np.all(np.isfinite(theta3)) and theta3[2] < theta3[1] < theta3[0]


def test_bt_never_met_and_disconnected():
    wins = np.zeros((4, 4))
    wins[0, 1], wins[1, 0] = 8, 2
    theta = bradley_terry(wins)
    assert theta[2] == pytest.approx(0.0, abs=1e-12)
    assert theta[3] == pytest.approx(0.0, abs=1e-12)
    assert theta[0] == pytest.approx(-theta[1])
    # close to the MLE log(4) gap, a bit shrunk
    assert 0.95 * math.log(4) < theta[0] - theta[1] < math.log(4)
    assert np.all(bradley_terry(np.zeros((3, 3))) == 0)


def test_bt_half_wins_and_validation():
    ties = np.array([[0, 2.5], [2.5, 0]])
    np.testing.assert_allclose(bradley_terry(ties), 0.0, atol=1e-12)
    with pytest.raises(ValueError):
        bradley_terry(np.zeros((2, 3)))
    with pytest.raises(ValueError):
        bradley_terry(np.array([[0, -1], [1, 0]]))


@settings(max_examples=40, deadline=None)
@given(
    wins=arrays(np.float64, (4, 4), elements=st.integers(0, 20).map(float)),
    perm=st.permutations(range(4)),
)
def test_bt_permutation_equivariant(wins, perm):
    perm = np.array(perm)
    theta = bradley_terry(wins)
    assert abs(theta.mean()) < 1e-9 and np.all(np.isfinite(theta))
    np.testing.assert_allclose(bradley_terry(wins[np.ix_(perm, perm)]), theta[perm], atol=1e-7)
    # transposing the results flips the ratings
    np.testing.assert_allclose(bradley_terry(wins.T), -theta, atol=1e-7)


def test_elo_from_theta_scale_sign_anchor():
    theta = np.array([1.0, 0.0, -1.0])
    elo = elo_from_theta(theta)
    assert ELO_PER_THETA == pytest.approx(173.7178, abs=1e-4)
    np.testing.assert_allclose(elo, [ELO_PER_THETA, 0.0, -ELO_PER_THETA])
    anchored = elo_from_theta(theta, anchor=2)
    assert anchored[2] == 0.0 and anchored[0] == pytest.approx(2 * ELO_PER_THETA)
    # 400 Elo <-> odds 10:1
    assert elo_from_theta(np.array([math.log(10), 0.0]), anchor=1)[0] == pytest.approx(400.0)


# --------------------------------------------------------------------------------------------
# per-seat rows
# --------------------------------------------------------------------------------------------


def hand_made_seats() -> pd.DataFrame:
    rows = [
        # game 0: A 1st, B and C tied 2nd, C 4th (same policy C twice)
        (0, 0, "A", 1),
        (0, 1, "B", 2),
        (0, 2, "C", 2),
        (0, 3, "C", 4),
        # game 1 (2 players): C beats A
        (1, 0, "C", 1),
        (1, 1, "A", 2),
        # game 2 (3 players, rows out of order): full tie
        (2, 2, "B", 1),
        (2, 0, "A", 1),
        (2, 1, "C", 1),
    ]
    df = pd.DataFrame(rows, columns=["game", "seat", "policy", "rank"])
    df["policy"] = df["policy"].astype("string")
    df["rank"] = df["rank"].astype(np.int8)
    return df


def test_pairwise_from_games_hand_made():
    names, wins = pairwise_from_games(hand_made_seats())
    assert names == ["A", "B", "C"]
    expected = np.array(
        [
            # A vs B: g0 win, g2 tie; A vs C: g0 two wins, g1 loss, g2 tie
            [0.0, 1.5, 2.5],
            # B vs A: g2 tie; B vs C: g0 tie + win (over the 4th), g2 tie
            [0.5, 0.0, 2.0],
            # C vs A: g1 win, g2 tie; C vs B: g0 tie, g2 tie
            [1.5, 1.0, 0.0],
        ]
    )
    np.testing.assert_allclose(wins, expected)


def test_head_to_head_hand_made():
    score, n = head_to_head(hand_made_seats())
    assert list(score.index) == list(score.columns) == ["A", "B", "C"]
    assert n.loc["A", "C"] == n.loc["C", "A"] == 4
    assert n.loc["B", "C"] == 3 and n.loc["A", "B"] == 2
    assert score.loc["A", "C"] == pytest.approx(2.5 / 4)
    assert score.loc["C", "A"] == pytest.approx(1.5 / 4)
    assert score.loc["B", "C"] == pytest.approx(2 / 3)
    assert math.isnan(score.loc["A", "A"])


def two_player_seats(elos: dict[str, float], games_per_pair: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    names = list(elos)
    rows = []
    g = 0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p = 1.0 / (1.0 + 10 ** ((elos[b] - elos[a]) / 400))
            a_wins = rng.random(games_per_pair) < p
            for k, aw in enumerate(a_wins):
                first, second = (a, b) if k % 2 == 0 else (b, a)
                a_rank = 1 if aw else 2
                ranks = {a: a_rank, b: 3 - a_rank}
                rows.append((g, 0, first, ranks[first]))
                rows.append((g, 1, second, ranks[second]))
                g += 1
    return pd.DataFrame(rows, columns=["game", "seat", "policy", "rank"])


def test_bt_ratings_recovers_elo_with_intervals():
    elos = {"strong": 150.0, "mid": 0.0, "random": -200.0}
    df = two_player_seats(elos, 1500, seed=3)
    table = bt_ratings(df, n_boot=200, seed=0, anchor="mid")
    assert list(table.columns) == ["policy", "elo", "lo", "hi", "games"]
    assert table["policy"].tolist() == ["strong", "mid", "random"]
    assert table["games"].tolist() == [3000, 3000, 3000]
    by = table.set_index("policy")
    assert by.loc["mid", "elo"] == 0.0 and by.loc["mid", "lo"] == by.loc["mid", "hi"] == 0.0
    for name, elo in elos.items():
        assert by.loc[name, "lo"] <= elo <= by.loc[name, "hi"], name
        assert by.loc[name, "elo"] == pytest.approx(elo, abs=25)
    assert 10 < by.loc["strong", "hi"] - by.loc["strong", "lo"] < 60
    # deterministic; mean-zero without an anchor; anchor by index too
    assert bt_ratings(df, n_boot=200, seed=0, anchor="mid").equals(table)
    free = bt_ratings(df, n_boot=20, seed=0)
    assert free["elo"].mean() == pytest.approx(0.0, abs=1e-9)
    by_index = bt_ratings(df, n_boot=20, seed=0, anchor=0)  # sorted names: mid, random, strong
    assert by_index.set_index("policy").loc["mid", "elo"] == 0.0
    with pytest.raises(KeyError):
        bt_ratings(df, n_boot=0, anchor="nobody")


def test_bt_ratings_bootstrap_is_over_games():
    """Intervals come from resampling games, not pairwise results.

    Giving every game a twin pair of seats (same policies, same ranks) quadruples each game's
    a-b results but adds no information: the ratings and the interval widths must stay put.
    Resampling individual results would halve the widths.
    """
    base_rows = two_player_seats({"a": 50.0, "b": 0.0}, 400, seed=1)
    twin = pd.concat([base_rows, base_rows.assign(seat=base_rows["seat"] + 2)])
    _, wins = pairwise_from_games(twin)
    _, base_wins = pairwise_from_games(base_rows)
    np.testing.assert_allclose(wins, 4 * base_wins)
    base = bt_ratings(base_rows, n_boot=300, seed=5)
    doubled = bt_ratings(twin, n_boot=300, seed=5)
    np.testing.assert_allclose(doubled["elo"], base["elo"], atol=0.5)
    w_base = (base["hi"] - base["lo"]).to_numpy()
    w_twin = (doubled["hi"] - doubled["lo"]).to_numpy()
    np.testing.assert_allclose(w_twin, w_base, rtol=0.1)
