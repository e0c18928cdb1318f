"""The Heroes of the Village report's statistics on synthetic runs with a known truth: pooled
rates over pet teams that share every game index are clustered by index (N1 of the
statistics review: the row intervals covered the truth in 12 of 30 real runs), and the best
and worst team are named only when the paired gap to every other team excludes 0 (N2)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bnb_sim.analysis.protocol_report import shared_sections, to_section
from bnb_sim.core.registry import get_game
from bnb_sim.games.heroes_village import report as R

TEAMS = ["wolf,cat,fox", "wolf,cat,panda", "wolf,fox,panda", "cat,fox,panda", "cat,fox,horse",
         "fox,panda,horse", "wolf,panda,horse", "cat,panda,llama"]  # fmt: skip
EASE = np.array([0.0, 0.5, 1.0])  # a game index's draws: hard, middling, easy
EASE_P = np.array([0.3, 0.3, 0.4])
META = {"params": {"players": 3, "difficulty": "normal", "buildings": "level:1,2,3",
                   "policies": ["team"], "seed": 1, "teams": len(TEAMS)}}  # fmt: skip


def team_bonus(n: int, spread: float) -> np.ndarray:
    return np.linspace(-spread, spread, n)


def win_probability(ease: np.ndarray, bonus: np.ndarray) -> np.ndarray:
    """P(win) of every team (columns) on every game index (rows): the index's draws decide
    most of it (the teams' results on one index correlate at about 0.5)."""
    return np.clip(0.15 + 0.7 * ease[:, None] + bonus[None, :], 0.0, 1.0)


def true_rate(spread: float) -> float:
    p = win_probability(EASE, team_bonus(len(TEAMS), spread))
    return float(EASE_P @ p.mean(axis=1))


def synthetic_run(rng, indices: int, spread: float = 0.0, teams=TEAMS) -> pd.DataFrame:
    """The games frame of a ``--pets all`` run: every team on every game index."""
    ease = rng.choice(EASE, size=indices, p=EASE_P)
    p = win_probability(ease, team_bonus(len(teams), spread))
    won = rng.random(p.shape) < p
    n = won.size
    turns = rng.integers(8, 30, size=n)
    return pd.DataFrame(
        {
            "game": np.repeat(np.arange(indices), len(teams)),
            "pets": np.tile(np.array(teams, dtype=object), indices),
            "won": won.ravel(),
            "difficulty": "normal",
            "n_players": 3,
            "policy": "team",
            "buildings": "level:1,2,3",
            "turns": turns,
            "lost_in_fight": rng.random(n) < 0.3,
            "buildings_completed": rng.integers(0, 4, size=n),
        }
    )


def test_n1_pooled_win_rate_covers_the_truth_95_percent():
    """400 synthetic runs of 150 game indices x 8 teams: the report's team win rate covers
    the true rate about 95% of the time; rows taken as independent (Wilson on 1,200 rows)
    cover it far less often. The rates by difficulty, players, policy and buildings pool the
    same rows the same way."""
    from bnb_sim.analysis.stats import Rate

    rng = np.random.default_rng(22)
    truth = true_rate(0.05)
    runs, covered, rows = 400, 0, 0
    for _ in range(runs):
        games = synthetic_run(rng, 150, 0.05)
        rate = R.overview_section(games, META).summary["win_rate"]
        covered += rate["lo"] <= truth <= rate["hi"]
        naive = Rate.from_bools(games["won"])
        rows += naive.lo <= truth <= naive.hi
    band = 3 * math.sqrt(0.05 * 0.95 / runs)
    assert abs(covered / runs - 0.95) < band, (covered, rows)
    assert rows / runs < 0.85  # the old interval, for the record
    section = R.win_rate_section(games).summary
    for key, value in (("difficulty", "normal"), ("n_players", "3"), ("policy", "team"),
                       ("buildings", "level:1,2,3")):  # fmt: skip
        d = section[f"win_rate_by_{key}"][value]
        assert (d["lo"], d["hi"]) == pytest.approx((rate["lo"], rate["hi"])), key
        assert d["game_indices"] == 150


def test_n1_the_pooled_interval_is_clustered_by_game_index():
    rng = np.random.default_rng(3)
    games = synthetic_run(rng, 400, 0.05)
    section = R.overview_section(games, META)
    rate = section.summary["win_rate"]
    assert rate["n"] == len(games) and rate["game_indices"] == 400
    # the shared report's team win rate section says the same interval, clustered
    (shared,) = shared_sections(get_game("hotv"), None, games, META)
    assert shared.summary["team_win_rate"]["lo"] == pytest.approx(rate["lo"])
    assert shared.summary["team_win_rate"]["hi"] == pytest.approx(rate["hi"])
    assert "cluster by game index" in shared.to_markdown()
    assert f"n = {len(games):,} on 400 game indices" in shared.to_markdown()
    from bnb_sim.analysis.stats import clustered_rate, wilson_interval

    ref = clustered_rate(games["won"].to_numpy(float), games["game"].to_numpy())
    assert (rate["lo"], rate["hi"]) == pytest.approx((ref.lo, ref.hi))
    lo, hi = wilson_interval(rate["k"], rate["n"])
    assert (rate["hi"] - rate["lo"]) > 1.5 * (hi - lo)  # correlated teams: a design effect
    # one pet team: one row per index, the exact Wilson interval
    one = games[games["pets"] == TEAMS[0]]
    rate = R.overview_section(one, META).summary["win_rate"]
    assert (rate["lo"], rate["hi"]) == pytest.approx(wilson_interval(rate["k"], rate["n"]))
    # the losses: the lost share is the mirror of the win rate (the same clustered interval),
    # the turn of a loss a t interval clustered by game index
    losses = R.losses_section(games).summary
    lost = losses["lost"]
    assert (lost["lo"], lost["hi"]) == pytest.approx((1 - ref.hi, 1 - ref.lo))
    m = losses["loss_turn"]
    lost_rows = games[~games["won"]]
    assert m["n_clusters"] == lost_rows["game"].nunique() and m["n"] == len(lost_rows)
    from bnb_sim.analysis.stats import clustered_mean_ci

    turns = clustered_mean_ci(lost_rows["turns"].to_numpy(float), lost_rows["game"].to_numpy())
    assert (m["lo"], m["hi"]) == pytest.approx((turns["lo"], turns["hi"]))


def test_n2_identical_teams_name_no_best_and_no_worst():
    rng = np.random.default_rng(8)
    games = synthetic_run(rng, 2000, 0.0)
    same = games[games["pets"] == TEAMS[0]]["won"].to_numpy()
    games["won"] = np.repeat(same, len(TEAMS))  # every team played every index alike
    section = R.pet_team_section(games)
    assert section.summary["best_team"] is None and section.summary["worst_team"] is None
    ranking = section.summary["pet_ranking"]["best"]
    assert not ranking["separated"] and len(ranking["tied_with"]) == len(TEAMS) - 1
    text = to_section(section).to_markdown()
    assert "no detectable difference at the top" in text.lower()
    assert "(best)" not in text and "Holm" in text


def test_n2_a_clearly_better_team_is_named_best():
    rng = np.random.default_rng(9)
    games = synthetic_run(rng, 3000, 0.15)  # teams 4 pp apart from one to the next
    section = R.pet_team_section(games)
    assert section.summary["best_team"] == TEAMS[-1]
    assert section.summary["worst_team"] == TEAMS[0]
    assert "(best)" in to_section(section).to_markdown()
