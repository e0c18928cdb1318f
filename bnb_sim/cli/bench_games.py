"""``bnb bench --game NAME`` for a game without speed checks of its own (no ``bench_steps``
hook): the games/s of the policies and player counts its ``bench_plan`` hook lists
(:class:`bnb_sim.core.protocol.BenchPlan`; without it, its default policy and player count),
at 1 and at all threads, as the median of a few repeats.

What is timed is the game's ``play_arrays`` hook (its batch kernel alone, no rows built) where
it has one, else ``play_block`` (rows included). Every game is served by the same code,
through its protocol object; nothing here imports a game.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import click

from bnb_sim import jsonsafe

#: The seed of the games timed (as Heroes of the Village's own bench had it).
SEED = 1


def _player(game: Any) -> Any:
    """The function timed: ``player(config, start, n, threads)``."""
    from bnb_sim.core.protocol import hook

    return hook(game, "play_arrays") or game.play_block


def plan_of(game: Any, components: Any):
    """The game's :class:`~bnb_sim.core.protocol.BenchPlan` (its hook's, or its default
    policy at its default player count, headed by its title and what is timed)."""
    from bnb_sim.core.protocol import BenchPlan, hook

    own = hook(game, "bench_plan")
    plan = own(components) if own is not None else BenchPlan((game.default_policy,))
    if plan.label:
        return plan
    timed = "batch kernel" if hook(game, "play_arrays") is not None else "play_block"
    return BenchPlan(plan.policies, plan.players, f"{game.title} {timed}", plan.readings)


def games_per_second(play, config, threads: int, seconds: float, repeats: int) -> float:
    """Median games/s of ``play`` on ``config``: blocks sized to about ``seconds`` each."""
    play(config, 0, 200, threads)  # compile or load
    n = 2000
    while True:  # size a block to about `seconds`
        t = time.perf_counter()
        play(config, 0, n, threads)
        dt = time.perf_counter() - t
        if dt >= seconds / 4 or n >= 4_000_000:
            break
        n *= 4
    n = max(1000, int(n * seconds / max(dt, 1e-9)))
    times = []
    for r in range(repeats):
        t = time.perf_counter()
        play(config, r * n, n, threads)
        times.append(time.perf_counter() - t)
    return n / statistics.median(times)


def measure(game: Any, *, quick: bool = False, reading=()) -> dict[str, Any]:
    """The numbers of ``bnb bench --game NAME`` (``--quick``: one short repeat each)."""
    from bnb_sim._jit import numba
    from bnb_sim.cli.protocol_cmds import command_components
    from bnb_sim.runner.run_meta import machine

    components = command_components(game, None, reading)
    plan = plan_of(game, components)
    play = _player(game)
    all_threads = int(numba.config.NUMBA_NUM_THREADS)
    seconds, repeats = (0.3, 1) if quick else (1.0, 3)
    rows = []
    for policy in plan.policies:
        for players in plan.players:
            config = game.make_config(components, players=players, policies=[policy],
                                      seed=SEED, options={})  # fmt: skip
            for threads in sorted({1, all_threads}):
                gps = games_per_second(play, config, threads, seconds, repeats)
                rows.append({"policy": policy, "players": config.n_players, "threads": threads,
                             "games_per_second": gps})  # fmt: skip
    return {"game": game.name, "machine": machine(), "games": rows,
            "readings": dict(plan.readings), "label": plan.label}  # fmt: skip


def text(result: dict[str, Any], label: str) -> str:
    m = result["machine"]
    lines = [
        f"{m['cpu']}, {m['cores_usable']} usable cores, numba {m['numba']}",
        f"{label} (games/s, median of repeats):",
    ]
    for r in result["games"]:
        lines.append(f"  {r['policy']:<7s} {r['players']} players  {r['threads']} thread(s)"
                     f"  {r['games_per_second']:>12,.0f}")  # fmt: skip
    return "\n".join(lines)


def run(game: Any, *, as_json: bool = False, quick: bool = False, reading=()) -> dict:
    """Measure and print (text, or one JSON object with ``--json``); returns the numbers."""
    result = measure(game, quick=quick, reading=reading)
    label = result.pop("label")
    click.echo(jsonsafe.dumps(result, indent=2) if as_json else text(result, label))
    return result
