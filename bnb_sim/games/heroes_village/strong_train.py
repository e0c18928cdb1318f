"""Training Heroes of the Village's ``strong``: CMA-ES over the team bot's weights, scored by
the team's win rate (the core of ``bnb train --game hotv``; plain functions, no CLI).

:func:`plan_training` validates the settings, :func:`train_team` runs them and returns the
model (and writes it, with a checkpoint after every generation).

How a model is made (docs/policies.md, "strong"; docs/heroes-of-the-village.md):

* **Search.** A candidate is the start model's weights (default: the team bot's) times one
  factor per weight; CMA-ES (the ``cmaes`` library) searches the factors: start 1, step
  ``sigma`` (0.3), bounds 0..5, ``population`` (12) candidates a generation.
* **Score**: the team win rate with the candidate's weights in every seat, over ``teams``
  pet teams drawn per generation (of every combination of distinct pets for the player
  count) x ``deals`` game indices. Every candidate of a generation plays the same teams and
  game indices (common random numbers); every generation gets new indices.
* **Answer**: the CMA-ES mean after the last generation times the start weights (rounded to 4
  decimals, as the file stores them), checked against the ``team`` bot on ``check_deals``
  fresh game indices with every pet team, paired by game index: the win rates and their
  difference with its 95% interval go into the model file's ``[training]`` table.

Reproducible: the same plan (seed included) gives the same candidates, the same games and the
same file, for any thread count and on Dask. The seed derives every stream (CMA-ES, the teams
drawn, the games of the search and of the check). A budget in games fixes the number of
generations; a budget in minutes stops after the generation that runs out of time. The
checkpoint (JSON, beside the model) holds the plan and every generation's scores; a resumed
run replays the search from the seed, takes the recorded scores and plays only what is
missing, so it ends with the file an uninterrupted run writes.
"""

from __future__ import annotations

import itertools
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

import numpy as np

from bnb_sim.errors import BnbError
from bnb_sim.games.heroes_village.strong_model import TeamModel, write_model
from bnb_sim.runner.training import derive, load_checkpoint, open_evaluator, save_checkpoint

GAME = "heroes_village"
CHECKPOINT_VERSION = 1
POPULATION = 12
EVALUATE = "bnb_sim.games.heroes_village.strong_train:evaluate"
BOUND = 5.0  # the largest factor on a weight
Progress = Callable[[dict], None] | None


@dataclass
class HotvTrainPlan:
    """A validated training run (see the module docstring)."""

    players: int = 3
    seed: int = 0
    budget_games: int | None = None
    budget_minutes: float | None = None
    deals: int = 500  # game indices per candidate and pet team in one generation
    teams: int = 4  # pet teams drawn per generation
    population: int = POPULATION
    sigma: float = 0.3
    check_deals: int = 500  # fresh game indices of the final check (0: no check)
    difficulty: str = "standard"
    buildings: str | None = None
    start: TeamModel | None = None
    components: object = None  # HotvComponents, readings set
    # the run's random streams (derived from ``seed`` by plan_training)
    cma_seed: int = 0
    team_seed: int = 0
    master_seed: int = 0
    first_index: int = 0
    check_seed: int = 0
    readings: dict = field(default_factory=dict)

    #: what the final check plays against (the shared progress lines name it)
    against: ClassVar[str] = "the team bot"

    def games_per_generation(self) -> int:
        return self.population * self.teams * self.deals

    def all_teams(self) -> list[tuple[str, ...]]:
        from bnb_sim.games.heroes_village import layout as L

        return list(itertools.combinations(L.PET_NAMES, self.players))

    def key(self) -> dict:
        """What decides the answer (a resumed run must have the same)."""
        return {
            "game": GAME,
            "players": self.players,
            "seed": self.seed,
            "budget_games": self.budget_games,
            "budget_minutes": self.budget_minutes,
            "deals": self.deals,
            "teams": self.teams,
            "population": self.population,
            "sigma": self.sigma,
            "check_deals": self.check_deals,
            "difficulty": self.difficulty,
            "buildings": self.buildings,
            "start": list(self.start.weights) if self.start else None,
            "components": getattr(self.components, "content_hash", None),
            "streams": [
                self.cma_seed,
                self.team_seed,
                self.master_seed,
                self.first_index,
                self.check_seed,
            ],  # fmt: skip
        }


def default_start() -> TeamModel:
    """The team bot's own weights (the start of a run without another start model)."""
    from bnb_sim.games.heroes_village.policies import TEAM_DEFAULTS

    return TeamModel(tuple(float(w) for w in TEAM_DEFAULTS), {"made": "the team bot's defaults"})


