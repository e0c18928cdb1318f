"""CLI conventions: ``--json`` on every command that prints results, ``--policy`` repeated
everywhere (``--policies A,B`` as an alias), one ``--force`` rule for report folders, the
file scaffolds (``components template``, ``run --template``), and ``bnb export --csv``."""

from __future__ import annotations

import csv
import json

import pandas as pd
import pytest
from fake_runs import FakeSpec, write_fake_run
from test_cli_simulate import run_cli

from bnb_sim.runner.storage import load_run

PLAY = ["--seed", "3", "--threads", "1", "-q"]


@pytest.fixture(scope="module")
def fake_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("conv") / "run"
    write_fake_run(path, FakeSpec(n_games=120, chunk_size=50))
    return path


# -- --json -------------------------------------------------------------------------------


def _report_json(stdout: str, out) -> dict:
    payload = json.loads(stdout)  # the whole of stdout is one JSON object
    assert payload["report"]["dir"] == str(out)
    assert payload["summary"] == json.loads((out / "summary.json").read_text())
    return payload


def test_report_json(tmp_path, capsys, fake_run):
    out = tmp_path / "rep"
    code, stdout, err = run_cli(capsys, ["report", fake_run, "--out", out, "--json"])
    assert code == 0, err
    _report_json(stdout, out)


def test_tournament_json_and_repeated_policy(tmp_path, capsys):
    out = tmp_path / "t"
    args = ["tournament", "--policy", "greedy", "--policy", "random", "--games", "6", *PLAY]
    code, stdout, err = run_cli(capsys, [*args, "--bootstrap", "0", "--out", out, "--json"])
    assert code == 0, err
    payload = _report_json(stdout, out)
    assert "greedy" in json.dumps(payload["summary"]) and "random" in json.dumps(payload)


def test_tournament_comma_alias_gives_the_same_numbers(tmp_path, capsys):
    common = ["--games", "6", "--bootstrap", "0", *PLAY, "--json"]
    repeated = ["--policy", "greedy", "--policy", "random"]
    code, a, err = run_cli(capsys, ["tournament", *repeated, *common, "-o", tmp_path / "a"])
    assert code == 0, err
    code, b, err = run_cli(
        capsys, ["tournament", "--policies", "greedy,random", *common, "-o", tmp_path / "b"]
    )
    assert code == 0, err
    strip = lambda s: {k: v for k, v in json.loads(s)["summary"].items() if k != "params"}  # noqa: E731
    assert strip(a) == strip(b)


def test_sweep_json_with_repeated_policy(tmp_path, capsys):
    out = tmp_path / "s"
    code, stdout, err = run_cli(
        capsys,
        ["sweep", "--set", "mobs.spider.hearts=1,2", "--games", "4", "--players", "2",
         "--policy", "greedy", "--policy", "random", *PLAY, "--out", out, "--json"],
    )  # fmt: skip
    assert code == 0, err
    _report_json(stdout, out)


def test_run_json(tmp_path, capsys):
    experiment = tmp_path / "exp.toml"
    experiment.write_text(
        '[[simulation]]\nname = "tiny"\ngames = 10\nplayers = 2\npolicies = ["random"]\n'
    )
    out = tmp_path / "r"
    code, stdout, err = run_cli(capsys, ["run", experiment, "--out", out, "--json", "-q"])
    assert code == 0, err
    _report_json(stdout, out)


def test_compare_names_policies_with_policy_and_opponent(capsys):
    base = ["--precision", "0.5", "--max-games", "8", *PLAY, "--json"]
    code, a, err = run_cli(capsys, ["compare", "greedy", "random", "--opponent", "random", *base])
    assert code == 0, err
    code, b, err = run_cli(
        capsys,
        ["compare", "--policy", "greedy", "--policy", "random", "--opponents", "random", *base],
    )
    assert code == 0, err
    assert json.loads(a) == json.loads(b)


@pytest.mark.parametrize(
    "args, message",
    [
        (["tournament", "--policy", "greedy", "--policies", "random,greedy"], "not both"),
        (["tournament", "--games", "4"], "--policy"),
        (["compare", "greedy", "--policy", "random", "--policy", "greedy"], "two arguments"),
        (["compare", "greedy"], "name the two policies"),
    ],
)
def test_policy_naming_errors_are_one_line(capsys, args, message):
    code, _, err = run_cli(capsys, args)
    assert code == 2 and message in err and err.count("\n") == 1


# -- --force ------------------------------------------------------------------------------


