"""``bnb warmup``: compile (or load from the cache) every numba entry point once.

Run it once per host (and in Docker/CI images) before fanning out Dask workers: numba's cache
is not safe against many processes compiling the same kernel at the same time
(docs/design.md, "Kernels and the cache"). numba is imported inside the command only.
"""

from __future__ import annotations

import json
import time
from typing import Any

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.options import components_option
from bnb_sim.games.builders_biomes.components.loader import DEFAULT_LABEL

FULL_PILE = (
    "wooden_sword,stone_sword*3,potato*3,iron_sword*4,diamond_sword*2,bow*2,hoe*2,pickaxe*2,tnt*2"
)


def _steps(components, plugins: bool) -> list[tuple[str, Any]]:
    """(label, function) for every kernel entry point."""
    import numpy as np

    def batch(players: int, check: bool = False):
        def step() -> None:
            from bnb_sim.runner.batch import play_block
            from bnb_sim.runner.config import GameConfig

            policies = ["random", "greedy", "heuristic", "random"][:players]
            config = GameConfig.create(
                players, policies, seed=0, components=components, check=check
            )
            play_block(config, 0, 2, None)

        return step

    def one_game() -> None:
        from bnb_sim.games.builders_biomes.game import new_game

        game = new_game(0, 0, 2, ["heuristic", "greedy"], components=components, log=True)
        game.play()
        game.result()

    def odds() -> None:
        from bnb_sim.games.builders_biomes.odds import combat_odds, combat_odds_table

        combat_odds(FULL_PILE, 4, components=components, simulate=1000, seed=0)
        combat_odds_table("wooden_sword", components=components)

    def cube() -> None:
        from bnb_sim.api import collectable

        collectable(np.ones((4, 4, 4), bool))

    from bnb_sim.games.builders_biomes.components import load_components

    comps = components if components is not None else load_components()
    low, high = comps.rule("players_min"), comps.rule("players_max")
    # The kernel is specialised per player count (the plugin tuple has one entry per player).
    steps = [
        (
            f"batch kernel, {n} players" + (", invariant checks" if n == low else ""),
            batch(n, n == low),
        )
        for n in range(high, low - 1, -1)
    ]
    steps += [
        ("step-by-step game API", one_game),
        ("combat odds (exact + Monte Carlo)", odds),
        ("cube bitboards", cube),
    ]
    from bnb_sim.games import GAMES

    for spec in GAMES.values():  # the other games' kernels
        game_steps = spec.entry("warmup_steps")
        if game_steps is not None:
            steps += game_steps()
    if plugins:
        from bnb_sim.games.builders_biomes.policies.registry import plugin_names

        files = [f for f in comps.files if f != DEFAULT_LABEL] if components is not None else []
        for name in plugin_names():
            steps.append((f"plugin policy '{name}'", _plugin_step(name, files)))
    return steps


#: A plugin's warm-up (compile and one game) gets this long in its own process.
PLUGIN_TIMEOUT_S = 600


def warm_plugin(name: str, files: list[str]) -> None:
    """Compile plugin ``name`` and play one game with it (run in a child process)."""
    from bnb_sim.runner.batch import play_block
    from bnb_sim.runner.config import GameConfig

    components = files or None
    config = GameConfig.create(2, [name, "random"], components=components)
    play_block(config, 0, 1, None)


def _plugin_step(name: str, files: list[str]):
    """Warm a plugin in a child process: plugins are native code, and one that crashes
    (segfault), hangs or raises must not stop the warm-up of the others."""

    def step() -> None:
        import os
        import signal
        import subprocess
        import sys

        from bnb_sim.errors import BnbError

        code = (
            "import sys, json\n"
            "from bnb_sim.cli.warmup_cmd import warm_plugin\n"
            "from bnb_sim.errors import BnbError\n"
            "try:\n"
            "    warm_plugin(sys.argv[1], json.loads(sys.argv[2]))\n"
            "except BnbError as exc:\n"
            "    print(exc, file=sys.stderr); sys.exit(2)\n"
        )
        try:
            proc = subprocess.run(
                [sys.executable, "-c", code, name, json.dumps(files)],
                capture_output=True,
                text=True,
                timeout=PLUGIN_TIMEOUT_S,
                env=dict(os.environ),
            )
        except subprocess.TimeoutExpired:
            raise BnbError(f"did not finish within {PLUGIN_TIMEOUT_S} s") from None
        if proc.returncode < 0:
            signame = signal.Signals(-proc.returncode).name
            raise BnbError(f"the plugin crashed the process ({signame})")
        if proc.returncode != 0:
            lines = [line for line in proc.stderr.strip().splitlines() if line.strip()]
            raise BnbError(lines[-1] if lines else f"exit code {proc.returncode}")

    return step


@click.command("warmup")
@components_option
@click.option(
    "--plugins/--no-plugins",
    default=True,
    show_default=True,
    help="Also compile the policy plugins that are installed.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the timings as one JSON object.")
@click.option(
    "--quiet", "-q", is_flag=True, help="Print only the total and the cache folder, not each step."
)
def warmup(components, plugins: bool, as_json: bool, quiet: bool = False) -> None:
    """Compile (or load) every kernel once, then print where the numba cache lives.

    Run once per host before starting many worker processes (Dask), and in container images;
    later runs then load the compiled kernels in about a second.
    """
    from bnb_sim.errors import BnbError
    from bnb_sim.runner.dask_backend import quiet_numba_warnings

    quiet_numba_warnings()
    start = time.perf_counter()
    from bnb_sim._jit import CACHE_DIR, numba

    timings: list[dict[str, Any]] = [
        {"step": "import numba", "seconds": round(time.perf_counter() - start, 3), "ok": True}
    ]
    for label, step in _steps(components, plugins):
        t0 = time.perf_counter()
        entry: dict[str, Any] = {"step": label, "ok": True}
        try:
            step()
        except BnbError as exc:
            if not label.startswith("plugin"):
                raise
            entry.update(ok=False, error=str(exc))
        entry["seconds"] = round(time.perf_counter() - t0, 3)
        timings.append(entry)
        if not as_json and (not quiet or not entry["ok"]):  # a failed plugin always shows
            status = "ok" if entry["ok"] else f"FAILED: {entry['error']}"
            click.echo(f"{label:<44s} {entry['seconds']:7.2f} s  {status}")
    total = time.perf_counter() - start
    if as_json:
        out = {
            "cache_dir": CACHE_DIR,
            "numba": numba.__version__,
            "seconds": round(total, 3),
            "steps": timings,
        }
        click.echo(jsonsafe.dumps(out, indent=2))
        return
    click.echo(f"{'total':<44s} {total:7.2f} s")
    click.echo(f"numba cache: {CACHE_DIR}")