def plan_training(
    *,
    players: int = 3,
    seed: int = 0,
    games: int | None = None,
    minutes: float | None = None,
    deals: int = 500,
    teams: int = 4,
    population: int = POPULATION,
    sigma: float = 0.3,
    check_deals: int = 500,
    difficulty: str | None = None,
    buildings: str | None = None,
    start: TeamModel | str | None = None,
    components=None,
    readings: dict | None = None,
) -> HotvTrainPlan:
    """Validate the settings of a training run (one clear :class:`BnbError` per problem)."""
    from bnb_sim.games.heroes_village.components import HotvComponents, load_components
    from bnb_sim.games.heroes_village.difficulty import canonical
    from bnb_sim.games.heroes_village.strong_model import load_model

    if players not in (2, 3, 4):
        raise BnbError(f"train: players must be 2, 3 or 4, got {players!r}")
    if games is None and minutes is None:
        raise BnbError("train: give a budget in games or in minutes")
    if games is not None and games < 1:
        raise BnbError("train: the budget in games must be positive")
    if minutes is not None and not minutes > 0:
        raise BnbError("train: the budget in minutes must be positive")
    if deals < 1 or teams < 1 or check_deals < 0 or population < 2 or not sigma > 0:
        raise BnbError("train: deals >= 1, teams >= 1, check_deals >= 0, population >= 2 and "
                       "sigma > 0")  # fmt: skip
    if not isinstance(components, HotvComponents):
        components = load_components(components)
    readings = dict(readings or {})
    if readings:
        components = components.with_readings(readings)
    if isinstance(start, str | os.PathLike):
        start = load_model(start)
    n_teams = math.comb(6, players)
    if teams > n_teams:
        raise BnbError(f"train: --teams {teams}: {players} players have {n_teams} pet teams")
    plan = HotvTrainPlan(
        players, int(seed), games, minutes, int(deals), int(teams), int(population),
        float(sigma), int(check_deals), canonical(difficulty or "standard"), buildings,
        start or default_start(), components,
        cma_seed=derive(seed, 1) % 2**31, team_seed=derive(seed, 2),
        master_seed=derive(seed, 3), first_index=0, check_seed=derive(seed, 4),
        readings=readings,
    )  # fmt: skip
    _config(plan)  # buildings, players and difficulty checked before anything plays
    one = plan.games_per_generation()
    if games is not None and games < one:
        raise BnbError(
            f"train: a budget of {games:,} games is less than one generation "
            f"({one:,} games); give at least that"
        )
    return plan


# ---- playing a candidate ---------------------------------------------------------------------
def _config(plan: HotvTrainPlan, master_seed: int | None = None):
    """The run config of the plan's games (the team kernel in every seat), built once."""
    from bnb_sim.games.heroes_village.runner import make_config

    seed = plan.master_seed if master_seed is None else master_seed
    cache = plan.__dict__.setdefault("_configs", {})
    if seed not in cache:
        cache[seed] = make_config(plan.components, plan.players, ["team"], "all",
                                  plan.difficulty, plan.buildings, seed)  # fmt: skip
    return cache[seed]


def won(config, weights, team, start: int, n: int, threads: int | None) -> tuple[np.ndarray, int]:
    """Won flags of games ``start .. start+n-1`` for pet ``team`` with the team bot's
    ``weights`` in every seat, and how many games did not finish (counted as lost)."""
    import sys

    from bnb_sim.games.heroes_village import layout as L
    from bnb_sim.games.heroes_village.play import output_shapes, play_batch

    # numba as the play module loaded it (with the cache configured); importing it through
    # the package's jit module here would make this file part of the kernel cache's
    # fingerprint (bnb_sim/cache_paths.py) and recompile every kernel
    numba = sys.modules["numba"]
    from bnb_sim.games.heroes_village.policies import TEAM
    from bnb_sim.games.heroes_village.runner import pet_codes

    k, kf, _, _, plugins = config.arrays()
    players = config.n_players
    kinds = np.full(players, TEAM, np.int64)
    params = np.tile(np.asarray(weights, np.float64), (players, 1))
    seat_shape, game_shape = output_shapes(n, players)
    seat_out = np.zeros(seat_shape, np.int64)
    game_out = np.zeros(game_shape, np.int64)
    if threads is not None:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    play_batch(k, kf, kinds, params, plugins, pet_codes(team), config.master, int(start),
               players, seat_out, game_out)  # fmt: skip
    finished = game_out[:, 0] == L.ST_OK
    return (game_out[:, 1] > 0) & finished, int((~finished).sum())


