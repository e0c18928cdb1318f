"""``--dask`` on the studies that play many set-ups (sensitivity, luck, Heroes of the
Village robustness and value): the numbers of a Dask run equal those of one process, because a
game is a pure function of (seed, game index); a bad address is one line, exit 2, before
anything is written."""

from __future__ import annotations

import contextlib
import json

import pandas as pd
import pytest

import bnb_sim
from bnb_sim.errors import BnbError

pytest.importorskip("distributed")


def run_cli(capsys, args):
    from bnb_sim.cli import main

    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def scheduler():
    """A scheduler with two in-process workers (the tests of ``bnb simulate --dask`` do so)."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                      dashboard_address=None) as cluster:  # fmt: skip
        yield cluster.scheduler_address


@contextlib.contextmanager
def played_on(scheduler, prefix: str):
    """Check that the block played tasks named ``prefix...`` on the scheduler (a ``dask=``
    that a set-up swallowed would give the local numbers too)."""
    from distributed import Client, get_task_stream

    with Client(scheduler, set_as_default=False) as client, get_task_stream(client) as ts:
        yield
    assert any(str(t["key"]).startswith(prefix) for t in ts.data), "nothing played on Dask"


def _same(here, there, *tables: str):
    for table in tables:
        pd.testing.assert_frame_equal(getattr(here, table), getattr(there, table))


# -- sensitivity ----------------------------------------------------------------------------


def _sensitivity(**kw):
    return bnb_sim.sensitivity(screen_games=30, games=70, top=1, threads=1, **kw)


def test_sensitivity_on_dask_gives_the_numbers_of_one_process(scheduler):
    kw = dict(players=2, estimates=["weapons.stone_sword.hearts", "weapons.*.hearts"])
    here = _sensitivity(finding="seat_win_rate:0", **kw)
    with played_on(scheduler, "bnb-chunk-"):
        there = _sensitivity(finding="seat_win_rate:0", dask=scheduler, **kw)
    _same(here, there, "screen", "final", "ranking")
    assert here.baseline == there.baseline


def test_sensitivity_hotv_on_dask_gives_the_numbers_of_one_process(scheduler):
    kw = dict(game="hotv", estimates=["dice.fight.faces", "path.last_space"])
    here = _sensitivity(finding="team_win_rate", **kw)
    with played_on(scheduler, "bnb-chunk-"):
        there = _sensitivity(finding="team_win_rate", dask=scheduler, **kw)
    _same(here, there, "screen", "final", "ranking")


def test_sensitivity_cli_takes_dask_and_a_bad_address_is_one_line(tmp_path, capsys, scheduler):
    out = tmp_path / "never"
    code, _, err = run_cli(capsys, ["sensitivity", "--finding", "balance", "--dask",
                                    "tcp://host", "-o", out])  # fmt: skip
    assert code == 2 and "dask" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
    code, stdout, err = run_cli(capsys, [
        "sensitivity", "--game", "hotv", "--finding", "team_win_rate", "--estimate",
        "path.last_space", "--screen-games", "20", "--games", "30", "--top", "1",
        "--dask", scheduler, "--json", "-q", "-o", tmp_path / "h",
    ])  # fmt: skip
    assert code == 0, err
    assert json.loads(stdout)["summary"]["finding"] == "team_win_rate"
    with pytest.raises(BnbError, match="dask"):
        bnb_sim.sensitivity("balance", dask="nowhere")


# -- Heroes of the Village: robustness and value --------------------------------------------


def test_hotv_robustness_on_dask_gives_the_numbers_of_one_process(scheduler):
    kw = dict(game="hotv", players=2, games=60, pets="all", threads=1)
    here = bnb_sim.robustness("random,team", **kw)
    with played_on(scheduler, "bnb-chunk-"):
        there = bnb_sim.robustness("random,team", dask=scheduler, **kw)
    assert {"team_win_rate", "pet_effect_fox"} <= set(here.values["key"])
    pd.testing.assert_frame_equal(here.values, there.values)


def test_hotv_robustness_cli_bad_address_is_one_line(tmp_path, capsys):
    out = tmp_path / "never"
    code, _, err = run_cli(capsys, ["robustness", "--game", "hotv", "--games", "10",
                                    "--dask", "tcp://host", "-o", out])  # fmt: skip
    assert code == 2 and "dask" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_hotv_value_on_dask_gives_the_numbers_of_one_process(tmp_path, capsys, scheduler):
    args = ["value", "--game", "hotv", "--option", "all-pets", "--players", "2", "--games",
            "40", "--threads", "1", "--json"]  # fmt: skip
    code, here, err = run_cli(capsys, args)
    assert code == 0, err
    with played_on(scheduler, "bnb-chunk-"):
        code, there, err = run_cli(capsys, [*args, "--dask", scheduler])
    assert code == 0, err
    here, there = json.loads(here), json.loads(there)
    assert len(here["options"]) >= 2
    assert here["options"] == there["options"]
    out = tmp_path / "never"
    code, _, err = run_cli(capsys, [*args, "--dask", "nowhere", "-o", out])
    assert code == 2 and "dask" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


# -- luck -------------------------------------------------------------------------------------

LUCK = ["luck", "--groups", "10", "--per-group", "4", "--bootstrap", "200", "--seed", "3",
        "--pair-games", "30", "--threads", "1", "-q", "--json"]  # fmt: skip


@pytest.mark.parametrize(
    "game", [["--rungs", "random,greedy"], ["--game", "hotv", "--rungs", "random,team"]]
)
def test_luck_on_dask_gives_the_numbers_of_one_process(tmp_path, capsys, scheduler, game):
    """The designs play in slices of whole groups on two workers (a group's fixed source
    follows its group number), the head-to-head in slices of games: the same shares."""
    code, here, err = run_cli(capsys, [*LUCK, *game, "-o", tmp_path / "here"])
    assert code == 0, err
    with played_on(scheduler, "bnb-luck-"):
        code, there, err = run_cli(
            capsys, [*LUCK, *game, "--dask", scheduler, "-o", tmp_path / "d"]
        )
    assert code == 0, err
    here, there = json.loads(here)["summary"], json.loads(there)["summary"]
    for key in ("shares", "totals", "pairs", "n_games"):
        assert here[key] == there[key], key
    assert len(here["pairs"]) == 1


def test_luck_bad_dask_address_is_one_line(tmp_path, capsys):
    out = tmp_path / "never"
    code, _, err = run_cli(capsys, [*LUCK, "--dask", "tcp://host", "-o", out])
    assert code == 2 and "dask" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
