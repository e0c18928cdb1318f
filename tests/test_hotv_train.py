"""``bnb train --game hotv``: the Heroes of the Village strong model made by the package
(seeded, reproducible, resumable, usable as ``strong:FILE``), and model files of the other
game refused in one line."""

from __future__ import annotations

import json

import pytest

from bnb_sim.errors import BnbError, PolicyError
from bnb_sim.games.heroes_village import strong_model as M
from bnb_sim.games.heroes_village.components import load_components
from bnb_sim.games.heroes_village.policies import TEAM_DEFAULTS, parse_policy
from bnb_sim.games.heroes_village.strong_train import plan_training, train_team
from tests.test_hotv_sim import run_cli

COMPS = load_components()


def tiny_plan(**changes):
    settings = dict(players=2, seed=3, games=3 * 4 * 2 * 10, deals=10, teams=2, population=4,
                    check_deals=6, components=COMPS)  # fmt: skip
    settings.update(changes)
    return plan_training(**settings)


def test_training_is_reproducible_for_any_thread_count(tmp_path):
    first = train_team(tiny_plan(), tmp_path / "a.toml", threads=1)
    assert first.generations == 3 and first.games == 3 * 80 + 2 * 6 * 15
    train_team(tiny_plan(), tmp_path / "b.toml", threads=2)
    assert (tmp_path / "a.toml").read_bytes() == (tmp_path / "b.toml").read_bytes()
    model = M.load_model(tmp_path / "a.toml")
    assert model.weights == first.model.weights and model.weights != tuple(TEAM_DEFAULTS)
    assert model.training["seed"] == 3 and model.training["generations"] == 3
    assert model.training["check_deals"] == 6 and model.training["check_teams"] == 15
    other = train_team(tiny_plan(seed=4), tmp_path / "c.toml", threads=1)
    assert other.model.weights != first.model.weights  # the seed decides


def test_an_interrupted_run_resumes_to_the_file_of_an_uninterrupted_one(tmp_path):
    train_team(tiny_plan(), tmp_path / "whole.toml", threads=1)

    class Stop(Exception):
        pass

    def stop_after_two(info):
        if info.get("generation") == 2:
            raise Stop

    out = tmp_path / "cut.toml"
    with pytest.raises(Stop):
        train_team(tiny_plan(), out, progress=stop_after_two)
    assert not out.exists()
    saved = json.loads((tmp_path / "cut.toml.checkpoint.json").read_text())
    assert len(saved["generations"]) == 2 and saved["plan"]["game"] == "heroes_village"
    seen = []
    train_team(tiny_plan(), out, resume=True, progress=seen.append)
    assert out.read_bytes() == (tmp_path / "whole.toml").read_bytes()
    assert [i["generation"] for i in seen if "generation" in i] == [1, 2, 3]
    # a longer budget extends the same run: its first generations are the recorded ones
    longer = train_team(tiny_plan(games=4 * 80), out, resume=True)
    assert longer.generations == 4
    whole = json.loads((tmp_path / "whole.toml.checkpoint.json").read_text())["generations"]
    assert [g["scores"] for g in longer.history[:3]] == [g["scores"] for g in whole]


def test_a_resume_of_other_settings_or_another_game_is_refused(tmp_path):
    out = tmp_path / "x.toml"
    with pytest.raises(BnbError, match="nothing to resume"):
        train_team(tiny_plan(), out, resume=True)
    train_team(tiny_plan(check_deals=0), out)
    with pytest.raises(BnbError, match="another training run"):
        train_team(tiny_plan(check_deals=0, deals=12), out, resume=True)
    checkpoint = tmp_path / "x.toml.checkpoint.json"
    data = json.loads(checkpoint.read_text())
    data["plan"]["game"] = "builders_biomes"
    checkpoint.write_text(json.dumps(data))
    with pytest.raises(BnbError, match="for another game"):
        train_team(tiny_plan(check_deals=0), out, resume=True)


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        (dict(games=None), "budget in games or in minutes"),
        (dict(games=10), "less than one generation"),
        (dict(players=5), "players must be 2, 3 or 4"),
        (dict(teams=16), "2 players have 15 pet teams"),
        (dict(buildings="1,1,99"), "99"),
    ],
)
def test_bad_training_settings_are_refused(changes, problem):
    with pytest.raises(BnbError, match=problem):
        tiny_plan(**changes)


def test_the_tuning_script_runs_the_package_core():
    """scripts/tune_hotv_team.py (which made the shipped model) now calls train_team."""
    from tests.test_hotv_strong import ROOT

    text = (ROOT / "scripts" / "tune_hotv_team.py").read_text()
    assert "train_team" in text and "play_batch" not in text


# ---- the command -------------------------------------------------------------------------------
ARGS = ["train", "--game", "hotv", "--players", "2", "--games", "960", "--deals", "20",
        "--teams", "2", "--check-deals", "4"]  # fmt: skip


