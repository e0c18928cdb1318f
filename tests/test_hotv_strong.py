"""``strong`` for Heroes of the Village: the team bot's kernel with the tuned weights of a
versioned model file; the default ``team`` bot unchanged; model files refused per problem."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from bnb_sim.errors import PolicyError
from bnb_sim.games.heroes_village import strong_model as M
from bnb_sim.games.heroes_village.components import load_components
from bnb_sim.games.heroes_village.policies import TEAM, TEAM_DEFAULTS, TEAM_WEIGHTS, parse_policy
from bnb_sim.games.heroes_village.runner import make_config, play_arrays, play_block
from bnb_sim.toml_files import read_toml
from tests.test_hotv_sim import run_cli

COMPS = load_components()
ROOT = Path(__file__).resolve().parents[1]


def config(policies, players=3, pets="wolf,cat,fox", seed=5):
    return make_config(COMPS, players, policies, pets, seed=seed)


def model_file(tmp_path, name="m.toml", **weights):
    values = dict(zip(TEAM_WEIGHTS, TEAM_DEFAULTS, strict=True))
    values.update(weights)
    path = tmp_path / name
    M.write_model(M.TeamModel(tuple(values.values()), {"note": "test"}), path)
    return path


def same_rows(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


# ----------------------------------------------------------------------------- the policy


def test_strong_is_the_team_kernel_with_the_shipped_weights():
    policy = parse_policy("strong")
    shipped = M.load_model(M.shipped_path())
    assert policy.kind == TEAM and policy.label == "strong"
    assert policy.params == shipped.weights and policy.params != tuple(TEAM_DEFAULTS)
    assert policy.to_dict()["model"] == "shipped:heroes_village.toml"
    assert policy.weights() == shipped.named()


def test_the_default_team_bot_keeps_its_weights():
    """A new name, not a changed default: ``team`` still plays the hand-set weights (its rows
    are pinned in test_hotv_sim)."""
    assert parse_policy("team").params == tuple(TEAM_DEFAULTS)
    assert "model" not in parse_policy("team").to_dict()


@pytest.mark.parametrize("players,pets", [(2, "fox,horse"), (4, "wolf,cat,panda,llama")])
def test_strong_plays_the_team_bot_rows_of_its_weights(tmp_path, players, pets):
    """``strong`` adds no decision code: its rows are the team bot's with the same weights
    (so it sees exactly what the team bot sees), and they differ from the default team's."""
    weights = ",".join(f"{k}={v!r}" for k, v in M.load_model(M.shipped_path()).named().items())
    strong = config(["strong"], players, pets)
    same = config([f"team:{weights}"], players, pets)
    team = config(["team"], players, pets)
    got = play_arrays(strong, strong.teams[0], 0, 300)
    assert same_rows(got, play_arrays(same, same.teams[0], 0, 300))
    assert not same_rows(got, play_arrays(team, team.teams[0], 0, 300))


def test_strong_rows_do_not_depend_on_threads_or_chunks():
    cfg = config(["strong"])
    one = play_arrays(cfg, cfg.teams[0], 0, 300, threads=1)
    two = play_arrays(cfg, cfg.teams[0], 0, 300, threads=2)
    assert same_rows(one, two)
    _, games = play_block(cfg, 0, 300)
    parts = [play_block(cfg, s, n)[1] for s, n in ((0, 101), (101, 199))]
    assert np.array_equal(np.concatenate([p["won"].to_numpy() for p in parts]), games["won"])


def test_a_model_file_plays_its_weights(tmp_path):
    path = model_file(tmp_path, complete=6.0, mob=0.2)
    policy = parse_policy(f"strong:{path}")
    assert policy.kind == TEAM and policy.model == str(path)
    assert policy.params == parse_policy("team:complete=6,mob=0.2").params


def test_a_written_model_reads_back_to_the_same_bytes(tmp_path):
    path = model_file(tmp_path, block=2.5)
    again = tmp_path / "again.toml"
    M.write_model(M.load_model(path), again)
    assert path.read_bytes() == again.read_bytes()
    shipped = M.load_model(M.shipped_path())
    assert M.model_text(shipped) == M.shipped_path().read_text(encoding="utf-8")


def test_the_shipped_model_records_how_it_was_made():
    training = read_toml(M.shipped_path())["training"]
    assert training["command"].startswith("python scripts/tune_hotv_team.py")
    assert training["players"] == 3 and training["search_games"] > 0
    assert "CMA-ES" in training["method"]


# ----------------------------------------------------------------------------- refused files


def _edit(path: Path, old: str, new: str) -> Path:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


