#!/usr/bin/env python3
"""Two checkouts of bnb-sim side by side on this machine: which one plays faster, by how much.

    python scripts/bench_versions.py OLD_CHECKOUT NEW_CHECKOUT [--policy heuristic] [--rounds 6]
    python scripts/bench_versions.py OLD NEW --end-to-end --games 1000000 [--rounds 2]

Each measurement is a fresh child process that imports the package from one checkout
(``PYTHONPATH``), so the two versions never share a process; the order alternates from one
round to the next (old, new, then new, old, ...) so that drift of the machine falls on both.

* default: games per CPU-second of the batch kernel (``play_arrays``: no DataFrames, no
  Parquet) at ``--threads``, after one small warm-up call (the compile is not counted);
* ``--end-to-end``: the wall time of ``bnb simulate --games N ... --out DIR`` (the command a
  user runs: start-up, playing, rows, Parquet), with ``--threads`` threads.

Prints each run, the medians and the ratio new/old, after the machine line. Both checkouts
must have their kernels compiled already (run any ``bnb simulate`` in each first): a cold
cache takes minutes. On a shared or virtual machine one process can differ from the next by
15% for the same code (where its arrays land in memory, the host's other guests): quote
medians of several rounds, and only differences well above that.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bnb_sim.cli.bench_cmd import load_average, machine  # noqa: E402

KERNEL_CHILD = r"""
import json, resource, sys, time
from bnb_sim.runner.batch import play_arrays
from bnb_sim.runner.config import GameConfig
from bnb_sim.runner.dask_backend import quiet_numba_warnings
quiet_numba_warnings()
policy, games, threads, players = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
config = GameConfig.create(players, [policy], seed=0)
play_arrays(config, 0, 64, threads)  # loads (or compiles) the kernel: not counted
before = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.perf_counter()
play_arrays(config, 1000, games, threads)
wall = time.perf_counter() - t0
after = resource.getrusage(resource.RUSAGE_SELF)
cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
print(json.dumps({"cpu": cpu, "wall": wall}))
"""


def kernel_run(tree: Path, args) -> float:
    """Games per CPU-second of the batch kernel from ``tree``."""
    out = _child(
        tree,
        [
            sys.executable,
            "-c",
            KERNEL_CHILD,
            args.policy,
            str(args.games),
            str(args.threads),
            str(args.players),
        ],
    )
    return args.games / json.loads(out.strip().splitlines()[-1])["cpu"]


def end_to_end_run(tree: Path, args) -> float:
    """Games per wall-clock second of ``bnb simulate ... --out DIR`` from ``tree``."""
    folder = Path(tempfile.mkdtemp(prefix="bnb-bench-versions-"))
    command = [
        sys.executable,
        "-m",
        "bnb_sim",
        "simulate",
        "--games",
        str(args.games),
        "--players",
        str(args.players),
        "--policy",
        args.policy,
        "--seed",
        "1",
        "--threads",
        str(args.threads),
        "--out",
        str(folder / "run"),
        "--quiet",
    ]
    try:
        t0 = time.perf_counter()
        _child(tree, command)
        return args.games / (time.perf_counter() - t0)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _child(tree: Path, command: list[str]) -> str:
    env = dict(
        os.environ,
        PYTHONPATH=str(tree),
        NUMBA_NUM_THREADS=os.environ.get("NUMBA_NUM_THREADS", str(os.cpu_count() or 1)),
    )
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{tree}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--policy", default="heuristic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="games per run (default 20,000; 1,000,000 with --end-to-end)",
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument(
        "--end-to-end",
        action="store_true",
        help="time `bnb simulate --out` (Parquet included), not the kernel",
    )
    args = parser.parse_args(argv)
    if args.games is None:
        args.games = 1_000_000 if args.end_to_end else 20_000
    for tree in (args.old, args.new):
        if not (tree / "bnb_sim" / "__init__.py").is_file():
            parser.error(f"{tree} is not a bnb-sim checkout (no bnb_sim/__init__.py)")
    m = machine()
    print(
        f"machine  {m.get('cpu') or m.get('machine')}; {m['cores_usable']} usable cores; "
        f"python {m['python']}, numba {m['numba']}, numpy {m['numpy']}; "
        f"load {load_average():.1f}"
    )
    what = (
        "bnb simulate --out, games per wall second"
        if args.end_to_end
        else ("batch kernel, games per CPU-second")
    )
    print(
        f"{args.games:,} {args.players}-player games of {args.policy}, {args.threads} "
        f"thread(s), {what}"
    )
    run = end_to_end_run if args.end_to_end else kernel_run
    rates: dict[str, list[float]] = {"old": [], "new": []}
    for r in range(args.rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for name in order:
            tree = args.old if name == "old" else args.new
            rate = run(tree, args)
            rates[name].append(rate)
            print(
                f"round {r + 1}  {name}  {rate:12,.0f} games/s  load {load_average():.1f}",
                flush=True,
            )
    old, new = statistics.median(rates["old"]), statistics.median(rates["new"])
    print(f"median   old {old:,.0f}   new {new:,.0f}   new/old {new / old:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
