"""Builders & Biomes' side of ``bnb robustness`` (entry point ``robustness``): its rungs, the
games of a rung with every seat the rung's bot, its findings, a policy against each rung, and
the set-up of a run folder (``--run DIR``). The shared study is
:mod:`bnb_sim.runner.robustness_play`. Nothing here imports numba at import time.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from bnb_sim.errors import BnbError

#: the built-in data is listed in a run's files by its label ("builders_biomes.toml (default)")
_BUILT_IN = (" (default)", " (expansion)")

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

    def run_setup(self, run: Path, params: dict, comps: dict) -> dict:
        """``{components, expansion, readings, options}`` of run folder ``run``."""
        return run_setup(run, params, comps)


def run_setup(run: Path, params: dict, comps: dict) -> dict:
    """The set-up of run folder ``run`` (``bnb robustness --run``): its component files
    (they must still be there) and readings."""
    from bnb_sim.games.builders_biomes.components import load_components

    expansion = params.get("expansion")
    # the built-in data is listed by its label ("builders_biomes.toml (default)")
    files = [str(f) for f in comps.get("files") or [] if not str(f).endswith(_BUILT_IN)]
    missing = [f for f in files if not Path(f).is_file()]
    if missing:
        raise BnbError(f"--run {run}: its component file {missing[0]} is not there any more")
    components = load_components(files, expansion=expansion)
    readings = dict(params.get("readings") or {})
    return {"components": components, "expansion": expansion, "readings": readings,
            "options": {}}  # fmt: skip


ROBUSTNESS = _BuildersBiomes()
