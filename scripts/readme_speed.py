#!/usr/bin/env python3
"""Print the README's speed table ("Speed" section) measured on this machine, with its
machine line, ready to paste:

    python scripts/readme_speed.py            # about a minute: 3 policies x 1 and all threads
    python scripts/readme_speed.py --quick    # a few seconds, for a smoke test

Four-player games of the batch kernel (no DataFrames, no Parquet), medians of repeats, at 1
thread and at every thread numba may use. The same warnings as ``bnb bench`` follow the
table when the machine was too busy for the numbers to mean much (load average above the
cores, more threads slower than one); measure again on a quiet machine before pasting.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bnb_sim.cli.bench_cmd import (  # noqa: E402
    busy_warnings,
    games_per_second,
    load_average,
    machine,
)

POLICIES = ("random", "greedy", "heuristic")


def machine_line(m: dict, today: datetime.date) -> str:
    cpu = m.get("cpu") or m.get("machine") or "unknown CPU"
    system = m["platform"].split("-")[0]
    return (
        f"Measured on {cpu}, {m['cores_usable']} usable cores, {system}, Python {m['python']}, "
        f"numba {m['numba']}, numpy {m['numpy']} ({today.isoformat()}); medians of repeats. "
        "Reproduce with `python scripts/readme_speed.py`."
    )


def table(speeds: list[dict], threads: int) -> list[str]:
    head = f"| what | 1 thread | {threads} threads |" if threads > 1 else "| what | 1 thread |"
    lines = [head, "|---|---:|---:|" if threads > 1 else "|---|---:|"]
    for policy in POLICIES:
        one = next(s for s in speeds if s["policy"] == policy and s["threads"] == 1)
        row = f"| four-player games, `{policy}` | {one['games_per_second']:,.0f} games/s |"
        if threads > 1:
            many = next(s for s in speeds if s["policy"] == policy and s["threads"] == threads)
            ratio = many["games_per_second"] / one["games_per_second"]
            row += f" {many['games_per_second']:,.0f} games/s (×{ratio:.2f}) |"
        lines.append(row)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short runs (a smoke test)")
    args = parser.parse_args(argv)
    seconds, repeats = (0.05, 1) if args.quick else (1.0, 5)
    load = load_average()
    m = {**machine(), "load_average": load}
    speeds = []
    for policy in POLICIES:
        for threads in (1, None):
            speeds.append(
                games_per_second(policy, threads=threads, seconds=seconds, repeats=repeats)
            )
    threads = max(s["threads"] for s in speeds)
    print(machine_line(m, datetime.date.today()))
    print()
    print("\n".join(table(speeds, threads)))
    for warning in busy_warnings({"machine": m, "games": speeds}):
        print(f"\nWARNING: {warning}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
