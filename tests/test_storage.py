"""Run directories: RunWriter (atomic parts, resume/force), load_run, read_meta, bad input."""

from __future__ import annotations

import errno
import json
import os

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from fake_runs import FakeSpec, make_frames, make_meta, write_fake_run

from bnb_sim.errors import RunError
from bnb_sim.runner import storage
from bnb_sim.runner.run_columns import _encode
from bnb_sim.runner.storage import (
    GAME_COLUMNS,
    SEAT_COLUMNS,
    RunWriter,
    load_run,
    part_name,
    read_meta,
)
from bnb_sim.runner.verify import description_hash

SPEC = FakeSpec(n_games=300, chunk_size=100, seed=3)

EXPECTED_DTYPES = {
    "int64": "int64",
    "int32": "int32",
    "int16": "int16",
    "int8": "int8",
    "bool": "bool",
    "string": "category",
}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("runs") / "r1"
    write_fake_run(path, SPEC)
    return path


def _part(frames, k, spec=SPEC):
    seats, games = frames
    n, cs = spec.n_players, spec.chunk_size
    return (
        seats.iloc[k * cs * n : (k + 1) * cs * n].reset_index(drop=True),
        games.iloc[k * cs : (k + 1) * cs].reset_index(drop=True),
    )


def test_round_trip_keeps_rows_order_and_contract_dtypes(run_dir):
    seats, games, meta = load_run(run_dir)
    want_seats, want_games = make_frames(SPEC)
    assert meta["status"] == "complete" and meta["parts"] == 3
    assert len(seats) == 1200 and len(games) == 300
    assert list(seats.columns) == [*want_seats.columns, "run_id", "seed"]
    assert list(games.columns) == [*want_games.columns, "run_id", "seed"]
    seats = seats.drop(columns=["run_id", "seed"])
    assert np.all(np.diff(games["game"].to_numpy()) == 1)
    for name, arrow_type in {**SEAT_COLUMNS}.items():
        assert str(seats[name].dtype) == EXPECTED_DTYPES[str(arrow_type)], name
    for name, arrow_type in GAME_COLUMNS.items():
        assert str(games[name].dtype) == EXPECTED_DTYPES[str(arrow_type)], name
    for name in ("fights_enderman", "wins_spider", "defeated_witch", "built_bridge"):
        assert seats[name].dtype == np.int16
    pd.testing.assert_frame_equal(
        seats.astype({c: object for c in ("policy", "board", "choice_a")}).drop(
            columns=["choice_b", "choice_c"]
        ),
        want_seats.astype({c: object for c in ("policy", "board", "choice_a")}).drop(
            columns=["choice_b", "choice_c"]
        ),
        check_dtype=False,
    )
    assert games["winner_policy"].astype(str).tolist() == want_games["winner_policy"].tolist()


def test_rows_of_several_runs_can_be_told_apart(tmp_path, run_dir):
    """Every row carries its run's id and seed (dictionary-encoded: a categorical with one
    category per part, an int8 code per row), and run.json names the same id."""
    other = tmp_path / "r2"
    write_fake_run(other, FakeSpec(n_games=300, chunk_size=100, seed=4))
    both = []
    for path, seed in ((run_dir, 3), (other, 4)):
        seats, games, meta = load_run(path)
        assert meta["run_id"] == storage.run_id_of(meta)
        assert len(meta["run_id"]) == 16
        for frame in (seats, games):
            assert isinstance(frame["run_id"].dtype, pd.CategoricalDtype)
            assert frame["run_id"].cat.codes.dtype == np.int8
            assert set(frame["run_id"]) == {meta["run_id"]}
            assert frame["seed"].dtype == np.int64 and set(frame["seed"]) == {seed}
        both.append(seats)
    together = pd.concat(both, ignore_index=True)
    assert together.groupby("run_id", observed=True).size().tolist() == [1200, 1200]
    file = run_dir / "seats" / part_name(0)
    column = (
        pq.ParquetFile(file)
        .metadata.row_group(0)
        .column(pq.read_schema(file).get_field_index("run_id"))
    )
    assert "RLE_DICTIONARY" in column.encodings and column.total_compressed_size < 200


