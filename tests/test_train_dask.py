"""``bnb train --dask``: a generation's candidates play as tasks on a Dask cluster and the
model file is the one of a local run; ``strong`` on Dask gives the rows of a local run."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from engine_helpers import default_components

from bnb_sim.games.heroes_village.components import load_components
from bnb_sim.runner.storage import RUN_COLUMNS, load_run
from tests.test_hotv_sim import run_cli

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def scheduler():
    """An in-process cluster (processes=False) with a TCP scheduler: one worker thread, so
    the engine's parallel kernels never run concurrently in one process."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                      host="127.0.0.1", dashboard_address=None) as cluster:  # fmt: skip
        yield cluster.scheduler_address


def test_builders_biomes_training_on_dask_writes_the_local_file(tmp_path, scheduler):
    from bnb_sim.games.builders_biomes.strong_train import plan_training, train_strong

    def plan():
        return plan_training(players=2, seed=3, games=112, opponents=("heuristic", "greedy"),
                             self_every=2, deals=2, population=4, check_deals=4,
                             components=default_components())  # fmt: skip

    local = train_strong(plan(), tmp_path / "local.toml", threads=1)
    remote = train_strong(plan(), tmp_path / "dask.toml", dask=scheduler)
    assert remote.generations == local.generations == 3  # a snapshot joins the field
    assert (tmp_path / "dask.toml").read_bytes() == (tmp_path / "local.toml").read_bytes()
    assert [g["scores"] for g in remote.history] == [g["scores"] for g in local.history]


def test_heroes_training_on_dask_writes_the_local_file(tmp_path, scheduler):
    from bnb_sim.games.heroes_village.strong_train import plan_training, train_team

    def plan():
        return plan_training(players=2, seed=8, games=240, deals=10, teams=2, population=4,
                             check_deals=6, components=load_components())  # fmt: skip

    local = train_team(plan(), tmp_path / "local.toml", threads=1)
    remote = train_team(plan(), tmp_path / "dask.toml", dask=scheduler)
    assert remote.generations == local.generations == 3
    assert (tmp_path / "dask.toml").read_bytes() == (tmp_path / "local.toml").read_bytes()


def test_a_resumed_dask_run_ends_with_the_local_file(tmp_path, scheduler):
    """Interrupted locally, resumed on Dask: the file of an uninterrupted local run."""
    from bnb_sim.games.heroes_village.strong_train import plan_training, train_team

    def plan():
        return plan_training(players=3, seed=2, games=240, deals=10, teams=2, population=4,
                             check_deals=4, components=load_components())  # fmt: skip

    train_team(plan(), tmp_path / "whole.toml", threads=1)

    class Stop(Exception):
        pass

    def stop_after_one(info):
        if info.get("generation") == 1:
            raise Stop

    with pytest.raises(Stop):
        train_team(plan(), tmp_path / "cut.toml", progress=stop_after_one)
    train_team(plan(), tmp_path / "cut.toml", resume=True, dask=scheduler)
    assert (tmp_path / "cut.toml").read_bytes() == (tmp_path / "whole.toml").read_bytes()


def test_cli_train_on_dask_gives_the_local_json(tmp_path, capsys, scheduler):
    args = ["train", "--game", "hotv", "--players", "2", "--games", "960", "--deals", "20",
            "--teams", "2", "--check-deals", "4", "--seed", "9", "-q", "--json"]  # fmt: skip
    code, stdout, err = run_cli(capsys, [*args, "--out", tmp_path / "local.toml"])
    assert code == 0, err
    local = json.loads(stdout)
    address = scheduler.removeprefix("tcp://")
    code, stdout, err = run_cli(capsys, [*args, "--out", tmp_path / "dask.toml", "--dask",
                                         address])  # fmt: skip
    assert code == 0, err
    remote = json.loads(stdout)
    assert {k: v for k, v in remote.items() if k != "model"} == {
        k: v for k, v in local.items() if k != "model"
    }
    assert (tmp_path / "dask.toml").read_bytes() == (tmp_path / "local.toml").read_bytes()


@pytest.mark.parametrize("game", [[], ["--game", "hotv"]])
@pytest.mark.parametrize("address", ["nowhere", "http://x:1/path"])
def test_cli_train_refuses_a_bad_dask_address_in_one_line(tmp_path, capsys, game, address):
    out = tmp_path / "m.toml"
    code, _, err = run_cli(capsys, ["train", *game, "--games", "100000", "--out", out,
                                    "--dask", address])  # fmt: skip
    assert code == 2, err
    assert "dask" in err and address in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and not (tmp_path / "m.toml.checkpoint.json").exists()


# ---- strong on Dask: the rows of a local run ---------------------------------------------------
def test_builders_biomes_strong_on_dask_gives_the_local_rows(tmp_path, scheduler):
    from bnb_sim.runner.simulate import simulate

    args = (60, 2, ["strong", "heuristic"], 13)
    want = simulate(*args, threads=1, chunk_size=60)
    simulate(*args, out=tmp_path / "d", dask=scheduler, chunk_size=16)
    seats, games, meta = load_run(tmp_path / "d")
    assert meta["params"]["backend"] == "dask" and meta["status"] == "complete"
    assert set(seats["policy"].astype(str)) == {"strong", "heuristic"}
    seats = seats.drop(columns=list(RUN_COLUMNS))
    pd.testing.assert_frame_equal(seats, want, check_categorical=False)


@pytest.mark.parametrize("expansion", [None, "farmers-market"])
def test_builders_biomes_strong_on_dask_in_the_cli(tmp_path, capsys, scheduler, expansion):
    extra = ["--expansion", expansion] if expansion else []
    runs = {}
    for name, dask in (("local", []), ("dask", ["--dask", scheduler])):
        out = tmp_path / name
        code, _, err = run_cli(capsys, ["simulate", "-n", "40", "--players", "3", "--policy",
                                        "strong", "--seed", "5", "--chunk-size", "15", "-o",
                                        out, "-q", *extra, *dask])  # fmt: skip
        assert code == 0, err
        runs[name] = load_run(out)
    for part in (0, 1):
        want = runs["local"][part].drop(columns=list(RUN_COLUMNS), errors="ignore")
        got = runs["dask"][part].drop(columns=list(RUN_COLUMNS), errors="ignore")
        pd.testing.assert_frame_equal(got, want, check_categorical=False)


def test_heroes_strong_on_dask_gives_the_local_rows(tmp_path, scheduler):
    from bnb_sim.games.heroes_village.runner import make_config, simulate_to_dir

    cfg = make_config(load_components(), 3, ["strong"], "all", seed=17)
    simulate_to_dir(cfg, 40, tmp_path / "local", chunk_size=40, threads=1)
    summary = simulate_to_dir(cfg, 40, tmp_path / "dask", chunk_size=15, dask=scheduler)
    assert summary["backend"] == "dask"
    want_seats, want_games, _ = load_run(tmp_path / "local")
    seats, games, meta = load_run(tmp_path / "dask")
    assert meta["params"]["policy_specs"][0]["model"] == "shipped:heroes_village.toml"
    for got, want, key in ((games, want_games, ["pets", "game"]),
                           (seats, want_seats, ["pets", "game", "seat"])):  # fmt: skip
        pd.testing.assert_frame_equal(
            got.sort_values(key, ignore_index=True).drop(columns=list(RUN_COLUMNS),
                                                         errors="ignore"),
            want.sort_values(key, ignore_index=True).drop(columns=list(RUN_COLUMNS),
                                                          errors="ignore"),
            check_categorical=False,
        )  # fmt: skip
