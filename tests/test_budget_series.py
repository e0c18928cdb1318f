"""Strength against budget in a tournament report: budget families of search bots (issue 13)."""

from __future__ import annotations

import json

import pytest

from bnb_sim.analysis.budget_series import budget_families
from bnb_sim.analysis.tournament import analyse_tournament, build_tournament_report
from tests.test_tournament import _fake_tournament


def test_families_group_one_search_bot_by_budget():
    families = budget_families(
        [
            "ismcts:iterations=8",
            "heuristic",
            "ismcts:iterations=32,c=0.7",  # c=0.7 is the default: same family
            "mc:rollouts=4",
            "mc:rollouts=16",
            "random",
        ]
    )
    assert [(f.bot, f.budget_key) for f in families] == [
        ("ismcts", "iterations"),
        ("mc", "rollouts"),
    ]
    ismcts, mc = families
    assert ismcts.members == (("ismcts:iterations=8", 8), ("ismcts:iterations=32,c=0.7", 32))
    assert mc.members == (("mc:rollouts=4", 4), ("mc:rollouts=16", 16))
    assert dict(ismcts.settings)["c"] == 0.7 and "iterations" not in dict(ismcts.settings)
    # the default budget counts: plain "ismcts" is iterations=64
    assert budget_families(["ismcts", "ismcts:iterations=4"])[0].members == (
        ("ismcts:iterations=4", 4),
        ("ismcts", 64),
    )


@pytest.mark.parametrize(
    "policies",
    [
        ["ismcts:iterations=8", "ismcts:iterations=32,c=1.5"],  # a differing c
        ["ismcts:iterations=8", "ismcts:iterations=8,widen=2"],  # same budget
        ["mc:rollouts=8", "mc:rollouts=16,rollout=random"],  # a differing rollout policy
        ["mc:rollouts=8", "ismcts:iterations=16"],  # two different bots
        ["heuristic", "heuristic:xp=2", "random"],  # no search bot
        ["ismcts:iterations=8", "mc:rollouts=8,nonsense=1"],  # not a valid spec: ignored
    ],
)
def test_no_family_without_a_budget_series(policies):
    assert budget_families(policies) == []


def test_two_families_and_a_bystander_in_one_list():
    families = budget_families(
        ["ismcts:iterations=2", "ismcts:iterations=4", "ismcts:iterations=2,c=2",
         "ismcts:iterations=4,c=2", "ismcts:iterations=4,c=3"]
    )  # fmt: skip
    assert [len(f.members) for f in families] == [2, 2]
    assert [dict(f.settings)["c"] for f in families] == [0.7, 2.0]
    assert families[1].label.startswith("ismcts:c=2,")


def test_section_reads_the_tournaments_own_estimates(tmp_path):
    names = ["mc:rollouts=2", "mc:rollouts=8", "heuristic"]
    seats, games = _fake_tournament(dict(zip(names, [0.0, 0.8, 0.4], strict=True)), seeds=60)
    result = analyse_tournament(seats, games, policies=names, players=2, n_boot=50)
    written = build_tournament_report(result).write(tmp_path / "rep")
    summary = json.loads(written["summary"].read_text())
    (series,) = summary["strength_vs_budget"]
    assert series["bot"] == "mc" and series["budget_key"] == "rollouts"
    ratings = result.ratings.set_index("policy")
    for point in series["points"]:
        row = ratings.loc[point["policy"]]
        assert (point["elo"], point["lo"], point["hi"]) == (row["elo"], row["lo"], row["hi"])
        assert point["games"] == row["games"] and point["win_n"] == row["games"]
    assert [p["budget"] for p in series["points"]] == [2, 8]
    markdown = written["markdown"].read_text()
    assert "## Strength against budget" in markdown
    assert "| rollouts | policy | Elo [95% CI] | win rate [95% CI] | n (games) |" in markdown
    assert any(p.name.endswith("strength-vs-budget.png") for p in written["figures"])


# --------------------------------------------------------------------------------------
# with the engine: a real tournament of tiny budgets


def test_engine_tournament_over_budgets_has_the_section_and_figure(tmp_path):
    from bnb_sim.runner.experiments import run_tournament

    policies = ["ismcts:iterations=2", "ismcts:iterations=4", "heuristic"]
    result = run_tournament(policies, 2, 4, seed=5, n_boot=20)
    written = build_tournament_report(result).write(tmp_path / "rep")
    html = written["html"].read_text()
    assert "Strength against budget" in html
    figures = [p.name for p in written["figures"]]
    assert len(figures) == 4 and any("strength-vs-budget" in f for f in figures)
    (series,) = json.loads(written["summary"].read_text())["strength_vs_budget"]
    assert [(p["policy"], p["budget"]) for p in series["points"]] == [
        ("ismcts:iterations=2", 2),
        ("ismcts:iterations=4", 4),
    ]
    assert all(p["games"] == 2 * 2 * 4 for p in series["points"])  # 2 tables x 2 seatings


def test_engine_tournament_without_a_budget_series_has_no_section(tmp_path):
    from bnb_sim.runner.experiments import run_tournament

    result = run_tournament(["ismcts:iterations=2", "heuristic"], 2, 3, seed=5, n_boot=10)
    written = build_tournament_report(result).write(tmp_path / "rep")
    assert "Strength against budget" not in written["html"].read_text()
    assert not any("strength-vs-budget" in p.name for p in written["figures"])
    assert json.loads(written["summary"].read_text())["strength_vs_budget"] == []