def test_the_run_id_follows_from_what_decides_the_rows():
    """Not chunk size, threads or the backend (the rows do not depend on them), but the seed,
    any other parameter and the components."""
    meta = make_meta(SPEC)
    same = storage.run_id_of(meta)
    params = meta["params"]
    for change in ({"chunk_size": 7}, {"threads": 1}, {"dask": "local"}, {"backend": "dask"}):
        assert storage.run_id_of({**meta, "params": {**params, **change}}) == same, change
    for change in ({"seed": params["seed"] + 1}, {"games": params["games"] + 1}):
        assert storage.run_id_of({**meta, "params": {**params, **change}}) != same, change
    other = {**meta, "components": {**meta["components"], "content_hash": "sha256:other"}}
    assert storage.run_id_of(other) != same


def test_parts_carry_the_run_metadata(run_dir):
    from bnb_sim import __version__

    meta = read_meta(run_dir)
    for table in ("seats", "games"):
        kv = pq.read_metadata(run_dir / table / part_name(1)).metadata
        info = json.loads(kv[storage.RUN_KEY])
        assert info == {
            "run_id": meta["run_id"], "seed": 3, "bnb_sim": __version__,
            "game": "builders_biomes", "kind": meta["kind"],
        }  # fmt: skip


def test_resume_adds_the_run_columns_to_parts_of_an_older_version(tmp_path, run_dir):
    """A run written before the run columns existed gets them when it is resumed."""
    path = tmp_path / "old"
    _copy_run(run_dir, path)
    for table in ("seats", "games"):
        for k in range(3):
            file = path / table / part_name(k)
            data = pq.read_table(file)
            data = data.drop_columns(["run_id", "seed"])
            data = data.replace_schema_metadata({storage.STAMP_KEY: data_stamp(file)})
            buf = _encode(data)
            file.write_bytes(buf.to_pybytes())
    meta = json.loads((path / "run.json").read_text())
    meta["part_files"] = {}  # the checksums changed with the files
    (path / "run.json").write_text(json.dumps(meta))
    assert not storage.has_run_columns(path / "seats" / part_name(0))
    with RunWriter(path, resume=True) as writer:
        assert writer.verify_parts(3) == []
        writer.finish()
    seats, games, _ = load_run(path)
    assert set(seats["seed"]) == {3} and set(games["run_id"]) == {meta["run_id"]}


def data_stamp(file):
    return pq.read_metadata(file).metadata[storage.STAMP_KEY]


def test_column_selection_by_list_and_predicate(run_dir):
    seats, games, _ = load_run(run_dir, seat_columns=["policy", "won"], game_columns=["turns"])
    assert list(seats.columns) == ["policy", "won"] and list(games.columns) == ["turns"]
    assert len(seats) == 1200
    seats, _, _ = load_run(run_dir, seat_columns=lambda c: c.startswith("built_"))
    assert list(seats.columns) == [f"built_{t}" for t in SPEC.building_types]
    with pytest.raises(RunError, match="no column 'nope'"):
        load_run(run_dir, seat_columns=["nope"])


