"""Determinism with the Farmer's Market (R-FM-*): a game is a pure function of (seed, game
index), whatever the thread count, the chunk size or the Dask backend, and ``Game`` replays
the row a batch run stored for that index."""

from __future__ import annotations

import pandas as pd
import pytest

import bnb_sim
from bnb_sim.runner.simulate import simulate
from bnb_sim.runner.storage import RUN_COLUMNS, load_run

FM = "farmers-market"
POLICIES = ["heuristic", "greedy", "random"]


def _rows(column: str) -> bool:
    return column not in RUN_COLUMNS  # what in-memory frames have: not the run's id and seed


@pytest.fixture(scope="module")
def one_thread():
    return simulate(90, 3, POLICIES, 17, expansion=FM, threads=1, chunk_size=90)


def test_threads_and_chunk_sizes_give_the_same_rows(one_thread, tmp_path):
    two = simulate(90, 3, POLICIES, 17, expansion=FM, threads=2, chunk_size=7)
    pd.testing.assert_frame_equal(two, one_thread)
    simulate(90, 3, POLICIES, 17, expansion=FM, threads=2, chunk_size=25, out=tmp_path / "r")
    seats, _, meta = load_run(tmp_path / "r", seat_columns=_rows)
    assert meta["params"]["chunk_size"] == 25
    pd.testing.assert_frame_equal(seats, one_thread, check_categorical=False)


def test_dask_gives_the_same_rows(one_thread, tmp_path):
    pytest.importorskip("distributed")
    simulate(90, 3, POLICIES, 17, expansion=FM, dask="local", threads=2, chunk_size=40,
             out=tmp_path / "d")  # fmt: skip
    seats, _, _ = load_run(tmp_path / "d", seat_columns=_rows)
    pd.testing.assert_frame_equal(seats, one_thread, check_categorical=False)


def test_a_game_replays_from_its_index(one_thread):
    index = 41
    game = bnb_sim.new_game(17, index, 3, POLICIES, expansion=FM).play()
    got = pd.DataFrame(game.result())
    want = one_thread[one_thread["game"] == index].reset_index(drop=True)
    assert {"items_bought", "vegetables_spent", "item_minecart"} <= set(got.columns)
    pd.testing.assert_frame_equal(got, want, check_dtype=False, check_categorical=False)
