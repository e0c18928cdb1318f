"""``bnb bench`` says when the machine is too busy for its numbers; the README speed table
comes from scripts/readme_speed.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from bnb_sim.cli import bench_cmd

ROOT = Path(__file__).resolve().parent.parent


def _results(load, speeds):
    return {
        "machine": {"cores": 2, "cores_usable": 2, "load_average": load},
        "games": [
            {"policy": p, "threads": t, "games_per_second": v, "spread": 1.1} for p, t, v in speeds
        ],
    }


def test_quiet_machine_gives_no_warning():
    quiet = _results(0.3, [("random", 1, 75_000.0), ("random", 2, 142_000.0)])
    assert bench_cmd.busy_warnings(quiet) == []


def test_load_above_cores_and_slower_threads_are_named():
    busy = _results(4.6, [("random", 1, 25_500.0), ("random", 2, 23_500.0)])
    warnings = bench_cmd.busy_warnings(busy)
    assert len(warnings) == 2
    assert "load average 4.6 on 2 usable cores" in warnings[0]
    assert "random: 2 threads ran slower than 1 (23,500 against 25,500" in warnings[1]
    noisy = _results(None, [("heuristic", 1, 10_000.0)])
    noisy["games"][0]["spread"] = 2.0
    assert "repeats differed by x2.0" in bench_cmd.busy_warnings(noisy)[0]


def test_bench_text_prints_the_warnings():
    results = _results(4.6, [("random", 1, 25_500.0), ("random", 2, 23_500.0)])
    results["machine"].update(
        platform="Linux", cpu="x", python="3", numba="0", numpy="2", numba_threads=2
    )
    results.update(
        exact_odds={"tokens": 21, "per_second": 1000.0, "ms": 1.0},
        monte_carlo={"combats_per_second": 1e6},
        cli={"help_s": 0.1, "odds_warm_s": 0.5, "simulate_warm_s": 1.0},
    )
    results["warnings"] = bench_cmd.busy_warnings(results)
    text = bench_cmd.text(results)
    assert "load 4.6" in text and text.count("WARNING: ") == 2


def test_readme_speed_script_prints_the_table_with_its_machine_line():
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "readme_speed.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert re.match(r"Measured on .+ usable cores, .+Python .+numba .+numpy .+\(\d{4}-", lines[0])
    rows = [ln for ln in lines if ln.startswith("| four-player games, `")]
    assert [re.search(r"`(\w+)`", r).group(1) for r in rows] == ["random", "greedy", "heuristic"]
    assert all("games/s" in r for r in rows)
    # the README's table has the same shape
    readme = (ROOT / "README.md").read_text()
    assert "scripts/readme_speed.py" in readme
    for row in rows:
        assert row.split("|")[1] in readme


def test_bench_announces_a_cold_compile_before_measuring(monkeypatch, capsys):
    """A first `bnb bench` compiles the engine: it says so (as `bnb simulate` does) before the
    measurements, and the compile is timed apart from them."""
    from bnb_sim import feedback

    calls = []
    monkeypatch.setattr(feedback, "cache_is_cold", lambda folder: True)
    monkeypatch.setattr("bnb_sim.precompile.is_done", lambda job: False)  # nothing compiled
    monkeypatch.setattr("bnb_sim.precompile.ensure", lambda *a, **k: [])
    monkeypatch.setattr("bnb_sim.precompile.mark_done", lambda job: None)
    monkeypatch.setattr(
        "bnb_sim.games.builders_biomes.batch.play_block", lambda *a, **k: calls.append("compile")
    )

    def measured(name):
        def fake(*args, **kwargs):
            calls.append(name)
            raise SystemExit(0)  # stop after the first measurement

        return fake

    monkeypatch.setattr(bench_cmd, "machine", lambda: {})
    monkeypatch.setattr(bench_cmd, "games_per_second", measured("games"))
    try:
        bench_cmd.run(quick=True)
    except SystemExit:
        pass
    assert calls == ["compile", "games"]
    assert "compiling the game engine, first run only" in capsys.readouterr().err
