"""``bnb simulate`` / ``bnb warmup`` / ``bnb bench``: output, Ctrl-C and resume, bad input."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from bnb_sim.cli import main
from bnb_sim.runner import simulate as sim
from bnb_sim.runner.storage import RUN_COLUMNS, load_run, read_meta

BASE = ["simulate", "--games", "120", "--players", "2", "--policy", "random", "--seed", "8"]
BNB = [sys.executable, "-c", "import sys; from bnb_sim.cli import main; main(sys.argv[1:])"]


def _rows(seats: pd.DataFrame) -> pd.DataFrame:
    """A stored run's seat rows as in memory: without the run's id and seed columns."""
    return seats.drop(columns=list(RUN_COLUMNS))


def run_cli(capsys, args: list[str]) -> tuple[int, str, str]:
    """Run ``bnb ARGS`` in this process; (exit code, stdout, stderr)."""
    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    return sim.simulate(120, 2, ["random"], 8, threads=1)


def test_json_summary_and_rows(tmp_path, capsys, reference):
    out = tmp_path / "run"
    code, stdout, stderr = run_cli(capsys, [*BASE, "--out", out, "--json", "--chunk-size", "50"])
    assert code == 0, stderr
    summary = json.loads(stdout)  # stdout holds only the JSON
    assert summary["games"] == 120 and summary["chunks"] == 3 and summary["status"] == "complete"
    rate = summary["win_rates"]["random"]
    assert rate["n"] == 240 and rate["lo"] <= rate["rate"] <= rate["hi"]
    assert summary["path"] == str(out) and summary["games_per_second"] > 0
    seats, _, meta = load_run(out)
    pd.testing.assert_frame_equal(_rows(seats), reference, check_categorical=False)
    assert meta["command"].startswith("bnb simulate --games 120 --players 2 --policy random")
    assert meta["resume_command"].endswith("--resume")


def test_text_summary(tmp_path, capsys):
    out = tmp_path / "run"
    code, stdout, _ = run_cli(capsys, [*BASE, "--out", out, "--threads", "1", "--fixed-seats"])
    assert code == 0
    for text in ("games     120", "games/s", "1 thread", "win rate", "n=240", f"data      {out}"):
        assert text in stdout
    assert read_meta(out)["params"]["seating"] == "fixed"


def test_interrupted_cli_prints_the_resume_command(tmp_path, capsys, monkeypatch, reference):
    out = tmp_path / "run"
    real_run = sim.LocalExecutor.run

    def one_chunk_then_ctrl_c(self, tasks):
        for i, item in enumerate(real_run(self, tasks)):
            if i == 1:
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(sim.LocalExecutor, "run", one_chunk_then_ctrl_c)
    code, stdout, stderr = run_cli(capsys, [*BASE, "--out", out, "--chunk-size", "40"])
    assert code == 130 and stdout == ""
    assert "40 of 120 games" in stderr
    command = stderr.strip().splitlines()[-1].strip()
    assert command.startswith("bnb simulate") and command.endswith("--resume")
    assert read_meta(out)["status"] == "partial"
    monkeypatch.setattr(sim.LocalExecutor, "run", real_run)
    code, stdout, stderr = run_cli(capsys, shlex.split(command)[1:])
    assert code == 0, stderr
    assert "80 played now" in stdout
    seats, _, meta = load_run(out)
    assert meta["status"] == "complete"
    pd.testing.assert_frame_equal(_rows(seats), reference, check_categorical=False)


def test_ctrl_c_while_the_engine_compiles_says_interrupted(tmp_path, capsys, monkeypatch):
    """A Ctrl-C before the run's own handler is installed (the cold-cache compile) ends with
    "Interrupted.", exit 130, and no run folder (it was not created yet)."""
    import bnb_sim.feedback

    def compiling(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(bnb_sim.feedback, "warm_engine", compiling)
    out = tmp_path / "run"
    code, stdout, stderr = run_cli(capsys, [*BASE, "--out", out])
    assert code == 130 and stdout == ""
    assert stderr.strip().splitlines()[-1] == "Interrupted."
    assert not out.exists()


def test_ctrl_c_in_a_real_process_finishes_the_chunk(tmp_path):
    """SIGINT while a chunk runs: that chunk is stored, exit 130, the resumed run is whole."""
    out = tmp_path / "run"
    args = ["simulate", "--games", "20000", "--players", "2", "--policy", "heuristic"]
    args += ["--seed", "2", "--chunk-size", "500", "--out", str(out)]
    proc = subprocess.Popen([*BNB, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = out / "seats" / "part-000000.parquet"
    # A cold cache compiles before the run starts (minutes on a loaded 2-core box): the
    # signal must arrive while a chunk plays, so wait for the first part, however long.
    deadline = time.monotonic() + 900
    while not first.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert first.exists() or proc.poll() is not None, "no part within 15 minutes"
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the run finished before the signal arrived")
    assert proc.returncode == 130, stderr.decode()
    lines = stderr.decode().strip().splitlines()
    assert "Traceback" not in stderr.decode()
    assert lines[-1].strip().endswith("--resume") and "Interrupted" in lines[-2]
    meta = read_meta(out)
    assert meta["status"] == "partial"
    parts = len(list((out / "seats").glob("part-*.parquet")))
    assert 1 <= parts < 40
    resume = shlex.split(lines[-1].strip())[1:]
    done = subprocess.run([*BNB, *resume, "--quiet"], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    seats, _, meta = load_run(out)
    assert meta["status"] == "complete" and len(seats) == 40000
    want = sim.simulate(20000, 2, ["heuristic"], 2)
    pd.testing.assert_frame_equal(_rows(seats), want, check_categorical=False)


def _bad_components(tmp_path: Path) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text("[mobs.zombie]\nhearts = 'many'\n")
    return path


def _blocked(tmp_path: Path) -> Path:
    path = tmp_path / "file.txt"
    path.write_text("x")
    return path / "run"


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--games", "0"], "positive"),
        (["--games", "-5"], "positive"),
        (["--games", "200000000"], "--yes"),
        (["--policy", "nonsense"], "unknown policy"),
        (["--policy", "heuristic:nonsense=1"], "nonsense"),
        (["--players", "9"], "players"),
        (["--threads", "0"], "threads"),
        (["--chunk-size", "0"], "chunk size"),
        (["--dask", "nowhere"], "scheduler address"),
        (["--dask", "tcp://127.0.0.1:1"], "tcp://127.0.0.1:1"),
        (["--seating", "rotate", "--fixed-seats"], "contradicts"),
        (["--resume", "--force"], "together"),
        ("components", "components"),
        ("blocked", "cannot use this path (Not a directory)"),
    ],
)
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, capsys, extra, fragment):
    out = tmp_path / "run"
    if extra == "components":
        extra = ["--components", str(_bad_components(tmp_path))]
    elif extra == "blocked":
        out, extra = _blocked(tmp_path), []
    args = [*BASE, "--out", out, *extra]
    args = args[:2] + args[4:] if extra[:1] == ["--games"] else args  # one --games only
    t0 = time.perf_counter()
    code, stdout, stderr = run_cli(capsys, args)
    assert time.perf_counter() - t0 < 8
    assert code == 2, (stdout, stderr)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bnb: error:") and fragment in lines[0]
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) in ([], ["bad.toml"], ["file.txt"])


def test_existing_directory_is_refused_and_kept(tmp_path, capsys):
    out = tmp_path / "run"
    assert run_cli(capsys, [*BASE, "--out", out, "-q"])[0] == 0
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    code, _, stderr = run_cli(capsys, [*BASE, "--out", out])
    assert code == 2 and "already exists" in stderr and "--resume" in stderr
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before
    code, _, _ = run_cli(capsys, [*BASE, "--out", out, "--force", "-q"])
    assert code == 0


def test_help_does_not_import_numba_or_pandas():
    code = (
        "import sys\nfrom bnb_sim.cli import main\n"
        "for args in (['--help'], ['simulate', '--help'], ['bench', '--help'],"
        " ['warmup', '--help']):\n"
        "    try:\n        main(args)\n    except SystemExit:\n        pass\n"
        "print(sorted(m for m in ('numba', 'pandas', 'pyarrow', 'dask') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert "--chunk-size" in done.stdout and "--dask" in done.stdout


def test_warmup_reports_the_cache(capsys):
    code, stdout, stderr = run_cli(capsys, ["warmup", "--json", "--no-plugins"])
    assert code == 0, stderr
    report = json.loads(stdout)
    from bnb_sim._jit import CACHE_DIR

    assert report["cache_dir"] == CACHE_DIR and os.path.isdir(CACHE_DIR)
    assert all(step["ok"] for step in report["steps"])
    assert any("batch kernel" in step["step"] for step in report["steps"])
    # the suite's warm-up (make test) compiled everything: each job is listed, none runs again
    jobs = [step for step in report["steps"] if "job" in step]
    assert len(jobs) >= 10 and all(step.get("cached") for step in jobs)


def test_warmup_runs_the_jobs_not_marked_done_for_this_numba_and_python(tmp_path, monkeypatch):
    from bnb_sim import precompile
    from bnb_sim.precompile import Job, is_done, mark_done, marker, split_done

    monkeypatch.setenv("BNB_USER_NUMBA_CACHE_DIR", str(tmp_path))
    one, two = Job("t:one", "one", "x:y"), Job("t:two", "two", "x:y", ("t:one",))
    assert split_done([one, two]) == ([one, two], [])
    mark_done(one)
    assert is_done(one) and split_done([one, two]) == ([two], [one])
    marker(two).write_text("")  # an empty marker (older bnb-sim) or another numba: not done
    assert not is_done(two)
    monkeypatch.setattr(precompile, "_stamp", lambda: "numba 0.1, python 3.0\n")
    assert not is_done(one)


def test_bench_measures_the_expansion_beside_the_base_game():
    """R-FM-*: bnb bench prints the Farmer's Market's games/s next to the base game's, same
    bots, and their ratio (measured alternately in one run)."""
    from bnb_sim.cli import bench_cmd

    rows = bench_cmd.expansion_ratios(policies=("random",), seconds=0.05, repeats=1)
    (row,) = rows
    assert row["base_games_per_second"] > 0 and row["expansion_games_per_second"] > 0
    assert row["ratio"] == row["expansion_games_per_second"] / row["base_games_per_second"]
    text = bench_cmd.text(
        {
            "machine": bench_cmd.machine(),
            "games": [],
            "expansion": rows,
            "exact_odds": {"tokens": 21, "per_second": 1000.0, "ms": 1.0},
            "monte_carlo": {"combats_per_second": 1e6},
            "cli": {"help_s": 0.1, "odds_warm_s": 0.5, "simulate_warm_s": 1.0},
        }
    )
    assert "with farmers-market" in text and "ratio" in text


def test_bench_measures_games_per_second():
    from bnb_sim.cli import bench_cmd

    result = bench_cmd.games_per_second("random", players=2, threads=1, seconds=0.05, repeats=1)
    assert result["games_per_second"] > 0 and result["threads"] == 1
    text = bench_cmd.text(
        {
            "machine": bench_cmd.machine(),
            "games": [result],
            "exact_odds": {"tokens": 21, "per_second": 1000.0, "ms": 1.0},
            "monte_carlo": {"combats_per_second": 1e6},
            "cli": {"help_s": 0.1, "odds_warm_s": 0.5, "simulate_warm_s": 1.0},
        }
    )
    assert "games/s" in text and "random" in text and "numba" in text


def test_warmup_recheck_runs_every_job_again(capsys, monkeypatch):
    import bnb_sim.precompile as precompile

    given = []
    monkeypatch.setattr(precompile, "run_jobs", lambda jobs, *a, **k: given.extend(jobs) or [])
    code, _, err = run_cli(capsys, ["warmup", "--no-plugins", "--recheck", "-q"])
    assert code == 0, err
    from bnb_sim.cli.warmup_cmd import all_jobs

    assert sorted(j.name for j in given) == sorted(j.name for j in all_jobs())


@pytest.mark.parametrize(
    ("game", "prefixes"), [("hotv", ("hotv:",)), ("bnb", ("bnb:",)), ("dice", ()), (None, None)]
)
def test_warmup_of_one_game_compiles_that_games_jobs_only(capsys, monkeypatch, game, prefixes):
    """``bnb warmup --game NAME``: a user of one game does not wait for the other's kernels
    (Heroes of the Village alone took 55.5 s from an empty cache, every game 211 s)."""
    import bnb_sim.precompile as precompile
    from bnb_sim.cli.warmup_cmd import all_jobs

    given = []
    monkeypatch.setattr(precompile, "run_jobs", lambda jobs, *a, **k: given.extend(jobs) or [])
    args = ["warmup", "--no-plugins", "--recheck", "-q", *(["--game", game] if game else [])]
    code, _, err = run_cli(capsys, args)
    assert code == 0, err
    names = sorted(j.name for j in given)
    if prefixes is None:  # no --game: every game's
        assert names == sorted(j.name for j in all_jobs())
        assert any(n.startswith("hotv:") for n in names) and any(
            n.startswith("bnb:") for n in names
        )
    else:
        assert names and all(n.startswith(prefixes) for n in names) if prefixes else names == []
