"""Playing a sweep: the same seeds under every variant of the components, keeping only the seat
columns the sweep's analysis reads (:func:`run_sweep`), for any competitive game: the game's
name reaches its config, policies and readings (:mod:`bnb_sim.runner.design_play`); its own
options (its OptionSpec data, e.g. a goal) reach its ``make_config``.
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
    game: str | None = None,
    options: dict | None = None,
):
    """Play the same seeds under every variant and analyse the effects (see
    :mod:`bnb_sim.analysis.sweep`); returns a :class:`~bnb_sim.analysis.sweep.SweepResult`.

    ``sets`` = ``[(path, [values...]), ...]`` (or prebuilt ``variants``); ``components`` is the
    baseline (the game's component data, a path or None for its default file). ``game``: a
    registered game's name (None: the default game); ``players`` None: the game's own count
    (its ``make_config`` decides); ``options``: the game's own options.
    """
    from bnb_sim.analysis.sweep_analysis import analyse_sweep
    from bnb_sim.analysis.sweep_variants import game_variants
    from bnb_sim.games import get_game

    components = study_hooks(game).load_components(components)
    if variants is None:
        variants = game_variants(get_game(game).game, components, sets or [], mode)
    confirm_games(len(variants) * int(games), "sweep", yes=yes)
    labels = _labels(policies, game)
    chosen = design_readings(readings, variant, seating="rotate", what="sweep", game=game)
    own = {"options": dict(options)} if options else {}  # a game without options takes none
    # every variant's config before any game: a value the game refuses stops the sweep here
    configs = [
        _config(
            players, labels, seed=seed, components=v.components, readings=chosen, game=game, **own
        )
        for v in variants
    ]
    players = players if players is not None else configs[0].n_players
    frames = {}
    expect_games(int(games) * len(variants))
    for i, (v, config) in enumerate(zip(variants, configs, strict=True)):
        _say(progress, f"  variant {i + 1}/{len(variants)}: {v.name}")
        frames[v.name] = play_games(config, int(games), threads=threads, keep=_sweep_keep,
                                    game=game)  # fmt: skip
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
            "variant": chosen.get("variant"),
            "readings": chosen,
            "estimated": _estimates(components, paths, game),
        },
    )