def test_bnb_train_game_hotv_writes_a_model_that_strong_plays(tmp_path, capsys):
    out = tmp_path / "hotv.toml"
    code, stdout, err = run_cli(capsys, [*ARGS, "--seed", "5", "--out", out])
    assert code == 0, err
    assert stdout.startswith(f"wrote {out}: team win rate ") and "(2 generations, " in stdout
    assert "generation 1: best" in err and "generation 2: best" in err  # progress lines
    model = M.load_model(out)
    assert model.training["players"] == 2 and model.training["deals_per_team"] == 20
    assert parse_policy(f"strong:{out}").params == model.weights
    run = tmp_path / "run"
    code, _, err = run_cli(capsys, ["simulate", "--game", "hotv", "-n", "20", "--players", "2",
                                    "--policy", f"strong:{out}", "-o", run, "-q"])  # fmt: skip
    assert code == 0, err
    code, stdout, err = run_cli(capsys, ["train", "show", out])
    assert code == 0, err
    assert "Heroes of the Village strong model" in stdout and "illager" in stdout
    code, stdout, _ = run_cli(capsys, ["train", "show", "--json", out])
    assert json.loads(stdout)["weights"]["lose"] == model.named()["lose"]
    code, _, err = run_cli(capsys, [*ARGS, "--seed", "5", "--out", out])
    assert code == 2 and "--resume it or --force" in err
    again = tmp_path / "again.toml"
    code, stdout, err = run_cli(capsys, [*ARGS, "--seed", "5", "--out", again, "--json", "-q"])
    assert code == 0 and err == "" and json.loads(stdout)["generations"] == 2
    assert again.read_bytes() == out.read_bytes()


def test_bnb_train_game_hotv_resumes_after_an_interruption(tmp_path, capsys, monkeypatch):
    from bnb_sim.games.heroes_village import strong_train

    whole = tmp_path / "whole.toml"
    assert run_cli(capsys, [*ARGS, "--seed", "6", "--out", whole, "-q"])[0] == 0
    real = strong_train.evaluate
    calls = []

    def interrupted_in_the_second_generation(plan, call, threads):
        calls.append(call)
        if len(calls) > 12:  # the first generation (12 candidates) is finished
            raise KeyboardInterrupt
        return real(plan, call, threads)

    monkeypatch.setattr(strong_train, "evaluate", interrupted_in_the_second_generation)
    cut = tmp_path / "cut.toml"
    code, _, err = run_cli(capsys, [*ARGS, "--seed", "6", "--out", cut, "-q"])
    assert code == 130 and "--resume" in err.strip().splitlines()[-1] and not cut.exists()
    monkeypatch.setattr(strong_train, "evaluate", real)
    code, _, err = run_cli(capsys, [*ARGS, "--seed", "6", "--out", cut, "-q", "--resume"])
    assert code == 0, err
    assert cut.read_bytes() == whole.read_bytes()


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        (["--field", "greedy"], "--field is an option of Minecraft: Builders & Biomes"),
        (["--expansion", "farmers-market"], "not an expansion of"),
        (["--difficulty", "hard"], "'hard' is not one of"),
    ],
)
def test_options_of_the_other_game_are_refused_in_one_line(tmp_path, capsys, extra, problem):
    out = tmp_path / "m.toml"
    code, _, err = run_cli(capsys, [*ARGS, *extra, "--out", out])
    assert code == 2 and problem in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


def test_the_team_option_is_refused_for_builders_and_biomes(tmp_path, capsys):
    code, _, err = run_cli(capsys, ["train", "--games", "200", "--teams", "2", "--out",
                                    tmp_path / "m.toml"])  # fmt: skip
    assert code == 2 and "--teams is an option of Minecraft: Heroes of the Village" in err


# ---- a model of the other game -----------------------------------------------------------------
@pytest.fixture
def bnb_model(tmp_path):
    from bnb_sim.games.builders_biomes.strong_model import heuristic_start, write_model

    return write_model(heuristic_start(2), tmp_path / "bnb.toml")


@pytest.fixture
def hotv_model(tmp_path):
    path = tmp_path / "hotv.toml"
    M.write_model(M.TeamModel(tuple(TEAM_DEFAULTS), {"note": "test"}), path)
    return path


def test_a_builders_biomes_model_is_refused_for_heroes_of_the_village(tmp_path, capsys, bnb_model):
    with pytest.raises(PolicyError, match="is a model for Minecraft: Builders & Biomes, not"):
        parse_policy(f"strong:{bnb_model}")
    run = tmp_path / "run"
    code, _, err = run_cli(capsys, ["simulate", "--game", "hotv", "-n", "5", "--policy",
                                    f"strong:{bnb_model}", "-o", run, "-q"])  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "--game builders-biomes" in err and not run.exists()
    code, _, err = run_cli(capsys, [*ARGS, "--start", bnb_model, "--out", tmp_path / "m.toml"])
    assert code == 2 and "Builders & Biomes, not for" in err and len(err.strip().splitlines()) == 1


def test_a_heroes_model_is_refused_for_builders_and_biomes(tmp_path, capsys, hotv_model):
    run = tmp_path / "run"
    code, _, err = run_cli(capsys, ["simulate", "-n", "5", "--players", "2", "--policy",
                                    f"strong:{hotv_model}", "-o", run, "-q"])  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert (
        "model for Minecraft: Heroes of the Village, not" in err and "--game heroes-village" in err
    )
    assert not run.exists()
    code, _, err = run_cli(capsys, ["train", "--games", "200", "--start", hotv_model, "--out",
                                    tmp_path / "m.toml"])  # fmt: skip
    assert code == 2 and "Heroes of the Village, not for" in err


def test_bnb_train_serves_hotv_through_its_train_hook():
    """Issue 24: the shared command checks the files and prints the progress and the result;
    the game offers the protocol's ``train`` hook, as Builders & Biomes does, and declares no
    handler, plan or run of its own in the registry."""
    from bnb_sim.core.protocol import hook
    from bnb_sim.core.registry import get_game as protocol_game
    from bnb_sim.games import get_game

    spec = get_game("hotv")
    assert all(spec.entry(e) is None for e in ("train", "train_plan", "train_run"))
    assert hook(protocol_game("hotv"), "train") is not None