def evaluate(plan: HotvTrainPlan, call: tuple, threads: int | None) -> dict:
    """One candidate of a generation: ``call`` = (weights, pet teams, first game index); its
    mean team win rate (run here or on a Dask worker: the same number)."""
    weights, teams, start = call
    config = _config(plan)
    rates, stalled = [], 0
    for team in teams:
        flags, bad = won(config, weights, team, start, plan.deals, threads)
        rates.append(flags.mean())
        stalled += bad
    return {"score": float(np.mean(rates)), "stalled": stalled}


def plan_payload(plan: HotvTrainPlan) -> dict:
    """The plan as plain data for a Dask worker (its components as their dict)."""
    comps = plan.components
    data = {"plan": replace(plan, components=None),
            "components": {k: v for k, v in comps.data.items() if not k.startswith("_")},
            "content_hash": comps.content_hash, "source": comps.source}  # fmt: skip
    return {"key": repr(plan.key()), "rebuild": f"{__name__}:plan_from_data", "data": data}


def plan_from_data(data: dict) -> HotvTrainPlan:
    """Rebuild :func:`plan_payload`'s plan on a worker (the same component hash)."""
    from bnb_sim.games.heroes_village.components import components_from_dict
    from bnb_sim.runner.dask_backend import check_rebuilt_hash

    comps = components_from_dict(data["components"], data.get("source", "train"))
    check_rebuilt_hash(comps.content_hash, data["content_hash"])
    return replace(data["plan"], components=comps)


# ---- the search ------------------------------------------------------------------------------
@dataclass
class TrainResult:
    model: TeamModel
    generations: int
    games: int
    check: dict | None  # the final measurement against the team bot (None: no check)
    history: list[dict]
    path: Path | None = None


class _Search:
    """The CMA-ES loop of one run: generations played (or replayed from a checkpoint)."""

    def __init__(self, plan: HotvTrainPlan, evaluator, recorded: list[dict]):
        from cmaes import CMA

        self.plan, self.evaluator, self.recorded = plan, evaluator, recorded
        self.base = np.array(plan.start.weights, np.float64)
        bounds = np.tile([0.0, BOUND], (len(self.base), 1))
        self.opt = CMA(mean=np.ones(len(self.base)), sigma=plan.sigma, bounds=bounds,
                       seed=plan.cma_seed, population_size=plan.population)  # fmt: skip
        self.draw = np.random.default_rng(plan.team_seed)
        self.teams = plan.all_teams()
        self.history: list[dict] = []
        self.games = 0
        self.elapsed = 0.0

    def weights(self, x) -> tuple[float, ...]:
        return tuple(float(w) for w in self.base * np.asarray(x))

    def budget_left(self, cost: int) -> bool:
        plan = self.plan
        if plan.budget_games is not None and self.games + cost > plan.budget_games:
            return False
        return plan.budget_minutes is None or self.elapsed < 60.0 * plan.budget_minutes

    def generation(self, g: int) -> tuple[list[float], float, int]:
        """Ask, play (or take the recorded scores), tell; the candidates' scores, the seconds
        it took and the games that did not finish (as recorded, when replayed)."""
        started = time.monotonic()
        xs = [self.opt.ask() for _ in range(self.opt.population_size)]
        picked = self.draw.choice(len(self.teams), self.plan.teams, replace=False)
        teams = tuple(self.teams[i] for i in picked)
        if g < len(self.recorded):
            scores = [float(s) for s in self.recorded[g]["scores"]]
            spent = float(self.recorded[g].get("seconds", 0.0))
            stalled = int(self.recorded[g].get("stalled", 0))
        else:
            start = self.plan.first_index + g * self.plan.deals
            results = self.evaluator.map([(self.weights(x), teams, start) for x in xs])
            scores = [r["score"] for r in results]
            stalled = sum(int(r["stalled"]) for r in results)
            spent = time.monotonic() - started
        self.opt.tell([(x, -s) for x, s in zip(xs, scores, strict=True)])
        self.elapsed += spent
        return scores, spent, stalled


