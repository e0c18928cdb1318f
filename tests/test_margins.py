"""Designer statistics of the base-game report: the winning margin (winner's XP minus the next
best) and comebacks (how often the leader right after scoring round A / B goes on to win)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from fake_runs import FakeSpec, make_frames

from bnb_sim.analysis import tables
from bnb_sim.analysis.report import margins_section, write_report
from bnb_sim.analysis.stats import wilson_interval


def _frame(rows):
    """Seat rows ``(game, seat, policy, xp, won, after_a, after_b)``."""
    df = pd.DataFrame(
        rows, columns=["game", "seat", "policy", "xp", "won", "total_xp_after_a",
                       "total_xp_after_b"],
    )  # fmt: skip
    return df.astype({"policy": "category", "won": bool})


HAND = _frame([
    # game 0: A leader seat 0 (10 > 5) wins; B leader seat 1 (20 > 18) loses; margin 30-25=5
    (0, 0, "heuristic", 30, True, 10, 18),
    (0, 1, "random", 25, False, 5, 20),
    # game 1: A lead shared (7 = 7), B leader seat 1 wins; margin 0 (won on blocks)
    (1, 0, "heuristic", 40, False, 7, 10),
    (1, 1, "random", 40, True, 7, 30),
    # game 2: A leader seat 1 loses (comeback); B leader seat 0 wins; margin 12
    (2, 0, "heuristic", 50, True, 3, 25),
    (2, 1, "random", 38, False, 9, 24),
])  # fmt: skip


def test_winning_margin_by_hand():
    margin = tables.winning_margin(HAND)
    assert margin["n"] == 3 and margin["mean"] == pytest.approx((5 + 0 + 12) / 3)
    assert margin["median"] == 5 and margin["players"] == 2
    bins = margin["bins"].set_index("margin")
    assert bins.loc["0", "k"] == 1 and bins.loc["3–5", "k"] == 1 and bins.loc["11–20", "k"] == 1
    assert bins["n"].eq(3).all() and bins["k"].sum() == 3
    assert margin["counts"].to_dict() == {**dict.fromkeys(range(13), 0), 0: 1, 5: 1, 12: 1}


def test_leader_wins_by_hand():
    leads = tables.leader_wins(HAND, ["heuristic", "random"])
    overall = leads[leads["leader"] == "all"].set_index("round")
    assert (overall.loc["A", "k"], overall.loc["A", "n"]) == (1, 2)  # game 1's lead shared
    assert overall.loc["A", "shared_lead"] == 1 and overall.loc["A", "games"] == 3
    assert (overall.loc["B", "k"], overall.loc["B", "n"]) == (2, 3)
    lo, hi = wilson_interval(2.0, 3)
    assert (overall.loc["B", "lo"], overall.loc["B", "hi"]) == pytest.approx((lo, hi))
    by = leads[leads["leader"] != "all"].set_index(["round", "leader"])
    assert (by.loc[("A", "heuristic"), "k"], by.loc[("A", "heuristic"), "n"]) == (1, 1)
    assert (by.loc[("A", "random"), "k"], by.loc[("A", "random"), "n"]) == (0, 1)
    assert list(leads["leader"][leads["round"] == "B"]) == ["all", "heuristic", "random"]


def test_rows_in_any_order_give_the_same_numbers():
    shuffled = HAND.sample(frac=1.0, random_state=3)
    pd.testing.assert_frame_equal(
        tables.leader_wins(shuffled, ["heuristic", "random"]),
        tables.leader_wins(HAND, ["heuristic", "random"]),
    )
    assert tables.winning_margin(shuffled)["mean"] == tables.winning_margin(HAND)["mean"]


def test_an_unscored_round_counts_as_no_game():
    rows = HAND.copy()
    rows.loc[rows["game"] == 2, "total_xp_after_b"] = -1
    leads = tables.leader_wins(rows)
    overall = leads[leads["leader"] == "all"].set_index("round")
    assert overall.loc["B", "games"] == 2 and overall.loc["B", "n"] == 2


def test_margins_match_a_plain_pandas_computation_on_a_fake_run():
    seats, _ = make_frames(FakeSpec(n_games=500, chunk_size=500, seed=2))
    rng = np.random.default_rng(0)
    seats["total_xp_after_a"] = rng.integers(0, 30, len(seats))
    seats["total_xp_after_b"] = seats["total_xp_after_a"] + rng.integers(0, 30, len(seats))
    top2 = seats.groupby("game")["xp"].apply(lambda x: x.nlargest(2).diff().abs().iloc[-1])
    assert tables.winning_margin(seats)["mean"] == pytest.approx(top2.mean())
    leads = tables.leader_wins(seats)
    a = leads[(leads["round"] == "A") & (leads["leader"] == "all")].iloc[0]
    best = seats.groupby("game")["total_xp_after_a"].transform("max")
    lead_rows = seats[seats["total_xp_after_a"] == best]
    sole = lead_rows.groupby("game").filter(lambda g: len(g) == 1)
    assert a["n"] == len(sole) and a["k"] == sole["won"].sum()


def test_the_report_has_the_section_and_its_summary(tmp_path):
    seats, games = make_frames(FakeSpec(n_games=300, chunk_size=300, seed=4))
    written = write_report((seats, games, None), tmp_path / "out")
    summary = json.loads(written["summary"].read_text())
    assert summary["winning_margin"]["n"] == 300 and len(summary["winning_margin"]["bins"]) == 6
    assert {r["round"] for r in summary["leader_wins"]} == {"A", "B"}
    text = written["markdown"].read_text()
    assert "## Margins and comebacks" in text and "winning-margin.png" in text
    assert "comebacks.png" in text


def test_a_run_without_the_standing_columns_shows_the_margin_only():
    seats, _ = make_frames(FakeSpec(n_games=100, chunk_size=100, seed=5))
    seats = seats.drop(columns=list(tables.STANDING_COLUMNS.values()))  # an older run
    section = margins_section(seats)
    assert "winning_margin" in section.summary and "leader_wins" not in section.summary
    assert "no `total_xp_after_a`" in section.to_markdown()