def test_writer_refuses_existing_run_and_resumes(tmp_path):
    path = tmp_path / "run"
    frames = make_frames(SPEC)
    writer = RunWriter(path)
    writer.write_meta(make_meta(SPEC))
    writer.write_part(0, *_part(frames, 0))
    writer.write_part(2, *_part(frames, 2))
    writer.flush()
    assert read_meta(path)["status"] == "partial"
    assert writer.missing_parts(3) == [1]
    with pytest.raises(RunError, match="in use by another bnb-sim process"):
        RunWriter(path, resume=True)  # the first writer still holds the folder
    writer.close()
    with pytest.raises(RunError, match="already exists.*--resume.*--force"):
        RunWriter(path)
    resumed = RunWriter(path, resume=True)
    assert resumed.meta["params"]["seed"] == SPEC.seed
    assert resumed.verify_parts(3) == [1]
    with pytest.raises(RunError, match="1 of 3 parts are missing"):
        resumed.finish()
    resumed.write_part(1, *_part(frames, 1))
    resumed.finish()
    resumed.close()
    seats, games, meta = load_run(path)
    assert meta["status"] == "complete" and len(games) == 300
    assert games["game"].tolist() == list(range(300))


def test_force_overwrites_a_run_but_not_other_folders(tmp_path, run_dir):
    path = tmp_path / "run"
    write_fake_run(path, SPEC)
    (path / "notes.txt").write_text("mine")
    (path / "seats" / "notes.txt").write_text("mine too")
    with RunWriter(path, force=True) as writer:
        assert writer.missing_parts(3) == [0, 1, 2]
    assert not (path / "run.json").exists() and (path / "notes.txt").read_text() == "mine"
    assert [p.name for p in (path / "seats").iterdir()] == ["notes.txt"]
    other = tmp_path / "home"
    other.mkdir()
    (other / "thesis.tex").write_text("precious")
    with pytest.raises(RunError, match="not a run .*--force only overwrites a run"):
        RunWriter(other, force=True)
    assert sorted(p.name for p in other.iterdir()) == ["thesis.tex"]  # not even a lock file
    with pytest.raises(RunError, match="not a run directory"):
        RunWriter(other, resume=True)
    with pytest.raises(RunError, match="cannot be used together"):
        RunWriter(tmp_path / "x", resume=True, force=True)
    (tmp_path / "file").write_text("x")
    with pytest.raises(RunError, match="not a directory"):
        RunWriter(tmp_path / "file")
    # an empty folder, or resume on a folder that does not exist yet, starts a new run
    (tmp_path / "empty").mkdir()
    RunWriter(tmp_path / "empty").close()
    with RunWriter(tmp_path / "new", resume=True) as writer:
        assert writer.meta is None


def test_write_is_atomic_and_leftovers_are_ignored(tmp_path, monkeypatch):
    path = tmp_path / "run"
    frames = make_frames(SPEC)
    writer = RunWriter(path)
    writer.write_meta(make_meta(SPEC))

    def disk_full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)  # the bytes went in, the sync fails
    with pytest.raises(storage.WriteFailed, match="No space left on device") as info:
        writer.write_part(0, *_part(frames, 0))
    assert info.value.disk_full and info.value.file == path / "seats" / part_name(0)
    monkeypatch.undo()
    assert list((path / "seats").iterdir()) == []  # no part, no temporary file
    assert writer.missing_parts(3) == [0, 1, 2]
    # a temporary file left by a killed process: invisible to readers, removed on resume
    writer.write_part(0, *_part(frames, 0))
    writer.flush()
    stale = path / "seats" / f".{part_name(1)}.tmp-99999"
    stale.write_bytes(b"garbage")
    seats, games, _ = load_run(path)  # partial: the finished part only
    assert len(games) == 100 and len(seats) == 400
    writer.close()
    RunWriter(path, resume=True).close()
    assert not stale.exists()


