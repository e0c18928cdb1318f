"""bnb_sim.simulate: determinism (threads, chunks, resume), run directories, bad input."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

import bnb_sim
from bnb_sim.errors import BnbError, PolicyError, RunError
from bnb_sim.runner import simulate as sim
from bnb_sim.runner.simulate import RunInterrupted, RunSummary, plan_run, simulate
from bnb_sim.runner.storage import RUN_COLUMNS, load_run, read_meta

GAMES, PLAYERS, POLICIES, SEED = 300, 2, ["random"], 11


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    """The per-seat rows of the reference run (1 thread, one chunk)."""
    return simulate(GAMES, PLAYERS, POLICIES, SEED, threads=1, chunk_size=GAMES)


def _same_rows(got: pd.DataFrame, want: pd.DataFrame) -> None:
    # a stored run's rows also carry its id and seed (docs/run-format.md)
    got = got.drop(columns=[c for c in RUN_COLUMNS if c in got and c not in want])
    assert list(got.columns) == list(want.columns)
    pd.testing.assert_frame_equal(
        got.reset_index(drop=True), want.reset_index(drop=True), check_categorical=False
    )


def test_in_memory_rows_follow_the_run_format(reference):
    assert len(reference) == GAMES * PLAYERS
    assert reference["game"].tolist() == list(np.repeat(np.arange(GAMES), PLAYERS))
    assert set(reference["policy"].astype(str)) == {"random"}
    # one winner per game unless tied
    assert (reference.groupby("game")["won"].sum() >= 1).all()


def test_same_rows_with_one_or_two_threads(reference):
    _same_rows(simulate(GAMES, PLAYERS, POLICIES, SEED, threads=2), reference)


@pytest.mark.parametrize("chunk_size", [7, 50, GAMES + 5])
def test_same_rows_for_any_chunk_size(reference, chunk_size):
    _same_rows(simulate(GAMES, PLAYERS, POLICIES, SEED, chunk_size=chunk_size), reference)


def test_heuristic_rows_do_not_depend_on_threads_chunks_or_storage(tmp_path):
    args = (40, 4, ["heuristic", "random"], 3)
    one = simulate(*args, threads=1, chunk_size=40)
    two = simulate(*args, threads=2, chunk_size=7)
    _same_rows(two, one)
    summary = simulate(*args, out=tmp_path / "h", chunk_size=9)
    seats, games, meta = load_run(tmp_path / "h")
    _same_rows(seats, one)
    assert len(games) == 40 and meta["params"]["policies"] == [
        "heuristic",
        "random",
        "heuristic",
        "random",
    ]
    assert set(summary.win_rates) == {"heuristic", "random"}
    assert summary.win_rates["heuristic"].n == 80


def test_run_directory_matches_memory_and_run_json(tmp_path, reference):
    out = tmp_path / "run"
    summary = simulate(GAMES, PLAYERS, POLICIES, SEED, out=out, chunk_size=64, threads=1)
    assert isinstance(summary, RunSummary)
    assert summary.path == out and summary.games == GAMES and summary.played == GAMES
    assert summary.chunks == 5 and summary.chunk_size == 64 and summary.threads == 1
    rate = summary.win_rates["random"]
    assert rate.n == GAMES * PLAYERS and rate.lo <= rate.rate <= rate.hi
    assert summary.games_per_second > 0 and summary.seconds > 0
    seats, games, meta = load_run(out)
    _same_rows(seats, reference)
    assert games["game"].tolist() == list(range(GAMES))
    assert sorted(p.name for p in (out / "seats").iterdir()) == [
        f"part-{k:06d}.parquet" for k in range(5)
    ]
    assert meta["status"] == "complete" and meta["kind"] == "simulate" and meta["parts"] == 5
    params = meta["params"]
    assert params["games"] == GAMES and params["seed"] == SEED and params["chunk_size"] == 64
    assert params["players"] == 2 and params["seating"] == "rotate"
    assert params["policy_specs"][0]["kind"] == "random"
    comps = meta["components"]
    assert len(comps["content_hash"]) == 64 and comps["estimated_values"] == len(
        comps["estimated_keys"]
    )
    assert "mobs" in comps["data"]
    for key in ("bnb_sim", "python", "numba", "numpy", "pandas", "pyarrow", "dask"):
        assert meta["versions"][key], key
    assert meta["machine"]["cores"] >= 1 and meta["machine"]["cpu"]
    assert meta["threads"] == 1
    assert meta["timing"]["seconds"] > 0 and meta["timing"]["games_stored"] == GAMES
    assert "simulate(" in meta["command"] and "resume=True" in meta["resume_command"]
    text = summary.text()
    assert "games/s" in text and "n=600" in text and str(out) in text
    assert json.loads(json.dumps(summary.to_dict()))["win_rates"]["random"]["n"] == 600


def test_interrupted_run_resumes_to_the_same_rows(tmp_path, reference):
    out = tmp_path / "r"

    def stop_after_first_chunk(done, total):
        if done > 0:
            raise KeyboardInterrupt

    with pytest.raises(RunInterrupted) as info:
        simulate(GAMES, PLAYERS, POLICIES, SEED, out=out, chunk_size=70,
                 progress=stop_after_first_chunk)  # fmt: skip
    assert info.value.done == 70 and info.value.games == GAMES
    assert "resume=True" in info.value.resume_command and str(out) in str(info.value)
    meta = read_meta(out)
    assert meta["status"] == "partial" and meta["parts"] == 5
    seats, _, _ = load_run(out)  # a valid partial dataset
    _same_rows(seats, reference.iloc[: 70 * PLAYERS])

    seen = []
    summary = simulate(GAMES, PLAYERS, POLICIES, SEED, out=out, resume=True,
                       progress=lambda done, total: seen.append(done))  # fmt: skip
    assert seen[0] == 70 and seen[-1] == GAMES
    assert summary.played == GAMES - 70 and summary.chunk_size == 70
    seats, _, meta = load_run(out)
    _same_rows(seats, reference)
    assert meta["status"] == "complete" and len(meta["timing"]["sessions"]) == 2
    assert summary.win_rates["random"].n == GAMES * PLAYERS  # old parts counted too


def test_resume_refuses_other_parameters(tmp_path):
    out = tmp_path / "r"
    simulate(50, 2, ["random"], 1, out=out, chunk_size=10)
    before = sorted(p.name for p in out.rglob("*"))
    cases = [
        dict(games=60, seed=1),
        dict(games=50, seed=2),
        dict(games=50, seed=1, chunk_size=20),
        dict(games=50, seed=1, policies=["heuristic"]),
        dict(games=50, seed=1, seating="fixed"),
    ]
    for case in cases:
        kwargs = {"players": 2, "policies": ["random"], **case}
        with pytest.raises(RunError, match="cannot resume"):
            simulate(out=out, resume=True, **kwargs)
    assert sorted(p.name for p in out.rglob("*")) == before
    # same parameters: nothing left to play
    summary = simulate(50, 2, ["random"], 1, out=out, resume=True)
    assert summary.played == 0 and summary.games == 50


def test_existing_directory_needs_resume_or_force(tmp_path):
    out = tmp_path / "r"
    simulate(20, 2, ["random"], 1, out=out)
    with pytest.raises(RunError, match="already exists"):
        simulate(20, 2, ["random"], 1, out=out)
    summary = simulate(30, 2, ["random"], 2, out=out, force=True)
    assert summary.games == 30 and read_meta(out)["params"]["seed"] == 2
    with pytest.raises(BnbError, match="together"):
        simulate(30, 2, ["random"], 2, out=out, force=True, resume=True)


def test_seating_rotates_by_default_and_can_be_fixed():
    rotate = simulate(40, 2, ["heuristic", "random"], 5)
    assert rotate.groupby(["policy", "seat"], observed=True).size().eq(40 // 2).all()
    fixed = simulate(40, 2, ["heuristic", "random"], 5, seating="fixed")
    assert (fixed["seat"] == fixed["player"]).all()
    assert (fixed.loc[fixed["seat"] == 0, "policy"].astype(str) == "heuristic").all()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(games=0), "positive"),
        (dict(games=-3), "positive"),
        (dict(games=1.5), "integer"),
        (dict(games=100_000_001), "--yes"),
        (dict(threads=0), "threads"),
        (dict(chunk_size=0), "chunk size"),
        (dict(players=7), "players"),
        (dict(policies=["nonsense"]), "unknown policy"),
        (dict(policies=["heuristic:nonsense=1"]), "nonsense"),
        (dict(dask="not an address"), "scheduler address"),
        (dict(resume=True), "output directory"),
    ],
)
def test_bad_input_is_one_clear_error(kwargs, match):
    args = {"games": 10, "players": 2, "policies": ["random"], **kwargs}
    with pytest.raises(BnbError, match=match) as info:
        simulate(**args)
    assert "\n" not in str(info.value)


def test_unknown_policy_is_a_policy_error():
    with pytest.raises(PolicyError):
        plan_run(10, 2, ["rnadom"])


def test_yes_allows_huge_runs_and_memory_mode_has_a_limit():
    plan = plan_run(200_000_000, 4, ["random"], yes=True, out="unused")
    assert plan.games == 200_000_000 and plan.n_parts(100_000) == 2_000
    with pytest.raises(BnbError, match="out=DIR"):
        simulate(sim.MAX_IN_MEMORY_GAMES + 1, 4, ["random"])


def test_default_chunk_size_is_bounded():
    config = plan_run(10, 4, ["random"]).config
    assert sim.default_chunk_size(10, config, 2) == 10
    assert sim.default_chunk_size(10**9, config, 2) == 40_000
    assert sim.default_chunk_size(10**9, config, 64) == 50_000
    heuristic = plan_run(10, 4, ["heuristic"]).config
    assert sim.default_chunk_size(10**9, heuristic, 1) == 10_000


def test_unwritable_directory_leaves_nothing_behind(tmp_path):
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a folder")
    with pytest.raises(RunError, match=r"cannot use this path \(Not a directory\)"):
        simulate(10, 2, ["random"], out=blocker / "run")
    assert blocker.read_text() == "not a folder"
    with pytest.raises(RunError, match="not a directory"):
        simulate(10, 2, ["random"], out=blocker)


def test_failure_in_the_first_chunk_removes_the_new_directory(tmp_path, monkeypatch):
    def broken(self, tasks):
        raise BnbError("game 0 did not end")
        yield  # pragma: no cover

    monkeypatch.setattr(sim.LocalExecutor, "run", broken)
    out = tmp_path / "new" / "run"
    with pytest.raises(BnbError, match="did not end"):
        simulate(10, 2, ["random"], out=out)
    assert not (tmp_path / "new").exists()


def test_public_api_exports():
    assert bnb_sim.simulate is simulate
    assert bnb_sim.load_run is load_run


def test_win_counter_clusters_by_game_and_keeps_small_rates_visible():
    """D7/D10: the terminal summary printed 16 wins in 40,000 as "0.0% [0.0, 0.1]", and the
    interval of a policy in two seats treated its rows as independent (about 10x too wide)."""
    import numpy as np
    import pandas as pd

    from bnb_sim.analysis.stats import clustered_rate, wilson_interval
    from bnb_sim.runner.run_summary import _WinCounter

    rng = np.random.default_rng(3)
    games = 10_000
    upset = rng.random(games) < 0.0016  # random wins about 16 of 10,000 games
    winner = np.where(upset, rng.integers(2, 4, games), rng.integers(0, 2, games))
    seat = np.tile(np.arange(4), games)
    game = np.repeat(np.arange(games), 4)
    seats = pd.DataFrame(
        {
            "game": game,
            "policy": pd.Categorical(
                np.array(["heuristic", "heuristic", "random", "random"])[seat]
            ),  # noqa: E501
            "won": seat == np.repeat(winner, 4),
        }
    )
    counter = _WinCounter(["heuristic", "random"])
    for part in np.array_split(np.arange(games), 3):  # chunk by chunk, as the runner does
        counter.add(seats[np.isin(seats["game"], part)])
    rates = counter.rates()
    for label in ("heuristic", "random"):
        rows = seats[seats["policy"] == label]
        ref = clustered_rate(rows["won"].to_numpy(float), rows["game"])
        assert (rates[label].lo, rates[label].hi) == pytest.approx((ref.lo, ref.hi))
    h = rates["heuristic"]
    lo, hi = wilson_interval(h.k, h.n)
    assert h.hi - h.lo < 0.3 * (hi - lo)
    text = str(rates["random"])
    assert not text.startswith("0.0%") and re.match(r"0\.\d{3}% \[0\.\d{3}, 0\.\d{3}\]", text)
