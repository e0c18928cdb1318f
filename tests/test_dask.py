"""Dask backend: an embedded LocalCluster gives the same rows; bad addresses fail fast."""

from __future__ import annotations

import os
import pickle
import socket
import time

import pandas as pd
import pytest

from bnb_sim.errors import BnbError
from bnb_sim.games.builders_biomes.run_config import GameConfig
from bnb_sim.runner import dask_backend as db
from bnb_sim.runner.simulate import simulate
from bnb_sim.runner.storage import RUN_COLUMNS, load_run

pytest.importorskip("distributed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_local_cluster_gives_the_same_rows_as_one_process(tmp_path):
    args = (200, 2, ["random"], 21)
    want = simulate(*args, threads=1, chunk_size=200)
    summary = simulate(*args, out=tmp_path / "d", dask="local", threads=2, chunk_size=30)
    assert summary.backend == "dask-local" and summary.threads == 2 and summary.chunks == 7
    seats, games, meta = load_run(tmp_path / "d")
    seats = seats.drop(columns=list(RUN_COLUMNS))  # the stored run's id and seed
    pd.testing.assert_frame_equal(seats, want, check_categorical=False)
    assert games["game"].tolist() == list(range(200))
    assert meta["params"]["dask"] == "local" and meta["params"]["backend"] == "dask-local"
    assert meta["status"] == "complete"


def test_local_cluster_leaves_this_process_environment_alone():
    before = dict(os.environ)
    simulate(10, 2, ["random"], 1, dask="local", threads=1)
    assert dict(os.environ) == before


def test_existing_scheduler_by_address(tmp_path):
    import dask
    from distributed import LocalCluster

    saved = dict(os.environ)  # the nanny sets NUMBA_NUM_THREADS=1 in this process too
    pin = {"distributed.nanny.pre-spawn-environ.NUMBA_NUM_THREADS": "1"}
    try:
        with dask.config.set(pin):
            cluster = LocalCluster(
                n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
            )
        with cluster:
            address = cluster.scheduler_address
            assert address.startswith("tcp://")
            got = simulate(60, 3, ["random", "greedy"], 4, dask=address, chunk_size=25)
    finally:
        db.restore_environ(saved)
    want = simulate(60, 3, ["random", "greedy"], 4, threads=1)
    pd.testing.assert_frame_equal(got, want, check_categorical=False)


def test_unanswered_address_fails_fast_with_the_address(tmp_path):
    address = f"tcp://127.0.0.1:{_free_port()}"
    out = tmp_path / "never"
    t0 = time.perf_counter()
    with pytest.raises(BnbError) as info:
        simulate(10, 2, ["random"], out=out, dask=address)
    assert time.perf_counter() - t0 < db.CONNECT_TIMEOUT_S + 5
    assert address in str(info.value) and "\n" not in str(info.value)
    assert not out.exists()


@pytest.mark.parametrize("bad", ["", "nowhere", "tcp://host", "http://x:1/path", 5])
def test_addresses_are_checked_before_connecting(bad):
    with pytest.raises(BnbError, match="dask"):
        db.check_address(bad)


def test_addresses_are_normalised():
    assert db.check_address("local") == "local"
    assert db.check_address("10.0.0.1:8786") == "tcp://10.0.0.1:8786"
    assert db.check_address("tls://sched.example:8786") == "tls://sched.example:8786"


def test_config_travels_as_plain_data():
    config = GameConfig.create(4, ["heuristic:board=1.5", "random"], seed=9, variant="beginner")
    payload = pickle.loads(pickle.dumps(db.config_payload(config)))
    rebuilt = db.config_from_payload(payload)
    assert rebuilt.components.content_hash == config.components.content_hash
    assert rebuilt.policies == config.policies
    assert rebuilt.to_dict() == config.to_dict()
    assert db.config_from_payload(payload) is rebuilt  # rebuilt once per process
