#!/usr/bin/env python3
"""What each ``inline="always"`` choice costs to compile and what it saves at run time.

    python scripts/inline_tradeoff.py [--variants legal_bits,apply_action,...] [--games 20000]

For each variant, a copy of the package in a temporary folder has the named kernels'
``inline="always"`` replaced by ``inline="never"`` (a plain call); the unchanged copy is the
baseline. Each copy runs in a fresh child process with an empty numba cache of its own:

* compile: CPU seconds of the first call of the built-in bots' batch driver (set-up, rows, the
  one-step bots and everything the driver reaches, in that one process);
* run: games per CPU-second of the same driver, the best of ``--repeats`` calls of ``--games``
  4-player games (the best, not the median: the slower calls are other work on the machine).

The variants run in alternating order over ``--rounds`` rounds and the table shows each
variant's median against the baseline's. Only the built-in bots' driver is measured (the path
of every run of ``random``, ``greedy`` and ``heuristic`` seats); the search bots reach the same
functions through their own loops. Each variant is a full compile from an empty cache: about a
minute and a half of one core each round.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bnb_sim.cli.bench_cmd import load_average, machine  # noqa: E402

#: Named groups of inlined kernels (by function name; every definition with that name in the
#: package whose decorator says ``inline="always"``).
VARIANTS: dict[str, tuple[str, ...]] = {
    "legal_bits": ("legal_bits",),
    "apply_action": ("apply_action",),
    "decision": ("decide", "choose_random"),
    "rng": ("*rng.py",),
    "legal_helpers": (
        "reachable_points",
        "fightable_stacks",
        "weapon_slots",
        "action_type_possible",
        "rules_bits",
        "is_legal",
    ),
    "onestep_helpers": (
        "_offer",
        "_low_u64",
        "_two_best",
        "_best_other",
        "_version",
        "placement_value",
        "block_values",
        "take_value",
        "prepare_stack_values",
        "_point_value",
        "best_adjacent",
        "action_type_value",
    ),  # fmt: skip
    "layout_accessors": ("*layout.py",),
}

CHILD = r"""
import json, sys, time
from bnb_sim.games.builders_biomes.batch import play_arrays
from bnb_sim.games.builders_biomes.run_config import GameConfig
from bnb_sim.runner.dask_backend import quiet_numba_warnings
quiet_numba_warnings()
games, repeats, policy = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
config = GameConfig.create(4, [policy], seed=0)
t0 = time.process_time()
play_arrays(config, 0, 16, 1)
compile_cpu = time.process_time() - t0
rates = []
for r in range(repeats):
    t0 = time.process_time()
    play_arrays(config, 1000, games, 1)
    rates.append(games / (time.process_time() - t0))
print(json.dumps({"compile": compile_cpu, "rate": max(rates)}))
"""


def inlined_definitions(path: Path) -> list[str]:
    """Names of the functions in ``path`` decorated with ``inline="always"``."""
    text = path.read_text()
    return re.findall(r'inline="always"\)\s*\ndef (\w+)\(', text)


def patch_copy(source: Path, dest: Path, names: tuple[str, ...]) -> list[str]:
    """Copy the package to ``dest`` with ``names`` compiled as plain calls; the functions
    changed, as ``module:function``."""
    shutil.copytree(
        source / "bnb_sim", dest / "bnb_sim", ignore=shutil.ignore_patterns("__pycache__")
    )
    changed = []
    for path in sorted((dest / "bnb_sim").rglob("*.py")):
        text = path.read_text()
        whole_file = any(n.startswith("*") and path.name == n[1:] for n in names)
        for name in inlined_definitions(path):
            if whole_file or name in names:
                text = re.sub(rf'inline="always"(\)\s*\ndef {name}\()', r'inline="never"\1', text)
                changed.append(f"{path.relative_to(dest / 'bnb_sim').with_suffix('')}:{name}")
        path.write_text(text)
    return changed


def measure(tree: Path, args) -> dict:
    cache = tempfile.mkdtemp(prefix="bnb-inline-cache-")
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=cache, BNB_COMPILE_JOBS="1")
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(args.games), str(args.repeats), args.policy],
            cwd=tree, env=env, capture_output=True, text=True,
        )  # fmt: skip
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if done.returncode != 0:
        sys.exit(f"{tree}: exit {done.returncode}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--policy", default="heuristic")
    args = parser.parse_args(argv)
    chosen = ["baseline", *[v for v in args.variants.split(",") if v]]
    unknown = [v for v in chosen[1:] if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; known: {', '.join(VARIANTS)}")
    m = machine()
    print(
        f"machine  {m.get('cpu') or m.get('machine')}; {m['cores_usable']} usable cores; "
        f"numba {m['numba']}; load {load_average():.1f}"
    )
    print(f"built-in driver, 4 players, {args.policy}; run: best of {args.repeats} x "
          f"{args.games:,} games, 1 thread")  # fmt: skip
    work = Path(tempfile.mkdtemp(prefix="bnb-inline-"))
    trees = {}
    try:
        for name in chosen:
            trees[name] = work / name
            trees[name].mkdir()
            changed = patch_copy(ROOT, trees[name], () if name == "baseline" else VARIANTS[name])
            if name != "baseline":
                if not changed:
                    sys.exit(f"variant {name}: no inlined function matches {VARIANTS[name]}")
                print(f"{name}: not inlined: {', '.join(changed)}")
        results: dict[str, list[dict]] = {name: [] for name in chosen}
        for r in range(args.rounds):
            order = chosen if r % 2 == 0 else chosen[::-1]
            for name in order:
                res = measure(trees[name], args)
                results[name].append(res)
                print(
                    f"round {r + 1}  {name:18s} compile {res['compile']:6.1f} CPU s  "
                    f"run {res['rate']:9,.0f} games/CPU-s  load {load_average():.1f}",
                    flush=True,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base_c = statistics.median(x["compile"] for x in results["baseline"])
    base_r = statistics.median(x["rate"] for x in results["baseline"])
    print("\n| not inlined | compile CPU s | vs inlined | games/CPU-s | vs inlined |")
    print("|---|---:|---:|---:|---:|")
    for name in chosen:
        c = statistics.median(x["compile"] for x in results[name])
        rate = statistics.median(x["rate"] for x in results[name])
        label = "nothing (today)" if name == "baseline" else name
        print(f"| {label} | {c:.1f} | {c / base_c:.2f}x | {rate:,.0f} | {rate / base_r:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
