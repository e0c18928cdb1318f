#!/usr/bin/env python3
"""The longer engine benchmarks (``bnb bench`` is the quick one).

    python scripts/bench_engine.py [--json] [--quick] [--only speed,e2e,memory,jit]
        [--e2e-games 1000000] [--memory-games 1000000,3000000] [--jit-games 200]

Prints the machine (platform, CPU model, cores), Python, numba and numpy versions, then:

* ``speed``: batch-kernel games/s, 4 players, for ``random``, ``greedy`` and ``heuristic``
  tables at 1 thread and at all threads (medians of 5 repeats) and the thread speed-up
  (target: 2 threads >= 1.8x one thread);
* ``e2e``: ``bnb simulate --games 1000000 --players 4 --policy heuristic`` end to end as a
  subprocess, Parquet included (target: <= 60 s on the 2-core machine), with its peak RSS;
* ``memory``: peak RSS (``wait4`` rusage of the subprocess, started from a small launcher so
  that this process's own memory does not count) of ``bnb simulate`` runs of
  growing size, 4 random players (target: <= 500 MB for 10,000,000 games; pass
  ``--memory-games 10000000`` when there is time, the default 1M and 3M show that memory
  does not grow with N);
* ``jit``: the same small batch in two subprocesses, compiled and under
  ``NUMBA_DISABLE_JIT=1 -W ignore::RuntimeWarning``, per-game time ratio (target >= 200x) and
  whether both produced identical rows.

``run(...)`` returns the numbers as a dict (and prints them). The quick measuring functions
live in :mod:`bnb_sim.cli.bench_cmd` so that the installed ``bnb bench`` has them too.
"""

from __future__ import annotations

import json as _json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bnb_sim.cli.bench_cmd import bnb_command, games_per_second, machine

SECTIONS = ("speed", "e2e", "memory", "jit")


def speed(repeats: int = 5, seconds: float = 1.0) -> dict[str, Any]:
    """Games/s per policy at 1 thread and at all threads, and the speed-up."""
    rows = []
    for policy in ("random", "greedy", "heuristic"):
        one = games_per_second(policy, threads=1, seconds=seconds, repeats=repeats)
        every = games_per_second(policy, threads=None, seconds=seconds, repeats=repeats)
        every["speedup"] = every["games_per_second"] / one["games_per_second"]
        rows += [one, every]
    return {"rows": rows}


# A small fresh interpreter starts the command and reports the command's peak RSS. A child
# forked straight from this process would report at least this process's own RSS (Linux
# keeps the high-water mark of the forked copy across exec), and after the speed section
# this process holds a few hundred MB.
_PEAK_RSS_LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status) % 256)
"""


def _run_measured(cmd: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``cmd``; wall time, exit code, stdout, and its peak RSS (MB) from ``wait4``."""
    with tempfile.NamedTemporaryFile(prefix="bnb-bench-rss-", mode="r") as peak:
        t0 = time.perf_counter()
        launcher = [sys.executable, "-c", _PEAK_RSS_LAUNCHER, peak.name, *cmd]
        proc = subprocess.run(launcher, env=env, capture_output=True)
        seconds = time.perf_counter() - t0
        kib = peak.read().strip()
    return {
        "seconds": seconds,
        "rc": proc.returncode,
        "peak_rss_mb": int(kib) / 1024 if kib else float("nan"),  # KiB on Linux
        "stdout": proc.stdout.decode(errors="replace"),
        "stderr": proc.stderr.decode(errors="replace")[-2000:],
    }


def simulate_run(games: int, policy: str, players: int = 4, extra: tuple[str, ...] = ()):
    """``bnb simulate`` as a subprocess into a temporary folder; timing, memory, summary."""
    with tempfile.TemporaryDirectory(prefix="bnb-bench-e2e-") as folder:
        out = Path(folder) / "run"
        args = ["simulate", "--games", str(games), "--players", str(players)]
        args += ["--policy", policy, "--seed", "1", "--out", str(out), "--quiet", "--json"]
        args += list(extra)
        result = _run_measured(bnb_command() + args)
        size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) if out.exists() else 0
    result["command"] = "bnb " + " ".join(args)
    result["disk_mb"] = size / 1e6
    if result["rc"] == 0:
        summary = _json.loads(result["stdout"])
        result["games_per_second"] = summary["games_per_second"]
        result["run_seconds"] = summary["seconds"]
        result["threads"] = summary["threads"]
    result.pop("stdout")
    return result


def e2e(games: int = 1_000_000, policy: str = "heuristic") -> dict[str, Any]:
    """The end-to-end target: N four-player games with Parquet, via the CLI."""
    return simulate_run(games, policy)


def memory(sizes: tuple[int, ...] = (1_000_000, 3_000_000), policy: str = "random"):
    """Peak RSS of growing runs (flat if the run streams chunk by chunk)."""
    return {"policy": policy, "runs": [simulate_run(n, policy) for n in sizes]}


_JIT_SNIPPET = """
import hashlib, json, sys, time
from bnb_sim.games.builders_biomes.batch import play_arrays
from bnb_sim.games.builders_biomes.run_config import GameConfig
policy, n, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
config = GameConfig.create(4, [policy], seed=7)
play_arrays(config, 10_000, 1)          # compile / load, build tables
times = []
for _ in range(repeats):
    t0 = time.perf_counter()
    seats, games = play_arrays(config, 0, n)
    times.append(time.perf_counter() - t0)
digest = hashlib.sha1(seats.tobytes() + games.tobytes()).hexdigest()
print(json.dumps({"seconds": sorted(times)[len(times) // 2], "games": n, "sha1": digest}))
"""


