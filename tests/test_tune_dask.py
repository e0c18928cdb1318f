"""``bnb tune`` on Dask: the evaluations play on workers and the answer is the local one."""

from __future__ import annotations

import json
import pickle

import pytest

from bnb_sim.cli import main
from bnb_sim.tune.execute import plan_from_payload, plan_payload
from bnb_sim.tune.policy_tune import plan_policy_tune, run_policy_tune
from bnb_sim.tune.store import TuneStore

pytest.importorskip("distributed")

POLICY = dict(against=["greedy"], players=2, budget=2000, params=["board=0..3"], seed=4)
GAME_ARGS = ["tune", "game", "--param", "mobs.enderman.hearts=5..6", "--target",
             "game_length=min", "--players", "2", "--policy", "greedy", "--budget", "800",
             "--method", "grid", "--top", "1", "--seed", "3", "-q", "--json",
             "--reading", "hunger=one-by-one"]  # fmt: skip


@pytest.fixture(scope="module")
def scheduler():
    """An in-process cluster (processes=False) with a TCP scheduler: one worker thread, so
    the engine's parallel kernels never run concurrently in one process."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                      host="127.0.0.1", dashboard_address=None) as cluster:  # fmt: skip
        yield cluster.scheduler_address


def _evaluations(folder):
    return json.loads((folder / "tune.json").read_text())["evaluations"]


def test_policy_tune_on_dask_gives_the_local_answer(tmp_path, scheduler):
    plan = plan_policy_tune("heuristic:board=0", readings={"hunger": "one-by-one"}, **POLICY)
    local = run_policy_tune(plan, tmp_path / "local")
    remote = run_policy_tune(plan, tmp_path / "dask", dask=scheduler)
    assert remote == local
    assert _evaluations(tmp_path / "dask") == _evaluations(tmp_path / "local")
    # resuming a finished run on Dask plays nothing and connects to nothing
    again = run_policy_tune(plan, tmp_path / "dask", resume=True, dask="tcp://127.0.0.1:1")
    assert again == local


def test_cli_game_tune_on_dask_gives_the_local_answer(tmp_path, capsys, scheduler):
    main([*GAME_ARGS, "--out", str(tmp_path / "local")])
    local = json.loads(capsys.readouterr().out)
    main([*GAME_ARGS, "--out", str(tmp_path / "dask"), "--dask", scheduler.removeprefix("tcp://")])
    remote = json.loads(capsys.readouterr().out)
    strip = ("files",)
    assert {k: v for k, v in remote.items() if k not in strip} == {
        k: v for k, v in local.items() if k not in strip
    }
    assert remote["readings"]["hunger"] == "one-by-one"


@pytest.mark.parametrize("address", ["nowhere", "http://x:1/path"])
def test_cli_bad_dask_address_is_one_line_before_anything(tmp_path, capsys, address):
    out = tmp_path / "t"
    with pytest.raises(SystemExit) as exc:
        main([*GAME_ARGS, "--out", str(out), "--dask", address])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "dask" in err and address in err and err.count("\n") == 0
    assert not out.exists()


def test_the_plan_travels_as_plain_data():
    plan = plan_policy_tune("heuristic", readings={"bow": "choose"}, **POLICY)
    payload = pickle.loads(pickle.dumps(plan_payload(plan)))
    assert payload["plan"].components is None
    rebuilt = plan_from_payload(payload)
    assert rebuilt.spec_dict() == plan.spec_dict()
    assert rebuilt.components.content_hash == plan.components.content_hash
    assert plan_from_payload(payload) is rebuilt  # rebuilt once per process


class _Reversed:
    """An executor that finishes the evaluations in reverse order, stopping after ``stop``."""

    def __init__(self, stop=None):
        self.stop, self.played = stop, []

    def run(self, calls):
        for i in reversed(range(len(calls))):
            if self.stop is not None and len(self.played) == self.stop:
                raise KeyboardInterrupt
            self.played.append(calls[i][2])
            yield i, {"score": float(calls[i][3]["x"]), "games": 10}


def test_batch_results_come_in_call_order_and_an_interruption_keeps_the_finished(tmp_path):
    calls = [("search", 0, i, {"x": i}) for i in range(5)]
    store = TuneStore(tmp_path / "t", {"what": "synthetic"})
    games = []
    with pytest.raises(KeyboardInterrupt):
        store.batch(_Reversed(stop=2), games.append)(calls)
    assert sorted(_evaluations(tmp_path / "t")) == ["search:0:3", "search:0:4"]
    store = TuneStore(tmp_path / "t", {"what": "synthetic"}, resume=True)
    executor = _Reversed()
    results = store.batch(executor, games.append)(calls)
    assert [r["score"] for r in results] == [0, 1, 2, 3, 4]
    assert executor.played == [2, 1, 0] and games == [10] * 5
