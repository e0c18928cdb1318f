"""Heroes of the Village runs go through the verified run storage (docs/run-format.md):
lock, --force rules, part stamps with rows per game index, checksums, resume and load checks."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bnb_sim.errors import RunError
from bnb_sim.games.heroes_village.components import load_components
from bnb_sim.games.heroes_village.runner import make_config, simulate_to_dir
from bnb_sim.runner.run_columns import _game_range
from bnb_sim.runner.storage import RunWriter, load_run, read_meta
from bnb_sim.runner.verify import STAMP_KEY

COMPS = load_components()
GAMES, CHUNK = 90, 30  # three parts


def config(seed=5, pets="wolf,cat"):
    return make_config(COMPS, 2, ["team"], pets, seed=seed)


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """A complete run of two players with one pet team per pair of pets (15 teams)."""
    out = tmp_path_factory.mktemp("hotv") / "whole"
    simulate_to_dir(config(pets="all"), GAMES, out, chunk_size=CHUNK)
    return out


def test_run_json_declares_the_identity_under_params(whole):
    meta = read_meta(whole)
    params = meta["params"]
    assert meta["game"] == "heroes_village" and meta["status"] == "complete"
    assert (params["games"], params["players"], params["chunk_size"]) == (GAMES, 2, CHUNK)
    assert params["policies"] == ["team", "team"] and params["teams"] == 15
    assert params["rows_per_game"] == {"seats": 30, "games": 15}
    assert meta["identity"].startswith("sha256:") and len(meta["part_files"]) == 3
    footer = pq.read_metadata(whole / "games" / "part-000001.parquet")
    stamp = json.loads(footer.metadata[STAMP_KEY])
    assert stamp["identity"] == meta["identity"]
    assert (stamp["first_game"], stamp["n_games"]) == (CHUNK, CHUNK)
    assert stamp["rows"] == {"seats": CHUNK * 30, "games": CHUNK * 15}
    seats, games, _ = load_run(whole)
    assert len(games) == GAMES * 15 and len(seats) == GAMES * 30


def test_rows_and_parts_carry_the_run_id_and_seed(whole):
    """Heroes of the Village runs go through the same writer: every row carries the run's id
    and seed, every part the run metadata."""
    from bnb_sim import __version__
    from bnb_sim.runner.storage import RUN_KEY

    meta = read_meta(whole)
    seats, games, _ = load_run(whole)
    for frame in (seats, games):
        assert set(frame["run_id"]) == {meta["run_id"]} and set(frame["seed"]) == {5}
    info = json.loads(pq.read_metadata(whole / "seats" / "part-000002.parquet").metadata[RUN_KEY])
    assert info["game"] == "heroes_village" and info["bnb_sim"] == __version__
    assert info["run_id"] == meta["run_id"] and info["seed"] == 5


def test_a_torn_part_is_played_again_on_resume_with_the_same_rows(whole, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(whole, run)
    part = run / "games" / "part-000001.parquet"
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])  # torn
    with pytest.raises(RunError, match="part-000001.parquet: corrupt Parquet part"):
        load_run(run)
    told = []
    simulate_to_dir(config(pets="all"), GAMES, run, resume=True, notice=told.append)
    assert len(told) == 1 and "part-000001.parquet" in told[0] and "playing part 1 again" in told[0]
    for a, b in zip(load_run(whole), load_run(run), strict=False):
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b)
    assert read_meta(run)["status"] == "complete"


def test_a_foreign_part_is_refused_by_load_run_and_replayed_by_resume(whole, tmp_path):
    other = tmp_path / "other"
    simulate_to_dir(config(seed=6, pets="all"), GAMES, other, chunk_size=CHUNK)
    run = tmp_path / "run"
    shutil.copytree(whole, run)
    shutil.copy(other / "seats" / "part-000002.parquet", run / "seats" / "part-000002.parquet")
    with pytest.raises(RunError, match=r"seats/part-000002\.parquet: (corrupt|foreign)"):
        load_run(run)
    with pytest.raises(RunError, match=r"seats/part-000002\.parquet"):
        from bnb_sim.analysis.protocol_report import write_report
        from bnb_sim.core.registry import get_game

        write_report(get_game("hotv"), run, tmp_path / "report")
    told = []
    simulate_to_dir(config(pets="all"), GAMES, run, resume=True, notice=told.append)
    assert len(told) == 1 and "seats/part-000002.parquet" in told[0]
    pd.testing.assert_frame_equal(load_run(whole)[0], load_run(run)[0])


def test_a_second_writer_is_refused(tmp_path):
    run = tmp_path / "run"
    with RunWriter(run):
        with pytest.raises(RunError, match="in use by another bnb-sim process"):
            simulate_to_dir(config(), GAMES, run, chunk_size=CHUNK)
    assert not (run / "run.json").exists()


def test_resume_needs_the_same_identity_and_force_only_overwrites_a_run(whole, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(whole, run)
    with pytest.raises(RunError, match="other parameters: seed 5 \\(now 6\\)"):
        simulate_to_dir(config(seed=6, pets="all"), GAMES, run, resume=True)
    meta = json.loads((run / "run.json").read_text())
    legacy = {k: v for k, v in meta.items() if k not in ("game", "description_hash")}
    (run / "run.json").write_text(json.dumps(legacy))  # as a run of before the game key
    with pytest.raises(RunError, match="cannot resume: it is a run of another game"):
        simulate_to_dir(config(pets="all"), GAMES, run, resume=True)
    (run / "run.json").write_text(json.dumps(meta))
    with pytest.raises(RunError, match="already exists"):
        simulate_to_dir(config(pets="all"), GAMES, run)
    simulate_to_dir(config(seed=7), GAMES, run, chunk_size=CHUNK, force=True)
    assert read_meta(run)["params"]["seed"] == 7 and read_meta(run)["params"]["teams"] == 1
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="--force only overwrites a run"):
        simulate_to_dir(config(), GAMES, foreign, force=True)
    assert (foreign / "notes.txt").read_text() == "mine"


def test_an_edited_run_json_is_refused(whole, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(whole, run)
    meta = json.loads((run / "run.json").read_text())
    meta["params"]["difficulty"] = "easy"
    (run / "run.json").write_text(json.dumps(meta))
    with pytest.raises(RunError, match="no longer match the run's identity hash"):
        load_run(run)
    meta["params"]["rows_per_game"] = {"seats": 3, "games": 15}
    (run / "run.json").write_text(json.dumps(meta))
    with pytest.raises(RunError, match=r"'params\.rows_per_game\.seats' is 3, but 15 games rows"):
        read_meta(run)


def test_game_range_needs_each_game_index_the_declared_number_of_times():
    def table(games):
        return pa.table({"game": pa.array(games, pa.int64())})

    assert _game_range(table([4, 5, 6])) == (4, 3)
    assert _game_range(table([4, 5, 4, 5]), 2) == (4, 2)
    for games, per_game in (([4, 5, 4, 5], 1), ([4, 4, 4, 5], 2), ([0, 0, 2], 1), ([4, 6], 1)):
        with pytest.raises(ValueError, match="row"):
            _game_range(table(games), per_game)
