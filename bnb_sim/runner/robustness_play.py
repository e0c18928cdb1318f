"""The game-playing side of ``bnb robustness``: one simulation set-up played at every rung of
play strength, every seat the rung's bot, on the same game indices.

A game is a pure function of (seed, game index, seat, policies, components, readings), and
each chance source has its own stream, so game ``g`` deals the same tiles, cubes and tokens
at every rung: the rungs' findings are paired by game index
(:mod:`bnb_sim.analysis.robustness`). A game brings its own rungs, play and findings through
its ``robustness`` entry point (an object like Builders & Biomes'
:data:`bnb_sim.games.builders_biomes.robustness.ROBUSTNESS`). Nothing here imports numba at
import time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bnb_sim.errors import BnbError
from bnb_sim.runner.budget import confirm_games

__all__ = ["MAX_GAMES", "game_play", "run_robustness"]

#: games per rung kept in memory at most (4 players: 4 rows per game)
MAX_GAMES = 2_000_000


def game_play(game=None):
    """The rungs/play/findings object of ``game`` (a GameSpec, a name or None: the default
    game): its ``robustness`` entry."""
    from bnb_sim.games import get_game

    spec = game if hasattr(game, "entry") else get_game(game)
    play = spec.entry("robustness")
    if play is None:
        raise BnbError(f"robustness: {spec.title} declares no robustness study")
    return play


def run_robustness(
    rungs: Sequence[str] | None = None,
    players: int = 4,
    games: int | None = None,
    *,
    game=None,
    seed: int = 0,
    components: Any = None,
    readings: Mapping | None = None,
    expansion: str | None = None,
    threads: int | None = None,
    dask: str | None = None,
    progress: Callable[[str], None] | None = None,
    yes: bool = False,
    confidence: float = 0.95,
    policy: str | None = None,
    **options,
):
    """Play the set-up at every rung and analyse it; a
    :class:`~bnb_sim.analysis.robustness.RobustnessResult`. ``options`` are the game's own
    (Heroes of the Village: ``pets``, ``difficulty``, ``buildings``). With ``policy``, each
    rung also plays ``policy`` in one seat against the rung's bot in the others (seats
    rotating): the finding "win rate of POLICY against the rung" (Builders & Biomes)."""
    from bnb_sim.analysis.robustness import analyse_findings

    play = game_play(game)
    if dask is not None:  # a bad address: one line before any rung plays
        from bnb_sim.runner.dask_backend import check_address

        dask = check_address(dask)
    options = {k: v for k, v in options.items() if v is not None}
    labels = play.check_rungs(list(rungs or play.default_rungs), players)
    if games is None:
        games = play.default_games.get(int(players), 10_000)
    games = int(games)
    if not 2 <= games <= MAX_GAMES:
        raise BnbError(f"robustness: games must be between 2 and {MAX_GAMES:,}, got {games:,}")
    if policy is not None:
        if not hasattr(play, "play_policy"):
            raise BnbError("robustness --policy: a policy's win rate needs a competitive game "
                           "(Builders & Biomes)")  # fmt: skip
        policy = play.check_policy(policy)
    tables = getattr(play, "tables", lambda o: 1)({**options, "players": players})
    tables *= 2 if policy is not None else 1
    confirm_games(len(labels) * games * tables, "robustness", yes=yes)
    by_rung, seconds = {}, {}
    for i, rung in enumerate(labels):
        if progress is not None:
            progress(f"  rung {i + 1}/{len(labels)}: {rung} in every seat, {games:,} games")
        start = time.perf_counter()
        seats, games_df = play.play(
            rung, players=players, games=games, seed=seed, components=components,
            readings=readings, threads=threads, dask=dask, expansion=expansion, **options,
        )  # fmt: skip
        by_rung[rung] = play.findings(seats, games_df)
        if policy is not None:
            from bnb_sim.analysis.robustness_findings import policy_finding

            mixed = play.play_policy(
                policy, rung, players=players, games=games, seed=seed, components=components,
                readings=readings, threads=threads, expansion=expansion,
            )  # fmt: skip
            by_rung[rung].insert(0, policy_finding(mixed, policy, players))
        seconds[rung] = time.perf_counter() - start
        del seats, games_df
    params = {
        "game": play.name,
        "rungs": labels,
        "players": int(players),
        "games": games,
        "seed": int(seed),
        "expansion": expansion,
        "policy": policy,
        "readings": dict(readings or {}),
        "components": _components_text(components),
        **options,
    }
    return analyse_findings(
        by_rung, players=players, games=games, seed=seed, game=play.name,
        confidence=confidence, seconds=seconds, params=params,
    )  # fmt: skip


def _components_text(components) -> list[str]:
    files = getattr(components, "files", None)
    if files is not None:
        return [str(f) for f in files]
    if components is None:
        return []
    return [str(c) for c in (components if isinstance(components, list | tuple) else [components])]
