"""``bnb_sim.luck``, ``bnb_sim.value`` and ``bnb_sim.ladder``: exported lazily, the same
numbers as the commands with the same arguments, a readable repr, and bad arguments one
clear error before any game is played."""

from __future__ import annotations

import json

import pytest
from test_cli_simulate import run_cli

import bnb_sim
from bnb_sim.errors import BnbError


def test_the_studies_are_exported_lazily():
    for name in ("luck", "value", "ladder", "LuckResult", "ValueResult", "LadderResult"):
        assert name in bnb_sim.__all__ and name in dir(bnb_sim)
        assert getattr(bnb_sim, name) is not None


def _luck_numbers(summary: dict) -> dict:
    keep = ("rungs", "sources", "shares", "totals", "rest", "pairs", "n_games", "outcome")
    return {k: summary[k] for k in keep}


def test_luck_gives_the_numbers_of_bnb_luck(tmp_path, capsys):
    from bnb_sim.analysis.luck_report import luck_summary

    result = bnb_sim.luck(["random", "greedy"], groups=10, per_group=4, pair_games=40,
                          bootstrap=200, seed=3, threads=1, out=tmp_path / "api")  # fmt: skip
    code, out, err = run_cli(capsys, ["luck", "--rungs", "random,greedy", "--groups", "10",
                                      "--per-group", "4", "--pair-games", "40", "--bootstrap",
                                      "200", "--seed", "3", "-q", "--json", "-o",
                                      tmp_path / "cmd"])  # fmt: skip
    assert code == 0, err
    api = json.loads(json.dumps(luck_summary(result), default=float))
    assert _luck_numbers(api) == _luck_numbers(json.loads(out)["summary"])
    assert repr(result).startswith("<LuckResult Builders & Biomes, 2 players")
    assert "random, greedy" in repr(result) and len(repr(result)) < 200
    assert set(result.table()["rung"]) == {"random", "greedy"}
    assert (tmp_path / "api" / "report.md").exists()


def test_hotv_luck_gives_the_numbers_of_bnb_luck(tmp_path, capsys):
    from bnb_sim.analysis.luck_report import luck_summary

    result = bnb_sim.luck(game="hotv", groups=10, per_group=4, pair_games=20, bootstrap=100,
                          seed=2, pets="wolf,cat,fox")  # fmt: skip
    code, out, err = run_cli(capsys, ["luck", "--game", "hotv", "--groups", "10", "--per-group",
                                      "4", "--pair-games", "20", "--bootstrap", "100", "--seed",
                                      "2", "--pets", "wolf,cat,fox", "-q", "--json", "-o",
                                      tmp_path / "cmd"])  # fmt: skip
    assert code == 0, err
    api = json.loads(json.dumps(luck_summary(result), default=float))
    assert _luck_numbers(api) == _luck_numbers(json.loads(out)["summary"])
    assert repr(result).startswith("<LuckResult Heroes of the Village")


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"groups": 5}, "groups must be between 10 and 100,000, got 5"),
        ({"rungs": ["random", "nosuchbot"]}, "unknown policy 'nosuchbot'"),
        ({"outcome": "xp"}, "--outcome 'xp' is not one of win, margin"),
        ({"pair_games": 5, "rungs": "random,greedy"}, "must be 0 or at least 10, got 5"),
        ({"game": "hotv", "pets": "all"}, "give one pet team"),
        ({"game": "nosuchgame"}, "nosuchgame"),
    ],
)
def test_luck_bad_arguments_are_one_clear_error(kwargs, needle):
    with pytest.raises(BnbError) as info:
        bnb_sim.luck(**kwargs)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_luck_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="per_group must be an integer"):
        bnb_sim.luck(per_group="25")


def _value_numbers(data: dict) -> list:
    return [(o["option"], o["value"], o["lo"], o["hi"], o["n"]) for o in data["options"]]


def test_value_gives_the_numbers_of_bnb_value(tmp_path, capsys):
    result = bnb_sim.value(["fight", "fight:enderman"], games=60, seed=1, threads=1)
    code, out, err = run_cli(capsys, ["value", "--option", "fight", "--option",
                                      "fight:enderman", "--games", "60", "--seed", "1",
                                      "--json", "-q"])  # fmt: skip
    assert code == 0, err
    command = json.loads(out)
    assert _value_numbers(json.loads(json.dumps(result.to_dict(), default=float))) == (
        _value_numbers(command)
    )
    text = repr(result)
    assert text.startswith("<ValueResult builders_biomes, 2 players, heuristic: ")
    assert "fight" in text and " pp [" in text and len(text) < 300


