"""Paired A/B comparisons: stopping rules, the two designs, the verdict and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bnb_sim.analysis.compare import (
    FIELD,
    HEAD_TO_HEAD,
    compare_summary,
    format_result,
    make_rule,
    run_sequential,
    summarise,
)
from bnb_sim.analysis.sequential import REASON_MAX_GAMES, SPRT, PrecisionStop
from bnb_sim.analysis.stats import clustered_rate, wilson_interval
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
    # the multinomial GSPRT needs about 100 all-won pairs to separate 0 from 10 Elo (each won
    # pair adds log(s1/s0) ≈ 0.029 to the LLR); the old variance floor decided after 20
    assert result.test["decision_n"] <= 110 and result.n_games <= 2 * (32 + 64 + 128)
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
    assert data["decision"] == "H1"
    assert data["reason"] == "sprt: accepted H1 (the evidence favours elo 20 over elo 0)"
    assert data["n_games"] == 2 * data["n_pairs"] and data["difference"]["lo"] > 0
    assert data["n_pairs"] == data["test"]["decision_n"]  # the state at the decision
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


# --------------------------------------------------------------------------------------
# issue 10: degenerate samples, labels, clustered win rates


def _h2h_pairs(score_a: np.ndarray, wins_a: np.ndarray | None = None) -> pd.DataFrame:
    score_a = np.asarray(score_a, dtype=float)
    wins_a = np.rint(2 * score_a).astype(int) if wins_a is None else wins_a
    return pd.DataFrame(
        {
            "seed": np.arange(score_a.size),
            "score_a": score_a,
            "score_b": 1 - score_a,
            "wins_a": wins_a,
            "wins_b": 2 - wins_a,
            "shared_a": 0,
            "shared_b": 0,
            "games": 2,
        }
    )


def test_all_split_pairs_are_not_a_zero_width_interval():
    """D6: 128 seeds on which every pair split printed "+0.00 pp [+0.00, +0.00]" and
    "precision reached"; a discordance of about 3 pp cannot be excluded from 128 seeds."""
    pairs = _h2h_pairs(np.full(128, 0.5))
    rule = make_rule(precision=0.02)
    rule.update(np.full(128, 0.5))
    assert not rule.done  # the old rule stopped here with a half-width of 0
    result = summarise(pairs, rule, REASON_MAX_GAMES, a="A", b="B", mode=HEAD_TO_HEAD)
    d = result.difference
    assert d["mean_diff"] == 0.0
    assert d["lo"] == pytest.approx(-0.029, abs=0.001) and d["hi"] == pytest.approx(
        0.029, abs=0.001
    )
    text = format_result(result)
    assert "[+0.00, +0.00]" not in text and "all 128 pair scores equal" in text
    codes = [w["code"] for w in compare_summary(result)["warnings"]]
    assert "degenerate_sample" in codes
    # the precision rule keeps going until the bound is below the target
    rule.update(np.full(256, 0.5))
    assert rule.done and 2 * rule.half_width <= 0.02


def test_intervals_are_labelled_as_not_adjusted_for_the_stop():
    """D5: the intervals printed after a sequential stop are fixed-sample ones; say so."""
    rng = np.random.default_rng(4)
    x = rng.choice([0.0, 0.5, 1.0], size=300, p=[0.2, 0.5, 0.3])
    rule = make_rule((0, 20)).update(x)
    result = summarise(_h2h_pairs(x), rule, "x", a="A", b="B", mode=HEAD_TO_HEAD)
    text = format_result(result)
    assert text.count("not adjusted for the sequential stop") >= 3
    summary = compare_summary(result)
    assert summary["test"]["interval_adjusted_for_stop"] is False
    assert "interval_not_adjusted_for_stop" in [w["code"] for w in summary["warnings"]]


def test_field_mode_elo_is_labelled_as_pair_score_elo():
    """D9: field-mode "Elo" is the Elo of the pair score, not head-to-head Elo."""
    rule = make_rule(precision=0.05)
    pairs, reason = run_sequential(_fake_play(0.5, 0.45), rule, max_games=200_000)
    result = summarise(pairs, rule, reason, a="A", b="B", mode=FIELD, players=3)
    text = format_result(result)
    assert "pair-score Elo A − B" in text and "not comparable with head-to-head" in text
    summary = compare_summary(result)
    assert summary["elo"]["kind"] == "pair-score"
    assert "field_mode_elo" in [w["code"] for w in summary["warnings"]]
    h2h = summarise(_h2h_pairs(np.full(50, 0.75)), make_rule((0, 5)), "x", a="A", b="B",
                    mode=HEAD_TO_HEAD)  # fmt: skip
    assert h2h.elo["kind"] == "head-to-head"


def test_head_to_head_win_rates_are_clustered_by_seed():
    """D10: the two seat-swapped games of a seed are not independent. Most seeds split 1-1
    here, so A's win rate is far more precise than a Wilson interval over 2n games says."""
    rng = np.random.default_rng(8)
    wins = rng.choice([0, 1, 2], size=400, p=[0.04, 0.9, 0.06])
    result = summarise(_h2h_pairs(wins / 2, wins), make_rule((0, 5)), "x", a="A", b="B",
                       mode=HEAD_TO_HEAD)  # fmt: skip
    rate = result.rates["a"]
    rows = np.r_[wins >= 1, wins == 2].astype(float)  # the 800 games, two per seed
    ref = clustered_rate(rows, np.r_[np.arange(400), np.arange(400)])
    assert (rate["lo"], rate["hi"]) == pytest.approx((ref.lo, ref.hi))
    naive_lo, naive_hi = wilson_interval(rate["k"], rate["n"])
    assert rate["hi"] - rate["lo"] < 0.5 * (naive_hi - naive_lo)
    # and it matches the paired difference next to it: d = 2·rate - 1 exactly here
    d = result.difference
    assert 2 * rate["rate"] - 1 == pytest.approx(d["mean_diff"])
    assert (2 * rate["hi"] - 1) == pytest.approx(d["hi"], abs=0.01)


