"""``bnb bench``: a quick speed check of this machine (well under a minute).

Prints the machine (platform, CPU model, cores), Python, numba and numpy versions, then
medians of a few repeats of:

* games per second of the batch kernel, 4 players, ``random`` and ``heuristic`` tables, at
  1 thread and at all threads (kernel only: no DataFrames, no Parquet);
* the game's own speed checks (its ``bench_steps`` hook): for Builders & Biomes exact combat
  odds per second (a 21-token pile) and Monte Carlo combats per second;
* start time of the CLI: ``bnb --help`` (no numba), ``bnb odds`` with a warm and with an
  empty (cold) numba cache, and ``bnb simulate`` of a few games with a warm cache.

That report is for a game with speed checks of its own (the ``bench_steps`` hook: so far the
first game). Any other game's ``bnb bench --game NAME`` is its batch games/s, measured by the
same code for every game through its protocol (:mod:`bnb_sim.cli.bench_games`).

The measuring functions are reused by ``scripts/bench_engine.py`` (the longer benchmarks:
end to end runs with Parquet, peak memory, JIT versus ``NUMBA_DISABLE_JIT``). Nothing heavy is
imported until the command runs.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.bench_machine import load_average, machine, threading_layer
from bnb_sim.cli.options import cli_readings, game_option, other_game_handler, readings_option

FULL_PILE = (
    "wooden_sword,stone_sword*3,potato*3,iron_sword*4,diamond_sword*2,bow*2,hoe*2,pickaxe*2,tnt*2"
)


def _median(times: list[float]) -> float:
    return statistics.median(times)


def engine_entries(game: str | None = None):
    """``(create_config, play_arrays)`` of ``game`` (None: the default game) from the game
    registry: how a run config is made and how the batch kernel plays it (no DataFrames)."""
    from bnb_sim.games import get_game

    spec = get_game(game)
    return spec.need("create_config"), spec.need("play_arrays")


def games_per_second(
    policy: str,
    *,
    players: int = 4,
    threads: int | None = None,
    seconds: float = 0.4,
    repeats: int = 3,
    seed: int = 0,
    readings: dict[str, str] | None = None,
    expansion: str | None = None,
) -> dict[str, Any]:
    """Batch-kernel speed: median games/s of ``repeats`` runs of about ``seconds`` each,
    under the given rule ``readings`` (defaults for the others), with ``expansion`` or not."""
    from bnb_sim._jit import numba
    from bnb_sim.runner.dask_backend import quiet_numba_warnings

    create_config, play_arrays = engine_entries()
    quiet_numba_warnings()
    limit = int(numba.config.NUMBA_NUM_THREADS)
    threads = limit if threads is None else max(1, min(threads, limit))
    config = create_config(players, [policy], seed=seed, readings=readings, expansion=expansion)
    play_arrays(config, 0, 8, threads)  # load the kernel, build the tables
    n = 64
    while True:  # calibrate: grow n until one run takes a tenth of the target
        t0 = time.perf_counter()
        play_arrays(config, 0, n, threads)
        dt = time.perf_counter() - t0
        if dt >= seconds / 10 or n >= 1_000_000:
            break
        n *= 4
    n = max(64, min(int(n * seconds / max(dt, 1e-6)), 2_000_000))
    times = []
    for r in range(repeats):
        t0 = time.perf_counter()
        play_arrays(config, r * n, n, threads)
        times.append(time.perf_counter() - t0)
    return {
        "policy": policy,
        "players": players,
        "threads": threads,
        "games": n,
        "games_per_second": n / _median(times),
        "spread": max(times) / min(times),
        "expansion": expansion,
    }


def alternating_ratio(
    policy: str,
    reference: str = "heuristic",
    *,
    players: int = 4,
    threads: int | None = None,
    seconds: float = 0.4,
    repeats: int = 3,
    readings: dict[str, str] | None = None,
) -> dict[str, Any]:
    """``policy``'s games/s over ``reference``'s, measured alternately on the same games (so
    that a machine busy with other work slows both alike): the median of the per-repeat
    ratios."""
    from bnb_sim._jit import numba

    create_config, play_arrays = engine_entries()
    limit = int(numba.config.NUMBA_NUM_THREADS)
    threads = limit if threads is None else max(1, min(threads, limit))
    configs = [create_config(players, [p], seed=0, readings=readings) for p in (policy, reference)]
    for config in configs:
        play_arrays(config, 0, 8, threads)
    n = max(64, int(games_per_second(reference, players=players, threads=threads,
                                     seconds=seconds / 4, repeats=1,
                                     readings=readings)["games_per_second"] * seconds))  # fmt: skip
    ratios, speeds = [], {policy: [], reference: []}
    for r in range(repeats):
        dt = []
        for config, name in zip(configs, (policy, reference), strict=True):
            t0 = time.perf_counter()
            play_arrays(config, r * n, n, threads)
            dt.append(time.perf_counter() - t0)
            speeds[name].append(n / dt[-1])
        ratios.append(dt[1] / dt[0])
    return {
        "policy": policy,
        "reference": reference,
        "players": players,
        "threads": threads,
        "games": n,
        "ratio": _median(ratios),
        "games_per_second": _median(speeds[policy]),
        "reference_games_per_second": _median(speeds[reference]),
    }


def expansion_ratios(
    expansion: str = "farmers-market",
    policies: tuple[str, ...] = ("random", "heuristic"),
    *,
    seconds: float = 0.4,
    repeats: int = 3,
    readings: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Games/s of the same bots without and with ``expansion`` (4 players, all threads),
    measured alternately so that other work on the machine slows both alike; the ratio is
    expansion over base."""
    rows = []
    for policy in policies:
        runs: dict[str, list[float]] = {"base": [], "expansion": []}
        for _ in range(repeats):
            for key, exp in (("base", None), ("expansion", expansion)):
                one = games_per_second(
                    policy, seconds=seconds, repeats=1, readings=readings, expansion=exp
                )
                runs[key].append(one["games_per_second"])
        base, with_exp = _median(runs["base"]), _median(runs["expansion"])
        rows.append({
            "policy": policy, "expansion": expansion, "base_games_per_second": base,
            "expansion_games_per_second": with_exp, "ratio": with_exp / base,
        })  # fmt: skip
    return rows


