"""Heroes of the Village in ``bnb robustness`` and ``[[robustness]]`` items: its rungs, how a
rung plays, its findings (and the set-up of a run folder, ``--run DIR``).

Every seat plays the rung's bot; every pet team of ``--pets`` plays the same game indices at
every rung (the same pouch, dice and stacks), so the findings pair across rungs and teams:

* ``team_win_rate``: the share of games won, over every team played (clustered by game index);
* ``game_length``: rounds per game;
* ``pet_effect_PET`` (with ``--pets all``): teams with the pet minus teams without it, per game
  index (the run report's paired pet effect), in percentage points.

The shared side is :mod:`bnb_sim.runner.robustness_play` (the game entry point
``robustness`` is :data:`ROBUSTNESS`); an experiment file's ``[[robustness]]`` item with
``game = "hotv"`` is the shared item of a protocol game
(:mod:`bnb_sim.analysis.robustness_item_parse`), which plays through the same entry.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from bnb_sim.errors import BnbError

__all__ = ["ROBUSTNESS", "hotv_findings"]


def hotv_findings(games: pd.DataFrame) -> list:
    """The team win rate, the game length and each pet's paired effect of one rung."""
    from bnb_sim.analysis.robustness import mean_sample, ratio_sample
    from bnb_sim.games.heroes_village import layout as L

    codes, index = pd.factorize(games["game"], sort=True)
    count = np.bincount(codes, minlength=len(index)).astype(float)
    won = games["won"].to_numpy(float)
    out = [
        ratio_sample("team_win_rate", "Team win rate", "rate", np.asarray(index),
                     np.bincount(codes, weights=won, minlength=len(index)), count),
        ratio_sample("game_length", "Game length (rounds per game)", "mean", np.asarray(index),
                     np.bincount(codes, weights=games["rounds"].to_numpy(float),
                                 minlength=len(index)), count, unit="rounds"),
    ]  # fmt: skip
    if games["pets"].nunique() < 2:
        return out
    wide = games.pivot_table(index="game", columns="pets", values="won", observed=True)
    wide = wide.dropna().astype(float)
    for pet in L.PET_NAMES:
        has = [c for c in wide.columns if pet in str(c).split(",")]
        lacks = [c for c in wide.columns if pet not in str(c).split(",")]
        if not has or not lacks:
            continue
        out.append(mean_sample(
            f"pet_effect_{pet}", f"Pet {pet}: teams with it minus teams without", "pp",
            wide.index.to_numpy(), wide[has].mean(axis=1) - wide[lacks].mean(axis=1),
            reference=0.0, group="pets",
        ))  # fmt: skip
    return out


class _HeroesVillage:
    """Rungs, play and findings of Heroes of the Village (cooperative: no seat findings)."""

    name = "heroes_village"
    default_rungs = ("random", "team", "strong")
    default_games = {2: 10_000, 3: 10_000, 4: 10_000}
    default_players = 3
    warms_engine = False  # its kernels load as the first rung plays

    def prepare_components(self, components, expansion=None):
        from bnb_sim.games.heroes_village.components_arg import components_arg

        if expansion is not None:
            raise BnbError(f"--expansion {expansion} is not an expansion of Heroes of the Village")
        return components_arg(components)

    def check_rungs(self, rungs: Sequence[str], players: int) -> list[str]:
        from bnb_sim.analysis.tournament_schedule import split_policy_list
        from bnb_sim.games.heroes_village.policies import parse_policy

        labels = [parse_policy(p).label for p in split_policy_list(list(rungs))]
        if len(labels) < 2:
            raise BnbError("robustness: needs at least 2 rungs (--rungs A,B,...)")
        twice = [x for x in labels if labels.count(x) > 1]
        if twice:
            raise BnbError(f"robustness: the rung {twice[0]!r} is listed twice")
        if not 2 <= int(players) <= 4:
            raise BnbError(f"robustness: players must be between 2 and 4, got {players}")
        return labels

    def tables(self, options: Mapping) -> int:
        """Pet teams per game index (every team plays every index)."""
        from bnb_sim.games.heroes_village.runner import parse_pets

        return len(parse_pets(options.get("pets"), int(options.get("players") or 3)))

    def play(self, rung, *, players, games, seed, components, readings, threads, dask,
             expansion=None, pets=None, difficulty=None, buildings=None):  # fmt: skip
        from bnb_sim.games.heroes_village.components_arg import components_arg
        from bnb_sim.games.heroes_village.runner import make_config, play_block

        if expansion is not None:
            raise BnbError(f"--expansion {expansion} is not an expansion of Heroes of the Village")
        comps = components_arg(components)
        if readings:
            comps = comps.with_readings(dict(readings))
        config = make_config(comps, players, [rung], pets, difficulty or "standard", buildings,
                             seed)  # fmt: skip
        if dask is not None:  # the rung's chunks on Dask workers: the same rows
            from bnb_sim.runner.dask_blocks import DaskBlocks

            with DaskBlocks(dask, threads) as blocks:
                return blocks.play(config, 0, int(games), report=False)
        return play_block(config, 0, int(games), threads)

    def findings(self, seats: pd.DataFrame, games: pd.DataFrame) -> list:
        return hotv_findings(games)

    def run_setup(self, run, params: dict, comps: dict) -> dict:
        """``{components, expansion, readings, options}`` of run folder ``run``."""
        return run_setup(run, params, comps)


def run_setup(run, params: dict, comps: dict) -> dict:
    """The set-up of run folder ``run`` (``bnb robustness --run``): the run stores its whole
    component data (readings included): rebuilt from it."""
    from bnb_sim.games.heroes_village import layout as L
    from bnb_sim.games.heroes_village.components import components_from_dict

    teams = list(params.get("pet_teams") or [])
    players = int(params["players"])
    if len(teams) == 1:
        pets = teams[0]
    elif len(teams) == math.comb(len(L.PET_NAMES), players):
        pets = "all"
    else:
        raise BnbError(f"--run {run}: its {len(teams)} pet teams are neither one team nor all")
    if not isinstance(comps.get("data"), dict):
        raise BnbError(f"--run {run}: its run.json holds no component data")
    components = components_from_dict(comps["data"], f"{run}/run.json")
    options = {"pets": pets, "difficulty": params.get("difficulty"),
               "buildings": params.get("buildings")}  # fmt: skip
    return {"components": components, "expansion": None, "readings": {}, "options": options}


ROBUSTNESS = _HeroesVillage()
