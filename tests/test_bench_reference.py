"""The reference-loop ratios: ``scripts/bench_reference.py`` and ``bnb bench --reference``
import a loop by path, run it alternately with the engine and print ratios and scaling
(tiny game counts here; no speed is asserted)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from bnb_sim.cli import bench_reference, main

ROOT = Path(__file__).resolve().parent.parent

# A stand-in with the reference loop's interface (the real one lives outside the project).
FAKE_LOOP = """
import numpy as np

CALLS = []

def make_tiles():
    return np.zeros((64, 8), np.int64)

def largest_lut():
    return np.zeros(512, np.int8)

def run(n, seed, nplayers, greedy, tiles, lut, out, turns):
    CALLS.append(n)
    turns[:n] = 30
    out[:n] = 1
"""


def _fake(tmp_path: Path) -> Path:
    path = tmp_path / "loop.py"
    path.write_text(FAKE_LOOP)
    return path


def _script():
    path = ROOT / "scripts" / "bench_reference.py"
    spec = importlib.util.spec_from_file_location("bench_reference_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_script_runs_the_loop_by_path_and_prints_ratios(tmp_path, capsys):
    path = _fake(tmp_path)
    rc = _script().main(
        ["--reference", str(path), "--policy", "random", "--games", "40", "--repeats", "2"]
    )
    out = capsys.readouterr().out
    assert rc == 0
    assert re.search(r"^machine .*cores.*python .*numba .*threads 2/1", out, re.M)
    for threads in ("2 threads:", "1 thread:"):
        assert threads in out
    assert len(re.findall(r"reference random .* ratio  1\.00x the reference", out)) == 2
    engine = r"^  random .* games/s  ratio +\d+\.\d\dx the reference"
    assert len(re.findall(engine, out, re.M)) == 2
    scaling = r"^scaling 2 vs 1 thread\(s\): reference \d+\.\d\dx, random \d+\.\d\dx"
    assert re.search(scaling, out, re.M)
    # it really ran the file: a warm-up and 2 repeats at each thread count
    loop = sys.modules["bnb_bench_reference_loop"]
    assert loop.CALLS.count(40) == 4 and loop.CALLS.count(8) == 2


def test_bnb_bench_reference_prints_the_same_report(tmp_path, monkeypatch, capsys):
    real = bench_reference.measure

    def small(reference, **kwargs):
        return real(reference, ("random",), games=40, repeats=1, threads=kwargs["threads"])

    monkeypatch.setattr(bench_reference, "measure", small)
    main(["bench", "--reference", str(_fake(tmp_path))])
    out = capsys.readouterr().out
    assert "ratio  1.00x the reference" in out
    assert "scaling 2 vs 1 thread(s)" in out


def test_a_reference_without_the_loop_functions_is_one_clear_error(tmp_path, capsys):
    path = tmp_path / "other.py"
    path.write_text("x = 1\n")
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--reference", str(path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.strip() == f"bnb: error: --reference {path}: the module has no make_tiles()"


def test_bench_versions_compares_two_checkouts_in_alternating_processes():
    """scripts/bench_versions.py on the same checkout twice: every run is printed in the
    alternating order, then the medians and their ratio (no speed asserted)."""
    import subprocess

    script = ROOT / "scripts" / "bench_versions.py"
    done = subprocess.run(
        [sys.executable, str(script), str(ROOT), str(ROOT), "--policy", "random",
         "--games", "64", "--rounds", "2"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("machine ") and "numba" in lines[0]
    runs = [line.split()[2] for line in lines if line.startswith("round ")]
    assert runs == ["old", "new", "new", "old"]
    assert re.search(r"^median +old [\d,]+ +new [\d,]+ +new/old \d+\.\d{3}x$", lines[-2])
    # two rounds are too few for an interval: it says so rather than inventing one
    paired = r"^paired +median of the rounds' new/old \d\.\d{3}x, 95% interval \[nan, nan\]$"
    assert re.search(paired, lines[-1])


def test_bench_versions_times_the_search_playouts_with_each_trees_own_script():
    import subprocess

    script = ROOT / "scripts" / "bench_versions.py"
    done = subprocess.run(
        [sys.executable, str(script), str(ROOT), str(ROOT), "--search", "random",
         "--games", "50", "--rounds", "1", "--repeats", "2"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert "search playouts (random rollouts" in lines[1]
    assert "fastest of 2" in lines[2]
    assert sum(" playouts/s " in line for line in lines) == 2


def test_the_paired_ratio_interval_is_the_binomial_order_statistics():
    spec = importlib.util.spec_from_file_location("bv", ROOT / "scripts" / "bench_versions.py")
    bv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bv)
    old = [100.0] * 10
    new = [90.0, 95, 98, 99, 100, 101, 102, 103, 105, 110]
    ratio, lo, hi = bv.paired_ratio(old, new)
    # 10 rounds: the 2nd and 9th smallest ratios cover the median with 97.9% (>= 95%)
    assert ratio == 1.005 and (lo, hi) == (0.95, 1.05)
    assert all(x != x for x in bv.paired_ratio(old[:5], new[:5])[1:])  # nan: too few rounds


def test_bench_versions_refuses_a_folder_that_is_not_a_checkout(tmp_path):
    import subprocess

    script = ROOT / "scripts" / "bench_versions.py"
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "is not a bnb-sim checkout" in done.stderr
    assert "Traceback" not in done.stderr
