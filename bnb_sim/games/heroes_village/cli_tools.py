"""The Heroes of the Village handlers that play no study: the kernels ``bnb warmup`` compiles
and the speed benchmark (``bnb bench``). The exact odds of a fight, the component tables and
a game told turn by turn are the protocol hooks of its spec
(:mod:`bnb_sim.games.heroes_village.command_text`).
"""

from __future__ import annotations

from typing import Any

import click

from bnb_sim import jsonsafe
from bnb_sim.games.heroes_village.cli_common import _components


def warm_batch() -> None:
    """Compile (or load) the batch kernel, with the invariant checker."""
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.runner import make_config, play_arrays

    config = make_config(load_components(), 2, ["team"], None, check=True)
    play_arrays(config, config.teams[0], 0, 2)


def warm_one_game() -> None:
    """Compile (or load) the one-game kernel that keeps a log."""
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.play import play_game
    from bnb_sim.games.heroes_village.runner import make_config, pet_codes

    config = make_config(load_components(), 2, ["random"], None)
    k, kf, kinds, params, plugins = config.arrays()
    play_game(k, kf, kinds, params, plugins, pet_codes(config.teams[0]), config.master, 0, 2, 10)


def warm_step_api() -> None:
    """Compile (or load) the kernels the step-by-step ``Game`` calls one by one."""
    from bnb_sim.games.heroes_village.game import new_game

    game = new_game(0, 0, 2, ["team"], check=True)
    game.play()
    game.result()


def warmup_steps() -> list[tuple[str, Any]]:
    """(label, function) for ``bnb warmup``: this game's kernel entry points."""
    return [
        ("Heroes of the Village: batch kernel", warm_batch),
        ("Heroes of the Village: one game with its log", warm_one_game),
    ]


def compile_jobs() -> list:
    """This game's kernels as compile jobs (:mod:`bnb_sim.precompile`, ``bnb warmup``)."""
    from bnb_sim.precompile import Job

    here = "bnb_sim.games.heroes_village.cli_tools"
    return [
        Job(
            "hotv:batch",
            "Heroes of the Village: batch kernel",
            f"{here}:warm_batch",
            (),
            32,
            "heroes_village",
        ),
        Job(
            "hotv:step",
            "Heroes of the Village: step-by-step game API",
            f"{here}:warm_step_api",
            ("hotv:batch",),
            5,
            "heroes_village",
        ),
        Job(
            "hotv:game",
            "Heroes of the Village: one game with its log",
            f"{here}:warm_one_game",
            ("hotv:batch",),
            5,
            "heroes_village",
        ),
    ]


def games_per_second(policy: str, players: int, threads: int, seconds: float, repeats: int,
                     reading=()):  # fmt: skip
    """Median games/s of the batch kernel (no DataFrames, no Parquet)."""
    import statistics
    import time

    from bnb_sim.games.heroes_village.runner import make_config, play_arrays

    config = make_config(_components(None, reading), players, [policy], None, seed=1)
    team = config.teams[0]
    play_arrays(config, team, 0, 200, threads)  # compile or load
    n = 2000
    while True:  # size a block to about `seconds`
        t = time.perf_counter()
        play_arrays(config, team, 0, n, threads)
        dt = time.perf_counter() - t
        if dt >= seconds / 4 or n >= 4_000_000:
            break
        n *= 4
    n = max(1000, int(n * seconds / max(dt, 1e-9)))
    times = []
    for r in range(repeats):
        t = time.perf_counter()
        play_arrays(config, team, r * n, n, threads)
        times.append(time.perf_counter() - t)
    return n / statistics.median(times)


def bench(*, as_json=False, quick=False, reading=(), **_ignored) -> None:
    """``bnb bench --game hotv``: games/s of random, team and strong, 2 and 4 players, 1 and
    all threads."""
    from bnb_sim._jit import numba
    from bnb_sim.runner.run_meta import machine

    all_threads = int(numba.config.NUMBA_NUM_THREADS)
    seconds, repeats = (0.3, 1) if quick else (1.0, 3)
    rows = []
    for policy in ("random", "team", "strong"):
        for players in (2, 4):
            for threads in sorted({1, all_threads}):
                gps = games_per_second(policy, players, threads, seconds, repeats, reading)
                rows.append({"policy": policy, "players": players, "threads": threads,
                             "games_per_second": gps})  # fmt: skip
    result = {"game": "heroes_village", "machine": machine(), "games": rows,
              "readings": _components(None, reading).readings}  # fmt: skip
    if as_json:
        click.echo(jsonsafe.dumps(result, indent=2))
        return
    m = result["machine"]
    click.echo(f"{m['cpu']}, {m['cores_usable']} usable cores, numba {m['numba']}")
    click.echo("Heroes of the Village batch kernel (games/s, median of repeats):")
    for r in rows:
        click.echo(f"  {r['policy']:<7s} {r['players']} players  {r['threads']} thread(s)"
                   f"  {r['games_per_second']:>12,.0f}")  # fmt: skip