def jit_ratio(games: int = 200, policy: str = "random") -> dict[str, Any]:
    """Per-game time of the same batch compiled vs under NUMBA_DISABLE_JIT=1 (one thread)."""
    base = dict(os.environ, NUMBA_NUM_THREADS="1")
    jit_cmd = [sys.executable, "-c", _JIT_SNIPPET, policy, str(games), "5"]
    jit = _run_measured(jit_cmd, base)
    slow_env = dict(base, NUMBA_DISABLE_JIT="1")
    slow_cmd = [sys.executable, "-W", "ignore::RuntimeWarning", "-c", _JIT_SNIPPET, policy]
    slow = _run_measured([*slow_cmd, str(games), "1"], slow_env)
    out: dict[str, Any] = {"policy": policy, "games": games}
    for name, result in (("jit", jit), ("no_jit", slow)):
        if result["rc"] != 0:
            out[name] = {"error": result["stderr"]}
            continue
        data = _json.loads(result["stdout"])
        out[name] = {"seconds": data["seconds"], "sha1": data["sha1"]}
    if "seconds" in out.get("jit", {}) and "seconds" in out.get("no_jit", {}):
        out["ratio"] = out["no_jit"]["seconds"] / out["jit"]["seconds"]
        out["identical_rows"] = out["jit"]["sha1"] == out["no_jit"]["sha1"]
    return out


def run(
    json: bool = False,
    quick: bool = False,
    only: tuple[str, ...] = SECTIONS,
    e2e_games: int = 1_000_000,
    memory_games: tuple[int, ...] = (1_000_000, 3_000_000),
    jit_games: int = 200,
) -> dict[str, Any]:
    """Run the chosen sections; print a report (or one JSON object) and return the numbers."""
    results: dict[str, Any] = {"machine": machine()}
    if "speed" in only:
        results["speed"] = speed(repeats=3 if quick else 5, seconds=0.4 if quick else 1.0)
    if "e2e" in only:
        results["e2e"] = e2e(e2e_games // 10 if quick else e2e_games)
    if "memory" in only:
        sizes = tuple(n // 10 for n in memory_games) if quick else memory_games
        results["memory"] = memory(sizes)
    if "jit" in only:
        n = jit_games // 2 if quick else jit_games
        results["jit"] = [jit_ratio(n, "random"), jit_ratio(max(1, n // 10), "heuristic")]
    if json:
        print(_json.dumps(results, indent=2))
    else:
        print(text(results))
    return results


def text(results: dict[str, Any]) -> str:
    m = results["machine"]
    lines = [
        f"machine: {m['platform']}; {m['cpu']}; {m['cores']} cores ({m['cores_usable']} usable)",
        f"python {m['python']}, numba {m['numba']}, numpy {m['numpy']}, "
        f"numba threads {m['numba_threads']}",
    ]
    if "speed" in results:
        lines.append("batch kernel, 4 players (median of repeats):")
        for r in results["speed"]["rows"]:
            extra = f"   x{r['speedup']:.2f} vs 1 thread" if "speedup" in r else ""
            lines.append(
                f"  {r['policy']:<10s} {r['threads']:>2d} threads {r['games_per_second']:>12,.0f}"
                f" games/s{extra}"
            )
    if "e2e" in results:
        r = results["e2e"]
        if r["rc"] == 0:
            lines.append(
                f"end to end: {r['command']}\n  {r['seconds']:.1f} s wall "
                f"({r['games_per_second']:,.0f} games/s in the run, {r['threads']} threads), "
                f"peak RSS {r['peak_rss_mb']:.0f} MB, {r['disk_mb']:.0f} MB on disk"
            )
        else:
            lines.append(f"end to end failed (rc {r['rc']}): {r['stderr']}")
    if "memory" in results:
        lines.append(f"peak memory, {results['memory']['policy']} 4 players:")
        for r in results["memory"]["runs"]:
            lines.append(
                f"  {r['command'].split('--games ')[1].split()[0]:>12s} games: "
                f"peak RSS {r['peak_rss_mb']:.0f} MB, {r['seconds']:.1f} s, rc {r['rc']}"
            )
    for r in results.get("jit", []):
        if "ratio" in r:
            lines.append(
                f"JIT vs NUMBA_DISABLE_JIT=1 ({r['games']} {r['policy']} games, 1 thread): "
                f"{r['jit']['seconds'] * 1e3:.1f} ms vs {r['no_jit']['seconds']:.1f} s = "
                f"x{r['ratio']:,.0f}; identical rows: {r['identical_rows']}"
            )
        else:
            lines.append(f"JIT ratio failed: {r}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes")
    parser.add_argument("--only", default=",".join(SECTIONS), help="sections, comma-separated")
    parser.add_argument("--e2e-games", type=int, default=1_000_000)
    parser.add_argument("--memory-games", default="1000000,3000000")
    parser.add_argument("--jit-games", type=int, default=200, help="random; heuristic: a tenth")
    args = parser.parse_args(argv)
    only = tuple(s.strip() for s in args.only.split(",") if s.strip())
    unknown = [s for s in only if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown sections {unknown}; choose from {', '.join(SECTIONS)}")
    run(
        json=args.json,
        quick=args.quick,
        only=only,
        e2e_games=args.e2e_games,
        memory_games=tuple(int(x) for x in args.memory_games.split(",")),
        jit_games=args.jit_games,
    )


if __name__ == "__main__":
    main()