BAD_FILES = [
    ('format = "bnb-sim-hotv-model"', 'format = "other"', "format is 'other'"),
    ("version = 1", "version = 2", "file version 2; this bnb-sim reads version 1"),
    (
        'game = "heroes_village"',
        'game = "builders_biomes"',
        "model for Minecraft: Builders & Biomes, not",
    ),
    ('game = "heroes_village"', 'game = "chess"', "for the game 'chess'"),
    ('bot = "team"', 'bot = "ismcts"', "drives the bot 'ismcts'"),
    ('features = ["block", "redstone"', 'features = ["redstone", "block"', "features list"),
    ("block = 1.0", "blok = 1.0", "key 'weights.blok': not a weight of the team bot"),
    ("[weights]\nblock = 1.0", "[weights]\nblock = 1.0\nspeed = 2", "key 'weights.speed'"),
    ("mob = 0.8", "mob = true", "key 'weights.mob': must be a number"),
    ("mob = 0.8", "mob = inf", "key 'weights.mob': inf is not a finite number"),
    ("mob = 0.8", 'mob = "high"', "key 'weights.mob': must be a number"),
    ("[model]", "[modle]", "no [model] table"),
    ("[weights]", "[weight]", "no [weights] table"),
    ("version = 1", "version = = 1", "m.toml"),
]


@pytest.mark.parametrize("old,new,message", BAD_FILES)
def test_a_bad_model_file_is_refused_with_one_line(tmp_path, old, new, message):
    path = _edit(model_file(tmp_path), old, new)
    with pytest.raises(PolicyError) as caught:
        parse_policy(f"strong:{path}")
    text = str(caught.value)
    assert message in text and str(path) in text and "\n" not in text, text


def test_a_missing_weight_is_named(tmp_path):
    path = model_file(tmp_path)
    text = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(t for t in text if not t.startswith("lose =")), encoding="utf-8")
    with pytest.raises(PolicyError, match="key 'weights.lose' is missing"):
        parse_policy(f"strong:{path}")


def test_a_missing_or_huge_model_file_is_refused(tmp_path):
    with pytest.raises(PolicyError, match="no model file"):
        parse_policy(f"strong:{tmp_path / 'absent.toml'}")
    huge = model_file(tmp_path)
    huge.write_text(huge.read_text() + "#" * (M.MAX_FILE_BYTES + 1), encoding="utf-8")
    with pytest.raises(PolicyError, match="larger than 64 KiB"):
        parse_policy(f"strong:{huge}")


# ----------------------------------------------------------------------------- the CLI


def test_simulate_plays_strong_and_records_its_model(tmp_path, capsys):
    run = tmp_path / "run"
    code, out, err = run_cli(capsys, ["simulate", "--game", "hotv", "-n", "100", "--players",
                                      "2", "--policy", "strong", "-o", run, "--quiet"])  # fmt: skip
    assert code == 0, err
    from bnb_sim.runner.storage import load_run

    seats, games, meta = load_run(run)
    spec = meta["params"]["policy_specs"][0]
    assert spec["label"] == "strong" and spec["model"] == "shipped:heroes_village.toml"
    assert set(seats["policy"].astype(str)) == {"strong"} and len(games) > 0


def test_simulate_refuses_a_bad_model_file_in_one_line(tmp_path, capsys):
    bad = _edit(model_file(tmp_path), "version = 1", "version = 9")
    run = tmp_path / "run"
    code, out, err = run_cli(capsys, ["simulate", "--game", "hotv", "-n", "10", "--policy",
                                      f"strong:{bad}", "-o", run, "--quiet"])  # fmt: skip
    assert code == 2, (out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "file version 9" in err and not run.exists()


# ----------------------------------------------------------------------------- the tuning script


def _tuning_script():
    spec = importlib.util.spec_from_file_location("tune_hotv_team", ROOT / "scripts" /
                                                  "tune_hotv_team.py")  # fmt: skip
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tuning_script_writes_the_same_model_for_the_same_seed(tmp_path, monkeypatch, capsys):
    script = _tuning_script()
    paths = []
    for name in ("a.toml", "b.toml"):
        paths.append(tmp_path / name)
        argv = ["tune", "--players", "2", "--games", "30", "--generations", "2", "--teams", "2",
                "--out", str(paths[-1])]  # fmt: skip
        monkeypatch.setattr(sys, "argv", argv)
        script.main()
    assert paths[0].read_bytes() == paths[1].read_bytes()
    model = M.load_model(paths[0])
    assert model.training["games"] == 12 * 2 * 2 * 30
    assert json.dumps(model.training["command"]).count("--seed 1") == 1
    assert parse_policy(f"strong:{paths[0]}").params == model.weights
