"""Training the ``strong`` bot: CMA-ES over its model weights by self-play against a field.

The training core of the later ``bnb train`` command (plain functions, no CLI):
:func:`plan_training` validates the settings, :func:`train_strong` runs them and returns the
model (and writes it, with a checkpoint after every generation).

How a model is made (docs/policies.md, "strong"):

* **Search.** CMA-ES (the ``cmaes`` library) over the model's weights, scaled so that one
  unit is about one weight's size (``xp`` stays 1: it is the unit of the others, and the
  Farmer's Market weights stay as they are without the expansion). A candidate plays
  ``deals`` deals against every member of the field; on a deal it sits in every seat in turn
  (the other seats all hold the field member), so seat and deal luck cancel within a deal.
  Its score is its mean game score (a win 1, a win shared by k players 1/k). All candidates
  of a generation play the same deals (common random numbers); every generation gets new ones.
* **The field**: fixed opponents (default ``heuristic``, ``greedy`` and ``heuristic`` with a
  doubled weapon weight) and, every ``self_every`` generations, a snapshot of the search's
  mean (the last two stay): a model that only exploited one fixed bot would lose to its own
  snapshots.
* **Answer**: the CMA-ES mean after the last generation (rounded to 6 decimals, as the file
  stores it), measured against ``heuristic`` on ``check_deals`` fresh deals that no step of
  the search saw: the mean pair score with its 95% interval goes into the model file.

Reproducible: the same plan (seed included) gives the same candidates, the same games and the
same file, for any thread count. A budget in games fixes the number of generations; a budget
in minutes stops after the generation that runs out of time (then the number of generations
depends on the machine; the checkpoint records it). The checkpoint (JSON) holds the plan and
every generation's scores; :func:`train_strong` with ``resume=True`` replays the search from
the seed, takes the recorded scores and plays only what is missing, so a resumed run ends with
the file an uninterrupted one writes. The budget may change on resume (a run can be extended or
cut short: it ends as an uninterrupted run with the new budget would).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from bnb_sim.errors import BnbError
from bnb_sim.games.builders_biomes.policies.kinds import (
    HEURISTIC_WEIGHTS,
    N_STRONG_PARAMS,
    STRONG,
    STRONG_BIAS0,
    STRONG_FEATURES,
    STRONG_PACE0,
    STRONG_STAGE_SIZE,
    STRONG_STAGES,
)
from bnb_sim.games.builders_biomes.strong_model import (
    StrongModel,
    expansion_name,
    heuristic_start,
    write_model,
)
from bnb_sim.runner.training import derive as _derive
from bnb_sim.runner.training import load_checkpoint, open_evaluator, save_checkpoint

DEFAULT_FIELD = ("heuristic", "greedy", "heuristic:weapon=2")
FIXED = ("xp", "fm_item", "fm_vegetable")  # never searched (fm_* searched with the expansion)
CHECKPOINT_VERSION = 1
Progress = Callable[[dict], None] | None


@dataclass
class TrainPlan:
    """A validated training run (see the module docstring)."""

    players: int = 2
    seed: int = 0
    budget_games: int | None = None
    budget_minutes: float | None = None
    opponents: tuple[str, ...] = DEFAULT_FIELD
    self_every: int = 25  # generations between snapshots of the search's mean (0: none)
    deals: int = 100  # deals per candidate and field member in one generation
    population: int = 0  # 0: CMA-ES's default for the dimension
    sigma: float = 0.3
    check_deals: int = 1000
    start: StrongModel | None = None
    components: object = None  # a Components (None: the defaults)
    readings: dict = field(default_factory=dict)

    @property
    def expansion(self) -> str:
        return expansion_name(getattr(self.components, "expansion", None))

    def searched(self) -> tuple[np.ndarray, np.ndarray]:
        """Indices of the searched weights and their scales (one unit of the search)."""
        from bnb_sim.games.builders_biomes.policies.kinds import HEURISTIC_DEFAULTS

        fixed = set(FIXED) - ({"fm_item", "fm_vegetable"} if self.expansion != "none" else set())
        idx, scale = [], []
        for stage in range(len(STRONG_STAGES)):
            for j, name in enumerate(STRONG_FEATURES):
                if name in fixed or (name == "bias_buy" and self.expansion == "none"):
                    continue
                idx.append(stage * STRONG_STAGE_SIZE + j)
                if j < STRONG_BIAS0:
                    scale.append(max(abs(HEURISTIC_DEFAULTS[j]), 0.5))
                elif j < STRONG_PACE0:
                    scale.append(1.0)
                else:
                    scale.append(0.25)
        return np.array(idx, np.int64), np.array(scale)

    def pop_size(self) -> int:
        # CMA-ES's default population 4 + floor(3 ln D)
        return self.population or 4 + int(3 * math.log(len(self.searched()[0])))

    def games_per_generation(self, n_field: int | None = None) -> int:
        members = len(self.opponents) + 2 if n_field is None else n_field
        return self.pop_size() * members * self.deals * self.players

    def key(self) -> dict:
        """What decides the answer (a resumed run must have the same)."""
        comps = self.components
        return {
            "game": "builders_biomes",
            "players": self.players,
            "seed": self.seed,
            "budget_games": self.budget_games,
            "budget_minutes": self.budget_minutes,
            "field": list(self.opponents),
            "self_every": self.self_every,
            "deals": self.deals,
            "population": self.pop_size(),
            "sigma": self.sigma,
            "check_deals": self.check_deals,
            "start": list(self.start.weights) if self.start else None,
            "components": getattr(comps, "content_hash", None),
            "readings": dict(self.readings),
        }


def plan_training(
    *,
    players: int = 2,
    seed: int = 0,
    games: int | None = None,
    minutes: float | None = None,
    opponents: tuple[str, ...] | list[str] = DEFAULT_FIELD,
    self_every: int = 25,
    deals: int = 100,
    population: int = 0,
    sigma: float = 0.3,
    check_deals: int = 1000,
    start: StrongModel | str | None = None,
    components=None,
    expansion: str | None = None,
    readings: dict | None = None,
) -> TrainPlan:
    """Validate the settings of a training run (one clear :class:`BnbError` per problem)."""
    from bnb_sim.games.builders_biomes.components import Components, load_components
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy
    from bnb_sim.games.builders_biomes.strong_model import check_setting, load_model

    if players not in (2, 3, 4):
        raise BnbError(f"train: players must be 2, 3 or 4, got {players!r}")
    if games is None and minutes is None:
        raise BnbError("train: give a budget in games or in minutes")
    if games is not None and games < 1:
        raise BnbError("train: the budget in games must be positive")
    if minutes is not None and not minutes > 0:
        raise BnbError("train: the budget in minutes must be positive")
    if deals < 1 or check_deals < 2 or self_every < 0 or not sigma > 0:
        raise BnbError("train: deals >= 1, check_deals >= 2, self_every >= 0 and sigma > 0")
    if not opponents:
        raise BnbError("train: the field needs at least one opponent")
    for spec in opponents:
        if parse_policy(spec).kind not in (0, 1, 2, 4, STRONG):  # no search, no plugins
            raise BnbError(f"train: field member '{spec}' must be a one-step bot or a bot file")
    if not isinstance(components, Components):
        components = load_components(components, expansion=expansion)
    if isinstance(start, str):
        start = load_model(start)
    name = expansion_name(components.expansion)
    if start is None:
        start = heuristic_start(players, name)
    check_setting(start, players, components.expansion, "train: start model")
    plan = TrainPlan(
        players, int(seed), games, minutes, tuple(opponents), int(self_every), int(deals),
        int(population), float(sigma), int(check_deals), start, components, dict(readings or {}),
    )  # fmt: skip
    one = plan.games_per_generation(len(opponents))
    if games is not None and games < one:
        raise BnbError(
            f"train: a budget of {games:,} games is less than one generation "
            f"({one:,} games); give at least that"
        )
    return plan


# ---- playing a candidate against the field -----------------------------------------------
SMALL_BLOCK = 64  # fewer games than this run faster on one engine thread


def _config_for(template, policies, seed: int):
    """``template`` with other policies and seed, reusing its static arrays (they depend only
    on the components and the options; rebuilding them costs several ms per config)."""
    from bnb_sim.games.builders_biomes.engine.layout import MAX_SEATS
    from bnb_sim.games.builders_biomes.policies.kinds import N_PARAMS
    from bnb_sim.plugins import no_plugin

    config = replace(template, policies=tuple(policies), seed=seed)
    k, ft, _, _, _ = template.kernel_inputs
    width = max([N_PARAMS] + [len(p.params) for p in config.policies])
    params = np.zeros((config.n_players, width), np.float64)
    for i, spec in enumerate(config.policies):
        params[i, : len(spec.params)] = spec.params
    kinds = np.array([p.kind for p in config.policies], np.int64)
    plugins = (no_plugin,) * MAX_SEATS  # the field holds no plugins
    config.__dict__["kernel_inputs"] = (k, ft, kinds, params, plugins)  # the cached_property
    return config


def _play(config, start: int, n: int, threads: int | None):
    """The batch kernel's raw rows, like ``runner.batch.play_arrays``, except that a game
    stopped by the turn limit is returned (status ``ST_TURN_LIMIT``) instead of raised."""
    from bnb_sim.games.builders_biomes.batch import _run_kernel, check_status
    from bnb_sim.games.builders_biomes.engine import play as P
    from bnb_sim.games.builders_biomes.engine import state as S

    k, ft, kinds, params, plugins = config.kernel_inputs
    comps = config.components
    width = P.n_seat_columns(len(comps.mob_names), len(comps.item_names))
    seat_out = np.zeros((n * config.n_players, width), np.int64)
    game_out = np.zeros((n, P.N_GAME_COLUMNS), np.int64)
    stop = np.zeros(1, np.int64)
    head = (k, ft, kinds, params, plugins, config.master)
    args = (head, int(start), config.n_players, seat_out, game_out)
    _run_kernel(P.batch_kernel(kinds, k), args, n, threads, stop)
    others = game_out.copy()  # every other failure is raised as in any run
    others[others[:, P.GAME_STATUS] == S.ST_TURN_LIMIT, P.GAME_STATUS] = S.ST_OK
    check_status(config, start, others)
    return seat_out, game_out


class Arena:
    """Plays candidates against the field on the batch kernel (static arrays built once)."""

    def __init__(self, plan: TrainPlan, threads: int | None):
        from bnb_sim.games.builders_biomes.policies.registry import PolicySpec, parse_policy
        from bnb_sim.games.builders_biomes.run_config import GameConfig

        self.plan, self.threads = plan, threads
        self.stalled = 0  # games that reached the turn limit (scored as losses)
        self.field = [parse_policy(spec) for spec in plan.opponents]
        probe = PolicySpec("candidate", STRONG, plan.start.weights)
        readings = {**plan.readings, "seating": "fixed"}
        self.template = GameConfig.create(
            plan.players, [probe, self.field[0]], components=plan.components, readings=readings
        )

    def scores(self, weights, opponent, seed: int, start: int, n: int) -> np.ndarray:
        """Per-deal mean game score of ``weights`` against ``opponent`` (a PolicySpec) on
        deals ``start .. start+n-1`` of ``seed``, sitting in every seat in turn.

        A game that reaches the turn limit scores 0 for the candidate: nothing in the rules
        forces anyone to collect blocks, and weights that never do stall the game (both
        seats exploring for ever); the search must learn to avoid them, not crash."""
        from bnb_sim.games.builders_biomes.engine import play as P
        from bnb_sim.games.builders_biomes.engine import state as S
        from bnb_sim.games.builders_biomes.policies.registry import PolicySpec

        players = self.plan.players
        me = PolicySpec("candidate", STRONG, tuple(float(w) for w in weights))
        threads = self.threads or (1 if n * players < SMALL_BLOCK else None)
        total = np.zeros(n)
        for seat in range(players):
            seats = [me if s == seat else opponent for s in range(players)]
            config = _config_for(self.template, seats, seed)
            seat_out, game_out = _play(config, start, n, threads)
            rows = seat_out.reshape(n, players, -1)
            won = rows[:, seat, P.SEAT_WON] > 0  # fixed seating: seat s is player s
            finished = game_out[:, P.GAME_STATUS] == S.ST_OK
            self.stalled += int((~finished).sum())
            winners = np.maximum(game_out[:, P.GAME_WINNERS], 1).astype(float)
            total += np.where(won & finished, 1.0 / winners, 0.0)
        return total / players

    def candidate_score(self, weights, members, seed: int, start: int) -> float:
        n = self.plan.deals
        return float(np.mean([self.scores(weights, m, seed, start, n).mean() for m in members]))


# ---- the search ------------------------------------------------------------------------------
EVALUATE = "bnb_sim.games.builders_biomes.strong_train:evaluate"


def _decode(base: np.ndarray, idx: np.ndarray, scale: np.ndarray, x: np.ndarray) -> np.ndarray:
    weights = base.copy()
    weights[idx] = base[idx] + scale * x
    return weights


def _arena(plan: TrainPlan, threads: int | None) -> Arena:
    """The plan's arena for ``threads`` (built once per process: its static arrays cost)."""
    cache = plan.__dict__.setdefault("_arenas", {})
    if threads not in cache:
        cache[threads] = Arena(plan, threads)
    return cache[threads]


