"""``[[ladder]]`` items of experiment files: parsed and checked with the file (one line naming
the file, the item and the key), played and reported as ``bnb ladder`` plays and reports the
same arguments."""

from __future__ import annotations

import json
import textwrap

import pytest
from test_cli_simulate import run_cli

from bnb_sim.analysis.experiment import load_experiment
from bnb_sim.analysis.ladder import DEFAULT_RUNGS

LADDER = """
[experiment]
title = "ladder experiment"
seed = 4
bootstrap = 60

[[ladder]]
name = "small ladder"
rungs = ["random", "greedy", "heuristic"]
players = 2
games = 20
"""


def _write(tmp_path, text, name="exp.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_ladder_item_is_parsed_with_the_files_defaults(tmp_path):
    exp = load_experiment(_write(tmp_path, LADDER + "\n[[ladder]]\ngames = 3\nplayers = 3\n"))
    small, default = exp.items
    assert small.kind == "ladder" and small.name == "small ladder"
    assert small.rungs == ["random", "greedy", "heuristic"] and small.games == 20
    assert small.seed == 4 and small.bootstrap == 60 and small.players == 2
    assert small.budget() == 2 * 2 * 20  # two steps, both seatings of 20 seeds
    assert default.name == "ladder 2" and default.rungs == list(DEFAULT_RUNGS)
    assert default.players == 3 and "seating=fixed" in default.readings_text()


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("games = 5\nrungz = ['random', 'greedy']\n", "unknown key 'ladder[1].rungz'"),
        ("rungs = ['random', 'greedy']\n", "ladder[1].games: is required"),
        ("games = 1\nrungs = ['random', 'greedy']\n", "ladder[1].games: must be at least 2"),
        ("games = 5\nrungs = ['random']\n", "ladder[1].rungs: needs at least 2 rungs"),
        ("games = 5\nrungs = ['random', 'nosuchbot']\n", "ladder[1].rungs: unknown policy"),
        ("games = 5\nrungs = ['random', 'greedy', 'random']\n", "ladder[1].rungs:"),
        ("games = 5\nrungs = 3\n", "ladder[1].rungs: must be a list of strings"),
        ("games = 5\nrungs = ['random', 'greedy']\nplayers = 5\n", "ladder[1].players: must be"),
        (
            "games = 5\nrungs = ['random', 'greedy']\nreadings = { seating = 'rotate' }\n",
            "ladder[1].readings:",
        ),  # fmt: skip
        (
            "name = 'l'\ngames = 5\nrungs = ['random', 'greedy']\nbootstrap = -1\n",
            "ladder 'l'.bootstrap: must be at least 0",
        ),  # fmt: skip
    ],
)
def test_bad_ladder_item_is_one_line_naming_file_and_key(tmp_path, capsys, body, needle):
    path = _write(tmp_path, "[[ladder]]\n" + body)
    code, _, err = run_cli(capsys, ["run", path, "--out", tmp_path / "never", "-q"])
    assert code == 2
    err = err.strip()
    assert err.startswith("bnb: error: exp.toml: ") and err.count("\n") == 0, err
    assert needle in err, err
    assert not (tmp_path / "never").exists()


def _steps(summary: dict) -> list:
    keep = ("lower", "upper", "score", "lo", "hi", "n", "separated", "reversed", "upset")
    return [{k: s[k] for k in keep} for s in summary["steps"]]


def test_ladder_item_plays_and_reports_what_bnb_ladder_does(tmp_path, capsys):
    path = _write(tmp_path, LADDER)
    code, out, err = run_cli(capsys, ["run", path, "--out", tmp_path / "exp", "-q", "--json",
                                      "--threads", "1"])  # fmt: skip
    assert code == 0, err
    summary = json.loads((tmp_path / "exp" / "summary.json").read_text())
    (item,) = summary["items"]
    assert item["kind"] == "ladder" and item["name"] == "small ladder"
    assert item["rungs"] == ["random", "greedy", "heuristic"] and item["n_games"] == 80
    code, out, err = run_cli(capsys, ["ladder", "--rungs", "random,greedy,heuristic",
                                      "--games", "20", "--seed", "4", "--bootstrap", "60",
                                      "--threads", "2", "-q", "--json", "-o",
                                      tmp_path / "cmd"])  # fmt: skip
    assert code == 0, err
    command = json.loads(out)["summary"]
    assert _steps(item) == _steps(command) and item["skill_depth"] == command["skill_depth"]
    assert item["scale"] == command["scale"]
    md = (tmp_path / "exp" / "report.md").read_text()
    assert "## small ladder: steps" in md and "## small ladder: scale" in md
    assert "| small ladder | ladder |" in md  # the overview names the item and its kind
    assert (tmp_path / "exp" / "small-ladder-ladder-scale.png").exists()
    found = [f for f in summary["key_findings"] if f["kind"] == "skill_depth"]
    assert found and found[0]["text"].startswith("small ladder: Skill depth")


# -- Heroes of the Village ------------------------------------------------------------------

HOTV = """
[experiment]
seed = 2

[[ladder]]
game = "hotv"
name = "team ladder"
players = 2
games = 300
"""


def test_hotv_ladder_item_plays_and_reports_what_bnb_ladder_does(tmp_path, capsys):
    path = _write(tmp_path, HOTV)
    code, _, err = run_cli(capsys, ["run", path, "--out", tmp_path / "exp", "-q"])
    assert code == 0, err
    summary = json.loads((tmp_path / "exp" / "summary.json").read_text())
    (item,) = summary["items"]
    assert item["kind"] == "ladder" and item["outcome"] == "cooperative"
    assert item["rungs"] == ["random", "team", "strong"] and item["n_games"] == 900
    code, out, err = run_cli(capsys, ["ladder", "--game", "hotv", "--players", "2", "--games",
                                      "300", "--seed", "2", "-q", "--json", "-o",
                                      tmp_path / "cmd"])  # fmt: skip
    assert code == 0, err
    command = json.loads(out)["summary"]
    assert item["steps"] == command["steps"] and item["skill_depth"] == command["skill_depth"]
    md = (tmp_path / "exp" / "report.md").read_text()
    assert "## team ladder: steps" in md and "| team ladder | ladder |" in md
    assert (tmp_path / "exp" / "team-ladder-ladder-rates.png").exists()


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("rungs = ['team']\n", "ladder[1].rungs: needs at least 2 rungs"),
        ("rungs = ['team', 'nosuchbot']\n", "ladder[1].rungs:"),
        ("pets = 'all'\n", "ladder[1].pets: give one pet team"),
        ("pets = 'wolf,cat'\nplayers = 3\n", "ladder[1].pets:"),
        ("bootstrap = 10\n", "unknown key 'ladder[1].bootstrap'"),
    ],
)
def test_bad_hotv_ladder_item_is_one_line(tmp_path, capsys, body, needle):
    path = _write(tmp_path, "[[ladder]]\ngame = 'hotv'\ngames = 50\n" + body)
    code, _, err = run_cli(capsys, ["run", path, "--out", tmp_path / "never", "-q"])
    assert code == 2
    err = err.strip()
    assert err.startswith("bnb: error: exp.toml: ") and err.count("\n") == 0, err
    assert needle in err, err
    assert not (tmp_path / "never").exists()
