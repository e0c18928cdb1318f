"""``bnb tune policy --sprt``: an SPRT verdict on the final comparison, beside the interval."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bnb_sim.analysis.experiment import parse_experiment
from bnb_sim.cli import main
from bnb_sim.errors import BnbError
from bnb_sim.tune.policy_tune import final_comparison, plan_policy_tune


def _side(per_seed) -> dict:
    x = np.asarray(per_seed, dtype=float)
    return {"per_seed": x.tolist(), "score": float(x.mean()), "wins": int(x.sum()),
            "games": 2 * x.size}  # fmt: skip


def _seeds(p_win: float, n: int, seed: int) -> np.ndarray:
    """Per-seed scores of two games (0, 1/2 or 1)."""
    rng = np.random.default_rng(seed)
    return rng.binomial(2, p_win, n) / 2.0


def test_sprt_accepts_h1_for_a_clearly_better_answer_and_h0_for_no_change():
    start = _seeds(0.5, 400, 1)
    better = final_comparison(_side(_seeds(0.8, 400, 2)), _side(start), sprt=(0.0, 20.0))
    assert better["sprt"]["decision"] == "H1" and "H1 accepted" in better["sprt"]["verdict"]
    assert better["sprt"]["decision_n"] < 400 and better["difference"]["lo"] > 0
    same = final_comparison(_side(_seeds(0.5, 3000, 3)), _side(_seeds(0.5, 3000, 4)),
                            sprt=(0.0, 20.0))  # fmt: skip
    assert same["sprt"]["decision"] == "H0" and "not shown to be" in same["sprt"]["verdict"]
    assert "the evidence favours pair-score elo +0 over +20" in same["sprt"]["verdict"]
    # the pair scores are the per-seed (1 + tuned − start) / 2: n of them; the summary is
    # the state at the decision (statistics review N3)
    assert same["sprt"]["n_played"] == 3000 and same["sprt"]["n"] == same["sprt"]["decision_n"]


def test_sprt_can_end_undecided_and_is_absent_without_the_option():
    few = final_comparison(_side(_seeds(0.6, 15, 5)), _side(_seeds(0.5, 15, 6)), sprt=(0, 5))
    assert few["sprt"]["decision"] is None and "undecided" in few["sprt"]["verdict"]
    assert "sprt" not in final_comparison(_side([1, 0.5]), _side([0.5, 0.5]))


def test_sprt_bounds_are_checked_before_any_game(tmp_path, capsys):
    with pytest.raises(BnbError, match="ELO0 < ELO1"):
        plan_policy_tune("heuristic", against=["greedy"], players=2, budget=2000, sprt=(5, 0))
    out = tmp_path / "t"
    with pytest.raises(SystemExit) as exc:
        main(["tune", "policy", "heuristic", "--against", "greedy", "--budget", "2000",
              "--sprt", "5", "0", "--out", str(out)])  # fmt: skip
    assert exc.value.code == 2 and "ELO0 < ELO1" in capsys.readouterr().err
    assert not out.exists()


def test_cli_prints_and_records_the_sprt_verdict(tmp_path, capsys):
    out = tmp_path / "s"
    args = ["tune", "policy", "heuristic:board=0", "--against", "greedy", "--budget", "2000",
            "--param", "board=0..3", "--seed", "4", "-q", "--sprt", "0", "30",
            "--out", str(out)]  # fmt: skip
    main(args)
    text = capsys.readouterr().out
    assert "SPRT [0, 30]" in text
    main([*args, "--resume", "--json"])
    sprt = json.loads(capsys.readouterr().out)["comparison"]["sprt"]
    assert sprt["elo0"] == 0 and sprt["elo1"] == 30 and sprt["verdict"] in text


def test_experiment_tune_item_sprt():
    import tomllib

    base = '[[tune]]\nagainst = ["greedy"]\nbudget = 2000\n'
    exp = parse_experiment(tomllib.loads(base + "sprt = [0, 10]\n"), "exp.toml")
    assert exp.items[0].plan.sprt == (0.0, 10.0)
    with pytest.raises(BnbError, match="must be"):
        parse_experiment(tomllib.loads(base + 'sprt = [0, "x"]\n'), "exp.toml")
    game = ('[[tune]]\nwhat = "game"\nparams = ["mobs.enderman.hearts=5..6"]\n'
            'targets = ["game_length=min"]\nbudget = 2000\nsprt = [0, 10]\n')  # fmt: skip
    with pytest.raises(BnbError, match="policy"):
        parse_experiment(tomllib.loads(game), "exp.toml")


# --------------------------------------------------------------------------------------
# degenerate samples: never a zero-width interval, never a crash on a stored null


def test_a_final_comparison_where_every_seed_differs_alike_has_a_valid_interval():
    c = final_comparison(_side([1.0] * 30), _side([0.0] * 30))
    d = c["difference"]
    assert d["mean_diff"] == 1 and 0 < d["lo"] < 1 == d["hi"]  # not [1, 1], not NaN
    assert "better" in c["verdict"]
    same = final_comparison(_side([0.5] * 30), _side([0.5] * 30))["difference"]
    assert same["lo"] < 0 < same["hi"]


def test_report_texts_of_degenerate_estimates():
    from bnb_sim.tune.report import _delta_text, _estimate_text, _score_ci

    text = _score_ci(1.0, 0.0, 40)
    assert "all 40 seeds equal" in text and "1.000, 1.000" not in text
    assert "no interval" in _score_ci(0.5, None, 1)
    stored = {"mean_diff": 0.0, "lo": None, "hi": None, "n": 120, "note": "all differences equal"}
    assert "+0.00 turns (" in _delta_text("game_length", stored)
    assert "[" not in _delta_text("first_player_advantage", stored)
    assert _estimate_text("game_length", {"value": None, "lo": None, "hi": None}) == "n/a"
