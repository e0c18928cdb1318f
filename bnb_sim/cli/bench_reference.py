"""Engine speed as a ratio to a reference game loop run in the same process.

Absolute games per second differ about 2x between machines and swing with the load of a
shared box; a ratio to a compact numba loop measured in the same run, alternating with the
engine, holds from one machine to another. The reference loop is a separate file that this
module imports by path (it is not part of bnb-sim): any module with ``make_tiles()``,
``largest_lut()`` and ``run(n, seed, players, greedy, tiles, lut, out, turns)`` works.

Used by ``bnb bench --reference PATH`` and ``scripts/bench_reference.py``.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bnb_sim.errors import BnbError

#: Bots measured by default: the built-in policies that need no program or search budget.
DEFAULT_POLICIES = ("random", "greedy", "heuristic")


def load_reference(path: str | Path):
    """Import the reference loop module from ``path`` (numba compiles or loads its cache)."""
    path = Path(path)
    if not path.is_file():
        raise BnbError(f"--reference {path}: no such file")
    spec = importlib.util.spec_from_file_location("bnb_bench_reference_loop", path)
    if spec is None or spec.loader is None:
        raise BnbError(f"--reference {path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba's cache locator needs the module registered
    spec.loader.exec_module(module)
    for name in ("make_tiles", "largest_lut", "run"):
        if not hasattr(module, name):
            raise BnbError(f"--reference {path}: the module has no {name}()")
    return module


def reference_runner(module, players: int = 4, greedy: bool = False) -> Callable[[int, int], None]:
    """``play(n, threads)``: ``n`` reference games at ``threads`` threads."""
    import numpy as np

    from bnb_sim._jit import numba

    tiles, lut = module.make_tiles(), module.largest_lut()
    buffers: dict[int, tuple] = {}

    def play(n: int, threads: int) -> None:
        if n not in buffers:
            buffers[n] = (np.zeros((n, 4), np.int64), np.zeros(n, np.int64))
        out, turns = buffers[n]
        numba.set_num_threads(threads)
        module.run(n, 1, players, int(greedy), tiles, lut, out, turns)

    return play


def engine_runner(policy: str, players: int = 4, seed: int = 0) -> Callable[[int, int], None]:
    """``play(n, threads)``: ``n`` engine games (batch kernel, no DataFrames, no Parquet)."""
    from bnb_sim.games import get_game
    from bnb_sim.runner.dask_backend import quiet_numba_warnings

    game = get_game(None)  # the default game's run config and batch kernel (the registry)
    play_arrays = game.need("play_arrays")
    quiet_numba_warnings()
    config = game.need("create_config")(players, [policy], seed=seed)
    offset = [0]

    def play(n: int, threads: int) -> None:
        play_arrays(config, offset[0], n, threads)
        offset[0] += n  # fresh games each repeat, the same ones on every run of the script

    return play


def calibrate(play: Callable[[int, int], None], threads: int, seconds: float) -> int:
    """Games that take about ``seconds`` at ``threads`` threads."""
    n = 64
    while True:
        t0 = time.perf_counter()
        play(n, threads)
        dt = time.perf_counter() - t0
        if dt >= seconds / 8 or n >= 1_000_000:
            break
        n *= 4
    return max(64, min(int(n * seconds / max(dt, 1e-6)), 4_000_000))


def measure(
    reference: str | Path,
    policies: tuple[str, ...] = DEFAULT_POLICIES,
    *,
    players: int = 4,
    threads: tuple[int, ...] = (2, 1),
    seconds: float = 0.5,
    repeats: int = 3,
    games: int | None = None,
) -> dict[str, Any]:
    """Games/s of the reference loop (random) and each policy at each thread count.

    Per thread count, every repeat runs the reference and then each policy in turn, so slow
    and busy moments hit all of them alike; the medians of ``repeats`` give the ratios.
    ``games`` fixes the game count of every run (tests); otherwise each runner is calibrated
    to about ``seconds`` per run.
    """
    from bnb_sim.cli.bench_machine import load_average, machine

    load = load_average()
    module = load_reference(reference)
    runners = {"reference": reference_runner(module, players)}
    for policy in policies:
        runners[policy] = engine_runner(policy, players)
    from bnb_sim._jit import numba

    limit = int(numba.config.NUMBA_NUM_THREADS)
    threads = tuple(sorted({max(1, min(t, limit)) for t in threads}, reverse=True))
    speeds: dict[str, dict[int, float]] = {name: {} for name in runners}
    spreads: dict[str, dict[int, float]] = {name: {} for name in runners}
    for count in threads:
        sizes = {}
        for name, play in runners.items():
            play(8, count)  # compile or load the kernels, set the threads up: not timed
            sizes[name] = games if games else calibrate(play, count, seconds)
        times: dict[str, list[float]] = {name: [] for name in runners}
        for _ in range(repeats):
            for name, play in runners.items():
                t0 = time.perf_counter()
                play(sizes[name], count)
                times[name].append(time.perf_counter() - t0)
        for name in runners:
            speeds[name][count] = sizes[name] / statistics.median(times[name])
            spreads[name][count] = max(times[name]) / min(times[name])
    return {
        "machine": {**machine(), "load_average": load},
        "reference": str(reference),
        "players": players,
        "repeats": repeats,
        "threads": list(threads),
        "games_per_second": speeds,
        "spread": spreads,
    }


def text(results: dict[str, Any]) -> str:
    """The machine line, games/s, ratios to the reference loop's random, thread scaling."""
    m = results["machine"]
    speeds = results["games_per_second"]
    threads = results["threads"]
    most = max(threads)
    lines = [
        f"machine  {m['cpu']}; {m['cores']} cores ({m['cores_usable']} usable)"
        + (f"; load {m['load_average']:.1f}" if m.get("load_average") is not None else "")
        + f"; python {m['python']}, numba {m['numba']}, numpy {m['numpy']}; "
        f"threads {'/'.join(str(t) for t in threads)} ({m.get('threading_layer') or '?'} layer)",
        f"reference {results['reference']} ({results['players']} players, medians of "
        f"{results['repeats']}, alternating)",
    ]
    for count in threads:
        ref = speeds["reference"][count]
        lines.append(f"{count} thread{'s' if count > 1 else ''}:")
        for name, by_threads in speeds.items():
            label = "reference random" if name == "reference" else name
            lines.append(
                f"  {label:<17s} {by_threads[count]:>12,.0f} games/s  "
                f"ratio {by_threads[count] / ref:5.2f}x the reference"
            )
    if len(threads) > 1:
        least = min(threads)
        parts = [
            f"{'reference' if name == 'reference' else name} "
            f"{by_threads[most] / by_threads[least]:.2f}x"
            for name, by_threads in speeds.items()
        ]
        lines.append(f"scaling {most} vs {least} thread(s): " + ", ".join(parts))
    return "\n".join(lines)


def default_reference(root: Path) -> Path | None:
    """``shared/bench/reference_loop.py`` in the folder above the repository ``root`` (or
    above that, for a git worktree one level deeper), if present."""
    for folder in (root.parent, root.parent.parent):
        candidate = folder / "shared" / "bench" / "reference_loop.py"
        if candidate.is_file():
            return candidate
    return None