def test_write_part_checks_the_contract(tmp_path):
    seats, games = _part(make_frames(SPEC), 0)
    writer = RunWriter(tmp_path / "run")
    with pytest.raises(ValueError, match="lacks the contract columns.*'won'"):
        writer.write_part(0, seats.drop(columns="won"), games)
    bad = seats.copy()
    bad["seat"] = bad["seat"].astype(np.int64) + 1000
    with pytest.raises(ValueError, match="does not fit the column contract"):
        writer.write_part(0, bad, games)
    with pytest.raises(ValueError, match="non-negative"):
        writer.write_part(-1, seats, games)
    writer.write_meta({"params": {"seed": np.int64(7)}, "parts": np.int64(1)})
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    identity = meta.pop("identity")
    run_id = meta.pop("run_id")
    assert meta.pop("description_hash") == description_hash(meta)
    assert run_id == storage.run_id_of(meta) and len(run_id) == 16
    assert meta == {
        "params": {"seed": 7},
        "parts": 1,
        "format": 1,
        "status": "partial",
        "part_files": {},
    }
    assert identity.startswith("sha256:") and len(identity) == 7 + 64
    writer.close()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, r"not a run directory \(no run.json\)"),
        ("{not json", "run.json: not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"format": 2, "status": "complete"}', "unsupported run format 2"),
        ('{"format": 1, "status": "done"}', "'status' is 'done'"),
        ('{"format": 1, "status": "complete", "parts": -1}', "'parts' is -1"),
    ],
)
def test_read_meta_rejects_what_is_not_a_run(tmp_path, content, message):
    if content is not None:
        (tmp_path / "run.json").write_text(content)
    with pytest.raises(RunError, match=message) as info:
        load_run(tmp_path)
    assert str(tmp_path) in str(info.value) and "\n" not in str(info.value)


def test_missing_folder_and_file(tmp_path):
    with pytest.raises(RunError, match="no such run directory"):
        read_meta(tmp_path / "missing")
    (tmp_path / "f").write_text("x")
    with pytest.raises(RunError, match="it is a file"):
        read_meta(tmp_path / "f")


