"""Benchmark ``bnb report`` on a big synthetic run (no engine needed).

    .venv/bin/python scripts/bench_report.py                 # 1,000,000 games x 4 seats
    .venv/bin/python scripts/bench_report.py --games 200000 --keep /tmp/bench-run

Builds a schema-exact fake run with ``tests/fake_runs.py`` (10 parts through RunWriter),
then times ``load_run`` and ``write_report`` separately and prints peak memory. The target
is a report in under 30 s for 1,000,000 games.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fake_runs import FakeSpec, write_fake_run  # noqa: E402

from bnb_sim.analysis.report import write_report  # noqa: E402
from bnb_sim.runner.storage import load_run  # noqa: E402


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, default=None, help="write the run here and keep it")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        run = args.keep or Path(tmp) / "run"
        out = Path(tmp) / "report" if not args.keep else args.keep.with_name("bench-report")
        spec = FakeSpec(n_games=args.games, chunk_size=args.chunk, seed=1)
        if not (run / "run.json").exists():
            t = time.perf_counter()
            write_fake_run(run, spec)
            print(
                f"fake run: {args.games:,} games in {time.perf_counter() - t:.1f} s, "
                f"{_size(run) / 2**20:.0f} MiB on disk"
            )
        t = time.perf_counter()
        seats, games, _ = load_run(run)
        print(
            f"load_run (all columns): {time.perf_counter() - t:.2f} s, "
            f"{len(seats):,} seat rows, {seats.memory_usage(deep=True).sum() / 2**20:.0f} MiB"
        )
        del seats, games
        t = time.perf_counter()
        written = write_report(run, out)
        seconds = time.perf_counter() - t
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
        print(
            f"write_report: {seconds:.1f} s ({len(written['figures'])} figures, "
            f"html {written['html'].stat().st_size / 2**10:.0f} KiB); peak RSS {peak:.0f} MiB"
        )
        print("OK" if seconds < 30 else "SLOW: over the 30 s target")


if __name__ == "__main__":
    main()