def evaluate(plan: TrainPlan, call: tuple, threads: int | None) -> dict:
    """One candidate of a generation: ``call`` = (weights, field members, seed, first deal);
    its score and the games it stalled (run here or on a Dask worker: the same numbers)."""
    weights, members, seed, start = call
    arena = _arena(plan, threads)
    before = arena.stalled
    score = arena.candidate_score(np.asarray(weights, np.float64), list(members), seed, start)
    return {"score": score, "stalled": arena.stalled - before}


def plan_payload(plan: TrainPlan) -> dict:
    """The plan as plain data for a Dask worker (its components as their dict)."""
    comps = plan.components
    data = {"plan": replace(plan, components=None), "components": comps.data,
            "content_hash": comps.content_hash, "source": comps.source}  # fmt: skip
    return {"key": repr(plan.key()), "rebuild": f"{__name__}:plan_from_data", "data": data}


def plan_from_data(data: dict) -> TrainPlan:
    """Rebuild :func:`plan_payload`'s plan on a worker (the same component hash)."""
    from bnb_sim.games.builders_biomes.components import components_from_dict
    from bnb_sim.runner.dask_backend import check_rebuilt_hash

    comps = components_from_dict(data["components"], name=data.get("source", "train"))
    check_rebuilt_hash(comps.content_hash, data["content_hash"])
    return replace(data["plan"], components=comps)


