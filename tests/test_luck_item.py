"""``[[luck]]`` items of experiment files (both games): checked when the file is read (one
line naming the file, the item and the key), played and reported as ``bnb luck`` plays and
reports the same arguments."""

from __future__ import annotations

import json
import textwrap

import pytest
from test_cli_simulate import run_cli

from bnb_sim.analysis.experiment import load_experiment

LUCK = """
[experiment]
title = "luck experiment"
seed = 3
bootstrap = 200

[[luck]]
name = "small luck"
rungs = ["random", "greedy"]
groups = 10
per_group = 4
pair_games = 40
"""

CMD = ["--groups", "10", "--per-group", "4", "--bootstrap", "200", "--seed", "3", "-q",
       "--json"]  # fmt: skip


def _write(tmp_path, text, name="exp.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_luck_item_is_parsed_with_the_files_defaults(tmp_path):
    exp = load_experiment(_write(tmp_path, LUCK + "\n[[luck]]\nplayers = 3\noutcome = 'margin'\n"
                                 "readings = { seating = 'fixed' }\n"))  # fmt: skip
    small, default = exp.items
    assert small.kind == "luck" and small.name == "small luck" and small.seed == 3
    assert small.plan.rungs == ["random", "greedy"] and small.plan.n_boot == 200
    assert small.budget() == 2 * (2 * 7 - 1) * 40 + 40  # as bnb luck counts them
    assert default.name == "luck 2" and default.plan.rungs == ["random", "greedy", "heuristic"]
    assert default.players == 3 and default.plan.setup.outcome == "margin"
    assert default.plan.groups == 200 and default.plan.pair_games == 200 * 25
    # a luck study honours the seating reading: fixed seats leave the seat draw out
    assert "seats" not in [k for k, _ in default.plan.sources]
    assert "seating=fixed" in default.readings_text()


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("rungz = ['random']\n", "unknown key 'luck[1].rungz'"),
        ("rungs = ['random', 'nosuchbot']\n", "luck[1].rungs: unknown policy"),
        ("rungs = ['random', 'random']\n", "luck[1].rungs:"),
        ("rungs = 3\n", "luck[1].rungs: must be a list of strings"),
        ("groups = 9\n", "luck[1].groups: must be at least 10"),
        ("per_group = 1\n", "luck[1].per_group: must be at least 2"),
        ("pair_games = 5\n", "luck[1].pair_games: must be 0 or at least 10"),
        ("players = 5\n", "luck[1].players: must be at most 4"),
        ("outcome = 'xp'\n", "luck[1].outcome: must be one of win, margin"),
        ("name = 'l'\nbootstrap = -1\n", "luck 'l'.bootstrap: must be at least 0"),
        ("readings = { hunger = 'sometimes' }\n", "luck[1].readings:"),
        ("expansion = 'nope'\n", "luck[1].expansion: unknown expansion"),
        ("pets = 'wolf,cat,fox'\n", "unknown key 'luck[1].pets'"),
    ],
)
def test_bad_luck_item_is_one_line_naming_file_item_and_key(tmp_path, capsys, body, needle):
    path = _write(tmp_path, "[[luck]]\n" + body)
    code, _, err = run_cli(capsys, ["run", path, "--out", tmp_path / "never", "-q"])
    assert code == 2
    err = err.strip()
    assert err.startswith("bnb: error: exp.toml: ") and err.count("\n") == 0, err
    assert needle in err, err
    assert not (tmp_path / "never").exists()


def _numbers(summary: dict) -> dict:
    keep = ("rungs", "sources", "shares", "totals", "rest", "pairs", "n_games", "outcome")
    return {k: summary[k] for k in keep}


