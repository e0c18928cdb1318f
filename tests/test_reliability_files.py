"""Hostile files and folders, round 3 of the reliability review (../reviews: reliability-2).

Each test rebuilds one group of the review's cases from its command and description; the
group id (C1 ... U9) starts the test's name. Run folders are the synthetic ones of
``fake_runs`` (no engine), so these tests are quick.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from fake_runs import FakeSpec, write_fake_run
from test_cli_simulate import run_cli

from bnb_sim import safe_io
from bnb_sim.errors import BnbError, RunError
from bnb_sim.runner.export import export_csv
from bnb_sim.runner.lock import LOCK_NAME, RunLock
from bnb_sim.runner.storage import load_run, part_name, read_meta
from bnb_sim.tune.store import TuneStore, open_tune_folder

SPEC = FakeSpec(
    n_games=300, chunk_size=100, policies=("greedy", "random"), seat_weight=(0.55, 0.45)
)
VICTIM_TEXT = "the user's own notes\n"


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch, tmp_path):
    for name in list(os.environ):
        if name.startswith("BNB_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Two small complete runs of other seeds (tests copy them, never change them)."""
    root = tmp_path_factory.mktemp("reliability-runs")
    write_fake_run(root / "a", SPEC)
    write_fake_run(root / "b", SPEC.replace(seed=6))
    return {"a": root / "a", "b": root / "b"}


def _copy(run: Path, tmp_path: Path, name: str = "run") -> Path:
    target = tmp_path / name
    shutil.copytree(run, target)
    return target


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM_TEXT)
    return victim


def _one_line(code: int, err: str, *needles: str) -> str:
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("bnb: error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


# ---- C1: a planted lock file is never written through ------------------------------------


@pytest.mark.parametrize("kind", ["symlink", "hardlink"])
def test_c1_a_planted_lock_file_link_is_refused_and_its_target_kept(tmp_path, kind):
    victim = _victim(tmp_path)
    run = tmp_path / "r"
    run.mkdir()
    (os.symlink if kind == "symlink" else os.link)(victim, run / LOCK_NAME)
    with pytest.raises(RunError, match="the lock file is .*nothing was written through it"):
        RunLock(run).acquire()
    with pytest.raises(RunError, match="lock file"):  # a new run into that folder
        write_fake_run(run, SPEC)
    assert victim.read_text() == VICTIM_TEXT


def test_c1_resume_and_force_on_a_run_with_a_planted_lock_link(tmp_path, capsys):
    victim = _victim(tmp_path)
    run = tmp_path / "run"
    args = ["simulate", "-n", "300", "-p", "2", "--policy", "random", "--chunk-size", "100"]
    args += ["--threads", "1", "-q", "-o", run]
    code, _, err = run_cli(capsys, args)
    assert code == 0, err
    (run / LOCK_NAME).unlink()
    os.symlink(victim, run / LOCK_NAME)
    code, _, err = run_cli(capsys, ["export", run, "--csv", tmp_path / "csv", "-q"])
    assert code == 0, err  # readers do not lock
    for flag in ("--resume", "--force"):
        code, _, err = run_cli(capsys, [*args, flag])
        _one_line(code, err, LOCK_NAME, "link")
    assert victim.read_text() == VICTIM_TEXT


# ---- C2, C4, C5, U5, U7, W3: the tuning folder -------------------------------------------

TUNE_SPEC = {"command": "policy", "policy": "heuristic", "budget": 400, "seed": 1}


def _tuning(folder: Path, evaluations: int = 2) -> TuneStore:
    store = TuneStore(folder, TUNE_SPEC)
    for i in range(evaluations):
        point = {"board": float(i)}
        store.evaluations[f"search:0:{i}"] = {
            "point": point, "score": 0.5 + i / 10, "se": 0.1, "n": 4, "games": 8, "wins": 3,
        }  # fmt: skip
    store.save()
    return store


def test_c2_a_planted_tmp_link_in_a_tuning_folder_is_never_written(tmp_path):
    victim = _victim(tmp_path)
    folder = tmp_path / "t"
    _tuning(folder)
    os.symlink(victim, folder / "tune.json.tmp")
    store = TuneStore(folder, TUNE_SPEC, resume=True)
    store.save()
    assert victim.read_text() == VICTIM_TEXT
    assert json.loads((folder / "tune.json").read_text())["kind"] == "tune"


@pytest.mark.parametrize("force", [False, True])
def test_c4_tune_refuses_a_folder_of_user_files(tmp_path, force):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "report.md").write_text("notes\n")
    (folder / "tuned.toml").write_text("# mine\n")
    with pytest.raises(BnbError, match="not a tuning run .*nothing of yours is overwritten"):
        TuneStore(folder, TUNE_SPEC, force=force)
    assert (folder / "report.md").read_text() == "notes\n"
    assert (folder / "tuned.toml").read_text() == "# mine\n"
    assert sorted(os.listdir(folder)) == ["report.md", "tuned.toml"]