def _load_checkpoint(path: Path, plan: TrainPlan) -> list[dict]:
    return load_checkpoint(path, plan.key(), CHECKPOINT_VERSION)


def _save_checkpoint(path: Path, plan: TrainPlan, generations: list[dict]) -> None:
    save_checkpoint(path, plan.key(), CHECKPOINT_VERSION, generations)


@dataclass
class TrainResult:
    model: StrongModel
    generations: int
    games: int
    check: dict  # the final measurement against heuristic
    history: list[dict]
    path: Path | None = None


class _Search:
    """The CMA-ES loop of one run: generations played (or replayed from a checkpoint)."""

    def __init__(self, plan: TrainPlan, evaluator, recorded: list[dict]):
        from cmaes import CMA

        self.plan, self.evaluator, self.recorded = plan, evaluator, recorded
        self.idx, self.scale = plan.searched()
        self.base = np.array(plan.start.weights, np.float64)
        self.opt = CMA(mean=np.zeros(len(self.idx)), sigma=plan.sigma,
                       seed=_derive(plan.seed, 1) % 2**31,
                       population_size=plan.pop_size())  # fmt: skip
        self.seed = _derive(plan.seed, 2)
        self.history: list[dict] = []
        self.snapshots: list = []
        self.games = 0
        self.elapsed = 0.0

    def weights(self, x) -> np.ndarray:
        return _decode(self.base, self.idx, self.scale, x)

    def budget_left(self, cost: int) -> bool:
        plan = self.plan
        if plan.budget_games is not None and self.games + cost > plan.budget_games:
            return False
        return plan.budget_minutes is None or self.elapsed < 60.0 * plan.budget_minutes

    def generation(self, g: int, members: list) -> tuple[list[float], float, int]:
        """Ask, play (or take the recorded scores), tell; the candidates' scores, the seconds
        the generation took and the games it stalled (as recorded, when replayed)."""
        started = time.monotonic()
        xs = [self.opt.ask() for _ in range(self.opt.population_size)]
        if g < len(self.recorded):
            scores = list(self.recorded[g]["scores"])
            spent = float(self.recorded[g].get("seconds", 0.0))
            stalled = int(self.recorded[g].get("stalled", 0))
        else:
            start = g * self.plan.deals
            calls = [(tuple(float(w) for w in self.weights(x)), tuple(members), self.seed, start)
                     for x in xs]  # fmt: skip
            results = self.evaluator.map(calls)
            scores = [r["score"] for r in results]
            stalled = sum(int(r["stalled"]) for r in results)
            spent = time.monotonic() - started
        self.opt.tell([(x, -score) for x, score in zip(xs, scores, strict=True)])
        self.elapsed += spent
        return scores, spent, stalled

    def snapshot(self, g: int) -> None:
        """Every ``self_every`` generations the search's mean joins the field."""
        from bnb_sim.games.builders_biomes.policies.registry import PolicySpec

        every = self.plan.self_every
        if every and g % every == every - 1:
            weights = tuple(self.weights(self.opt.mean))
            self.snapshots.append(PolicySpec(f"self@{g}", STRONG, weights))


