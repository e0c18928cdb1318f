#!/usr/bin/env python3
"""Where the first compile goes: seconds per compiled function, from an empty cache.

    python scripts/profile_compile.py [JOB ...] [--top 40] [--json FILE]

Runs the named compile jobs (``bnb warmup``'s; default: all of them, in order; ``--list``
prints them; ``bnb:builtin`` with what it comes after is the kernel ``bnb simulate --policy
heuristic`` needs) one after the other in this process, with a fresh, throw-away
``NUMBA_CACHE_DIR``, and listens to numba's compile events (``numba.core.event``). A
function's *inclusive* time holds the compiles of the callees it reached first; its *self*
time does not. Self times add up to the whole compile. Times are CPU seconds of this process.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("jobs", nargs="*", help="compile jobs (with the jobs they come after)")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep-cache", action="store_true", help="use the usual cache")
    args = parser.parse_args()
    if not args.keep_cache:
        os.environ.pop("BNB_USER_NUMBA_CACHE_DIR", None)
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="bnb-profile-compile-")

    from numba.core import event

    from bnb_sim.cli.warmup_cmd import all_jobs
    from bnb_sim.precompile import needed

    jobs = all_jobs()
    if args.list:
        for job in jobs:
            print(f"{job.name:<16s} {job.label}  (after: {', '.join(job.after) or '-'})")
        return
    chosen = needed(jobs, args.jobs) if args.jobs else jobs

    stack: list[list] = []  # [name, start, child seconds]
    self_time: dict[str, float] = defaultdict(float)
    incl_time: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)

    class Listener(event.Listener):
        def on_start(self, ev):
            disp = ev.data["dispatcher"]
            name = f"{disp.py_func.__module__.split('.')[-1]}.{disp.py_func.__qualname__}"
            stack.append([name, time.process_time(), 0.0])

        def on_end(self, ev):
            name, t0, child = stack.pop()
            took = time.process_time() - t0
            self_time[name] += took - child
            incl_time[name] += took
            count[name] += 1
            if stack:
                stack[-1][2] += took

    event.register("numba:compile", Listener())
    per_step = []
    for job in chosen:
        module, _, name = job.target.partition(":")
        t0 = time.perf_counter()
        c0 = time.process_time()
        getattr(importlib.import_module(module), name)()
        per_step.append((job.name, time.perf_counter() - t0, time.process_time() - c0))
        print(
            f"{job.name:<20s} {per_step[-1][1]:7.1f} s wall {per_step[-1][2]:7.1f} s CPU",
            flush=True,
        )
    rows = sorted(self_time, key=self_time.get, reverse=True)
    print(f"\n{'function':<52s} {'self s':>8s} {'incl s':>8s} {'n':>3s}")
    for name in rows[: args.top]:
        print(f"{name:<52s} {self_time[name]:8.1f} {incl_time[name]:8.1f} {count[name]:3d}")
    print(f"{'all functions':<52s} {sum(self_time.values()):8.1f}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "steps": per_step,
                    "functions": {n: [self_time[n], incl_time[n], count[n]] for n in rows},
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
