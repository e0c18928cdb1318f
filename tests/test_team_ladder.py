"""The ladder of a cooperative game (``bnb ladder --game hotv``): paired steps on synthetic
wins, a stand-in cooperative game (the shared code names no game), the command's table,
JSON and report, pairing against ``bnb compare --game hotv``, determinism, bad input."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from test_cli_simulate import run_cli

from bnb_sim.analysis.team_ladder import (
    analyse_team_ladder,
    format_team_ladder,
    team_ladder_summary,
)
from bnb_sim.games import GameSpec, get_game

# -- synthetic wins ------------------------------------------------------------------------


def _chain(rates: list[float], games: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Rungs r0.. whose team wins on one shared uniform per game index: a rung with a
    higher rate wins every index a lower one wins (strongly paired, as common deals make)."""
    u = np.random.default_rng(seed).random(games)
    return {f"r{i}": u < p for i, p in enumerate(rates)}


def test_paired_steps_separated_not_separated_and_reversed():
    won = _chain([0.10, 0.60, 0.60, 0.55, 0.90], games=2000)
    result = analyse_team_ladder(won, players=3, seed=1, setting="3 players", title="Game")
    steps = result.steps
    assert steps["separated"].tolist() == [True, False, False, True]
    assert steps["reversed"].tolist() == [False, False, True, False]
    assert result.skill_depth == 2 and result.n_games == 5 * 2000
    for row in steps.itertuples():
        assert row.lo <= row.diff <= row.hi and row.n == 2000
        # the difference is that of the two rates on the same indices
        rates = result.rates.set_index("rung")["rate"]
        assert row.diff == pytest.approx(rates[row.upper] - rates[row.lower])
    # nested wins: the weaker rung never wins where the stronger loses
    assert steps.loc[0, "lower_only"] == 0 and steps.loc[0, "upset"] == 0.0
    assert steps.loc[0, "weaker"] == "r0" and steps.loc[2, "weaker"] == "r3"
    assert steps.loc[1, "note"] == "all differences equal"  # identical rungs: a bound
    assert steps.loc[1, "lo"] < 0 < steps.loc[1, "hi"]
    text = format_team_ladder(result)
    assert "skill depth: 2 of 4 steps separated" in text and "r1 vs r0" in text


def test_unpaired_noise_is_not_a_step():
    rng = np.random.default_rng(5)
    won = {"a": rng.random(3000) < 0.5, "b": rng.random(3000) < 0.5}
    result = analyse_team_ladder(won, players=2)
    assert result.skill_depth == 0 and not result.steps["reversed"].any()
    assert result.steps.loc[0, "lo"] < 0 < result.steps.loc[0, "hi"]


def test_team_ladder_summary_is_strict_json_with_the_ladder_keys():
    from bnb_sim import jsonsafe

    result = analyse_team_ladder(_chain([0.2, 0.7], 500), players=2, seed=3)
    summary = json.loads(jsonsafe.dumps(team_ladder_summary(result)))
    assert summary["kind"] == "ladder" and summary["outcome"] == "cooperative"
    assert summary["skill_depth"] == 1 and summary["rungs"] == ["r0", "r1"]
    for key in ("lower", "upper", "diff", "lo", "hi", "n", "separated", "reversed",
                "p_value", "upper_only", "lower_only", "upset"):  # fmt: skip
        assert key in summary["steps"][0]
    assert [r["rung"] for r in summary["rates"]] == ["r0", "r1"]


# -- a stand-in cooperative game -------------------------------------------------------------


class _FakeTeam:
    players = 2
    default_rungs = ("weak", "strong")
    default_games = 300
    setting = "2 players"

    def label(self, spec: str) -> str:
        if spec not in ("weak", "mid", "strong"):
            raise ValueError(spec)
        return spec

    def won(self, spec: str, games: int, threads=None) -> np.ndarray:
        return _chain([{"weak": 0.2, "mid": 0.5, "strong": 0.8}[spec]], games, seed=9)["r0"]

    def params(self) -> dict:
        return {"game": "stand-in"}


def fake_team_play(**_options) -> _FakeTeam:
    return _FakeTeam()


def test_a_cooperative_game_needs_only_its_team_play_entry():
    """The shared ladder code branches on the outcome kind: a game it has never heard of
    gets a ladder from its ``team_play`` entry alone."""
    from bnb_sim.runner.team_ladder import plan_team_ladder, run_team_ladder

    stand_in = SimpleNamespace(team_play=fake_team_play)  # its protocol object: one hook
    game = GameSpec("stand_in", "Stand-in", outcome="cooperative", game=stand_in)
    plan = plan_team_ladder(game, None, seed=2)
    assert plan.rungs == ["weak", "strong"] and plan.games == 300
    result = run_team_ladder(plan)
    assert result.skill_depth == 1 and result.params["game"] == "stand-in"
    plan = plan_team_ladder(game, ["weak", "mid", "strong"], games=50)
    assert run_team_ladder(plan).n_games == 150


