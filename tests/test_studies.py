"""The top-level Python API of tournaments, comparisons, sweeps and experiment files
(``bnb_sim.tournament``, ``compare``, ``sweep``, ``run_experiment``): the same numbers as the
commands, the same checks before any game, results as dataclasses of DataFrames."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

import bnb_sim
from bnb_sim.analysis.report_builder import _jsonable
from bnb_sim.cli import main
from bnb_sim.errors import ArgumentTypeError, BnbError


def _cli_json(argv, capsys):
    capsys.readouterr()
    main([*argv, "--json"])
    return json.loads(capsys.readouterr().out)


def _plain(value):
    return json.loads(json.dumps(_jsonable(value)))


def test_tournament_gives_the_numbers_of_the_command(tmp_path, capsys):
    from bnb_sim.analysis.tournament import tournament_summary

    args = dict(players=2, games=8, seed=3, bootstrap=20)
    result = bnb_sim.tournament(["heuristic", "greedy", "random"], **args, out=tmp_path / "t")
    assert isinstance(result, bnb_sim.TournamentResult)
    assert isinstance(result.ratings, pd.DataFrame) and list(result.ratings["policy"])
    assert (tmp_path / "t" / "report.html").is_file()
    cli = _cli_json(
        ["tournament", "--policies", "heuristic,greedy,random", "--players", "2", "--games",
         "8", "--seed", "3", "--bootstrap", "20", "-q", "--out", str(tmp_path / "cli")],
        capsys,
    )  # fmt: skip
    mine = _plain(tournament_summary(result))
    assert mine["ratings"] == cli["summary"]["ratings"]
    assert mine["win_rate"] == cli["summary"]["win_rate"]
    # the comma form is an alias of the list
    again = bnb_sim.tournament("heuristic,greedy,random", **args)
    pd.testing.assert_frame_equal(again.ratings, result.ratings)


def test_compare_gives_the_numbers_of_the_command(capsys):
    from bnb_sim.analysis.compare import compare_summary

    result = bnb_sim.compare("heuristic", "random", precision=0.2, max_games=40, seed=2)
    assert isinstance(result, bnb_sim.CompareResult)
    cli = _cli_json(["compare", "heuristic", "random", "--precision", "0.2", "--max-games", "40",
                     "--seed", "2", "-q"], capsys)  # fmt: skip
    mine = _plain(compare_summary(result))
    for key in ("n_games", "n_pairs", "difference", "verdict", "reason", "rates"):
        assert mine[key] == cli[key], key


def test_sweep_gives_the_numbers_of_the_command(tmp_path, capsys):
    from bnb_sim.analysis.sweep import sweep_summary

    result = bnb_sim.sweep(
        {"rules.fight_reveal": [2, 4]}, games=10, players=2, policies=["greedy"], seed=1
    )
    assert isinstance(result, bnb_sim.SweepResult)
    assert isinstance(result.win_effects, pd.DataFrame) and len(result.variants) == 3
    cli = _cli_json(
        ["sweep", "--set", "rules.fight_reveal=2,4", "--games", "10", "--players", "2",
         "--policy", "greedy", "--seed", "1", "-q", "--out", str(tmp_path / "s")],
        capsys,
    )  # fmt: skip
    mine = _plain(sweep_summary(result))
    assert mine == {k: cli["summary"][k] for k in mine}


SMALL = """
[experiment]
title = "tiny"
seed = 5

[[simulation]]
name = "mirror"
games = 20
players = 2
policies = ["greedy", "greedy"]

[[tournament]]
name = "bots"
policies = ["greedy", "random"]
players = 2
games = 4
bootstrap = 10
"""


def test_run_experiment_plays_every_item_and_writes_the_report(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text(SMALL)
    result = bnb_sim.run_experiment(path, out=tmp_path / "report")
    assert isinstance(result, bnb_sim.ExperimentResult)
    seats, games, meta = result["mirror"]
    assert len(games) == 20 and len(seats) == 40
    assert isinstance(result["bots"], bnb_sim.TournamentResult)
    assert result.report["html"].is_file()
    summary = json.loads(result.report["summary"].read_text())
    assert summary["schema_version"] == 1
    with pytest.raises(KeyError, match="no item 'nope'.*mirror, bots"):
        result["nope"]
    assert "2 items" in repr(result)


@pytest.mark.parametrize(
    ("call", "error", "needle"),
    [
        (lambda: bnb_sim.tournament(["heuristic"], games=4), BnbError, "at least"),
        (lambda: bnb_sim.tournament([1, 2]), ArgumentTypeError, "policies must be"),
        (lambda: bnb_sim.tournament(["random", "heurstic"], games=4), BnbError, "heurstic"),
        (lambda: bnb_sim.tournament(["random", "greedy"], players=7), BnbError, "players"),
        (lambda: bnb_sim.tournament(["random", "greedy"], games=1), BnbError, "games"),
        (lambda: bnb_sim.compare("a", 3), ArgumentTypeError, "b must be"),
        (
            lambda: bnb_sim.compare("greedy", "random", players=3, precision=0.1),
            BnbError,
            "head-to-head comparison",
        ),
        (lambda: bnb_sim.compare("greedy", "random", sprt=5), ArgumentTypeError, "sprt"),
        (lambda: bnb_sim.compare("greedy", "random"), BnbError, "exactly one of sprt"),
        (lambda: bnb_sim.sweep("rules.fight_reveal=2,4"), ArgumentTypeError, "sets must map"),
        (lambda: bnb_sim.sweep({"rules.fight_reveal": 4}), ArgumentTypeError, "non-empty list"),
        (lambda: bnb_sim.sweep({"rules.nope": [1]}, games=4), BnbError, "nope"),
        (
            lambda: bnb_sim.tournament(["random", "greedy"], readings={"hunger": "x"}),
            BnbError,
            "hunger",
        ),
        (lambda: bnb_sim.run_experiment(), BnbError, "give a path or builtin"),
        (lambda: bnb_sim.run_experiment(builtin="nope"), BnbError, "unknown built-in"),
        (
            lambda: bnb_sim.tournament(["random", "greedy"], games=10**8, players=2),
            BnbError,
            "yes=True",
        ),
    ],
)
def test_bad_input_is_one_error_before_any_game(call, error, needle):
    with pytest.raises(error, match=needle):
        call()


def test_an_unwritable_out_fails_before_playing(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(BnbError, match="cannot write the report there"):
        bnb_sim.compare("greedy", "random", precision=0.1, out=tmp_path / "file")


def test_the_names_are_exported_and_import_bnb_sim_stays_numba_free():
    for name in ("tournament", "compare", "sweep", "run_experiment", "ExperimentResult"):
        assert name in bnb_sim.__all__ and getattr(bnb_sim, name).__doc__
    code = (
        "import sys, bnb_sim\n"
        "bnb_sim.tournament, bnb_sim.compare, bnb_sim.sweep, bnb_sim.run_experiment\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