def bnb_command() -> list[str]:
    """How to start the ``bnb`` CLI of this interpreter."""
    script = Path(sys.executable).with_name("bnb")
    if script.exists():
        return [str(script)]
    found = shutil.which("bnb")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from bnb_sim.cli import main; main(sys.argv[1:])"]


def _time_cli(args: list[str], env: dict[str, str] | None = None) -> float:
    t0 = time.perf_counter()
    subprocess.run(bnb_command() + args, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def cli_start(repeats: int = 3, cold: bool = True) -> dict[str, Any]:
    """Wall time of CLI commands as subprocesses (cold: an empty numba cache)."""
    odds = ["odds", "--hearts", "4", "--pile", FULL_PILE]
    out: dict[str, Any] = {}
    out["help_s"] = _median([_time_cli(["--help"]) for _ in range(repeats)])
    _time_cli(odds)  # make sure the normal cache is warm
    out["odds_warm_s"] = _median([_time_cli(odds) for _ in range(repeats)])
    if cold:
        with tempfile.TemporaryDirectory(prefix="bnb-bench-cache-") as folder:
            env = dict(os.environ, NUMBA_CACHE_DIR=folder, BNB_USER_NUMBA_CACHE_DIR=folder)
            out["odds_cold_s"] = _time_cli(odds, env)
    with tempfile.TemporaryDirectory(prefix="bnb-bench-run-") as folder:
        sim = ["simulate", "-n", "100", "-p", "2", "--policy", "random", "-q", "--force"]
        sim += ["--out", str(Path(folder) / "run")]
        _time_cli(sim)
        out["simulate_warm_s"] = _median([_time_cli(sim) for _ in range(repeats)])
    return out


def busy_warnings(results: dict[str, Any]) -> list[str]:
    """Why these numbers may not mean much: the machine was busy before the benchmark
    started (load average above the usable cores), more threads ran slower than one, or the
    repeats of one measurement differed a lot."""
    warnings = []
    m = results["machine"]
    cores = m.get("cores_usable") or m.get("cores") or 1
    load = m.get("load_average")
    if load is not None and load > cores:
        warnings.append(
            f"the machine is busy: load average {load:.1f} on {cores} usable cores before the "
            "benchmark started; other work competes for the CPUs, so these speeds are low "
            "and noisy"
        )
    by_policy: dict[str, dict[int, float]] = {}
    for g in results.get("games", []):
        by_policy.setdefault(g["policy"], {})[g["threads"]] = g["games_per_second"]
    for policy, speeds in by_policy.items():
        one, most = speeds.get(1), max(speeds)
        if one and most > 1 and speeds[most] < one:
            warnings.append(
                f"{policy}: {most} threads ran slower than 1 ({speeds[most]:,.0f} against "
                f"{one:,.0f} games/s): the cores are shared with other work or throttled"
            )
    noisy = [g for g in results.get("games", []) if g.get("spread", 1.0) > 1.5]
    for g in noisy:
        warnings.append(
            f"{g['policy']} at {g['threads']} thread(s): the repeats differed by "
            f"x{g['spread']:.1f}, so the median is uncertain"
        )
    return warnings


def run(
    json: bool = False,
    quick: bool = False,
    cold: bool = True,
    readings: dict | None = None,
    notice: bool = True,
) -> dict[str, Any]:
    """Every quick benchmark; prints a report (or one JSON object) and returns the numbers.
    ``readings`` apply to the games/s measurements. A cold kernel cache is compiled first,
    announced on stderr (``notice``) like ``bnb simulate`` does, and timed apart
    (``compile_seconds``), so no measurement includes it."""

    from bnb_sim.cli.game_hooks import need_hook, protocol_game
    from bnb_sim.feedback import status, warm_engine

    bench_steps = need_hook(protocol_game(None), "bench_steps", "bnb bench")

    repeats = 2 if quick else 3
    seconds = 0.2 if quick else 0.4
    load = load_average()  # before our own threads add to it
    results: dict[str, Any] = {"machine": {**machine(), "load_average": load}}
    results["compile_seconds"] = warm_engine([4], notice=notice)
    speeds = []

    for policy in ("random", "heuristic"):
        for threads in (1, None):
            status(f"games/s: {policy}, {threads or 'all'} thread(s)")
            speeds.append(
                games_per_second(
                    policy, threads=threads, seconds=seconds, repeats=repeats, readings=readings
                )
            )
    results["games"] = speeds
    results["strong"] = []
    for threads in (1, None):
        status(f"games/s: strong against heuristic, alternating, {threads or 'all'} thread(s)")
        results["strong"].append(
            alternating_ratio(
                "strong", threads=threads, seconds=seconds, repeats=repeats, readings=readings
            )  # fmt: skip
        )
    status("games/s with the Farmer's Market expansion, alternating with the base game")
    results["expansion"] = expansion_ratios(seconds=seconds / 2, repeats=repeats, readings=readings)
    results["readings"] = dict(readings or {})
    results["machine"]["threading_layer"] = threading_layer()
    for key, label, measure in bench_steps(quick=quick, repeats=repeats):
        status(label)
        results[key] = measure()
    status("CLI start times" + (" (one with an empty numba cache)" if cold else ""))
    results["cli"] = cli_start(repeats=repeats, cold=cold)
    results["warnings"] = busy_warnings(results)
    if json:
        click.echo(jsonsafe.dumps(results, indent=2))
    else:
        click.echo(text(results))
    return results


def text(results: dict[str, Any]) -> str:
    m = results["machine"]
    lines = [
        f"machine  {m['platform']}; {m['cpu']}; {m['cores']} cores ({m['cores_usable']} usable)"
        + (f"; load {m['load_average']:.1f}" if m.get("load_average") is not None else ""),
        f"versions python {m['python']}, numba {m['numba']}, numpy {m['numpy']}; "
        f"numba threads {m['numba_threads']} ({m.get('threading_layer') or '?'} layer)",
        "games/s  (batch kernel, 4 players, median of repeats"
        + "".join(f", {k}={v}" for k, v in (results.get("readings") or {}).items())
        + ")",
    ]
    for g in results["games"]:
        lines.append(
            f"  {g['policy']:<10s} {g['threads']:>2d} thread{'s' if g['threads'] > 1 else ' '}"
            f"  {g['games_per_second']:>12,.0f}"
        )
    for r in results.get("strong", []):
        lines.append(
            f"  strong     {r['threads']:>2d} thread{'s' if r['threads'] > 1 else ' '}"
            f"  {r['games_per_second']:>12,.0f}   {r['ratio']:.2f} x heuristic's "
            f"{r['reference_games_per_second']:,.0f} (measured alternately)"
        )
    for r in results.get("expansion", []):
        lines.append(
            f"  {r['policy']:<10s} with {r['expansion']}: {r['expansion_games_per_second']:,.0f}"
            f" against {r['base_games_per_second']:,.0f} games/s without, ratio "
            f"{r['ratio']:.2f} (all threads, alternating)"
        )
    e, mc = results["exact_odds"], results["monte_carlo"]
    lines.append(
        f"exact odds ({e['tokens']} tokens)   {e['per_second']:>10,.0f} /s ({e['ms']:.3f} ms)"
    )
    lines.append(f"Monte Carlo combats      {mc['combats_per_second']:>10,.0f} /s")
    if "compile_seconds" in results:
        lines.append(
            f"engine   compiled or loaded from the cache in {results['compile_seconds']:.1f} s "
            "(before, and not part of, any measurement)"
        )
    c = results["cli"]
    cli = f"CLI start  --help {c['help_s']:.2f} s; odds {c['odds_warm_s']:.2f} s warm"
    if "odds_cold_s" in c:
        cli += f", {c['odds_cold_s']:.2f} s cold (empty numba cache)"
    cli += f"; simulate 100 games {c['simulate_warm_s']:.2f} s warm"
    lines.append(cli)
    for warning in results.get("warnings", []):
        lines += textwrap.wrap(
            warning, 100, initial_indent="WARNING: ", subsequent_indent="         "
        )
    return "\n".join(lines)


@click.command("bench")
@game_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--quick", is_flag=True, help="Fewer and shorter repeats.")
@click.option("--no-cold", is_flag=True, help="Skip the CLI start with an empty numba cache.")
@click.option(
    "--reference",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="A reference game loop (a Python file): instead of the usual report, print each "
    "bot's games/s as a ratio to its random games/s, measured alternately in this process "
    "at 2 and 1 threads, and the thread scaling (docs/simulate.md, 'Warm-up and benchmarks').",
)
@readings_option
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
def bench(
    as_json: bool,
    quick: bool,
    no_cold: bool,
    reference: str | None,
    reading: tuple[str, ...],
    quiet: bool,
    game=None,
) -> None:
    """Measure games/s (random, heuristic, strong; 1 and all threads), exact odds/s, Monte Carlo
    combats/s and CLI start times, and print them with the machine and versions.

    With --game, a game without speed checks of its own: its games/s per policy and player
    count at 1 and all threads.

    scripts/bench_engine.py has the longer benchmarks (1M games end to end with Parquet,
    peak memory, JIT versus NUMBA_DISABLE_JIT).
    """
    from bnb_sim.cli.game_hooks import protocol_game
    from bnb_sim.core.protocol import hook
    from bnb_sim.feedback import status_lines

    with status_lines(not quiet, prefix="bnb bench: "):
        other_game_handler(click.get_current_context(), "bench", game)  # foreign options
        target = protocol_game(game)
        if hook(target, "bench_steps") is None:  # no speed checks of its own: its games/s
            from bnb_sim.cli import bench_games

            bench_games.run(target, as_json=as_json, quick=quick, reading=reading)
            return
        if reference is not None:
            run_reference(reference, json=as_json, quick=quick)
            return
        run(
            json=as_json,
            quick=quick,
            cold=not no_cold,
            readings=cli_readings(reading),
            notice=not quiet,
        )


def run_reference(reference: str, json: bool = False, quick: bool = False) -> dict[str, Any]:
    """``bnb bench --reference PATH``: the ratios of :mod:`bnb_sim.cli.bench_reference`."""

    from bnb_sim.cli import bench_reference

    results = bench_reference.measure(
        reference, repeats=3, seconds=0.2 if quick else 0.5, threads=(2, 1)
    )
    click.echo(jsonsafe.dumps(results, indent=2) if json else bench_reference.text(results))
    return results