def test_w3_tune_refuses_a_simulate_run_folder(tmp_path, runs):
    run = _copy(runs["a"], tmp_path)
    before = sorted(os.listdir(run))
    for flags in ({}, {"force": True}):
        with pytest.raises(BnbError, match="is a simulate run folder"):
            TuneStore(run, TUNE_SPEC, **flags)
    assert sorted(os.listdir(run)) == before


@pytest.mark.parametrize("flags", [{"force": True}, {"resume": True}])
def test_c5_u7_a_second_tuning_writer_is_refused_while_the_first_runs(tmp_path, flags):
    folder = tmp_path / "t"
    _tuning(folder)
    first = open_tune_folder(folder, resume=True)  # what a running tuning holds
    try:
        with pytest.raises(RunError, match="in use by another bnb-sim process"):
            open_tune_folder(folder, **flags)
    finally:
        first.release()
    open_tune_folder(folder, resume=True).release()  # free again


def test_u5_a_failed_tune_json_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    folder = tmp_path / "t"
    store = _tuning(folder)

    def disk_full(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(safe_io, "_write_all", disk_full)
    with pytest.raises(BnbError, match="cannot write .*No space left on device"):
        store.save()
    assert sorted(os.listdir(folder)) == ["tune.json"]


# ---- T2, T3: tune.json is untrusted input -------------------------------------------------


def _edit_tune_json(folder: Path, edit, keep_digest: bool) -> None:
    path = folder / "tune.json"
    data = json.loads(path.read_text())
    edit(data)
    if not keep_digest:
        data.pop("digest")
    path.write_text(json.dumps(data))


def _scores_as_text(data):
    for evaluation in data["evaluations"].values():
        evaluation["score"] = "high"


TUNE_EDITS = {
    "spec-str": lambda d: d.update(spec="x"),
    "evals-list": lambda d: d.update(evaluations=[1, 2]),
    "score-str": _scores_as_text,
}


@pytest.mark.parametrize("keep_digest", [True, False])
@pytest.mark.parametrize("edit", sorted(TUNE_EDITS))
def test_t3_a_tampered_tune_json_is_one_clear_error(tmp_path, edit, keep_digest):
    folder = tmp_path / "t"
    _tuning(folder)
    _edit_tune_json(folder, TUNE_EDITS[edit], keep_digest)
    with pytest.raises(BnbError) as info:
        TuneStore(folder, TUNE_SPEC, resume=True)
    message = str(info.value)
    assert "tune.json" in message and "\n" not in message
    assert ("digest" in message) if keep_digest else ("--force" in message)


def test_t2_a_deeply_nested_tune_json_is_refused(tmp_path):
    folder = tmp_path / "t"
    _tuning(folder)
    (folder / "tune.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(BnbError, match="nested more than"):
        TuneStore(folder, TUNE_SPEC, resume=True)


def test_t2_a_deeply_nested_run_json_is_refused(tmp_path, runs, capsys):
    run = _copy(runs["a"], tmp_path)
    (run / "run.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RunError, match="run.json: nested more than"):
        read_meta(run)
    code, _, err = run_cli(capsys, ["report", run, "-o", tmp_path / "rep"])
    _one_line(code, err, "nested more than")


def test_t2_a_deeply_nested_summary_in_the_report_folder(tmp_path, runs, capsys):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "report.html").write_text("<html></html>")
    (out / "summary.json").write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = run_cli(capsys, ["report", runs["a"], "-o", out, "--force", "-q"])
    assert code == 0, err
    assert json.loads((out / "summary.json").read_text())["title"]


# ---- C3, C6, U1, W2, T7: export --------------------------------------------------------


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_c3_a_planted_partial_link_in_the_export_folder_is_never_written(tmp_path, runs):
    victim = _victim(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim, out / ".seats.csv.partial")
    export_csv(runs["a"], out, force=True)
    assert victim.read_text() == VICTIM_TEXT
    assert (out / "seats.csv").read_text().count("\n") == 1 + 300 * 2


def test_c6_a_failed_export_under_force_leaves_the_earlier_one_whole(tmp_path, runs, capsys):
    out = tmp_path / "out"
    export_csv(runs["a"], out)
    before = _files(out)
    torn = _copy(runs["b"], tmp_path, "torn")
    (torn / "games" / part_name(2)).write_bytes(b"")
    code, _, err = run_cli(capsys, ["export", torn, "--csv", out, "--force", "-q"])
    _one_line(code, err, part_name(2))
    assert _files(out) == before  # all three files still run a's
    assert [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name] == []


@pytest.mark.parametrize("damage", ["torn-games", "garbage-seats"])
def test_u1_a_failed_export_leaves_no_folder_behind(tmp_path, runs, capsys, damage):
    run = _copy(runs["a"], tmp_path)
    if damage == "torn-games":
        (run / "games" / part_name(2)).write_bytes(b"")
    else:
        (run / "seats" / part_name(2)).write_bytes(os.urandom(64))
    code, _, err = run_cli(capsys, ["export", run, "--csv", tmp_path / "out", "-q"])
    _one_line(code, err, part_name(2))
    assert not (tmp_path / "out").exists()


def test_w2_export_refuses_a_foreign_part_like_report(tmp_path, runs, capsys):
    run = _copy(runs["a"], tmp_path)
    for table in ("seats", "games"):
        shutil.copy(runs["b"] / table / part_name(1), run / table / part_name(1))
    code, _, err = run_cli(capsys, ["export", run, "--csv", tmp_path / "out", "-q"])
    _one_line(code, err, "foreign", part_name(1))
    assert not (tmp_path / "out").exists()


def test_t7_export_into_a_folder_whose_name_is_not_utf8(tmp_path, runs):
    out = tmp_path / "out\udcff"
    written = export_csv(runs["a"], out)
    assert written["rows"] == {"seats": 600, "games": 300}
    assert sorted(os.listdir(out)) == ["games.csv", "run.csv", "seats.csv"]


def test_export_force_into_a_folder_of_other_files_keeps_them(tmp_path, runs):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    export_csv(runs["a"], out, force=True)
    assert sorted(os.listdir(out)) == ["games.csv", "notes.txt", "run.csv", "seats.csv"]


# ---- T9, T12, U8: run folders with odd names and forged sizes ----------------------------


def test_t9_an_output_path_too_long_for_the_system_is_one_line(tmp_path, capsys):
    out = tmp_path / ("a" * 300)
    args = ["simulate", "-n", "10", "-p", "2", "--policy", "random", "-q", "-o", out]
    code, _, err = run_cli(capsys, args)
    _one_line(code, err, "cannot use this path", "too long")


def test_t12_a_forged_run_json_with_a_trillion_parts_is_refused_quickly(tmp_path, runs, capsys):
    run = _copy(runs["a"], tmp_path)
    meta = json.loads((run / "run.json").read_text())
    meta["params"].update(games=10**12, chunk_size=1)
    meta.update(parts=10**12, status="complete")
    for key in ("identity", "run_id", "part_files", "description_hash"):
        meta.pop(key, None)
    (run / "run.json").write_text(json.dumps(meta))
    code, _, err = run_cli(capsys, ["report", run, "-o", tmp_path / "rep"])
    _one_line(code, err, "marked complete", "parts are missing")


def test_u8_a_run_under_a_non_utf8_folder_name_is_not_called_corrupt(tmp_path, runs):
    run = _copy(runs["a"], tmp_path, "r\udcff")
    with pytest.raises(RunError) as info:
        load_run(run)
    assert "not valid UTF-8" in str(info.value) and "corrupt" not in str(info.value)


@pytest.mark.parametrize(
    "args",
    [
        ["report", "r\udcff"],
        ["export", "r", "--csv", "out\udcff"],
        ["report", "r", "--title", "\udcff\udcfe"],
        ["simulate", "-n", "20", "-p", "2", "--policy", "bot:b\udcff.toml", "-o", "x"],
    ],
)
def test_t7_u8_a_non_utf8_argument_is_one_line_before_any_work(tmp_path, capsys, args):
    code, _, err = run_cli(capsys, args)
    _one_line(code, err, "not valid UTF-8", "\\xff")


# ---- H1, T2, T4, T5, W7: the config file --------------------------------------------------


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cfg.toml"
    path.write_text(text)
    return path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("how", ["--config", "BNB_CONFIG", "default"])
def test_h1_a_fifo_config_file_is_refused_not_read(tmp_path, capsys, monkeypatch, how):
    fifo = tmp_path / "xdg" / "bnb-sim" / "config.toml"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    args = ["readings"]
    if how == "--config":
        args = ["--config", fifo, *args]
    elif how == "BNB_CONFIG":
        monkeypatch.setenv("BNB_CONFIG", str(fifo))
    code, _, err = run_cli(capsys, args)  # before: blocked in open() for ever
    _one_line(code, err, str(fifo), "not a regular file")


def test_t5_dev_zero_as_config_file_is_refused(capsys):
    code, _, err = run_cli(capsys, ["--config", "/dev/zero", "readings"])
    _one_line(code, err, "/dev/zero", "not a regular file")


def test_t5_a_huge_config_file_is_refused(tmp_path, capsys):
    config = _config(tmp_path, "# " + "x" * 2_000_000 + "\n")
    code, _, err = run_cli(capsys, ["--config", config, "readings"])
    _one_line(code, err, "larger than 1 MB")


def test_t2_a_deeply_nested_config_file_is_refused(tmp_path, capsys):
    config = _config(tmp_path, "x = " + "[" * 10_000 + "]" * 10_000 + "\n")
    code, _, err = run_cli(capsys, ["--config", config, "readings"])
    _one_line(code, err, "nested more than")


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("true", "must be an integer, got a boolean"),
        ("2.5", "must be an integer, got 2.5"),
        ("{ a = 1 }", "must be a single value, got a table"),
        ("[1, 2]", "must be a single value, got an array"),
    ],
)
def test_t4_w7_a_config_value_of_the_wrong_toml_type_names_file_and_key(
    tmp_path, capsys, value, problem
):
    config = _config(tmp_path, f"[simulate]\nthreads = {value}\n")
    code, _, err = run_cli(capsys, ["--config", config, "readings"])
    _one_line(code, err, f"config: {config}: [simulate] threads: {problem}")


def test_w7_config_values_of_the_right_type_still_work(tmp_path, capsys):
    config = _config(tmp_path, '[readings]\njson = true\n[tournament]\nthreads = "2"\n')
    code, out, err = run_cli(capsys, ["--config", config, "readings"])
    assert code == 0, err
    assert json.loads(out)
