"""``bnb robustness``: the command, its report, --json, --run DIR and `bnb report`, the
``[[robustness]]`` experiment item, the Python API, and Heroes of the Village."""

from __future__ import annotations

import json

import pytest
from test_cli_simulate import run_cli

import bnb_sim
from bnb_sim.analysis.robustness import RobustnessResult

SMALL = ["--players", "2", "--games", "300", "--rungs", "random,greedy", "--threads", "1", "-q"]


def test_json_summary_and_report_lead_with_the_verdicts(tmp_path, capsys):
    out = tmp_path / "r"
    code, stdout, err = run_cli(capsys, ["robustness", *SMALL, "--out", out, "--json"])
    assert code == 0, err
    payload = json.loads(stdout)  # the whole of stdout is one JSON object
    summary = payload["summary"]
    assert summary == json.loads((out / "summary.json").read_text())
    assert summary["kind"] == "robustness" and summary["rungs"] == ["random", "greedy"]
    keys = {v["key"] for v in summary["verdicts"]}
    assert {"first_player_advantage", "balance", "game_length", "win_rate_seat_0"} <= keys
    for v in summary["verdicts"]:
        assert v["verdict"] in ("holds at every rung", "changes size", "changes sign")
    fpa = [d for d in summary["differences"] if d["key"] == "first_player_advantage"]
    assert len(fpa) == 1 and fpa[0]["lower"] == "random" and fpa[0]["upper"] == "greedy"
    assert fpa[0]["sim_lo"] <= fpa[0]["diff"] <= fpa[0]["sim_hi"]
    md = (out / "report.md").read_text()
    assert md.index("## Key findings") < md.index("## How far these findings hold")
    assert "First-player advantage" in md.split("## How far these findings hold")[1][:2000]
    assert (out / "robustness.png").is_file()


def test_text_output_says_every_verdict(tmp_path, capsys):
    code, stdout, err = run_cli(capsys, ["robustness", *SMALL, "--out", tmp_path / "r"])
    assert code == 0, err
    assert "random < greedy" in stdout and "First-player advantage:" in stdout
    assert "Game length (turns per game): changes size" in stdout  # random plays far longer


def test_rungs_are_paired_on_the_same_game_indices():
    """A rung gives the same numbers whatever the other rungs are: game g is the same deal at
    every rung (the same seed and index), so greedy's values match in both analyses."""
    a = bnb_sim.robustness("random,greedy", players=2, games=200, threads=1)
    b = bnb_sim.robustness(["greedy", "heuristic"], players=2, games=200, threads=1)
    assert isinstance(a, RobustnessResult)

    def greedy(result):
        v = result.values
        return v[v["rung"] == "greedy"].set_index("key")["value"]

    assert greedy(a).equals(greedy(b))
    assert "RobustnessResult random < greedy" in repr(a)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rungs", "greedy"], "needs at least 2 rungs"),
        (["--rungs", "greedy,greedy"], "greedy"),
        (["--rungs", "greedy,nosuchbot"], "nosuchbot"),
        (["--pets", "all"], "--pets"),
        (["--reading", "nosuch=1"], "nosuch"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, args, message):
    code, stdout, err = run_cli(capsys, ["robustness", "--games", "10", "-o", tmp_path / "o",
                                         *args])  # fmt: skip
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "o").exists()  # refused before anything was written


