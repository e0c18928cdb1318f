"""``bnb warmup``: compile (or load from the cache) every numba entry point once.

Run it once per host (and in Docker/CI images) before fanning out Dask workers: numba's cache
is not safe against many processes compiling the same kernel at the same time
(docs/design.md, "Kernels and the cache"). The kernels are compiled as the games' compile
jobs (:mod:`bnb_sim.precompile`) in up to ``--jobs`` processes at once, each job after the jobs
whose kernels it calls. numba is imported inside the command only.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.options import components_option, game_option


def all_jobs(only: str | None = None) -> list:
    """Every game's compile jobs (the protocol's ``compile_jobs`` hook, where it has one);
    ``only``: one game's (its registry name). A game's jobs come after its own only."""
    from bnb_sim.core.protocol import hook
    from bnb_sim.core.registry import all_games

    jobs = []
    for game in all_games():
        if only is not None and game.name != only:
            continue
        game_jobs = hook(game, "compile_jobs")
        if game_jobs is not None:
            jobs += game_jobs()
    return jobs


def usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _plugin_steps(components, plugins: bool, game_name: str | None) -> list[tuple[str, Any]]:
    if not plugins:
        return []
    from bnb_sim.cli.game_hooks import protocol_game
    from bnb_sim.core.protocol import hook

    game = protocol_game(game_name)  # --components are this game's (the default without --game)
    plugin_names = hook(game, "policy_plugins")
    if plugin_names is None:
        return []
    # --components gives the loaded Components (its files go to the plugins' processes)
    default = set(game.load_components([]).files) if components is not None else set()
    files = [f for f in components.files if f not in default] if components is not None else []
    return [
        (f"plugin policy '{name}'", _plugin_step(game.name, name, files)) for name in plugin_names()
    ]


#: A plugin's warm-up (compile and one game) gets this long in its own process.
PLUGIN_TIMEOUT_S = 600


def warm_plugin(game_name: str, name: str, files: list[str]) -> None:
    """Compile plugin ``name`` of game ``game_name`` and play one game with it against a
    random player (run in a child process), through the game protocol."""
    from bnb_sim.core.registry import get_game

    game = get_game(game_name)
    config = game.make_config(game.load_components(files), players=2,
                              policies=[name, "random"], seed=0, options={})  # fmt: skip
    game.play_block(config, 0, 1, None)


def _plugin_step(game_name: str, name: str, files: list[str]):
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
            "    warm_plugin(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]))\n"
            "except BnbError as exc:\n"
            "    print(exc, file=sys.stderr); sys.exit(2)\n"
        )
        try:
            proc = subprocess.run(
                [sys.executable, "-c", code, game_name, name, json.dumps(files)],
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
@game_option
@components_option
@click.option(
    "--plugins/--no-plugins",
    default=True,
    show_default=True,
    help="Also compile the policy plugins that are installed.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Processes compiling at once (default: the usable cores).",
)
@click.option(
    "--recheck",
    is_flag=True,
    help="Run every compile job, also those this cache marks done (each loads what is "
    "compiled and compiles what is missing).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the timings as one JSON object.")
@click.option(
    "--quiet", "-q", is_flag=True, help="Print only the total and the cache folder, not each step."
)
def warmup(
    components,
    plugins: bool,
    jobs: int | None,
    as_json: bool,
    quiet: bool = False,
    recheck: bool = False,
    game=None,
) -> None:
    """Compile every kernel once, then print where the numba cache lives.

    Run once per host before starting many worker processes (Dask), and in container images;
    later runs then load the compiled kernels in about a second. The kernels compile in up to
    --jobs processes at once (about 2-3 minutes on 2 cores from an empty cache). A compile job
    this cache marks done (for this numba and Python) is listed as cached and not run again
    (--recheck runs it). With --game, only that game's kernels and plugins (Heroes of the
    Village alone: about a minute on 2 cores). Component files (--components) change no compiled
    code; they are used for the plugins.
    """
    import resource

    from bnb_sim.errors import BnbError
    from bnb_sim.precompile import run_jobs, split_done
    from bnb_sim.runner.dask_backend import quiet_numba_warnings

    quiet_numba_warnings()
    start = time.perf_counter()
    from bnb_sim._jit import CACHE_DIR, cache_root, numba

    timings: list[dict[str, Any]] = [
        {"step": "import numba", "seconds": round(time.perf_counter() - start, 3), "ok": True}
    ]
    processes = jobs or usable_cores()

    def show(entry: dict[str, Any]) -> None:
        timings.append(entry)
        if not as_json and (not quiet or not entry["ok"]):  # a failure always shows
            status = "ok" if entry["ok"] else f"FAILED: {entry['error']}"
            status = "cached (compiled before)" if entry.get("cached") else status
            cpu = f"{entry['cpu_seconds']:7.1f} s CPU" if "cpu_seconds" in entry else " " * 13
            click.echo(f"{entry['step']:<48s} {entry['seconds']:7.1f} s {cpu}  {status}")

    def done(result) -> None:
        entry = {
            "step": result.job.label,
            "job": result.job.name,
            "ok": result.ok,
            "seconds": round(result.seconds, 3),
            "cpu_seconds": round(result.cpu, 3),
        }
        if not result.ok:
            entry["error"] = result.error
        show(entry)

    # --game NAME: that game's jobs only; without it every game's (the plugins: the default's)
    given = click.get_current_context().get_parameter_source("game").name != "DEFAULT"
    only = game.name if given and game is not None else None
    todo, cached = split_done(all_jobs(only))
    if recheck:
        todo, cached = todo + cached, []
    for job in cached:
        show({"step": job.label, "job": job.name, "ok": True, "cached": True, "seconds": 0.0})
    if not as_json and not quiet and todo:
        click.echo(f"compiling in up to {processes} process(es) at once")
    results = run_jobs(todo, processes, on_done=done)
    failed = [r for r in results if not r.ok]
    for label, step in _plugin_steps(components, plugins, only):
        t0 = time.perf_counter()
        entry: dict[str, Any] = {"step": label, "ok": True}
        try:
            step()
        except BnbError as exc:
            entry.update(ok=False, error=str(exc))
        entry["seconds"] = round(time.perf_counter() - t0, 3)
        show(entry)
    total = time.perf_counter() - start
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = resource.getrusage(resource.RUSAGE_SELF)
    cpu = children.ru_utime + children.ru_stime + own.ru_utime + own.ru_stime
    if as_json:
        out = {
            "cache_dir": CACHE_DIR,
            "cache_root": str(cache_root()),
            "numba": numba.__version__,
            "jobs": processes,
            "seconds": round(total, 3),
            "cpu_seconds": round(cpu, 3),
            "steps": timings,
        }
        click.echo(jsonsafe.dumps(out, indent=2))
    else:
        click.echo(f"{'total':<48s} {total:7.1f} s {cpu:7.1f} s CPU")
        click.echo(f"numba cache: {cache_root()}")
    if failed:
        names = ", ".join(r.job.label for r in failed)
        raise BnbError(f"warmup: compiling failed: {names} (see the lines above)")
