"""Fault injection on run folders and reports (the reliability review's scenarios, scaled
down): SIGKILL at random points then resume, two writers at once, torn and foreign parts,
a full disk, read-only folders, a directory in the way, hostile run.json files, SIGTERM,
--force next to files bnb-sim did not write, half-written reports.

Each family is one parametrised test, so a new finding of the same kind is one more case.
The full-disk and read-only cases mount a small tmpfs / a read-only bind mount; they need
root and a working ``mount`` and are skipped with a message otherwise.
"""

from __future__ import annotations

import json
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from bnb_sim.analysis.report import ReportBuilder, Section, write_report
from bnb_sim.cli import main
from bnb_sim.errors import BnbError, RunError
from bnb_sim.runner.lock import LOCK_NAME
from bnb_sim.runner.simulate import simulate
from bnb_sim.runner.storage import load_run, part_name, read_meta

GAMES, PLAYERS, SEED, CHUNK = 3000, 2, 5, 100  # 30 parts of tiny random games
N_PARTS = GAMES // CHUNK
RUN_ARGS = ["--games", str(GAMES), "--players", str(PLAYERS), "--policy", "random"]
RUN_ARGS += ["--seed", str(SEED), "--chunk-size", str(CHUNK), "--threads", "1", "-q"]
BNB = [sys.executable, "-c", "import sys; from bnb_sim.cli import main; main(sys.argv[1:])"]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[1])])}


def _simulate(out: Path, **kw):
    return simulate(GAMES, PLAYERS, ["random"], SEED, chunk_size=CHUNK, threads=1, out=out, **kw)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """An uninterrupted run; tests copy it (never change it)."""
    out = tmp_path_factory.mktemp("faults") / "reference"
    _simulate(out)
    return out


@pytest.fixture(scope="module")
def reference_rows(reference):
    seats, games, _ = load_run(reference)
    return seats, games


def _same_rows(path: Path, reference_rows) -> None:
    seats, games, meta = load_run(path)
    assert meta["status"] == "complete"
    pd.testing.assert_frame_equal(seats, reference_rows[0])
    pd.testing.assert_frame_equal(games, reference_rows[1])


def _copy(reference: Path, dst: Path) -> Path:
    shutil.copytree(reference, dst)
    (dst / LOCK_NAME).unlink(missing_ok=True)
    return dst


def _make_partial(path: Path, keep: int) -> Path:
    """Keep parts ``0 .. keep-1`` and mark the run partial (as an interrupted run is)."""
    for k in range(keep, N_PARTS):
        for table in ("seats", "games"):
            (path / table / part_name(k)).unlink()
    meta = json.loads((path / "run.json").read_text())
    meta["status"] = "partial"
    meta["part_files"] = {k: v for k, v in meta["part_files"].items() if int(k) < keep}
    (path / "run.json").write_text(json.dumps(meta))
    return path


def cli(capsys, args) -> tuple[int, str, str]:
    """``bnb ARGS`` in this process: (exit code, stdout, stderr)."""
    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code: int, stderr: str, *fragments: str) -> str:
    lines = stderr.strip().splitlines()
    assert code == 2, stderr
    assert len(lines) == 1 and lines[0].startswith("bnb: error: "), stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def _files(path: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(path)): p.read_bytes()
        for p in sorted(path.rglob("*"))
        if p.is_file() and p.name != LOCK_NAME
    }


def _wait_for(predicate: Callable[[], bool], proc=None, timeout: float = 120) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        if proc is not None and proc.poll() is not None:
            return predicate()
        time.sleep(0.002)
    return False


def _parts_on_disk(path: Path) -> int:
    folder = path / "games"
    return len(list(folder.glob("part-*.parquet"))) if folder.is_dir() else 0


# --------------------------------------------------------------------------------------
# SIGKILL at random points, then --resume