def _pairs(scores_a: np.ndarray) -> pd.DataFrame:
    """Head-to-head seeds with A's pair score given (two games a seed, no shared wins)."""
    n = scores_a.size
    return pd.DataFrame({"seed": np.arange(n), "score_a": scores_a, "score_b": 1 - scores_a,
                         "wins_a": 2 * scores_a, "wins_b": 2 - 2 * scores_a,
                         "shared_a": 0.0, "shared_b": 0.0, "games": 2})  # fmt: skip


def test_n3_estimates_stop_at_the_sprt_decision():
    """Statistics review N3: ``compare --sprt 0 5`` printed "H0 accepted (elo <= 0)" beside
    Elo +4.4 [+2.1, +6.7] and LLR +7.12 of 3,968 seeds when the test had decided at 2,107.
    The estimates are now the test's state at its decision; the rest of the batch is shown
    apart, labelled, and H0 is worded as what it means."""
    from bnb_sim.analysis.compare import HEAD_TO_HEAD, format_result, summarise
    from bnb_sim.analysis.sequential import SPRT

    rng = np.random.default_rng(4)
    scores = np.r_[np.zeros(300), rng.choice([0.0, 0.5, 1.0], 3000, p=[0.1, 0.5, 0.4])]
    rule = SPRT(0, 5).update(scores)
    assert rule.decision == "H0" and rule.decision_n < scores.size
    result = summarise(_pairs(scores), rule, rule.reason, a="A", b="B", mode=HEAD_TO_HEAD)
    n = rule.decision_n
    assert result.n_pairs == n and result.n_games == 2 * n
    at = scores[:n].mean()
    assert result.score["mean"] == pytest.approx(at)
    assert result.difference["mean_diff"] == pytest.approx(2 * at - 1)
    assert result.test["n"] == n and result.test["llr"] <= result.test["lower"]
    after = result.after_decision
    assert after["n_pairs"] == scores.size and after["seeds_after_decision"] == scores.size - n
    assert after["difference"]["mean_diff"] == pytest.approx(2 * scores.mean() - 1)
    text = format_result(result)
    assert "elo <= 0" not in text and "the evidence favours elo 0 over elo 5" in text
    assert "A is not shown to be 5 Elo stronger than B (elo < 5)" in text
    assert "after the decision" in text and "not part of the test" in text
    # no batch beyond the decision: nothing to show apart
    rule = SPRT(0, 5).update(scores[:n])
    assert summarise(_pairs(scores[:n]), rule, rule.reason, a="A", b="B",
                     mode=HEAD_TO_HEAD).after_decision is None  # fmt: skip


def test_the_pair_score_interval_stays_within_what_a_score_can_be():
    """Five seeds, four won in both seatings and one split: the t interval of the mean pair
    score ends at 1.18 (a difference of +136 pp); cut at 1 (+100 pp), which changes no
    coverage, the lower end unchanged."""
    x = np.array([1.0, 1.0, 1.0, 1.0, 0.5])
    rule = make_rule(None, 0.01).update(x)
    result = summarise(_h2h_pairs(x), rule, "x", a="A", b="B", mode=HEAD_TO_HEAD)
    d = compare_summary(result)["difference"]
    assert d["hi"] == 1.0 and d["lo"] == pytest.approx(2 * (0.9 - 2.776 * 0.1) - 1, abs=1e-3)