def test_run_folder_setup_and_its_report_section(tmp_path, capsys):
    run = tmp_path / "run"
    code, _, err = run_cli(capsys, ["simulate", "-n", "100", "--players", "3", "--policy",
                                    "greedy", "--seed", "4", "-o", run, "-q"])  # fmt: skip
    assert code == 0, err
    code, _, err = run_cli(capsys, ["robustness", "--run", run, "--players", "2", "-o",
                                    tmp_path / "x"])  # fmt: skip
    assert code == 2 and "--players" in err and "drop one" in err
    out = tmp_path / "rob"
    code, stdout, err = run_cli(capsys, ["robustness", "--run", run, "--rungs", "random,greedy",
                                         "--games", "150", "-q", "-o", out, "--json"])  # fmt: skip
    assert code == 0, err
    summary = json.loads(stdout)["summary"]
    assert summary["players"] == 3 and summary["seed"] == 4  # the run's set-up
    assert (run / "robustness.json").is_file()
    code, _, err = run_cli(capsys, ["report", run, "--out", tmp_path / "rep"])
    assert code == 0, err
    md = (tmp_path / "rep" / "report.md").read_text()
    section = md.split("## How far these findings hold")[1]
    assert "random" in section and str(out / "report.html") in section.replace("%20", " ")
    assert "First-player advantage" in section
    # the folder's run replaced by another: its report does not show the old verdicts
    code, _, err = run_cli(capsys, ["simulate", "-n", "50", "--players", "3", "-o", run, "-q",
                                    "--force"])  # fmt: skip
    assert code == 0, err
    assert run_cli(capsys, ["report", run, "--out", tmp_path / "rep2"])[0] == 0
    section = (tmp_path / "rep2" / "report.md").read_text().split("## How far these")[1]
    assert "recorded for an earlier run" in section and "First-player" not in section


def test_a_report_without_robustness_results_has_no_such_section(tmp_path, capsys):
    run = tmp_path / "run"
    assert run_cli(capsys, ["simulate", "-n", "40", "--players", "2", "-o", run, "-q"])[0] == 0
    assert run_cli(capsys, ["report", run, "--out", tmp_path / "rep"])[0] == 0
    assert "How far these findings hold" not in (tmp_path / "rep" / "report.md").read_text()


def test_experiment_item(tmp_path, capsys):
    exp = tmp_path / "exp.toml"
    exp.write_text(
        '[experiment]\ntitle = "robust"\n\n[[robustness]]\nname = "two"\nplayers = 2\n'
        'games = 150\nrungs = ["random", "greedy"]\npolicy = "heuristic"\n'
    )
    out = tmp_path / "rep"
    code, stdout, err = run_cli(capsys, ["run", exp, "--out", out, "-q", "--json"])
    assert code == 0, err
    md = (out / "report.md").read_text()
    assert "two: How far these findings hold" in md
    assert "two: First-player advantage" in md.split("## Key findings")[1]
    item = json.loads(stdout)["summary"]["items"][0]
    assert item["kind"] == "robustness" and item["games_per_rung"] == 150
    assert any(v["key"] == "policy_win_rate" for v in item["verdicts"])


def test_experiment_item_errors_name_the_key(tmp_path, capsys):
    exp = tmp_path / "exp.toml"
    exp.write_text('[[robustness]]\nrungs = ["greedy"]\n')
    code, _, err = run_cli(capsys, ["run", exp, "-q"])
    assert code == 2 and "rungs" in err and "at least 2 rungs" in err


def test_heroes_of_the_village_team_rate_and_pet_effects(tmp_path, capsys):
    out = tmp_path / "h"
    args = ["robustness", "--game", "hotv", "--players", "2", "--pets", "all", "--rungs",
            "random,team", "--games", "60", "--threads", "1", "-q", "-o", out,
            "--json"]  # fmt: skip
    code, stdout, err = run_cli(capsys, args)
    assert code == 0, err
    summary = json.loads(stdout)["summary"]
    keys = {v["key"] for v in summary["verdicts"]}
    assert {"team_win_rate", "game_length", "pet_effect_fox"} <= keys
    assert not any(k.startswith("win_rate_seat") for k in keys)  # a team game: no seats
    assert "Pet effects at each rung" in (out / "report.md").read_text()
    code, _, err = run_cli(capsys, ["robustness", "--game", "hotv", "--expansion",
                                    "farmers-market", "-o", tmp_path / "z"])  # fmt: skip
    assert code == 2 and "expansion" in err


