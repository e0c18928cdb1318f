"""Heroes of the Village on Dask: the shared backend plays its chunks with the same rows."""

from __future__ import annotations

import pickle

import pandas as pd
import pytest

from bnb_sim.games.heroes_village.components import load_components
from bnb_sim.games.heroes_village.runner import make_config, simulate_to_dir
from bnb_sim.runner import dask_backend as db
from bnb_sim.runner.storage import load_run

pytest.importorskip("distributed")

COMPS = load_components()


def config(**kw):
    args = dict(players=3, policies=["team", "random"], pets="all", seed=11, difficulty="easy")
    args.update(kw)
    return make_config(COMPS, args.pop("players"), args.pop("policies"), args.pop("pets"), **args)


def test_the_config_travels_as_plain_data_and_is_rebuilt_once():
    cfg = config(pets="wolf,panda,horse", buildings="level:1,2,3", check=True)
    payload = pickle.loads(pickle.dumps(db.config_payload(cfg)))
    assert payload["game"] == "heroes_village"
    rebuilt = db.config_from_payload(payload)
    assert rebuilt.components.content_hash == cfg.components.content_hash
    assert rebuilt.policies == cfg.policies and rebuilt.teams == cfg.teams
    assert (rebuilt.start_space, rebuilt.check, rebuilt.seed) == (cfg.start_space, True, 11)
    assert db.config_from_payload(payload) is rebuilt


def test_dask_gives_the_rows_of_the_local_run(tmp_path):
    from distributed import LocalCluster

    cfg = config()
    simulate_to_dir(cfg, 90, tmp_path / "local", chunk_size=90, threads=1)
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=None
    ) as cluster:
        summary = simulate_to_dir(
            cfg, 90, tmp_path / "dask", chunk_size=25, dask=cluster.scheduler_address
        )
    assert summary["backend"] == "dask"
    want_seats, want_games, _ = load_run(tmp_path / "local")
    seats, games, meta = load_run(tmp_path / "dask")
    assert meta["status"] == "complete" and meta["params"]["dask"].startswith("tcp://")
    assert meta["params"]["teams"] == 20 and len(games) == 90 * 20
    key = ["pets", "game"]
    pd.testing.assert_frame_equal(
        games.sort_values(key, ignore_index=True),
        want_games.sort_values(key, ignore_index=True),
        check_categorical=False,
    )
    key = ["pets", "game", "seat"]
    pd.testing.assert_frame_equal(
        seats.sort_values(key, ignore_index=True),
        want_seats.sort_values(key, ignore_index=True),
        check_categorical=False,
    )


def test_a_bad_dask_address_is_one_line_and_leaves_no_folder(tmp_path):
    from bnb_sim.errors import BnbError

    with pytest.raises(BnbError, match="dask"):
        simulate_to_dir(config(pets=None), 10, tmp_path / "never", dask="nowhere")
    assert not (tmp_path / "never").exists()


def test_simulate_game_hotv_takes_dask(tmp_path, capsys):
    from tests.test_hotv_sim import run_cli

    out = tmp_path / "never"
    code, _, err = run_cli(capsys, ["simulate", "--game", "hotv", "-n", "5", "--dask",
                                    "tcp://host", "-o", out])  # fmt: skip
    assert code == 2 and "is not a scheduler address" in err and len(err.splitlines()) == 1
    assert not out.exists()