def _copy_run(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
def test_corrupt_part_names_the_file(tmp_path, run_dir, damage):
    path = _copy_run(run_dir, tmp_path / "run")
    part = path / "seats" / part_name(1)
    data = part.read_bytes()
    if damage == "truncate":
        part.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        part.write_bytes(data[:200] + bytes(range(256)) * 8 + data[200 + 2048 :])
    else:
        part.write_bytes(b"")
    with pytest.raises(RunError, match="corrupt Parquet part") as info:
        load_run(path)
    assert str(part) in str(info.value) and "\n" not in str(info.value)


def test_complete_run_with_a_missing_part(tmp_path, run_dir):
    path = _copy_run(run_dir, tmp_path / "run")
    (path / "games" / part_name(2)).unlink()
    with pytest.raises(RunError, match=r"marked complete but 1 of 3 games parts are missing"):
        load_run(path)


def test_partial_run_loads_parts_present_in_both_tables(tmp_path):
    path = tmp_path / "run"
    write_fake_run(path, SPEC.replace(status="partial"))  # parts 0 and 1 of 3
    (path / "games" / part_name(1)).unlink()  # killed between the seats and games files
    seats, games, meta = load_run(path)
    assert meta["status"] == "partial"
    assert len(games) == 100 and seats["game"].max() == 99
    (path / "seats" / part_name(0)).unlink()
    with pytest.raises(RunError, match="no finished parts yet"):
        load_run(path)


def test_storage_module_has_the_contract_columns_of_the_doc():
    """The column tables in storage.py and docs/run-format.md agree."""
    from pathlib import Path

    doc = (Path(__file__).parents[1] / "docs" / "run-format.md").read_text()
    seats_doc, games_doc = doc.split("## `games`")[0], doc.split("## `games`")[1]

    def documented(text):  # first cells of the column tables, "a / b" split
        cells = [line.split("|")[1] for line in text.splitlines() if line.startswith("| ")]
        return {name.strip() for cell in cells for name in cell.split("/")} - {"column"}

    fixed_seats = {n for n in documented(seats_doc) if "&lt;" not in n}
    assert fixed_seats == set(SEAT_COLUMNS)
    assert documented(games_doc.split("## `run.json`")[0]) == set(GAME_COLUMNS)
    assert storage.FORMAT == 1 and '"format": 1' in doc


def test_parts_carry_a_stamp_and_run_json_their_checksums(run_dir):
    """docs/run-format.md 'Verification': the stamp keys and the part_files records."""
    import hashlib

    meta = read_meta(run_dir)
    for k in range(3):
        for table in ("seats", "games"):
            file = run_dir / table / part_name(k)
            stamp = json.loads(pq.read_metadata(file).metadata[b"bnb_sim.part"])
            assert stamp == {
                "format": 1,
                "table": table,
                "part": k,
                "first_game": 100 * k,
                "n_games": 100,
                "rows": {"seats": 400, "games": 100},
                "identity": meta["identity"],
            }
            record = meta["part_files"][str(k)][table]
            assert record["sha256"] == hashlib.sha256(file.read_bytes()).hexdigest()
            assert record["bytes"] == file.stat().st_size and record["rows"] == stamp["rows"][table]


def test_identity_covers_every_parameter_but_how_the_games_were_played():
    from bnb_sim.runner.verify import NON_IDENTITY_PARAMS, identity_hash

    meta = make_meta(SPEC)
    base = identity_hash(meta)
    for key in NON_IDENTITY_PARAMS:
        assert identity_hash({**meta, "params": {**meta["params"], key: "other"}}) == base
    # a parameter added later (e.g. a rule reading) changes the identity without new code
    assert identity_hash({**meta, "params": {**meta["params"], "readings": {"x": 1}}}) != base
    assert identity_hash({**meta, "params": {**meta["params"], "seed": 99}}) != base
    other = {**meta, "components": {**meta["components"], "content_hash": "sha256:other"}}
    assert identity_hash(other) != base


def _strip_stamps(path):
    """Make ``path`` look like a run written before parts were stamped."""
    for file in path.glob("*/part-*.parquet"):
        table = pq.read_table(file)
        pq.write_table(table.replace_schema_metadata(None), file)
    meta = json.loads((path / "run.json").read_text())
    del meta["identity"], meta["part_files"]
    (path / "run.json").write_text(json.dumps(meta))


def test_legacy_run_is_checked_by_rows_and_stamped_on_resume(tmp_path, run_dir):
    path = _copy_run(run_dir, tmp_path / "run")
    _strip_stamps(path)
    seats, games, _ = load_run(path)
    assert len(games) == 300
    lying = _copy_run(path, tmp_path / "lying")
    meta = json.loads((lying / "run.json").read_text())
    meta["params"]["players"] = 3
    (lying / "run.json").write_text(json.dumps(meta))
    with pytest.raises(RunError, match=r"foreign part \(400 rows, expected 300\)"):
        load_run(lying)
    with RunWriter(path, resume=True) as writer:
        assert writer.verify_parts(3) == []
        writer.finish()
    meta = read_meta(path)
    assert set(meta["part_files"]) == {"0", "1", "2"} and "identity" in meta
    assert b"bnb_sim.part" in pq.read_metadata(path / "seats" / part_name(2)).metadata
    assert len(load_run(path)[1]) == 300


def test_unrecorded_part_is_decoded_in_full(tmp_path, run_dir):
    """A part written after the last run.json update (a SIGKILL just after it) has no
    checksum: it is still verified, by decoding every column."""
    path = _copy_run(run_dir, tmp_path / "run")
    meta = json.loads((path / "run.json").read_text())
    del meta["part_files"]["2"]
    (path / "run.json").write_text(json.dumps(meta))
    assert len(load_run(path)[1]) == 300
    part = path / "seats" / part_name(2)
    data = bytearray(part.read_bytes())
    data[len(data) // 3 : len(data) // 3 + 32] = bytes(32)
    part.write_bytes(bytes(data))
    with pytest.raises(RunError, match=f"{part_name(2)}: corrupt Parquet part"):
        load_run(path, seat_columns=["won"])