@pytest.mark.slow
def test_dask_gives_the_same_numbers_as_one_process():
    """--dask plays each rung's chunks on worker processes: the same games, the same values
    (the game length from the seats' turns equals the games table's)."""
    pytest.importorskip("distributed")
    here = bnb_sim.robustness("random,greedy", players=2, games=120, threads=1)
    there = bnb_sim.robustness("random,greedy", players=2, games=120, threads=2, dask="local")
    cols = ["key", "rung", "value", "lo", "hi"]
    assert here.values[cols].equals(there.values[cols])


def test_a_policys_win_rate_against_each_rung(tmp_path, capsys):
    """--policy: the policy in one seat against the rung's bot in the others, seats rotating;
    random loses to both greedy and heuristic tables, far below the fair share."""
    out = tmp_path / "p"
    args = ["robustness", "--players", "2", "--games", "200", "--rungs", "greedy,heuristic",
            "--policy", "random", "-q", "-o", out, "--json"]  # fmt: skip
    code, stdout, err = run_cli(capsys, args)
    assert code == 0, err
    summary = json.loads(stdout)["summary"]
    rows = [v for v in summary["values"] if v["key"] == "policy_win_rate"]
    assert [r["rung"] for r in rows] == ["greedy", "heuristic"]
    assert all(r["hi"] < 0.5 for r in rows) and summary["params"]["policy"] == "random"
    code, _, err = run_cli(capsys, ["robustness", "--game", "hotv", "--policy", "team",
                                    "--games", "10", "-o", tmp_path / "h"])  # fmt: skip
    assert code == 2 and "competitive game" in err


def test_heroes_of_the_village_experiment_item(tmp_path, capsys):
    exp = tmp_path / "exp.toml"
    exp.write_text(
        '[[robustness]]\ngame = "hotv"\nname = "pets"\nplayers = 2\npets = "all"\n'
        'games = 40\nrungs = ["random", "team"]\n'
    )
    out = tmp_path / "rep"
    code, stdout, err = run_cli(capsys, ["run", exp, "--out", out, "-q", "--json"])
    assert code == 0, err
    item = json.loads(stdout)["summary"]["items"][0]
    assert item["kind"] == "robustness" and item["game"] == "heroes_village"
    assert any(v["key"] == "pet_effect_horse" for v in item["verdicts"])
    assert "pets: Pet effects at each rung" in (out / "report.md").read_text()
    exp.write_text('[[robustness]]\ngame = "hotv"\npets = "wolf"\n')
    code, _, err = run_cli(capsys, ["run", exp, "-q"])
    assert code == 2 and "pets" in err and len(err.strip().splitlines()) == 1


def test_heroes_of_the_village_run_folder(tmp_path, capsys):
    """--run of a HotV run: its pet teams, readings and component data, and its report."""
    run = tmp_path / "run"
    code, _, err = run_cli(capsys, ["simulate", "--game", "hotv", "-n", "30", "--players", "2",
                                    "--pets", "all", "--reading", "cat=first-draw", "-o", run,
                                    "-q"])  # fmt: skip
    assert code == 0, err
    code, stdout, err = run_cli(capsys, ["robustness", "--run", run, "--rungs", "random,team",
                                         "--games", "30", "-q", "-o", tmp_path / "r",
                                         "--json"])  # fmt: skip
    assert code == 0, err
    summary = json.loads(stdout)["summary"]
    assert summary["game"] == "heroes_village" and summary["params"]["pets"] == "all"
    assert run_cli(capsys, ["report", run, "--out", tmp_path / "rep"])[0] == 0
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## How far these findings hold" in md and "Team win rate" in md
    # what the run decided (its players, and its game's own options: OptionSpec data)
    for flag, value in (("--players", "3"), ("--pets", "wolf,cat"), ("--difficulty", "easy")):
        code, _, err = run_cli(capsys, ["robustness", "--game", "hotv", "--run", run, flag,
                                        value, "-o", tmp_path / "never"])  # fmt: skip
        assert code == 2 and err.strip() == (
            f"bnb: error: {flag}: --run {run} takes it from the run; drop one of them"
        )
