#!/usr/bin/env python3
"""Engine speed as ratios to a reference game loop, measured in the same process.

    python scripts/bench_reference.py [--reference PATH] [--policy NAME ...] [--players 4]
        [--threads 2,1] [--repeats 3] [--seconds 0.5] [--json]

Runs the reference loop (imported by path, never copied) and the engine's batch kernel
alternately, medians of ``--repeats``, at each thread count, and prints the machine line, the
games/s, each bot's ratio to the reference loop's random games/s and the scaling from one
thread to the most. ``bnb bench --reference PATH`` prints the same report. The default
reference is ``shared/bench/reference_loop.py`` in the folder above the repository (or the one
above that), if present.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bnb_sim.cli.bench_reference import DEFAULT_POLICIES, default_reference, measure, text

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, default=default_reference(ROOT))
    parser.add_argument(
        "--policy", action="append", help=f"bot to measure (repeatable; default {DEFAULT_POLICIES})"
    )
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--threads", default="2,1", help="thread counts, comma-separated")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=0.5, help="target seconds per run")
    parser.add_argument("--games", type=int, default=None, help="fixed games per run")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.reference is None:
        parser.error("no reference loop found; pass --reference PATH")
    results = measure(
        args.reference,
        tuple(args.policy or DEFAULT_POLICIES),
        players=args.players,
        threads=tuple(int(t) for t in args.threads.split(",") if t.strip()),
        seconds=args.seconds,
        repeats=args.repeats,
        games=args.games,
    )
    print(json.dumps(results, indent=2) if args.json else text(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