@pytest.mark.slow  # a real `bnb simulate` process (a few seconds)
@pytest.mark.parametrize(
    "kill_at",
    ["run.json", "random-part"],
)
def test_sigkill_at_random_points_then_resume_gives_identical_rows(
    tmp_path, reference_rows, kill_at
):
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [*BNB, "simulate", *RUN_ARGS, "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    try:
        if kill_at == "run.json":
            _wait_for(lambda: (out / "run.json").exists(), proc)
        else:
            rng = random.Random(kill_at)  # a different, fixed random point per case
            target = rng.randint(1, N_PARTS // 2)
            _wait_for(lambda: _parts_on_disk(out) >= target, proc)
            time.sleep(rng.random() * 0.02)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    # the OS released the lock: resume takes the folder, re-plays what is missing or torn
    _simulate(out, resume=True)
    _same_rows(out, reference_rows)
    assert not [p for p in out.rglob(".*.tmp-*")]


# --------------------------------------------------------------------------------------
# two writers


def _hold_lock(path: Path) -> subprocess.Popen:
    """Another process that holds ``path`` open as a writer until it is killed."""
    code = (
        "import sys, time; from bnb_sim.runner.storage import RunWriter; "
        "w = RunWriter(sys.argv[1], resume=True); print('locked', flush=True); time.sleep(600)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True, env=ENV
    )
    assert proc.stdout.readline().strip() == "locked"
    return proc


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--resume"], "is in use by another bnb-sim process (pid"),
        (["--force"], "is in use by another bnb-sim process (pid"),
        ([], "already exists (a run)"),
    ],
)
def test_a_second_writer_is_refused_while_the_first_holds_the_run(
    tmp_path, capsys, reference, flags, message
):
    path = _make_partial(_copy(reference, tmp_path / "run"), keep=10)
    before = _files(path)
    holder = _hold_lock(path)
    try:
        code, _, err = cli(capsys, ["simulate", *RUN_ARGS, "--out", path, *flags])
        _one_line_error(code, err, str(path), message)
        assert _files(path) == before  # nothing deleted, nothing written
    finally:
        holder.kill()
        holder.wait()
    code, _, err = cli(capsys, ["simulate", *RUN_ARGS, "--out", path, "--resume"])
    assert code == 0, err  # SIGKILL released the lock


@pytest.mark.slow  # a real `bnb simulate` process (a few seconds)
def test_force_while_a_real_simulate_runs_is_refused(tmp_path, capsys, reference_rows):
    """The review's scenario: run B with --force on the folder run A is writing."""
    out = tmp_path / "fi"
    proc = subprocess.Popen(
        [*BNB, "simulate", *RUN_ARGS, "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    _wait_for(lambda: _parts_on_disk(out) >= 1, proc)
    args = ["simulate", *RUN_ARGS, "--seed", "2", "--out", out, "--force"]
    code, _, err = cli(capsys, args)
    running = proc.poll() is None
    proc.wait(timeout=120)
    if not running:
        pytest.skip("run A finished before run B started")
    _one_line_error(code, err, "in use by another bnb-sim process")
    assert proc.returncode == 0
    _same_rows(out, reference_rows)  # A's rows only, none of B's


# --------------------------------------------------------------------------------------
# torn and foreign parts


@pytest.fixture(scope="module")
def foreign(tmp_path_factory) -> Callable[[int, int], Path]:
    """``foreign(players, seed)``: another complete run (made once per module)."""
    made: dict[tuple[int, int], Path] = {}

    def get(players: int, seed: int) -> Path:
        if (players, seed) not in made:
            out = tmp_path_factory.mktemp("foreign") / f"run-{players}-{seed}"
            simulate(GAMES, players, ["random"], seed, chunk_size=CHUNK, threads=1, out=out)
            made[players, seed] = out
        return made[players, seed]

    return get


def _truncate(part: Path, foreign) -> None:
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])


def _empty(part: Path, foreign) -> None:
    part.write_bytes(b"")


def _garbage_inside(part: Path, foreign) -> None:  # review #28: same size, bytes changed
    data = bytearray(part.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(range(64))
    part.write_bytes(bytes(data))


def _not_parquet(part: Path, foreign) -> None:
    part.write_text("hello, I am not a Parquet file\n")


def _from_other_seed(part: Path, foreign) -> None:  # review #4
    shutil.copy(foreign(PLAYERS, 6) / part.parent.name / part.name, part)


def _from_four_players(part: Path, foreign) -> None:
    shutil.copy(foreign(4, SEED) / part.parent.name / part.name, part)


def _other_part_of_same_run(part: Path, foreign) -> None:
    shutil.copy(part.parent / part_name(0), part)


DAMAGE = {
    "truncated": _truncate,
    "empty": _empty,
    "garbage-inside": _garbage_inside,
    "not-parquet": _not_parquet,
    "foreign-seed": _from_other_seed,
    "foreign-4-players": _from_four_players,
    "other-part-index": _other_part_of_same_run,
}


# every damage on the games table, the ones that differ per table on seats too
DAMAGED_PARTS = [("games", d) for d in DAMAGE] + [
    ("seats", d) for d in ("truncated", "garbage-inside", "foreign-seed", "other-part-index")
]


@pytest.mark.parametrize(("table", "damage"), DAMAGED_PARTS)
def test_torn_or_foreign_part_is_refused_by_readers_and_replayed_by_resume(
    tmp_path, capsys, reference, reference_rows, foreign, table, damage
):
    path = _copy(reference, tmp_path / "run")
    part = path / table / part_name(5)
    DAMAGE[damage](part, foreign)
    with pytest.raises(RunError) as info:
        load_run(path, seat_columns=["won"], game_columns=["turns"])  # even unread columns
    message = str(info.value)
    assert message.startswith(f"{part}: ") and "\n" not in message
    assert ("corrupt Parquet part" in message) or ("foreign part" in message)
    code, _, err = cli(capsys, ["report", path, "--out", tmp_path / "rep"])
    _one_line_error(code, err, str(part))
    assert not (tmp_path / "rep").exists()
    with pytest.warns(RuntimeWarning, match=f"{part_name(5)}.*playing part 5 again"):
        _simulate(path, resume=True)
    _same_rows(path, reference_rows)


def test_a_part_with_only_one_of_its_files_is_replayed_quietly(tmp_path, reference, reference_rows):
    path = _make_partial(_copy(reference, tmp_path / "run"), keep=12)
    (path / "games" / part_name(11)).unlink()  # killed between the seats and games files
    _simulate(path, resume=True)
    _same_rows(path, reference_rows)


# --------------------------------------------------------------------------------------
# hostile run.json


def _edit(**changes):
    def apply(meta: dict) -> dict:
        for dotted, value in changes.items():
            obj = meta
            *parents, key = dotted.split("__")
            for name in parents:
                obj = obj[name]
            if value is _DROP:
                obj.pop(key, None)
            else:
                obj[key] = value
        return meta

    return apply


_DROP = object()
HOSTILE = {
    "params-null": (_edit(params=None), "'params' must be an object"),
    "components-string": (_edit(components="x"), "'components' must be an object"),
    "timing-list": (_edit(timing=[1, 2]), "'timing' must be an object"),
    "minimal": (lambda m: {"format": 1, "status": "complete"}, "'params' is missing"),
    "policies-string": (
        _edit(params__policies="heuristic"),
        "'params.policies' must be a non-empty list of strings",
    ),
    "games-string": (_edit(params__games="3000"), "'params.games' must be an integer"),
    "chunk-zero": (_edit(params__chunk_size=0), "'params.chunk_size' must be an integer"),
    "parts-lie": (_edit(parts=5), "'parts' is 5, but 3,000 games in chunks of 100 make 30"),
    "seed-lie": (_edit(params__seed=999), "no longer match the run's identity hash"),
    "players-lie": (_edit(params__players=3), "no longer match the run's identity hash"),
    "policies-lie": (
        _edit(params__policies=["greedy", "greedy"]),
        "no longer match the run's identity hash",
    ),
    "players-lie-without-identity": (
        _edit(params__players=3, identity=_DROP),
        "foreign part",
    ),
    "policies-lie-without-identity": (
        _edit(params__policies=["greedy", "greedy"], identity=_DROP),
        "foreign part",
    ),
    "checksum-edited": (
        _edit(part_files__7__seats__sha256="0" * 64),
        "its checksum differs from the one in run.json",
    ),
    "record-malformed": (_edit(part_files__3="x"), "'part_files.3' must be an object"),
    "record-beyond-the-run": (
        lambda m: {**m, "part_files": {**m["part_files"], "99": m["part_files"]["0"]}},
        "'part_files.99' is not a part of this run",
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_run_json_is_one_line_never_a_wrong_report(tmp_path, capsys, reference, case):
    path = _copy(reference, tmp_path / "run")
    edit, fragment = HOSTILE[case]
    meta = edit(json.loads((path / "run.json").read_text()))
    (path / "run.json").write_text(json.dumps(meta))
    with pytest.raises(RunError) as info:
        load_run(path)
    assert fragment in str(info.value) and "\n" not in str(info.value)
    code, _, err = cli(capsys, ["report", path, "--out", tmp_path / "rep"])
    _one_line_error(code, err, fragment)
    assert not (tmp_path / "rep").exists()


def test_extra_part_files_beyond_the_run_are_refused(tmp_path, reference):
    path = _copy(reference, tmp_path / "run")
    for table in ("seats", "games"):
        shutil.copy(path / table / part_name(0), path / table / part_name(N_PARTS))
    with pytest.raises(RunError, match=f"{part_name(N_PARTS)}: not a part of this run"):
        load_run(path)
    with pytest.raises(RunError, match="not a part of this run"):
        _simulate(path, resume=True)


# --------------------------------------------------------------------------------------
# --force and foreign files


def test_force_refuses_a_folder_that_is_not_a_run(tmp_path, capsys):
    """Review #2: --force on a project folder with a games/ folder of its own."""
    proj = tmp_path / "proj"
    (proj / "games").mkdir(parents=True)
    (proj / "src").mkdir()
    (proj / "games" / "important.sav").write_text("x")
    before = sorted(p.relative_to(proj) for p in proj.rglob("*"))
    args = ["simulate", "--games", "100", "--players", "2", "--policy", "random"]
    code, _, err = cli(capsys, [*args, "--out", proj, "--force"])
    _one_line_error(code, err, "is not a run", "nothing was deleted")
    assert sorted(p.relative_to(proj) for p in proj.rglob("*")) == before  # no lock file either
    assert (proj / "games" / "important.sav").read_text() == "x"


def test_force_on_a_run_keeps_foreign_files_and_refuses_what_is_in_the_way(
    tmp_path, capsys, reference, reference_rows
):
    path = _copy(reference, tmp_path / "run")
    (path / "games" / "important.sav").write_text("x")
    (path / "notes.txt").write_text("mine")
    (path / "seats" / part_name(4)).unlink()
    (path / "seats" / part_name(4)).mkdir()  # a directory where a part goes
    before = _files(path)
    code, _, err = cli(capsys, ["simulate", *RUN_ARGS, "--out", path, "--force"])
    _one_line_error(code, err, f"{part_name(4)}: is in the way")
    assert _files(path) == before  # checked before anything was deleted
    (path / "seats" / part_name(4)).rmdir()
    code, _, err = cli(capsys, ["simulate", *RUN_ARGS, "--out", path, "--force"])
    assert code == 0, err
    assert (path / "games" / "important.sav").read_text() == "x"
    assert (path / "notes.txt").read_text() == "mine"
    _same_rows(path, reference_rows)


def test_directory_where_a_part_goes_on_resume_is_one_line(tmp_path, capsys, reference):
    """Review #27."""
    path = _make_partial(_copy(reference, tmp_path / "run"), keep=10)
    (path / "seats" / part_name(12)).mkdir()
    code, _, err = cli(capsys, ["simulate", *RUN_ARGS, "--out", path, "--resume"])
    _one_line_error(code, err, f"{part_name(12)}: is in the way")
    assert (path / "seats" / part_name(12)).is_dir()


# --------------------------------------------------------------------------------------
# full disk and read-only folders (need root and mount)


def _mount(args: list[str], target: Path) -> None:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root and mount(8) to make a small or read-only file system")
    target.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", *args, str(target)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here ({done.stderr.strip() or done.returncode})")


def _umount(target: Path) -> None:
    subprocess.run(["umount", "-l", str(target)], capture_output=True)


@pytest.fixture
def small_disk(tmp_path):
    """A 256 KiB tmpfs (``resize(kib)`` changes its size); unmounted afterwards."""
    target = tmp_path / "disk"
    _mount(["-t", "tmpfs", "-o", "size=256k", "tmpfs"], target)

    def resize(kib: int) -> None:
        subprocess.run(["mount", "-o", f"remount,size={kib}k", str(target)], check=True)

    yield target, resize
    _umount(target)


@pytest.fixture
def read_only(tmp_path):
    """``(source, view)``: ``view`` is a read-only bind mount of the folder ``source``."""
    source, view = tmp_path / "source", tmp_path / "view"
    source.mkdir()
    _mount(["--bind", str(source)], view)
    done = subprocess.run(["mount", "-o", "remount,bind,ro", str(view)], capture_output=True)
    if done.returncode != 0:
        _umount(view)
        pytest.skip("cannot remount the bind mount read-only here")
    yield source, view
    _umount(view)


def _fill(folder: Path) -> None:
    with open(folder / "filler", "ab", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError:
            pass


def test_disk_full_mid_run_is_one_line_and_resume_finishes(small_disk, capsys, reference_rows):
    """Review #14: ENOSPC after some parts: one line, a valid partial run, then --resume."""
    disk, resize = small_disk
    out = disk / "full1"
    code, _, err = cli(capsys, ["simulate", *RUN_ARGS, "--out", out])
    line = _one_line_error(code, err, "disk full", "No space left on device", "--resume")
    assert "a valid, partial run" in line
    assert read_meta(out)["status"] == "partial"
    assert not list(out.rglob(".*.tmp-*"))
    seats, games, _ = load_run(out)  # what is stored is verified and readable
    assert 0 < len(games) < GAMES
    resize(16 * 1024)
    command = shlex.split(line.split("resume with: ")[1])
    code, _, err = cli(capsys, command[1:])
    assert code == 0, err
    _same_rows(out, reference_rows)


def test_disk_full_at_start_removes_the_new_folder(small_disk, capsys):
    """Review #15: run.json cannot be written: one line, no folder left behind."""
    disk, _ = small_disk
    _fill(disk)
    code, _, err = cli(capsys, ["simulate", *RUN_ARGS, "--out", disk / "new" / "full3"])
    _one_line_error(code, err, "No space left on device", "nothing was stored")
    assert sorted(p.name for p in disk.iterdir()) == ["filler"]


def _small_report(title: str) -> ReportBuilder:
    builder = ReportBuilder(title)
    builder.add(Section("Numbers")).text("x" * 20_000)
    return builder


def test_report_on_a_full_disk_keeps_the_old_report(small_disk):
    """Review #16: nothing half-written; an earlier report is replaced only when complete."""
    disk, _ = small_disk
    out = disk / "rep"
    _small_report("old").write(out)
    before = _files(out)
    _fill(disk)
    with pytest.raises(BnbError, match="No space left on device.*nothing was changed"):
        _small_report("new").write(out)
    assert _files(out) == before
    assert sorted(p.name for p in disk.iterdir()) == ["filler", "rep"]  # no temporary folder
    with pytest.raises(BnbError, match="No space left on device"):
        _small_report("new").write(disk / "rep2")
    assert not (disk / "rep2").exists()


def test_read_only_run_folder_is_one_line(read_only, capsys, reference):
    """Review #13: --resume and --force on a read-only mount; reading still works."""
    source, view = read_only
    _make_partial(_copy(reference, source / "p1"), keep=10)
    before = _files(source / "p1")
    for flag in ("--resume", "--force"):
        code, _, err = cli(capsys, ["simulate", *RUN_ARGS, "--out", view / "p1", flag])
        _one_line_error(code, err, str(view / "p1"), "Read-only file system")
    code, _, err = cli(capsys, ["simulate", *RUN_ARGS, "--out", view / "new"])
    _one_line_error(code, err, "Read-only file system")
    assert _files(source / "p1") == before and not (source / "new").exists()
    seats, games, meta = load_run(view / "p1")  # readers need no write access
    assert meta["status"] == "partial" and len(games) == 10 * CHUNK
    with pytest.raises(BnbError, match="cannot write the report there"):
        write_report(view / "p1", view / "rep")


# --------------------------------------------------------------------------------------
# signals


def _started_run(out: Path, *extra: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [*BNB, "simulate", *RUN_ARGS, "--out", str(out), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    _wait_for(lambda: _parts_on_disk(out) >= 2, proc)
    return proc


@pytest.mark.slow  # a real `bnb simulate` process (a few seconds)
@pytest.mark.parametrize(
    ("signals", "code", "headline"),
    [
        ([signal.SIGTERM], 143, "Stopped by SIGTERM:"),
        ([signal.SIGINT, signal.SIGINT], 130, "Interrupted:"),
    ],
    ids=["sigterm", "double-ctrl-c"],
)
def test_signals_stop_cleanly_and_print_the_resume_command(
    tmp_path, reference_rows, signals, code, headline
):
    """Review #29: SIGTERM is handled like SIGINT; a double Ctrl-C still says how to resume."""
    out = tmp_path / "run"
    proc = _started_run(out)
    for signum in signals:
        proc.send_signal(signum)
        time.sleep(0.005)
    _, stderr = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the run finished before the signal arrived")
    assert proc.returncode == code, stderr
    assert "Traceback" not in stderr and "Aborted" not in stderr
    lines = stderr.strip().splitlines()
    assert lines[-2].startswith(headline) and lines[-2].endswith("Resume with:")
    assert lines[-1].strip().endswith("--resume")
    assert read_meta(out)["status"] == "partial"
    _simulate(out, resume=True)
    _same_rows(out, reference_rows)


# --------------------------------------------------------------------------------------
# reports


def test_report_replaces_an_earlier_report_whole(tmp_path):
    out = tmp_path / "rep"
    _small_report("old").write(out)
    (out / "stale-figure.png").write_bytes(b"an old figure")
    _small_report("again").write(out)
    assert not (out / "stale-figure.png").exists()  # a report folder is replaced whole
    assert "again" in (out / "report.html").read_text()
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "notes.txt").write_text("mine")
    (mixed / "old.png").write_bytes(b"a figure of mine")
    _small_report("new").write(mixed)
    assert (mixed / "notes.txt").read_text() == "mine" and (mixed / "report.html").is_file()
    assert (mixed / "old.png").read_bytes() == b"a figure of mine"  # not ours: kept
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def _frames(reference):
    seats, games, meta = load_run(reference)
    return seats, games, meta


BAD_FRAMES = {
    "not-a-tuple": (lambda s, g, m: 42, "give a run directory or a (seats, games"),
    "empty-frames": (lambda s, g, m: (s.iloc[:0], g.iloc[:0], m), "the seats frame has no rows"),
    "missing-column": (lambda s, g, m: (s.drop(columns="won"), g, m), "lacks the column 'won'"),
    "nan-xp": (
        lambda s, g, m: (s.assign(xp=s["xp"].astype(float).where(s.index != 3)), g, m),
        "the seats column 'xp' has missing values",
    ),
    "meta-string": (lambda s, g, m: (s, g, "meta"), "meta must be a mapping or None"),
    "params-list": (lambda s, g, m: (s, g, {"params": [1]}), "meta['params'] must be a mapping"),
}


@pytest.mark.parametrize("case", list(BAD_FRAMES))
def test_write_report_checks_frames_and_creates_nothing(tmp_path, reference, case):
    """Review #26."""
    make, fragment = BAD_FRAMES[case]
    with pytest.raises(BnbError) as info:
        write_report(make(*_frames(reference)), tmp_path / "rep")
    assert fragment in str(info.value)
    assert not (tmp_path / "rep").exists()


def test_write_report_without_meta(tmp_path, reference):
    seats, games, _ = _frames(reference)
    written = write_report((seats, games, None), tmp_path / "rep")
    assert written["html"].is_file()