def train_team(
    plan: HotvTrainPlan,
    out: str | os.PathLike | None = None,
    *,
    checkpoint: str | os.PathLike | None = None,
    resume: bool = False,
    threads: int | None = None,
    progress: Progress = None,
    dask: str | None = None,
) -> TrainResult:
    """Run the training of ``plan``; write the model to ``out`` (when given).

    ``checkpoint`` (default: ``out`` + ``.checkpoint.json``) is rewritten after every
    generation; with ``resume`` the recorded generations are replayed, not played again.
    ``progress`` gets a dict after every generation (generation, games, best, median,
    elapsed seconds) and once before the final check (``stage: "check"``). ``dask``
    (``"local"`` or a scheduler address) plays each generation's candidates as Dask tasks:
    the same scores, so the same file."""
    ckpt = Path(checkpoint) if checkpoint else None
    if ckpt is None and out is not None:
        ckpt = Path(str(out) + ".checkpoint.json")
    recorded: list[dict] = []
    if resume:
        if ckpt is None or not ckpt.is_file():
            raise BnbError(f"train: nothing to resume (no checkpoint {ckpt})")
        recorded = load_checkpoint(ckpt, plan.key(), CHECKPOINT_VERSION)
    with open_evaluator(plan, EVALUATE, threads=threads, dask=dask,
                        payload=lambda: plan_payload(plan),
                        warm_config=_config(plan)) as evaluator:  # fmt: skip
        search = _Search(plan, evaluator, recorded)
        g = 0
        cost = plan.games_per_generation()
        while search.budget_left(cost):
            scores, seconds, stalled = search.generation(g)
            search.games += cost
            search.history.append({"generation": g, "scores": scores, "seconds": seconds,
                                   "games": search.games, "stalled": stalled})  # fmt: skip
            if g >= len(recorded) and ckpt is not None:
                save_checkpoint(ckpt, plan.key(), CHECKPOINT_VERSION, search.history)
            g += 1
            if progress is not None:
                progress({"generation": g, "games": search.games, "elapsed": search.elapsed,
                          "best": max(scores), "median": float(np.median(scores))})  # fmt: skip
    final = tuple(float(w) for w in np.round(search.base * search.opt.mean, 4))
    check = None
    if plan.check_deals:
        if progress is not None:
            progress({"stage": "check", "deals": plan.check_deals, "games": search.games})
        check = measure(plan, final, threads)
    total = search.games + (check["games"] if check else 0)
    model = TeamModel(final, training_table(plan, g, search.games, total, check))
    if out is not None:
        write_model(model, out)
    return TrainResult(model, g, total, check, search.history, Path(out) if out else None)


def measure(plan: HotvTrainPlan, weights, threads: int | None = None) -> dict:
    """``weights`` against the team bot's on ``check_deals`` fresh game indices with every pet
    team, paired by game index: both win rates and the difference with its 95% Student t
    interval over game indices (the independent unit: the teams share an index's draws)."""
    from scipy import stats

    from bnb_sim.games.heroes_village.policies import TEAM_DEFAULTS

    config = _config(plan, plan.check_seed)
    n, teams = plan.check_deals, plan.all_teams()
    mine, team = np.zeros(n), np.zeros(n)
    for pets in teams:
        mine += won(config, weights, pets, 0, n, threads)[0]
        team += won(config, TEAM_DEFAULTS, pets, 0, n, threads)[0]
    mine, team = mine / len(teams), team / len(teams)
    diff = mine - team
    half = float(stats.t.ppf(0.975, n - 1) * diff.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    mean = float(diff.mean())
    return {"strong": round(float(mine.mean()), 4), "team": round(float(team.mean()), 4),
            "difference": round(mean, 4), "low": round(mean - half, 4),
            "high": round(mean + half, 4), "deals": n, "teams": len(teams),
            "games": 2 * n * len(teams)}  # fmt: skip


def training_table(plan: HotvTrainPlan, generations: int, games: int, total: int,
                   check: dict | None) -> dict:  # fmt: skip
    """The model file's ``[training]`` table: what decides the model, never how long it
    took (the same plan writes the same bytes on any machine)."""
    import bnb_sim

    comps = plan.components
    table = {
        "method": f"CMA-ES over factors of the start weights (cmaes, start 1, step "
        f"{plan.sigma:g}, bounds 0..{BOUND:g}, {plan.population} candidates a generation); "
        "score: team win rate",
        "seed": plan.seed,
        "players": plan.players,
        "difficulty": plan.difficulty,
        "buildings": plan.buildings or "level:1,2,3",
        "generations": generations,
        "games": total,
        "search_games": games,
        "deals_per_team": plan.deals,
        "teams_per_generation": plan.teams,
        "components": str(getattr(comps, "source", "default")),
        "components_hash": str(getattr(comps, "content_hash", "")),
        "readings": [f"{k}={v}" for k, v in sorted(plan.readings.items())],
        "bnb_sim": bnb_sim.__version__,
    }
    if check:
        table["summary"] = (
            f"team win rate {check['strong']:.3f} vs the team bot's {check['team']:.3f}: "
            f"{100 * check['difference']:+.2f} pp [{100 * check['low']:+.2f}, "
            f"{100 * check['high']:+.2f}], {check['deals']:,} fresh game indices x "
            f"{check['teams']} pet teams"
        )
        table.update({f"check_{k}": v for k, v in check.items()})
    return table