def test_the_registry_says_which_games_are_cooperative():
    assert get_game("hotv").outcome == "cooperative"
    assert get_game(None).outcome == "competitive"


# -- the command -----------------------------------------------------------------------------

HOTV = ["ladder", "--game", "hotv", "--players", "2", "--games", "600", "--seed", "3", "-q"]


def _hotv_json(capsys, tmp_path, name, *extra) -> dict:
    code, out, err = run_cli(capsys, [*HOTV, *extra, "--json", "-o", tmp_path / name])
    assert code == 0, err
    payload = json.loads(out)
    assert payload["summary"] == json.loads((tmp_path / name / "summary.json").read_text())
    return payload["summary"]


def test_hotv_ladder_table_report_and_pairing(tmp_path, capsys):
    code, out, err = run_cli(capsys, [*HOTV, "--threads", "1", "-o", tmp_path / "t"])
    assert code == 0, err
    assert "team vs random" in out and "strong vs team" in out and "skill depth:" in out
    assert (tmp_path / "t" / "report.md").exists() and (
        tmp_path / "t" / "ladder-rates.png"
    ).exists()
    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert summary["rungs"] == ["random", "team", "strong"]  # the game's default rungs
    assert summary["outcome"] == "cooperative" and summary["players"] == 2
    assert summary["n_games"] == 3 * 600 and summary["steps"][0]["n"] == 600
    assert summary["steps"][0]["separated"] is True  # the team bot beats random play
    # the same game indices as bnb compare --game hotv: the same paired difference
    from bnb_sim.analysis.protocol_studies import compare
    from bnb_sim.core.registry import get_game

    game = get_game("hotv")
    compared = compare(game, game.load_components([]), "strong", "team", players=2, seed=3,
                       max_games=600, threads=1)  # fmt: skip
    step = summary["steps"][1]
    assert step["diff"] == pytest.approx(compared["difference"]["mean_diff"])
    assert step["lo"] == pytest.approx(compared["difference"]["lo"])
    assert step["p_value"] == pytest.approx(compared["mcnemar"]["p_value"])


def _rates(summary: dict) -> list:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in summary["rates"]]


def test_hotv_ladder_is_deterministic_across_threads_and_takes_the_games_options(tmp_path, capsys):
    one = _hotv_json(capsys, tmp_path, "one", "--threads", "1", "--rungs", "random,team")
    two = _hotv_json(capsys, tmp_path, "two", "--threads", "2", "--rungs", "random,team")
    assert one["steps"] == two["steps"] and _rates(one) == _rates(two)
    cats = _hotv_json(capsys, tmp_path, "cats", "--threads", "2", "--rungs", "random,team",
                      "--pets", "cat,panda", "--difficulty", "easy")  # fmt: skip
    assert cats["params"]["pets"] == ["cat", "panda"] and cats["params"]["difficulty"] == "easy"
    assert _rates(cats) != _rates(one)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "hotv", "--rungs", "team"], "at least 2 rungs"),
        (["--game", "hotv", "--rungs", "team,random,team"], "list it once"),
        (["--game", "hotv", "--rungs", "team,nosuchbot"], "nosuchbot"),
        (["--game", "hotv", "--pets", "all"], "one pet team"),
        (["--game", "hotv", "--pets", "wolf,cat", "--players", "3"], "2 pets for 3 players"),
        (["--game", "hotv", "--bootstrap", "50"], "--bootstrap does not apply"),
        (["--game", "hotv", "--variant", "beginner"], "--variant is an option of"),
        (
            [
                "--game",
                "hotv",
                "--games",
                "10000000",
                "--rungs",
                "random,team,strong,team:mob=1,"
                "team:mob=2,team:mob=3,team:mob=4,team:mob=5,team:mob=6,team:mob=7,team:mob=8",
            ],
            "--yes",
        ),  # fmt: skip
        (["--pets", "wolf,cat"], "--pets is an option of"),  # not a Builders & Biomes option
    ],
)
def test_hotv_ladder_bad_input_is_one_line(tmp_path, capsys, args, message):
    code, out, err = run_cli(capsys, ["ladder", *args, "-q", "-o", tmp_path / "bad"])
    assert code == 2, err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "bad").exists()


def test_the_ladder_modules_import_without_numba():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import bnb_sim.cli.ladder_cmd, bnb_sim.analysis.team_ladder, bnb_sim.runner.team_ladder\n"
        "import bnb_sim.games.heroes_village.ladder, bnb_sim.analysis.ladder_item\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
