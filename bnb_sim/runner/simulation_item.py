"""Playing a simulation item of an experiment file: in memory, or into a run directory through
:func:`bnb_sim.runner.simulate.simulate` (resumed when it exists), as ``(seats, games, meta)``.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence

import pandas as pd

from bnb_sim.feedback import expect_games
from bnb_sim.runner.budget import confirm_games
from bnb_sim.runner.design_play import Progress, _config, _labels, _say, play_games


def run_simulation(
    players: int,
    policies: Sequence[str],
    games: int,
    *,
    seed: int = 0,
    components=None,
    readings=None,
    variant: str | None = None,
    seating: str | None = None,
    threads: int | None = None,
    progress: Progress = None,
    run_dir=None,
    yes: bool = False,
    game: str | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Play a simulation of ``game`` (a game with a ``studies`` entry; None: the default
    game): ``(seats, games, meta)`` in the run-format layout.

    In memory by default; with ``run_dir`` the games go into a run directory through
    :func:`bnb_sim.runner.simulate.simulate` (chunked Parquet parts; an existing directory is
    resumed, so re-running an experiment reuses finished parts) and are loaded back.
    """
    confirm_games(games, "simulation", yes=yes)
    if run_dir is not None:
        return _simulate_to_dir(
            run_dir,
            players,
            policies,
            games,
            yes=yes,
            seed=seed,
            components=components,
            readings=readings,
            variant=variant,
            seating=seating,
            threads=threads,
            progress=progress,
            game=game,
        )
    config = _config(
        players,
        _labels(policies, game),
        game=game,
        seed=seed,
        components=components,
        readings=readings,
        variant=variant,
        seating=seating,
    )
    _say(progress, f"  {games:,} games, {players} players: {', '.join(config.labels)}")
    expect_games(games)
    start = time.perf_counter()
    seats, games_df = play_games(config, games, threads=threads, game=game)
    seconds = time.perf_counter() - start
    comps = config.components
    meta = {
        "kind": "simulate",
        "status": "complete",
        "params": {
            "games": int(games),
            "players": int(players),
            "policies": config.labels,
            "policy_specs": [p.to_dict() for p in config.policies],
            "seed": int(seed),
            "variant": config.variant,
            "seating": config.seating,
            "pickaxe_optional": config.pickaxe_optional,
            "readings": config.readings.to_dict(),
            "threads": threads,
        },
        "components": {
            "source": comps.source,
            "content_hash": comps.content_hash,
            "estimated_values": comps.n_estimates,
            "estimated_keys": [r["key"] for r in comps.estimates()],
        },
        "timing": {
            "seconds": round(seconds, 3),
            "games_per_second": round(games / seconds) if seconds > 0 else None,
        },
    }
    return seats, games_df, meta


def _simulate_to_dir(run_dir, players, policies, games, *, progress: Progress = None,
                     game: str | None = None, **kw):  # fmt: skip
    from pathlib import Path

    from bnb_sim.runner.run_reader import load_run
    from bnb_sim.runner.simulate import simulate

    path = Path(run_dir)
    resume = (path / "run.json").exists()
    _say(progress, f"  {games:,} games into {path}{' (resuming)' if resume else ''}")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="First-class function type feature")
        simulate(int(games), int(players), _labels(policies, game), out=path, resume=resume,
                 game=game, **kw)  # fmt: skip
    return load_run(path)