def test_every_report_folder_refuses_to_be_overwritten(tmp_path, capsys, fake_run, monkeypatch):
    monkeypatch.chdir(tmp_path)
    busy = tmp_path / "reports" / "tournament"
    busy.mkdir(parents=True)
    (busy / "keep.txt").write_text("mine")
    # the default folder of tournament; refused before any game is played
    code, _, err = run_cli(capsys, ["tournament", "--policies", "greedy,random", *PLAY])
    assert code == 2 and "not empty (use --force" in err
    (tmp_path / "reports" / "sweep").mkdir()
    (tmp_path / "reports" / "sweep" / "x").write_text("")
    code, _, err = run_cli(capsys, ["sweep", "--set", "mobs.spider.hearts=1,2", *PLAY])
    assert code == 2 and "reports/sweep" in err and "--force" in err
    for args in (
        ["report", fake_run, "--out", busy],
        ["run", "--builtin", "demo", "--out", busy],
        ["compare", "greedy", "random", "--precision", "0.5", "--out", busy],
    ):
        code, _, err = run_cli(capsys, args)
        assert code == 2 and f"{busy}: the folder exists and is not empty" in err, args
    assert (busy / "keep.txt").read_text() == "mine"
    code, _, err = run_cli(capsys, ["report", fake_run, "--out", busy, "--force"])
    assert code == 0, err
    assert (busy / "report.html").is_file()


# -- scaffolds ----------------------------------------------------------------------------


def test_components_template_is_a_valid_commented_override(tmp_path, capsys):
    code, text, _ = run_cli(capsys, ["components", "template"])
    assert code == 0 and text.count("\n#") > 5
    path = tmp_path / "my_box.toml"
    code, _, err = run_cli(capsys, ["components", "template", "--out", path])
    assert code == 0 and path.read_text() == text
    code, out, err = run_cli(capsys, ["components", "validate", path])
    assert code == 0 and "valid" in out, err
    code, _, err = run_cli(capsys, ["components", "template", "--out", path])
    assert code == 2 and "--force" in err
    assert run_cli(capsys, ["components", "template", "--out", path, "-f"])[0] == 0


def test_run_template_is_a_valid_experiment(tmp_path, capsys):
    from bnb_sim.analysis.experiment import load_experiment

    path = tmp_path / "exp.toml"
    code, _, err = run_cli(capsys, ["run", "--template", "--out", path])
    assert code == 0, err
    experiment = load_experiment(path)
    assert "#" in path.read_text() and experiment is not None
    code, _, err = run_cli(capsys, ["run", "--template", "--out", path])
    assert code == 2 and "--force" in err
    code, _, err = run_cli(capsys, ["run", "x.toml", "--template"])
    assert code == 2 and "--template takes no" in err


# -- export -------------------------------------------------------------------------------


def test_export_csv_matches_the_run(tmp_path, capsys, fake_run):
    out = tmp_path / "csv"
    code, stdout, err = run_cli(capsys, ["export", fake_run, "--csv", out])
    assert code == 0, err
    assert "seats.csv (240 rows)" in stdout or "rows" in stdout
    seats, games, meta = load_run(fake_run)
    got = pd.read_csv(out / "seats.csv")
    assert list(got.columns) == list(seats.columns) and len(got) == len(seats)
    assert got["xp"].tolist() == seats["xp"].tolist()
    assert got["policy"].tolist() == seats["policy"].astype(str).tolist()
    assert len(pd.read_csv(out / "games.csv")) == len(games)
    with open(out / "run.csv", newline="") as handle:
        params = dict(csv.reader(handle))
    assert params["key"] == "value" and params["params.seed"] == str(meta["params"]["seed"])
    assert json.loads(params["params.policies"]) == meta["params"]["policies"]
    assert sorted(p.name for p in out.iterdir()) == ["games.csv", "run.csv", "seats.csv"]


def test_export_refuses_a_non_empty_folder_and_bad_runs(tmp_path, capsys, fake_run):
    out = tmp_path / "csv"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    code, _, err = run_cli(capsys, ["export", fake_run, "--csv", out])
    assert code == 2 and "not empty (use --force" in err and err.count("\n") == 1
    assert run_cli(capsys, ["export", fake_run, "--csv", out, "--force"])[0] == 0
    assert (out / "notes.txt").read_text() == "mine" and (out / "seats.csv").is_file()
    code, _, err = run_cli(capsys, ["export", tmp_path / "nope", "--csv", tmp_path / "c2"])
    assert code == 2 and err.startswith("bnb: error: ") and err.count("\n") == 1
    assert not (tmp_path / "c2").exists()


# -- shell completion (documented in the README) ------------------------------------------


def _complete(env_extra: dict) -> str:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root), **env_extra}
    done = subprocess.run(
        [sys.executable, "-m", "bnb_sim"], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_shell_completion_script_and_policy_names():
    assert "_bnb_completion" in _complete({"_BNB_COMPLETE": "bash_source"})
    words = {"_BNB_COMPLETE": "bash_complete", "COMP_CWORD": "1", "COMP_WORDS": "bnb exp"}
    assert "plain,export" in _complete(words)
    for command in ("tournament", "sweep", "simulate", "play"):
        words = {
            "_BNB_COMPLETE": "bash_complete",
            "COMP_CWORD": "3",
            "COMP_WORDS": f"bnb {command} --policy g",
        }
        assert _complete(words).split() == ["plain,greedy"], command
