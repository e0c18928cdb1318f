"""Paired A/B comparisons: stopping rules, the two designs, the verdict and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bnb_sim.analysis.compare import (
    FIELD,
    HEAD_TO_HEAD,
    format_result,
    make_rule,
    run_sequential,
    summarise,
)
from bnb_sim.analysis.sequential import REASON_MAX_GAMES, SPRT, PrecisionStop
from bnb_sim.cli import main
from bnb_sim.errors import BnbError

# --------------------------------------------------------------------------------------
# pure parts: a fake play() with a known pair-score distribution


def _fake_play(p_a: float, p_b: float, seed: int = 0, calls: list | None = None):
    """Field design: A and B win independently with p_a, p_b on each seed."""

    def play(start: int, n: int) -> pd.DataFrame:
        if calls is not None:
            calls.append((start, n))
        rng = np.random.default_rng([seed, start])
        wa = rng.random(n) < p_a
        wb = rng.random(n) < p_b
        return pd.DataFrame(
            {
                "seed": np.arange(start, start + n),
                "score_a": wa.astype(float),
                "score_b": wb.astype(float),
                "wins_a": wa.astype(int),
                "wins_b": wb.astype(int),
                "shared_a": 0,
                "shared_b": 0,
                "games": 2,
            }
        )

    return play


def test_make_rule_needs_exactly_one_rule():
    assert isinstance(make_rule((0, 10)), SPRT)
    rule = make_rule(precision=0.02)
    assert isinstance(rule, PrecisionStop) and rule.target == pytest.approx(0.01)
    for bad in ({}, {"sprt": (0, 10), "precision": 0.1}, {"sprt": (10, 0)}, {"precision": 2.0}):
        with pytest.raises(BnbError):
            make_rule(**bad)


def test_batches_grow_geometrically_and_budget_stops():
    calls: list = []
    rule = make_rule((0, 5))
    pairs, reason = run_sequential(
        _fake_play(0.5, 0.5, calls=calls), rule, max_games=2 * 1000, first_batch=100
    )
    assert [n for _, n in calls] == [100, 200, 400, 300]  # doubling, cut at the budget
    assert [s for s, _ in calls] == [0, 100, 300, 700]
    assert len(pairs) == 1000 and list(pairs["seed"]) == list(range(1000))
    if rule.decision is None:
        assert reason == REASON_MAX_GAMES


def test_sprt_finds_a_clear_difference_and_not_a_null_one():
    rule = make_rule((0, 20))
    pairs, reason = run_sequential(_fake_play(0.7, 0.3), rule, max_games=200_000)
    assert rule.decision == "H1" and reason.startswith("sprt: accepted H1")
    result = summarise(pairs, rule, reason, a="A", b="B", mode=FIELD, players=4)
    assert result.difference["lo"] > 0 and result.elo["elo"] > 0
    assert "H1 accepted" in result.verdict
    assert result.mcnemar["b10"] > result.mcnemar["b01"]
    null = make_rule((0, 20))
    pairs, reason = run_sequential(_fake_play(0.4, 0.4, seed=5), null, max_games=400_000)
    assert null.decision == "H0"


def test_precision_rule_reaches_its_target():
    rule = make_rule(precision=0.05)
    pairs, reason = run_sequential(_fake_play(0.5, 0.45), rule, max_games=200_000)
    result = summarise(pairs, rule, reason, a="A", b="B", mode=FIELD, players=3)
    half = (result.difference["hi"] - result.difference["lo"]) / 2
    assert reason == "precision reached" and half <= 0.05
    assert result.n_pairs == len(pairs) and result.n_games == 2 * len(pairs)


# --------------------------------------------------------------------------------------
# with the engine


def test_a_policy_against_itself_never_accepts_h1():
    from bnb_sim.runner.experiments import run_compare

    result = run_compare("heuristic", "heuristic", sprt=(0, 10), seed=1, max_games=4000)
    assert result.decision == "H0" and result.test["decision"] != "H1"
    # common random numbers: the swapped games mirror each other, every pair scores 1/2
    assert result.score["mean"] == 0.5 and result.difference["mean_diff"] == 0.0
    assert result.rates["a"]["k"] == result.rates["b"]["k"]


def test_heuristic_beats_random_quickly():
    from bnb_sim.runner.experiments import run_compare

    result = run_compare("heuristic", "random", sprt=(0, 10), seed=2, first_batch=32)
    assert result.decision == "H1"
    assert result.test["decision_n"] <= 40 and result.n_games <= 64
    assert result.mode == HEAD_TO_HEAD and result.n_games == 2 * result.n_pairs
    assert 0.7 < result.difference["lo"] < 0.99  # the interval does not collapse at 100%
    assert result.difference["hi"] == pytest.approx(1.0)
    text = format_result(result)
    for needle in (
        "verdict",
        "difference A − B",
        "Elo A − B",
        "n ",
        "stopped",
        "sprt: accepted H1",
    ):
        assert needle in text


def test_field_design_identical_policies_give_identical_rows():
    from bnb_sim.runner.experiments import compare_player

    play, mode, players, table = compare_player(
        "heuristic", "heuristic:xp=1", opponents=["greedy", "random"], seed=4
    )
    assert mode == FIELD and players == 3 and table == ["greedy", "random"]
    pairs = play(0, 60)
    assert (pairs["score_a"] == pairs["score_b"]).all()
    # but a different policy in the same seat changes some seeds
    play, *_ = compare_player("heuristic", "random", opponents=["greedy"], players=4, seed=4)
    pairs = play(0, 60)
    assert (pairs["score_a"] > pairs["score_b"]).sum() > 10


def test_cli_compare_json_and_text(capsys, tmp_path):
    main(["compare", "greedy", "random", "--sprt", "0", "20", "--json", "--seed", "3"])
    data = json.loads(capsys.readouterr().out)
    assert data["decision"] == "H1" and data["reason"] == "sprt: accepted H1 (elo >= 20)"
    assert data["n_games"] == 2 * data["n_pairs"] and data["difference"]["lo"] > 0
    main(
        [
            "compare",
            "heuristic",
            "greedy",
            "--opponents",
            "random",
            "--players",
            "4",
            "--precision",
            "0.1",
            "-q",
            "--out",
            str(tmp_path / "c"),
        ]
    )
    text = capsys.readouterr().out
    assert "precision reached" in text and "McNemar" in text
    assert (tmp_path / "c" / "report.html").exists()


@pytest.mark.parametrize(
    "args, needle",
    [
        (["greedy", "random"], "exactly one of --sprt"),
        (["greedy", "random", "--sprt", "10", "0"], "ELO0 < ELO1"),
        (["greedy", "nonsense", "--precision", "0.1"], "unknown policy 'nonsense'"),
        (["greedy", "random", "--players", "3", "--precision", "0.1"], "2 players"),
    ],
)
def test_cli_compare_bad_input(capsys, args, needle):
    with pytest.raises(SystemExit) as exc:
        main(["compare", *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and err.count("\n") == 0