def test_luck_item_plays_and_reports_what_bnb_luck_does(tmp_path, capsys):
    path = _write(tmp_path, LUCK)
    code, _, err = run_cli(capsys, ["run", path, "--out", tmp_path / "exp", "-q", "--json",
                                    "--threads", "1"])  # fmt: skip
    assert code == 0, err
    summary = json.loads((tmp_path / "exp" / "summary.json").read_text())
    (item,) = summary["items"]
    assert item["kind"] == "luck" and item["name"] == "small luck"
    code, out, err = run_cli(capsys, ["luck", *CMD, "--rungs", "random,greedy", "--pair-games",
                                      "40", "--threads", "2", "-o", tmp_path / "cmd"])  # fmt: skip
    assert code == 0, err
    assert _numbers(item) == _numbers(json.loads(out)["summary"])
    md = (tmp_path / "exp" / "report.md").read_text()
    assert "## small luck: luck and skill" in md and "| small luck | luck |" in md
    assert "What these numbers mean" in md
    assert (tmp_path / "exp" / "small-luck-luck-shares.png").exists()
    kinds = [f["kind"] for f in summary["key_findings"]]
    assert "luck_top_source" in kinds and "luck_skill_share" in kinds
    texts = [f["text"] for f in summary["key_findings"] if f["kind"].startswith("luck_")]
    assert all(t.startswith("small luck: ") for t in texts)


# -- Heroes of the Village ------------------------------------------------------------------

HOTV = """
[experiment]
seed = 2

[[luck]]
game = "hotv"
name = "team luck"
groups = 10
per_group = 4
pair_games = 20
bootstrap = 100
pets = "wolf,cat,fox"
"""


def test_hotv_luck_item_plays_and_reports_what_bnb_luck_does(tmp_path, capsys):
    path = _write(tmp_path, HOTV)
    code, _, err = run_cli(capsys, ["run", path, "--out", tmp_path / "exp", "-q"])
    assert code == 0, err
    summary = json.loads((tmp_path / "exp" / "summary.json").read_text())
    (item,) = summary["items"]
    assert item["kind"] == "luck" and item["game"] == "heroes_village"
    assert item["rungs"] == ["random", "team"] and item["params"]["pets"] == "wolf,cat,fox"
    code, out, err = run_cli(capsys, ["luck", "--game", "hotv", "--groups", "10", "--per-group",
                                      "4", "--pair-games", "20", "--bootstrap", "100", "--seed",
                                      "2", "--pets", "wolf,cat,fox", "-q", "--json", "-o",
                                      tmp_path / "cmd"])  # fmt: skip
    assert code == 0, err
    assert _numbers(item) == _numbers(json.loads(out)["summary"])
    md = (tmp_path / "exp" / "report.md").read_text()
    assert "## team luck: luck and skill" in md and "pets=wolf,cat,fox" in md


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("rungs = ['team', 'nosuchbot']\n", "luck[1].rungs:"),
        ("pets = 'all'\n", "luck[1].pets: give one pet team"),
        ("outcome = 'margin'\n", "luck[1].outcome: must be one of win"),
        ("players = 7\n", "luck[1].players: must be at most 4"),
        ("expansion = 'farmers-market'\n", "unknown key 'luck[1].expansion'"),
        ("groups = 3\n", "luck[1].groups: must be at least 10"),
        ("readings = 3\n", "luck[1].readings: must be a table"),
        ("players = 4\npets = 'wolf,cat'\n", "luck[1].pets: 2 pets for 4 players"),
        ("readings = { nosuch = 'x' }\n", "luck[1].readings: unknown reading 'nosuch'"),
        ("buildings = '99'\n", "luck[1].buildings: '99' is not a building number"),
        # its options are the game's OptionSpec data, read by kind, when the file is read
        ("difficulty = 'brutal'\n", "luck[1].difficulty: must be one of standard"),
        ("pets = 3\n", "luck[1].pets: must be a non-empty string, got 3"),
    ],
)
def test_bad_hotv_luck_item_is_one_line(tmp_path, capsys, body, needle):
    path = _write(tmp_path, "[[luck]]\ngame = 'hotv'\n" + body)
    code, _, err = run_cli(capsys, ["run", path, "--out", tmp_path / "never", "-q"])
    assert code == 2
    err = err.strip()
    assert err.startswith("bnb: error: exp.toml: ") and err.count("\n") == 0, err
    assert needle in err, err
    assert not (tmp_path / "never").exists()
