#!/usr/bin/env python3
"""Speed of the foundation kernels: medians of repeats, not single shots.

    python scripts/bench_kernels.py [--json] [--quick]

Prints the machine (platform, CPU model, cores), Python, numba and numpy versions and numba's
thread count, then:

* ``collectable_bits``: ns per call inside a jitted loop (goal <= 10 ns);
* exact combat odds of a 21-token pile (5 starting + the 16 colourless tokens), warm, in ms
  (goal <= 1 ms);
* the all-piles odds table (every pile a player can hold), build time in s;
* Monte Carlo combats per second;
* wall time of ``bnb odds --hearts 4 --pile ...`` as a subprocess, with an empty numba cache
  (cold: compiles) and with a warm one (goal <= 1 s).

``run(json=False)`` returns the numbers as a dict (and prints them), for ``bnb bench``.
"""

from __future__ import annotations

import json as _json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from bnb_sim.cli.bench_cmd import machine
from bnb_sim.games.builders_biomes.bench_odds import default_tokens, monte_carlo_per_second

FULL_PILE = (
    "wooden_sword,stone_sword*3,potato*3,iron_sword*4,diamond_sword*2,bow*2,hoe*2,pickaxe*2,tnt*2"
)
CLI_ARGS = ["odds", "--hearts", "4", "--pile", FULL_PILE]


def _median_time(func, repeats: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def bench_collectable(repeats: int = 5, n: int = 5_000_000) -> dict[str, float]:
    from bnb_sim.games.builders_biomes.engine.cube import bench_collectable as kernel

    kernel(10, 2)  # load or compile
    median, times = _median_time(lambda: kernel(n, 2), repeats)
    return {"ns_per_call": median / n * 1e9, "spread": max(times) / min(times), "calls": n}


def bench_exact(repeats: int = 200) -> dict[str, float]:
    from bnb_sim.games.builders_biomes.engine.odds import exact_odds

    arrays, tokens, reveal = default_tokens()
    pile = arrays.tok_start + arrays.tok_table
    exact_odds(pile, *tokens, reveal, 6)
    median, times = _median_time(lambda: exact_odds(pile, *tokens, reveal, 6), repeats)
    return {"ms": median * 1e3, "min_ms": min(times) * 1e3, "tokens": int(pile.sum())}


def bench_pile_table(repeats: int = 3) -> dict[str, float]:
    from bnb_sim.games.builders_biomes.engine.odds import pile_table

    arrays, tokens, reveal = default_tokens()
    start = time.perf_counter()
    table = pile_table(arrays.tok_start, arrays.tok_table, *tokens, reveal, 6)
    first = time.perf_counter() - start
    median, _ = _median_time(
        lambda: pile_table(arrays.tok_start, arrays.tok_table, *tokens, reveal, 6), repeats
    )
    return {"rows": int(table.p_win.shape[0]), "s": median, "first_call_s": first}


def bench_monte_carlo(repeats: int = 5, n: int = 1_000_000) -> dict[str, float]:
    result = monte_carlo_per_second(n=n, repeats=repeats)
    return {"combats_per_s": result["combats_per_second"], "n": n}


def _bnb_command() -> list[str]:
    script = pathlib.Path(sys.executable).with_name("bnb")
    if script.exists():
        return [str(script)]
    found = shutil.which("bnb")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from bnb_sim.cli import main; main(sys.argv[1:])"]


def _run_cli(env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(_bnb_command() + CLI_ARGS, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def bench_cli(repeats: int = 5, cold_repeats: int = 5) -> dict[str, float]:
    """Wall time of ``bnb odds --hearts 4`` (cold: empty numba cache each time; warm: shared)."""
    cold = []
    for _ in range(cold_repeats):
        with tempfile.TemporaryDirectory(prefix="bnb-bench-cache-") as folder:
            env = dict(os.environ, NUMBA_CACHE_DIR=folder, BNB_USER_NUMBA_CACHE_DIR=folder)
            cold.append(_run_cli(env))
    env = dict(os.environ)
    _run_cli(env)  # make sure the shared cache is warm
    warm = [_run_cli(env) for _ in range(repeats)]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    python_s = time.perf_counter() - start
    out = {"warm_s": statistics.median(warm), "warm_min_s": min(warm), "python_startup_s": python_s}
    if cold:
        out["cold_s"] = statistics.median(cold)
        out["cold_over_warm"] = out["cold_s"] / out["warm_s"]
    return out


def run(json: bool = False, quick: bool = False) -> dict[str, Any]:
    """Run every benchmark; print a report (or one JSON object) and return the numbers."""
    results: dict[str, Any] = {"machine": machine()}
    results["collectable_bits"] = bench_collectable(repeats=3 if quick else 5)
    results["exact_odds_21"] = bench_exact(repeats=50 if quick else 200)
    results["pile_table"] = bench_pile_table(repeats=1 if quick else 3)
    results["monte_carlo"] = bench_monte_carlo(repeats=3 if quick else 5)
    results["cli_odds"] = bench_cli(repeats=3 if quick else 5, cold_repeats=1 if quick else 5)
    if json:
        print(_json.dumps(results, indent=2))
        return results
    m = results["machine"]
    print(f"machine: {m['platform']}; {m['cpu']}; {m['cores']} cores ({m['cores_usable']} usable)")
    print(
        f"python {m['python']}, numba {m['numba']}, numpy {m['numpy']}, "
        f"numba threads {m['numba_threads']}"
    )
    c = results["collectable_bits"]
    print(f"collectable_bits        {c['ns_per_call']:8.2f} ns/call   (goal <= 10 ns)")
    e = results["exact_odds_21"]
    print(f"exact odds, {e['tokens']} tokens  {e['ms']:8.3f} ms median  (goal <= 1 ms)")
    t = results["pile_table"]
    print(
        f"pile table, {t['rows']:,} rows {t['s']:8.3f} s median  "
        f"(first call {t['first_call_s']:.3f} s)"
    )
    mc = results["monte_carlo"]
    print(f"Monte Carlo combats     {mc['combats_per_s'] / 1e6:8.2f} M/s")
    cli = results["cli_odds"]
    line = f"bnb odds --hearts 4     {cli['warm_s']:8.3f} s warm median (goal <= 1 s)"
    if "cold_s" in cli:
        line += f", {cli['cold_s']:.2f} s cold (x{cli['cold_over_warm']:.1f})"
    print(line + f"; python startup {cli['python_startup_s']:.3f} s")
    return results


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, one cold CLI run")
    args = parser.parse_args(argv)
    run(json=args.json, quick=args.quick)


if __name__ == "__main__":
    main()