def train_strong(
    plan: TrainPlan,
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
    (``"local"`` or a scheduler address) plays each generation's candidates as tasks on
    Dask workers: the same scores, so the same file (:mod:`bnb_sim.runner.training`)."""
    ckpt = Path(checkpoint) if checkpoint else None
    if ckpt is None and out is not None:
        ckpt = Path(str(out) + ".checkpoint.json")
    recorded: list[dict] = []
    if resume:
        if ckpt is None or not ckpt.is_file():
            raise BnbError(f"train: nothing to resume (no checkpoint {ckpt})")
        recorded = _load_checkpoint(ckpt, plan)
    arena = _arena(plan, threads)
    with open_evaluator(plan, EVALUATE, threads=threads, dask=dask,
                        payload=lambda: plan_payload(plan),
                        warm_config=arena.template) as evaluator:  # fmt: skip
        g, search = _run_search(plan, evaluator, arena, recorded, ckpt, progress)
    final = np.round(search.weights(search.opt.mean), 6)
    if progress is not None:
        progress({"stage": "check", "deals": plan.check_deals, "games": search.games})
    check = measure(arena, final, "heuristic", _derive(plan.seed, 3), plan.check_deals)
    games_total = search.games + check["games"]
    table = _training_table(plan, g, search.games, games_total, check)
    model = StrongModel(tuple(float(w) for w in final), plan.players, plan.expansion, table)
    path = write_model(model, out) if out is not None else None
    return TrainResult(model, g, games_total, check, search.history, path)


def _run_search(plan, evaluator, arena, recorded, ckpt, progress) -> tuple[int, _Search]:
    """The generations of a run, until its budget is spent: their number and the search."""
    search = _Search(plan, evaluator, recorded)
    g = 0
    while True:
        members = arena.field + search.snapshots[-2:]
        cost = plan.pop_size() * len(members) * plan.deals * plan.players
        if not search.budget_left(cost):
            break
        scores, seconds, stalled = search.generation(g, members)
        search.games += cost
        search.history.append({"generation": g, "scores": scores, "seconds": seconds,
                               "games": search.games, "field": len(members),
                               "stalled": stalled})  # fmt: skip
        if g >= len(recorded) and ckpt is not None:
            _save_checkpoint(ckpt, plan, search.history)
        search.snapshot(g)
        g += 1
        if progress is not None:
            progress({"generation": g, "games": search.games, "elapsed": search.elapsed,
                      "best": max(scores), "median": float(np.median(scores))})  # fmt: skip
    return g, search


def measure(arena: Arena, weights, opponent: str, seed: int, deals: int) -> dict:
    """Mean score of ``weights`` against ``opponent`` in every seat on ``deals`` fresh deals,
    with its 95% Student t interval over deals (the unit that is independent)."""
    from scipy import stats

    from bnb_sim.games.builders_biomes.policies.registry import parse_policy

    before = arena.stalled
    per_deal = arena.scores(weights, parse_policy(opponent), seed, 0, deals)
    mean = float(per_deal.mean())
    half = float(stats.t.ppf(0.975, deals - 1) * per_deal.std(ddof=1) / math.sqrt(deals))
    return {
        "against": opponent,
        "score": round(mean, 4),
        "low": round(mean - half, 4),
        "high": round(mean + half, 4),
        "deals": deals,
        "games": deals * arena.plan.players,
        "stalled": arena.stalled - before,  # games that reached the turn limit (losses)
    }


def _training_table(plan, generations, games, games_total, check) -> dict:
    """The model file's ``[training]`` table: what decides the model, never how long it
    took (the same plan writes the same bytes on any machine)."""
    import bnb_sim

    comps = plan.components
    score = f"{check['score']:.3f} [{check['low']:.3f}, {check['high']:.3f}]"
    return {
        "summary": f"mean score {score} against heuristic, {check['deals']:,} fresh deals",
        "seed": plan.seed,
        "generations": generations,
        "games": games_total,
        "search_games": games,
        "field": list(plan.opponents),
        "self_every": plan.self_every,
        "deals_per_candidate": plan.deals,
        "population": plan.pop_size(),
        "components": getattr(comps, "source", "default"),
        "components_hash": getattr(comps, "content_hash", ""),
        "readings": [f"{k}={v}" for k, v in sorted(plan.readings.items())],
        "bnb_sim": bnb_sim.__version__,
        "check": dict(check),
    }


def weight_names() -> list[str]:
    """``stage.feature`` names of the model vector, in order (for reports)."""
    from bnb_sim.games.builders_biomes.strong_model import STAGE_KEYS

    return [f"{stage}.{name}" for stage in STAGE_KEYS for name in STRONG_FEATURES]


assert len(weight_names()) == N_STRONG_PARAMS
assert STRONG_FEATURES[: len(HEURISTIC_WEIGHTS)] == tuple(HEURISTIC_WEIGHTS)
