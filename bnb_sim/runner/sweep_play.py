"""Playing a sweep: the same seeds under every variant of the components, keeping only the seat
columns the sweep's analysis reads (:func:`run_sweep`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bnb_sim.feedback import expect_games
from bnb_sim.runner.budget import confirm_games
from bnb_sim.runner.design_play import (
    Progress,
    _config,
    _estimates,
    _labels,
    _say,
    design_readings,
    play_games,
)
from bnb_sim.runner.study_hooks import study_hooks

# the seat columns a sweep keeps (the rest is dropped to save memory)
_SWEEP_SEAT_PREFIXES = ("xp", "fights_", "wins_")


def _sweep_keep(column: str) -> bool:
    return column in ("game", "seat", "policy", "won") or column.startswith(_SWEEP_SEAT_PREFIXES)


def run_sweep(
    sets: Sequence[tuple[str, Sequence[Any]]] | None = None,
    *,
    games: int,
    players: int,
    policies: Sequence[str],
    mode: str = "grid",
    seed: int = 0,
    components=None,
    readings=None,
    variant: str | None = None,
    threads: int | None = None,
    variants: Sequence | None = None,
    name: str | None = None,
    progress: Progress = None,
    yes: bool = False,
):
    """Play the same seeds under every variant and analyse the effects (see
    :mod:`bnb_sim.analysis.sweep`); returns a :class:`~bnb_sim.analysis.sweep.SweepResult`.

    ``sets`` = ``[(path, [values...]), ...]`` (or prebuilt ``variants``); ``components`` is the
    baseline (a Components, a path or None for the default file).
    """
    from bnb_sim.analysis.sweep_analysis import analyse_sweep
    from bnb_sim.analysis.sweep_variants import build_variants

    components = study_hooks().load_components(components)
    if variants is None:
        variants = build_variants(components, sets or [], mode)
    confirm_games(len(variants) * int(games), "sweep", yes=yes)
    labels = _labels(policies)
    chosen = design_readings(readings, variant, seating="rotate", what="sweep")
    frames = {}
    expect_games(int(games) * len(variants))
    for i, v in enumerate(variants):
        _say(progress, f"  variant {i + 1}/{len(variants)}: {v.name}")
        config = _config(
            players,
            labels,
            seed=seed,
            components=v.components,
            readings=chosen,
        )
        frames[v.name] = play_games(config, int(games), threads=threads, keep=_sweep_keep)
    paths = list(dict.fromkeys(p for v in variants for p in v.changes))
    return analyse_sweep(
        variants,
        frames,
        policies=labels,
        players=players,
        games=games,
        seed=seed,
        mode=mode,
        name=name,
        params={
            "paths": paths,
            "mode": mode,
            "games": int(games),
            "players": int(players),
            "policies": labels,
            "seed": int(seed),
            "variant": chosen["variant"],
            "readings": chosen,
            "estimated": _estimates(components, paths),
        },
    )
