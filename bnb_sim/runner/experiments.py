"""The game-playing side of experiment files: :func:`run_experiment` plays every item of a file
in order (an :class:`ItemOutcome` each) and :func:`run_item` plays one, through the modules
that play each kind of study (``simulation_item``, ``tournament_play``, ``compare_play``,
``sweep_play``, on the building blocks of ``design_play``); their public names are
importable from here too.

Every function here plays games with the game's block player (for Builders & Biomes
:func:`bnb_sim.games.builders_biomes.batch.play_block`), which is the only thing that imports
the engine (numba); the imports are inside the functions, so this module imports cleanly
without numba and the analysis modules never need it.

Determinism: a game depends only on (seed, game index, seat, policies, components, options),
so every result below is a function of its arguments, whatever the thread count.
Paired designs use ``seating="fixed"`` configs with the policy list permuted by hand (or
``seating="rotate"`` where both sides rotate the same way), so that two configs that differ
only in the policy of one seat play the same deal with the same dice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from bnb_sim.errors import BnbError
from bnb_sim.runner.budget import confirm_games, experiment_games
from bnb_sim.runner.compare_play import compare_player, run_compare
from bnb_sim.runner.design_play import Progress, _say, design_readings, play_games
from bnb_sim.runner.simulation_item import run_simulation
from bnb_sim.runner.sweep_play import run_sweep
from bnb_sim.runner.tournament_play import play_tournament, run_tournament

__all__ = [
    "ItemOutcome",
    "compare_player",
    "design_readings",
    "play_games",
    "play_tournament",
    "run_compare",
    "run_experiment",
    "run_item",
    "run_simulation",
    "run_sweep",
    "run_tournament",
]


@dataclass
class ItemOutcome:
    """One played item: its spec, its result and how long it took."""

    spec: Any
    result: Any  # (seats, games, meta) for simulations; a *Result otherwise
    seconds: float


def run_item(spec, *, threads: int | None = None, progress: Progress = None, yes: bool = False):
    """Play one item of an experiment (a *Spec of :mod:`bnb_sim.analysis.experiment`); the
    caller has counted its games (:func:`run_experiment`)."""
    if callable(getattr(spec, "run", None)):  # an item of another game plays itself
        return spec.run(threads=threads, progress=progress, yes=yes)
    if spec.kind == "tune":  # its plan names its game
        from bnb_sim.tune.experiment_item import run_tune_item

        return run_tune_item(spec, threads=threads, progress=progress)
    common = dict(seed=spec.seed, components=spec.components, readings=spec.readings,
                  game=spec.game)  # fmt: skip
    if spec.kind != "simulation":
        common["yes"] = yes
    if spec.kind == "simulation":
        return run_simulation(
            spec.players,
            spec.policies,
            spec.games,
            threads=threads,
            progress=progress,
            run_dir=spec.run_dir,
            yes=yes,
            **common,
        )
    if spec.kind == "tournament":
        return run_tournament(
            spec.policies,
            spec.players,
            spec.games,
            threads=threads,
            n_boot=spec.bootstrap,
            anchor=spec.anchor,
            name=spec.name,
            progress=progress,
            **common,
        )
    if spec.kind == "sweep":
        return run_sweep(
            games=spec.games,
            players=spec.players,
            policies=spec.policies,
            mode=spec.mode,
            variants=spec.variants,
            threads=threads,
            name=spec.name,
            progress=progress,
            **common,
        )
    if spec.kind == "compare":
        return run_compare(
            spec.a,
            spec.b,
            opponents=spec.opponents,
            players=spec.players,
            sprt=spec.sprt,
            precision=spec.precision,
            alpha=spec.alpha,
            beta=spec.beta,
            max_games=spec.max_games,
            threads=threads,
            name=spec.name,
            progress=progress,
            **common,
        )
    raise BnbError(f"unknown experiment item kind '{spec.kind}'")


def run_experiment(
    experiment, *, threads: int | None = None, progress: Progress = None, yes: bool = False
):
    """Play every item of an experiment in file order; returns the list of ItemOutcome.

    The games of all items are counted first: above the ``--yes`` threshold nothing plays.
    """
    confirm_games(experiment_games(experiment), f"run: {experiment.source}", yes=yes)
    threads = threads or experiment.threads
    outcomes = []
    for i, spec in enumerate(experiment.items):
        _say(progress, f"[{i + 1}/{len(experiment.items)}] {spec.kind} '{spec.name}'")
        start = time.perf_counter()
        result = run_item(spec, threads=threads, progress=progress, yes=yes)
        outcomes.append(ItemOutcome(spec, result, time.perf_counter() - start))
    return outcomes
