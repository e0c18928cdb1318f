#!/usr/bin/env python3
"""Two checkouts of bnb-sim side by side on this machine: which one plays faster, by how much.

    python scripts/bench_versions.py OLD_CHECKOUT NEW_CHECKOUT [--policy heuristic] [--rounds 6]
    python scripts/bench_versions.py OLD NEW --end-to-end --games 1000000 [--rounds 2]

Each measurement is a fresh child process that imports the package from one checkout
(``PYTHONPATH``), so the two versions never share a process; the order alternates from one
round to the next (old, new, then new, old, ...) so that drift of the machine falls on both.

* default: games per CPU-second of the batch kernel (``play_arrays``: no DataFrames, no
  Parquet) at ``--threads``, after one small warm-up call (the compile is not counted);
* ``--search ROLLOUT``: search playouts per CPU-second (a determinization of the first decision
  of a 2-player game and a rollout to the end, each tree's ``scripts/bench_search.py``);
* ``--end-to-end``: the wall time of ``bnb simulate --games N ... --out DIR`` (the command a
  user runs: start-up, playing, rows, Parquet), with ``--threads`` threads.

Prints each run, the medians and the ratio new/old, after the machine line, and the median of
the per-round ratios with a distribution-free 95% interval (the two runs of a round are
neighbours in time, so drift of the machine cancels within a round). ``--repeats K`` times K
calls inside each run and keeps the fastest (the others lost the CPU to something else).

Both checkouts must have their kernels compiled already (run any ``bnb simulate`` in each
first): a cold cache takes minutes. On a shared or virtual machine one process can differ
from the next by 15% for the same code (where its arrays land in memory, the host's other
guests): quote medians of several rounds, and only differences well above that.
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
try:
    from bnb_sim.games.builders_biomes.batch import play_arrays
    from bnb_sim.games.builders_biomes.run_config import GameConfig
except ImportError:  # a checkout from before they moved into the game (issue 24)
    from bnb_sim.runner.batch import play_arrays
    from bnb_sim.runner.config import GameConfig
from bnb_sim.runner.dask_backend import quiet_numba_warnings
quiet_numba_warnings()
policy, games, threads, players = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
config = GameConfig.create(players, [policy], seed=0)
play_arrays(config, 0, 64, threads)  # loads (or compiles) the kernel: not counted
cpus = []
for _ in range(int(sys.argv[5])):
    before = resource.getrusage(resource.RUSAGE_SELF)
    play_arrays(config, 1000, games, threads)
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
print(json.dumps({"cpu": min(cpus)}))
"""

SEARCH_CHILD = r"""
import importlib.util, json, sys, time
import numpy as np
spec = importlib.util.spec_from_file_location("bench_search", sys.argv[1])
bs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bs)
rollout, n, repeats = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
config, (k, ft, kinds, params, _) = bs._inputs(f"mc:rollout={rollout}")
pub, hid, rng = bs.new_game(k, np.uint64(config.master), 0, 2)
scratch = bs.new_search_scratch(k, kinds, params, 2, bs.MEM_SIZE)
bs._playouts(pub, hid, rng, ft, params[0], 5, scratch)  # loads the kernels: not counted
cpus = []
for _ in range(repeats):
    t0 = time.process_time()
    bs._playouts(pub, hid, rng, ft, params[0], n, scratch)
    cpus.append(time.process_time() - t0)
print(json.dumps({"cpu": min(cpus)}))
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
            str(args.repeats),
        ],
    )
    return args.games / json.loads(out.strip().splitlines()[-1])["cpu"]


def search_run(tree: Path, args) -> float:
    """Search playouts (determinization + rollout, ``scripts/bench_search.py``) per CPU-second
    from ``tree``, with that tree's own bench script."""
    script = str(tree / "scripts" / "bench_search.py")
    command = [sys.executable, "-c", SEARCH_CHILD, script, args.search, str(args.games)]
    out = _child(tree, [*command, str(args.repeats)])
    return args.games / json.loads(out.strip().splitlines()[-1])["cpu"]


def paired_ratio(old: list[float], new: list[float]) -> tuple[float, float, float]:
    """Median of the per-round ratios new/old (the two runs of a round are neighbours in time)
    and a distribution-free 95% interval for it (binomial order statistics; ``nan`` bounds
    with fewer than 6 rounds)."""
    from scipy.stats import binom

    ratios = sorted(n / o for o, n in zip(old, new, strict=True))
    m = len(ratios)
    lo = int(binom.ppf(0.025, m, 0.5))  # the order statistics that cover the median 95%
    if lo < 1:
        return statistics.median(ratios), float("nan"), float("nan")
    return statistics.median(ratios), ratios[lo - 1], ratios[m - lo]


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
        "--repeats",
        type=int,
        default=1,
        help="timed calls inside each run; the fastest counts (the slower ones lost the CPU)",
    )
    parser.add_argument(
        "--search",
        metavar="ROLLOUT",
        choices=("random", "heuristic"),
        help="time the search bots' playouts with this rollout policy instead of the batch kernel",
    )
    parser.add_argument(
        "--end-to-end",
        action="store_true",
        help="time `bnb simulate --out` (Parquet included), not the kernel",
    )
    args = parser.parse_args(argv)
    if args.games is None:
        args.games = 1_000_000 if args.end_to_end else 20_000
        args.games = 5_000 if args.search else args.games
    for tree in (args.old, args.new):
        if not (tree / "bnb_sim" / "__init__.py").is_file():
            parser.error(f"{tree} is not a bnb-sim checkout (no bnb_sim/__init__.py)")
    m = machine()
    print(
        f"machine  {m.get('cpu') or m.get('machine')}; {m['cores_usable']} usable cores; "
        f"python {m['python']}, numba {m['numba']}, numpy {m['numpy']}; "
        f"load {load_average():.1f}"
    )
    if args.search:
        print(f"{args.games:,} search playouts ({args.search} rollouts, 2 players), per CPU-second")
        run = search_run
    else:
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
    unit = "playouts" if args.search else "games"
    if args.repeats > 1:
        print(f"each run: the fastest of {args.repeats} timed calls")
    rates: dict[str, list[float]] = {"old": [], "new": []}
    for r in range(args.rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for name in order:
            tree = args.old if name == "old" else args.new
            rate = run(tree, args)
            rates[name].append(rate)
            print(
                f"round {r + 1}  {name}  {rate:12,.0f} {unit}/s  load {load_average():.1f}",
                flush=True,
            )
    old, new = statistics.median(rates["old"]), statistics.median(rates["new"])
    print(f"median   old {old:,.0f}   new {new:,.0f}   new/old {new / old:.3f}x")
    ratio, lo, hi = paired_ratio(rates["old"], rates["new"])
    print(f"paired   median of the rounds' new/old {ratio:.3f}x, 95% interval [{lo:.3f}, {hi:.3f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
