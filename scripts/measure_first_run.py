#!/usr/bin/env python3
"""Measure the first-run targets from empty kernel caches, in one go, and print a table.

    python scripts/measure_first_run.py                  # simulate, odds (cold and warm), warmup
    python scripts/measure_first_run.py --demo --ci      # also `make demo` and `.ci/run` on fresh
                                                         # clones (pip included; many minutes)

Each measurement runs the command as a user would (``bnb`` of this checkout's ``.venv``, or a
fresh clone for ``--demo``/``--ci``) with a new, empty ``NUMBA_CACHE_DIR`` (``--keep`` reuses
one), and reports the wall time, the CPU seconds of the command and every process it started
(user + system), and the load average before and after (``uptime``): on a shared machine the
wall time counts other jobs' turns too, the CPU seconds do not. The targets are those of
issue 23 (2-core machine, empty cache).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PILE = "stone_sword,wooden_sword,potato*3,bow*2,tnt"


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def run(command, *, env=None, cwd=None, timeout=3600) -> dict:
    """Wall and CPU seconds of ``command`` and its children; raises on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = load()
    start = time.perf_counter()
    done = subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
        raise SystemExit(f"failed ({done.returncode}): {' '.join(map(str, command))}\n{tail}")
    return {"wall": wall, "cpu": cpu, "load": f"{load_before} -> {load()}", "out": done.stdout}


def cache_env(keep: bool) -> dict:
    env = dict(os.environ)
    env.pop("BNB_USER_NUMBA_CACHE_DIR", None)
    if not keep:
        env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="bnb-measure-cache-")
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bnb", default=str(ROOT / ".venv" / "bin" / "bnb"))
    parser.add_argument("--demo", action="store_true", help="also `make demo` on a fresh clone")
    parser.add_argument("--ci", action="store_true", help="also `.ci/run` on a fresh clone")
    parser.add_argument("--keep", action="store_true", help="use the usual cache (not empty)")
    parser.add_argument("--skip-warmup", action="store_true")
    parser.add_argument(
        "--jobs", type=int, default=None, help="bnb warmup --jobs N (default: its own default)"
    )
    args = parser.parse_args()
    bnb = args.bnb
    rows = []
    print(f"machine: {os.cpu_count()} CPUs, load {load()}", flush=True)

    def record(name, limit, result):
        rows.append((name, limit, result))
        wall, cpu = result["wall"], result["cpu"]
        print(f"{name:<52s} {wall:7.1f} s  {cpu:7.1f} s CPU  load {result['load']}", flush=True)

    out = Path(tempfile.mkdtemp(prefix="bnb-measure-"))
    env = cache_env(args.keep)
    record(
        "bnb simulate --games 1000 --players 4 --policy heuristic",
        "60 s",
        run(
            [
                bnb,
                "simulate",
                "--games",
                "1000",
                "--players",
                "4",
                "--policy",
                "heuristic",
                "--out",
                str(out / "run"),
                "--quiet",
            ],
            env=env,
        ),  # fmt: skip
    )
    env = cache_env(args.keep)
    odds = [bnb, "odds", "--pile", PILE, "--hearts", "5"]
    record("bnb odds --pile ... --hearts 5 (empty cache)", "8 s", run(odds, env=env))
    warm = [run(odds, env=env) for _ in range(5)]
    median = {
        "wall": statistics.median(r["wall"] for r in warm),
        "cpu": statistics.median(r["cpu"] for r in warm),
        "load": warm[-1]["load"],
    }
    record("bnb odds --pile ... --hearts 5 (warm, median of 5)", "0.5 s", median)
    if not args.skip_warmup:
        env = cache_env(args.keep)
        jobs = [] if args.jobs is None else ["--jobs", str(args.jobs)]
        name = f"bnb warmup --no-plugins {' '.join(jobs)} (both games)".replace("  ", " ")
        record(name, "180 s", run([bnb, "warmup", "--no-plugins", *jobs], env=env))
    for wanted, name, target, limit in (
        (args.demo, "make demo (fresh clone, pip included)", ["make", "demo"], "180 s"),
        (args.ci, ".ci/run (fresh clone)", [".ci/run"], "900 s"),
    ):
        if not wanted:
            continue
        clone = out / f"clone-{target[-1].replace('/', '-')}"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        env = cache_env(args.keep)
        env.pop("VIRTUAL_ENV", None)
        env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if ".venv" not in p)
        record(name, limit, run(target, env=env, cwd=clone, timeout=7200))
    print()
    print(f"{'target':<52s} {'limit':>6s} {'wall s':>8s} {'CPU s':>8s}  load before -> after")
    for name, limit, result in rows:
        print(
            f"{name:<52s} {limit:>6s} {result['wall']:8.1f} {result['cpu']:8.1f}  {result['load']}"
        )
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