def test_hotv_value_gives_the_numbers_of_bnb_value(capsys):
    result = bnb_sim.value("all-pets", game="hotv", players=2, games=30, seed=2)
    code, out, err = run_cli(capsys, ["value", "--game", "hotv", "--option", "all-pets",
                                      "--players", "2", "--games", "30", "--seed", "2",
                                      "--json", "-q"])  # fmt: skip
    assert code == 0, err
    assert _value_numbers(json.loads(json.dumps(result.to_dict(), default=float))) == (
        _value_numbers(json.loads(out))
    )
    assert repr(result).startswith("<ValueResult heroes_village, 2 players, team: pet:")


@pytest.mark.parametrize(
    ("args", "kwargs", "needle"),
    [
        ([[]], {}, "give at least one option"),
        ([["buy:nosuchitem"]], {}, "nosuchitem"),
        ([["fight"]], {"mode": "sometimes"}, "must be never or always"),
        ([["fight"]], {"games": 1}, "games must be between 2"),
        ([["fight"]], {"pets": "fox"}, "value: pets is not an option of"),
        ([["all-pets"]], {"game": "hotv", "mode": "always"}, "--mode never"),
    ],
)
def test_value_bad_arguments_are_one_clear_error(args, kwargs, needle):
    with pytest.raises(BnbError) as info:
        bnb_sim.value(*args, **kwargs)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_ladder_gives_the_numbers_of_bnb_ladder(tmp_path, capsys):
    result = bnb_sim.ladder("random,greedy,heuristic", games=20, bootstrap=60, seed=4,
                            threads=1)  # fmt: skip
    code, out, err = run_cli(capsys, ["ladder", "--rungs", "random,greedy,heuristic",
                                      "--games", "20", "--seed", "4", "--bootstrap", "60",
                                      "-q", "--json", "-o", tmp_path / "cmd"])  # fmt: skip
    assert code == 0, err
    command = json.loads(out)["summary"]
    from bnb_sim.analysis.ladder import ladder_summary

    api = json.loads(json.dumps(ladder_summary(result), default=float))

    def numbers(steps):  # every number but the wall time
        return [{k: v for k, v in s.items() if k != "seconds"} for s in steps]

    assert numbers(api["steps"]) == numbers(command["steps"])
    assert api["skill_depth"] == command["skill_depth"] and api["scale"] == command["scale"]
    assert repr(result).startswith("<LadderResult random < greedy < heuristic: 2 players")


def test_hotv_ladder_gives_the_numbers_of_bnb_ladder(tmp_path, capsys):
    from bnb_sim.analysis.team_ladder import build_team_ladder_report

    result = bnb_sim.ladder(game="hotv", players=2, games=300, seed=2)
    code, out, err = run_cli(capsys, ["ladder", "--game", "hotv", "--players", "2", "--games",
                                      "300", "--seed", "2", "-q", "--json", "-o",
                                      tmp_path / "cmd"])  # fmt: skip
    assert code == 0, err
    command = json.loads(out)["summary"]
    api = json.loads(json.dumps(build_team_ladder_report(result).summary, default=float))
    assert api["steps"] == command["steps"] and api["skill_depth"] == command["skill_depth"]
    assert repr(result).startswith("<")


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"rungs": ["random"]}, "needs at least 2 rungs"),
        ({"games": 1}, "games must be between 2"),
        ({"players": 5}, "players must be between 2 and 4"),
        ({"rungs": ["random", "nosuchbot"]}, "unknown policy"),
        ({"pets": "fox"}, "ladder: Minecraft: Builders & Biomes has no option 'pets'"),
        ({"game": "hotv", "bootstrap": 10}, "bootstrap does not apply"),
        ({"game": "hotv", "readings": {"x": "y"}}, "unknown reading 'x'"),
        ({"game": "hotv", "rungs": ["team"]}, "at least 2"),
    ],
)
def test_ladder_bad_arguments_are_one_clear_error(kwargs, needle):
    with pytest.raises(BnbError) as info:
        bnb_sim.ladder(**kwargs)
    assert needle in str(info.value) and "\n" not in str(info.value)
