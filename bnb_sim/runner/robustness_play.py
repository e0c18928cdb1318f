"""The game-playing side of ``bnb robustness``: one simulation set-up played at every rung of
play strength, every seat the rung's bot, on the same game indices.

A game is a pure function of (seed, game index, seat, policies, components, readings), and
each chance source has its own stream, so game ``g`` deals the same tiles, cubes and tokens
at every rung: the rungs' findings are paired by game index
(:mod:`bnb_sim.analysis.robustness`). A game other than Builders & Biomes brings its own
rungs, play and findings through its ``robustness`` entry point (an object like
:data:`BUILDERS_BIOMES`). Nothing here imports numba at import time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from bnb_sim.errors import BnbError
from bnb_sim.runner.budget import confirm_games

__all__ = ["BUILDERS_BIOMES", "MAX_GAMES", "game_play", "run_robustness"]

#: games per rung kept in memory at most (4 players: 4 rows per game)
MAX_GAMES = 2_000_000

# the seat columns the findings need (the rest is dropped to save memory)
_KEEP_PREFIXES = ("item_",)
_KEEP = ("game", "seat", "won", "turns")


class _BuildersBiomes:
    """Rungs, play and findings of Builders & Biomes."""

    name = "builders_biomes"
    default_rungs = ("greedy", "heuristic", "strong")
    default_games = {2: 50_000, 3: 50_000, 4: 50_000}
    default_players = 4
    warms_engine = True  # the shared warm-up (feedback.warm_engine) compiles its kernels

    def prepare_components(self, components, expansion=None):
        """A Components from None, paths or a Components (with the expansion's data)."""
        from bnb_sim.games.builders_biomes.components_arg import components_arg

        return components_arg(components, expansion)

    def check_rungs(self, rungs: Sequence[str], players: int) -> list[str]:
        from bnb_sim.analysis.tournament_schedule import split_policy_list
        from bnb_sim.games.builders_biomes.policies.registry import check_distinct, parse_policy

        specs = [parse_policy(p) for p in split_policy_list(list(rungs))]
        if len(specs) < 2:
            raise BnbError("robustness: needs at least 2 rungs (--rungs A,B,...)")
        check_distinct(specs, "robustness")
        if not 2 <= int(players) <= 4:
            raise BnbError(f"robustness: players must be between 2 and 4, got {players}")
        return [s.label for s in specs]

    def parse_readings(self, reading: Sequence[str], variant=None) -> dict:
        """``--reading`` items (and ``--variant``) as the readings dict of a config."""
        from bnb_sim.games.builders_biomes import readings as R

        given = dict(R.parse_assignments(tuple(reading)))
        R.resolve(given, aliases={"--variant": variant})  # raises on a contradiction
        if variant is not None:
            given["variant"] = R.check_value("variant", variant)
        return given

    def play(self, rung, *, players, games, seed, components, readings, threads, dask,
             expansion=None, **options):  # fmt: skip
        """``(seats, games)`` of games ``0 .. games-1`` with ``rung`` in every seat."""
        if options:
            raise BnbError(f"robustness: unknown option {sorted(options)[0]!r}")
        keep = lambda c: c in _KEEP or c.startswith(_KEEP_PREFIXES)  # noqa: E731
        if dask is not None:
            from bnb_sim.runner.run_plan import plan_run
            from bnb_sim.runner.simulate import run_in_memory

            plan = plan_run(games, players, [rung], seed, components=components,
                            readings=readings, threads=threads, dask=dask,
                            expansion=expansion, yes=True)  # fmt: skip
            seats = run_in_memory(plan)
            seats = seats[[c for c in seats.columns if keep(c)]]
            # a seat's turns are its player's: the game's are their sum
            turns = seats.groupby("game", sort=True)["turns"].sum()
            return seats, pd.DataFrame({"game": turns.index, "turns": turns.to_numpy()})
        from bnb_sim.games.builders_biomes.run_config import GameConfig
        from bnb_sim.runner.design_play import play_games

        config = GameConfig.create(int(players), [rung], seed=seed, components=components,
                                   readings=readings, expansion=expansion)  # fmt: skip
        return play_games(config, games, threads=threads, keep=keep)

    def findings(self, seats: pd.DataFrame, games: pd.DataFrame):
        from bnb_sim.analysis.robustness_findings import bnb_findings

        return bnb_findings(seats, games)

    def check_policy(self, policy: str) -> str:
        from bnb_sim.games.builders_biomes.policies.registry import parse_policy

        return parse_policy(policy).label

    def play_policy(self, policy, rung, *, players, games, seed, components, readings,
                    threads, expansion=None, **_):  # fmt: skip
        """``policy`` as player 0 against ``rung`` in the other seats, the seats rotating
        (player ``g % P`` starts game ``g``): player 0's result per game."""
        from bnb_sim.games.builders_biomes.run_config import GameConfig
        from bnb_sim.runner.design_play import play_games

        rotating = {**dict(readings or {}), "seating": "rotate"}
        config = GameConfig.create(int(players), [policy] + [rung] * (int(players) - 1),
                                   seed=seed, components=components, readings=rotating,
                                   expansion=expansion)  # fmt: skip
        seats, _ = play_games(config, games, threads=threads,
                              keep=lambda c: c in ("game", "player", "won"))  # fmt: skip
        return seats


BUILDERS_BIOMES = _BuildersBiomes()


def game_play(game=None):
    """The rungs/play/findings object of ``game`` (a GameSpec, a name or None)."""
    from bnb_sim.games import get_game

    spec = game if hasattr(game, "entry") else get_game(game)
    play = spec.entry("robustness")
    return BUILDERS_BIOMES if play is None else play


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
