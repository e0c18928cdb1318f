"""``bnb tune policy``: search a policy's numeric parameters for the best score against a field.

Design (every number below is counted in games and comes out of ``--budget``):

* **Parameters.** Any numeric parameter of a policy spec: the heuristic's named weights
  (``--param board=0..3``; default: every weight except ``xp``, which is the unit the others
  are measured in, from 0 to three times its start value, at least 1), or a plugin's
  parameters. The start point is the spec's own values (``heuristic:w.toml`` starts from the
  file). ``--param NAME=LO..HI:int`` makes a parameter an integer (a search bot's budget, a
  count): CMA-ES searches it like the others and rounds it. A bot file's named thresholds
  (its ``[params]`` table, docs/bots.md) are tunable too: whole-number ones stay integers, and
  the ranges the file declares bound the search (default: every threshold).
* **The field.** ``--against A,B`` with ``--players P``: one lineup per opponent (the P-1
  other seats filled cyclically from that opponent on), and every lineup is played in all P
  seatings on each seed (the candidate in seat 0, 1, ..., P-1), so a *seed* is ``L × P``
  games and its score is the candidate's mean game score (a win 1, a win shared by k
  players 1/k, a loss 0). Seat and deal luck cancel within a seed.
* **Search (half the budget).** CMA-ES (:func:`bnb_sim.tune.search.run_cmaes`); generation
  ``g`` plays seeds ``g·G .. g·G+G-1`` of the search stream for every candidate (common
  random numbers within a generation).
* **Re-evaluation (a quarter).** The ``--top`` best candidates by search score and the final
  CMA-ES mean are replayed on fresh seeds (another stream), all on the same seeds, with a much
  larger sample; the best of them is the answer. Picking the luckiest search trial is what
  this stage prevents.
* **Final comparison (a quarter).** The answer against the start point on fresh seeds (a
  third stream) that no selection has seen: the paired difference of the per-seed scores with
  its 95% Student t interval, its p-value and a verdict. This is the number to quote.

Determinism: the three streams are derived from ``--seed``; the same seed gives the same
candidates, the same games and the same answer, on any thread count.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from bnb_sim.analysis.estimated import estimates_meta
from bnb_sim.errors import BnbError
from bnb_sim.safe_io import write_atomic
from bnb_sim.tune.search import default_population, derive_seed, run_cmaes
from bnb_sim.tune.space import Continuous, Integer, Space, check_names, parse_range
from bnb_sim.tune.store import TuneStore, open_tune_folder

__all__ = ["PolicyTune", "plan_policy_tune", "run_policy_tune", "write_weights"]

STREAM_SEARCH, STREAM_REEVAL, STREAM_FINAL = 1, 2, 3
STREAMS = {"search": STREAM_SEARCH, "reeval": STREAM_REEVAL, "final": STREAM_FINAL}
SEATING = "fixed"  # the driver seats the candidate in every seat itself
SHARE_REEVAL = 0.25
SHARE_FINAL = 0.25
TARGET_GENERATIONS = 20
MIN_GENERATIONS = 3
MIN_SEEDS_SEARCH = 2
MIN_SEEDS_REEVAL = 10
MIN_SEEDS_FINAL = 20
Progress = Callable[[str], None] | None
Advance = Callable[[int], None] | None


@dataclass
class PolicyTune:
    """A validated, fully planned ``bnb tune policy`` run."""

    policy: str  # the start spec, e.g. "heuristic" or "heuristic:w.toml"
    family: str  # "heuristic" or a plugin name
    against: list[str]
    players: int
    budget: int
    seed: int
    space: Space
    start: dict
    base_values: dict  # every parameter of the policy at the start (tuned ones included)
    population: int
    sigma: float
    seeds_search: int
    generations: int
    top: int
    seeds_reeval: int
    seeds_final: int
    lineups: list[list[str]]
    readings: dict = field(default_factory=dict)  # every rule reading (seating: fixed)
    components: Any = None  # a Components
    fixed: dict = field(default_factory=dict)  # settings kept as they are (a search rollout)
    integers: tuple[str, ...] = ()  # a bot file's whole-number thresholds
    sprt: tuple[float, float] | None = None  # Elo bounds of the final SPRT verdict (optional)

    @property
    def variant(self) -> str:
        return self.readings.get("variant", "standard")

    @property
    def games_per_seed(self) -> int:
        return len(self.lineups) * self.players

    @property
    def planned_games(self) -> dict[str, int]:
        u = self.games_per_seed
        return {
            "search": self.generations * self.population * self.seeds_search * u,
            "reeval": (self.top + 1) * self.seeds_reeval * u,
            "final": 2 * self.seeds_final * u,
        }

    def spec_dict(self) -> dict:
        """What decides the answer (compared on --resume)."""
        comps = self.components
        return {
            "command": "policy",
            "policy": self.policy,
            "start": self.base_values,
            **({"fixed": self.fixed} if self.fixed else {}),
            "against": self.against,
            "players": self.players,
            "budget": self.budget,
            "seed": self.seed,
            "space": self.space.to_dict(),
            "population": self.population,
            "sigma": self.sigma,
            "seeds_search": self.seeds_search,
            "generations": self.generations,
            "top": self.top,
            "seeds_reeval": self.seeds_reeval,
            "seeds_final": self.seeds_final,
            "readings": self.readings,
            "components": comps.content_hash if comps is not None else None,
        }

    def warm_config(self):
        """A config of this run's kernels (start spec against the first lineup): what a
        Dask worker plays once to load or compile them."""
        from bnb_sim.runner.config import GameConfig

        seats = [self.spec_for(self.start, self.policy), *self.lineups[0]]
        return GameConfig.create(self.players, seats, seed=self.seed,
                                 components=self.components, readings=self.readings)  # fmt: skip

    def spec_for(self, point: dict, label: str):
        """The PolicySpec of a point (every other parameter at its start value)."""
        from bnb_sim.games.builders_biomes.policies.registry import parse_policy

        return replace(parse_policy(self.spec_text(point)), label=label)

    def spec_text(self, point: dict) -> str:
        """The policy spec of a point, e.g. ``mc:rollouts=12,margin=0.05,rollout=heuristic``."""
        values = {**self.base_values, **point}
        if self.family == "bot":  # bot:FILE:min_blocks=3,p=0.6
            from bnb_sim.games.builders_biomes.policies.priority_compile import bot_spec

            return bot_spec(self.fixed["file"], values, self.integers)
        parts = [f"{k}={int(v) if k in SEARCH_BUDGETS else _num(v)}" for k, v in values.items()]
        parts += [f"{k}={v}" for k, v in self.fixed.items()]
        return f"{self.family}:{','.join(parts)}"


def _num(v: float) -> str:
    return repr(float(v)) if not float(v).is_integer() else f"{float(v):.1f}"


def _field_lineups(against: Sequence[str], players: int) -> list[list[str]]:
    f = len(against)
    lineups = []
    for i in range(f):
        lineup = [against[(i + j) % f] for j in range(players - 1)]
        if lineup not in lineups:
            lineups.append(lineup)
    return lineups


SEARCH_FAMILIES = ("mc", "ismcts")
SPEC_FILE = "tuned-spec.txt"
SEARCH_BUDGETS = ("rollouts", "iterations")  # whole numbers: always integer parameters


def _policy_family(policy: str):
    """``(family, names, values, fixed)`` of a tunable policy spec: its numeric parameters
    and the settings that stay as they are (raises for random/greedy/a bot without params)."""
    from bnb_sim.games.builders_biomes.policies.kinds import BOT, HEURISTIC, ISMCTS, MC, PLUGIN
    from bnb_sim.games.builders_biomes.policies.registry import load_plugin, parse_policy
    from bnb_sim.games.builders_biomes.strong_model import SHIPPED

    spec = parse_policy(policy)
    family = policy.strip().partition(":")[0]
    if spec.kind == HEURISTIC:
        weights = spec.weights()
        return family, list(weights), weights, {}
    if spec.kind == PLUGIN:
        names = list(load_plugin(spec.plugin).params)
        return family, names, dict(zip(names, spec.params, strict=True)), {}
    if spec.kind in (MC, ISMCTS):  # the budget, c and margin; the rollout policy stays
        from bnb_sim.games.builders_biomes.policies.search_spec import search_settings

        settings = search_settings(spec.kind, spec.params)
        fixed = {"rollout": settings.pop("rollout")}
        if spec.model is not None and spec.model != SHIPPED:  # the rollout's model file stays
            fixed["model"] = spec.model
        return family, list(settings), settings, fixed
    if spec.kind == BOT:  # the thresholds of its [params] table; the file stays
        path, thresholds = _bot_thresholds(policy)
        if thresholds:
            values = {name: p.value for name, p in thresholds.items()}
            return family, list(values), values, {"file": path}
        raise BnbError(
            f"tune: policy '{policy}' has no parameters to tune (name its thresholds in a "
            "[params] table of the bot file; see docs/bots.md)"
        )
    raise BnbError(
        f"tune: policy '{policy}' has no parameters to tune (tune heuristic, mc, ismcts, "
        "a bot file with [params] or a plugin; a strong model is made with bnb train)"
    )


def _bot_thresholds(policy: str) -> tuple[str, dict]:
    """A ``bot:`` spec's file and its thresholds (name -> BotParam, overrides applied)."""
    from bnb_sim.games.builders_biomes.policies.registry import parse_bot

    path, bot = parse_bot(policy.strip().partition(":")[2])
    return path, {p.name: p for p in bot.thresholds}


def _bot_param(p, bounds: tuple[float, float] | None):
    """The search range of a bot threshold ``p``: ``bounds`` (from --param) or the default
    range cut to what the file allows; None when the file allows one value only."""
    if bounds is None:
        lo, hi = default_bounds(p.value)
        lo, hi = max(lo, p.lo), min(hi, p.hi)
    else:
        lo, hi = bounds
        if lo < p.lo or hi > p.hi:
            raise BnbError(
                f"tune: --param {p.name}: {lo:g}..{hi:g} leaves the range the bot file "
                f"allows, [{p.lo:g}, {p.hi:g}]"
            )
    if p.integer:
        lo, hi = math.ceil(lo), math.floor(hi)
        return Integer(p.name, int(lo), int(hi)) if lo < hi or bounds else None
    return Continuous(p.name, float(lo), float(hi)) if lo < hi or bounds else None


def default_bounds(value: float) -> tuple[float, float]:
    """[0, max(3·value, 1)] for a non-negative start value; symmetric around a negative one."""
    if value < 0:
        return 3.0 * value, max(-value, 1.0)
    return 0.0, max(3.0 * value, 1.0)


def _space(
    params: Sequence[str], names: list[str], start: dict, family: str, thresholds=None
) -> Space:
    budgets = SEARCH_BUDGETS if family in SEARCH_FAMILIES else ()
    if thresholds:
        return _bot_space(params, names, thresholds)
    if not params:
        chosen = [n for n in names if not (family == "heuristic" and n == "xp")] or names
        out: list = []
        for n in chosen:
            if n in budgets:  # a search budget: 1 .. 3x its start value
                out.append(Integer(n, 1, max(3 * int(start[n]), 2)))
            else:
                out.append(Continuous(n, *default_bounds(start[n])))
        return Space(tuple(out))
    out = []
    for text in params:
        integer = str(text).rstrip().endswith(":int")
        if integer:  # a count such as a search bot's rollouts: rounded by CMA-ES
            text = str(text).rstrip()[: -len(":int")]
        name = str(text).partition("=")[0].strip()
        integer = integer or name in budgets
        name, value = parse_range(text, integer=integer, allow_list=False)
        check_names([name], names, f"policy '{family}'")
        lo, hi = value
        if name in budgets and lo < 1:
            raise BnbError(f"tune: --param {name}: a search budget must be at least 1")
        out.append(Integer(name, lo, hi) if integer else Continuous(name, float(lo), float(hi)))
    return Space(tuple(out))


def _bot_space(params: Sequence[str], names: list[str], thresholds: dict) -> Space:
    if not params:
        chosen = (_bot_param(thresholds[n], None) for n in names)
        return Space(tuple(p for p in chosen if p is not None))
    out = []
    for text in params:
        text = str(text).rstrip().removesuffix(":int")  # whole-number thresholds are integers
        name = text.partition("=")[0].strip()
        check_names([name], names, "the bot file")
        _, bounds = parse_range(text, integer=thresholds[name].integer, allow_list=False)
        out.append(_bot_param(thresholds[name], bounds))
    return Space(tuple(out))


def plan_policy_tune(
    policy: str,
    *,
    against: Sequence[str],
    players: int,
    budget: int,
    params: Sequence[str] = (),
    seed: int = 0,
    population: int | None = None,
    sigma: float = 0.2,
    seeds_per_candidate: int | None = None,
    top: int = 3,
    components=None,
    variant: str | None = None,
    readings=None,
    sprt: tuple[float, float] | None = None,
) -> PolicyTune:
    """Validate everything and split the budget (raises BnbError before any game).

    ``readings``: rule readings (name -> value, as ``--reading``; ``variant`` is an alias).
    The candidate moves through every seat, so the seating is the design's (fixed seats,
    rotated by the driver) and one variant per player is refused."""
    from bnb_sim.games.builders_biomes.components import Components, load_components
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy

    against = [a.strip() for a in against if a.strip()]
    if not against:
        raise BnbError("tune: --against needs at least one policy")
    for spec in against:
        parse_policy(spec)
    if not 2 <= int(players) <= 4:
        raise BnbError(f"tune: --players must be between 2 and 4, got {players}")
    if not 0 < float(sigma) <= 1:
        raise BnbError(f"tune: --sigma must be in (0, 1] (a share of each range), got {sigma:g}")
    if int(top) < 1:
        raise BnbError("tune: --top must be at least 1")
    readings = tune_readings(readings, variant, SEATING, "tune policy")
    if sprt is not None:
        sprt = (float(sprt[0]), float(sprt[1]))
        if not sprt[0] < sprt[1]:
            raise BnbError(f"tune: --sprt needs ELO0 < ELO1, got {sprt[0]:g} {sprt[1]:g}")
    family, names, values, fixed = _policy_family(policy)
    thresholds = _bot_thresholds(policy)[1] if family == "bot" else {}
    space = _space(params, names, values, family, thresholds)
    start = {}
    for p in space.params:
        v = float(values[p.name])
        if not p.lo <= v <= p.hi:
            raise BnbError(
                f"tune: --param {p.name}: the start value {v:g} is outside {p.lo:g}..{p.hi:g}"
            )
        if isinstance(p, Integer) and not v.is_integer():
            raise BnbError(f"tune: --param {p.name}: the start value {v:g} is not an integer")
        start[p.name] = int(v) if isinstance(p, Integer) else v
    if not isinstance(components, Components):
        components = load_components(components)
    lineups = _field_lineups(against, int(players))
    u = len(lineups) * int(players)
    dim = len(space.params)
    pop = int(population or default_population(max(dim, 2)))
    if pop < 2:
        raise BnbError("tune: --population must be at least 2")
    budget = int(budget)
    seeds_final = int(budget * SHARE_FINAL) // (2 * u)
    seeds_reeval = int(budget * SHARE_REEVAL) // ((top + 1) * u)
    rest = budget - 2 * seeds_final * u - (top + 1) * seeds_reeval * u
    if seeds_per_candidate is None:
        seeds_search = max(MIN_SEEDS_SEARCH, min(1000, rest // (pop * u * TARGET_GENERATIONS)))
    else:
        seeds_search = int(seeds_per_candidate)
    generations = rest // (pop * seeds_search * u)
    need = _minimum_budget(pop, u, top, seeds_search)
    if (
        generations < MIN_GENERATIONS
        or seeds_final < MIN_SEEDS_FINAL
        or seeds_reeval < MIN_SEEDS_REEVAL
    ):
        raise BnbError(
            f"tune: --budget {budget:,} is too small for {dim} parameter(s), population {pop} "
            f"and {u} games per seed ({len(lineups)} lineup(s) x {players} seatings); "
            f"give at least --budget {need:,}"
        )
    return PolicyTune(
        policy=policy.strip(),
        family=family,
        against=against,
        players=int(players),
        budget=budget,
        seed=int(seed),
        space=space,
        start=start,
        base_values={k: float(v) for k, v in values.items()},
        population=pop,
        sigma=float(sigma),
        seeds_search=seeds_search,
        generations=int(generations),
        top=int(top),
        seeds_reeval=seeds_reeval,
        seeds_final=seeds_final,
        lineups=lineups,
        readings=readings,
        components=components,
        fixed=fixed,
        integers=tuple(n for n, p in thresholds.items() if p.integer),
        sprt=sprt,
    )


def tune_readings(readings, variant, seating: str, what: str) -> dict:
    """Every rule reading of a tuning run (defaults filled in), validated: ``readings`` a
    mapping (``--reading``), ``variant`` its alias, ``seating`` the design's own."""
    from bnb_sim.runner.experiments import design_readings

    return design_readings(readings, variant, seating=seating, what=what)


def _minimum_budget(pop: int, u: int, top: int, seeds_search: int) -> int:
    search = MIN_GENERATIONS * pop * seeds_search * u
    reeval = (top + 1) * MIN_SEEDS_REEVAL * u
    final = 2 * MIN_SEEDS_FINAL * u
    return int(
        math.ceil(
            max(
                search / (1 - SHARE_REEVAL - SHARE_FINAL),
                reeval / SHARE_REEVAL,
                final / SHARE_FINAL,
            )
        )
    )


# --------------------------------------------------------------------------------------
# playing


SMALL_BLOCK = 64


@contextmanager
def threads_kept():
    """Restore numba's thread count afterwards (:func:`engine_threads` changes it per block,
    and later code in the same process that passes no thread count must get all cores)."""
    from bnb_sim._jit import numba

    before = numba.get_num_threads()
    try:
        yield
    finally:
        numba.set_num_threads(before)


def keeps_threads(func):
    """Decorator: run ``func`` inside :func:`threads_kept`."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with threads_kept():
            return func(*args, **kwargs)

    return wrapper


def engine_threads(threads: int | None, n: int) -> int:
    """Threads for a block of ``n`` games: a small block runs faster on one thread (the
    parallel dispatch costs more than it saves); results never depend on it."""
    import os

    if threads is not None:
        return int(threads)
    return 1 if n < SMALL_BLOCK else max(1, os.cpu_count() or 1)


def _config_like(template, policies):
    """``template`` with other policies, reusing its static arrays.

    A search builds thousands of configs that differ only in the policies' parameters; the
    static arrays (geometry, component tables) depend only on the components and the
    options, so they are taken from ``template`` instead of being rebuilt (several ms each).
    """
    from dataclasses import replace as dc_replace

    from bnb_sim.games.builders_biomes.engine.layout import MAX_SEATS
    from bnb_sim.games.builders_biomes.policies.kinds import N_PARAMS
    from bnb_sim.plugins import no_plugin

    config = dc_replace(template, policies=tuple(policies))
    k, ft, _, _, _ = template.kernel_inputs
    width = max([N_PARAMS] + [len(p.params) for p in config.policies])
    params = np.zeros((config.n_players, width), np.float64)
    for i, spec in enumerate(config.policies):
        params[i, : len(spec.params)] = spec.params
    kinds = np.array([p.kind for p in config.policies], np.int64)
    plugins = tuple(p.plugin_function() for p in config.policies)
    plugins = plugins + (no_plugin,) * (MAX_SEATS - len(plugins))
    config.__dict__["kernel_inputs"] = (k, ft, kinds, params, plugins)  # the cached_property
    return config


def field_scores(plan: PolicyTune, spec, seed: int, start: int, n: int, threads=None) -> dict:
    """Per-seed scores of ``spec`` against the field on seeds ``start .. start+n-1``.

    Reads the kernel's raw output (:func:`bnb_sim.runner.batch.play_arrays`): the per-seat
    ``won`` flag and the per-game number of winners are all a score needs, and skipping the
    DataFrames matters for the small blocks of a search.
    """
    import warnings

    from bnb_sim.games.builders_biomes.engine import play as P
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy
    from bnb_sim.runner.batch import play_arrays
    from bnb_sim.runner.config import GameConfig

    total = np.zeros(n)
    wins = 0
    games = 0
    threads = engine_threads(threads, n)
    for lineup in plan.lineups:
        table = [spec, *(parse_policy(p) for p in lineup)]
        template = None  # per lineup: the seatings of a lineup hold the same policies
        for r in range(plan.players):
            seats = [table[(s - r) % plan.players] for s in range(plan.players)]
            if template is None:
                template = config = GameConfig.create(
                    plan.players,
                    seats,
                    seed=seed,
                    components=plan.components,
                    readings=plan.readings,
                )
            else:
                config = _config_like(template, seats)
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="First-class function type feature")
                seat_out, game_out = play_arrays(config, start, n, threads)
            rows = seat_out.reshape(n, plan.players, -1)
            mine = rows[:, :, P.SEAT_SEAT] == r  # fixed seating: the candidate is in seat r
            won = (rows[:, :, P.SEAT_WON] * mine).sum(axis=1) > 0
            winners = game_out[:, P.GAME_WINNERS].astype(float)
            total += np.where(won, 1.0 / np.maximum(winners, 1.0), 0.0)
            wins += int(won.sum())
            games += n
    per_seed = total / plan.games_per_seed
    return {"per_seed": per_seed, "wins": wins, "games": games}


def _summary_of(scores: dict, keep_seeds: bool) -> dict:
    x = scores["per_seed"]
    n = int(x.size)
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    out = {"score": float(x.mean()), "se": se, "n": n, "games": scores["games"]}
    out["wins"] = scores["wins"]
    if keep_seeds:
        out["per_seed"] = [round(float(v), 6) for v in x]
    return out


# --------------------------------------------------------------------------------------
# the run


def evaluate_policy(plan: PolicyTune, stage: str, block: int, point: dict, threads=None) -> dict:
    """One evaluation: ``point`` on block ``block`` of the seeds of ``stage`` (search,
    reeval or final), as the ledger stores it. A pure function of its arguments."""
    n = {"search": plan.seeds_search, "reeval": plan.seeds_reeval, "final": plan.seeds_final}
    seed = derive_seed(plan.seed, STREAMS[stage])
    spec = plan.spec_for(point, "candidate")
    scores = field_scores(plan, spec, seed, block * n[stage], n[stage], threads)
    return _summary_of(scores, keep_seeds=stage != "search")


@keeps_threads
def run_policy_tune(
    plan: PolicyTune,
    out: Path,
    *,
    resume: bool = False,
    force: bool = False,
    threads: int | None = None,
    progress: Progress = None,
    advance: Advance = None,
    dask: str | None = None,
    lock=None,
) -> dict:
    """Search, re-evaluate and compare; returns the result dict (also in tune.json).

    ``dask``: ``"local"`` or a scheduler address plays the evaluations on Dask workers
    (:mod:`bnb_sim.tune.execute`); the answer is the same as without. ``lock``: the lock of
    ``out`` when the caller holds it (:func:`~bnb_sim.tune.store.open_tune_folder`)."""
    from bnb_sim.tune.execute import open_executor

    own_lock = lock is None  # one writer per tuning folder, for the whole tuning
    if own_lock:
        lock = open_tune_folder(out, resume=resume, force=force)
    try:
        with open_executor(plan, "policy", threads=threads, dask=dask) as executor:
            store = TuneStore(out, plan.spec_dict(), resume=resume, force=force, lock=lock)
            if advance is not None and store.games_done():
                advance(store.games_done())
            return _policy_stages(plan, store, store.batch(executor, advance), progress)
    finally:
        if own_lock:
            lock.release()


def _policy_stages(plan: PolicyTune, store: TuneStore, many, progress: Progress) -> dict:
    from bnb_sim.tune.report import _score_ci

    def on_generation(record: dict) -> None:
        if progress is not None:
            best = max(record["candidates"], key=lambda c: c["score"])
            progress(
                f"  generation {record['generation'] + 1}/{plan.generations}: best score "
                f"{_score_ci(best['score'], best['se'], best['n'])}"
            )

    search = run_cmaes(
        plan.space,
        plan.start,
        lambda *call: many([call])[0],
        generations=plan.generations,
        population=plan.population,
        sigma=plan.sigma,
        seed=plan.seed,
        on_generation=on_generation,
        evaluate_many=many,
    )
    finalists = _finalists(plan, search)
    if progress is not None:
        progress(
            f"  re-evaluating {len(finalists)} candidates on {plan.seeds_reeval:,} fresh seeds"
        )
    results = many([("reeval", 0, i, point) for i, (_, point) in enumerate(finalists)])
    reeval = [
        {"origin": origin, "point": point, **_public(result)}
        for (origin, point), result in zip(finalists, results, strict=True)
    ]
    winner = max(range(len(reeval)), key=lambda i: reeval[i]["score"])
    tuned = reeval[winner]["point"]
    if progress is not None:
        progress(f"  final comparison with the start on {plan.seeds_final:,} fresh seeds")
    final_tuned, final_start = many([("final", 0, 0, tuned), ("final", 0, 1, plan.start)])
    comparison = final_comparison(final_tuned, final_start, sprt=plan.sprt)
    result = {
        "kind": "tune-policy",
        "policy": plan.policy,
        "family": plan.family,
        "against": plan.against,
        "lineups": plan.lineups,
        "players": plan.players,
        "readings": plan.readings,
        "seed": plan.seed,
        "budget": plan.budget,
        "games": store.games_done(),
        "planned_games": plan.planned_games,
        "space": plan.space.to_dict(),
        "start": plan.start,
        "tuned": tuned,
        "weights": {**plan.base_values, **tuned},
        "spec": plan.spec_text(tuned),
        "search": _search_summary(search),
        "reeval": reeval,
        "winner": winner,
        "comparison": comparison,
        "estimated": None if plan.components is None else estimates_meta(plan.components),
    }
    store.finish(result)
    return result


def _public(result: dict) -> dict:
    return {k: result[k] for k in ("score", "se", "n", "games", "wins") if k in result}


def _finalists(plan: PolicyTune, search: dict) -> list[tuple[str, dict]]:
    """The ``top`` best search candidates and the final CMA-ES mean, without duplicates."""
    ranked = sorted(
        (
            (c["score"], g["generation"], i, c["point"])
            for g in search["generations"]
            for i, c in enumerate(g["candidates"])
        ),
        key=lambda t: (-t[0], t[1], t[2]),
    )
    out: list[tuple[str, dict]] = [("CMA-ES mean", search["mean"])]
    for _score, gen, i, point in ranked:
        if len(out) > plan.top:
            break
        if all(point != p for _, p in out):
            out.append((f"generation {gen + 1}, candidate {i + 1}", point))
    return out


def _search_summary(search: dict) -> dict:
    gens = []
    for g in search["generations"]:
        scores = [c["score"] for c in g["candidates"]]
        best = int(np.argmax(scores))
        gens.append(
            {
                "generation": g["generation"],
                "mean_point": g["mean"],
                "best_score": scores[best],
                "best_se": g["candidates"][best]["se"],
                "median_score": float(np.median(scores)),
                "candidates": g["candidates"],
            }
        )
    return {"generations": gens, "final_mean": search["mean"]}


def final_comparison(tuned: dict, start: dict, sprt: tuple[float, float] | None = None) -> dict:
    """Paired difference tuned − start of the per-seed scores, 95% t interval, verdict; with
    ``sprt`` (Elo bounds) also an SPRT verdict on the per-seed pair scores."""
    from bnb_sim.analysis.ratings import elo_from_score
    from bnb_sim.analysis.stats_intervals import Rate
    from bnb_sim.analysis.stats_paired import paired_difference

    a = np.asarray(tuned["per_seed"], dtype=float)
    b = np.asarray(start["per_seed"], dtype=float)
    diff = paired_difference(a, b, bounds=(-1.0, 1.0))  # a seed's score lies in [0, 1]
    pair = float(np.clip((1.0 + diff["mean_diff"]) / 2.0, 0.0, 1.0))
    lo = float(np.clip((1.0 + diff["lo"]) / 2.0, 0.0, 1.0))
    hi = float(np.clip((1.0 + diff["hi"]) / 2.0, 0.0, 1.0))
    if diff["lo"] > 0:
        verdict = "the tuned parameters are better than the start (the 95% interval excludes 0)"
    elif diff["hi"] < 0:
        verdict = "the tuned parameters are worse than the start (the 95% interval excludes 0)"
    else:
        verdict = "no significant difference between the tuned parameters and the start"
    extra = {"sprt": sprt_verdict((1.0 + a - b) / 2.0, sprt)} if sprt is not None else {}
    return {
        "difference": diff,
        "elo": {  # the pair-score Elo of bnb compare's field mode (docs/statistics.md)
            "elo": float(elo_from_score(pair)),
            "lo": float(elo_from_score(lo)),
            "hi": float(elo_from_score(hi)),
            "kind": "pair-score",
        },
        "tuned": {
            "score": tuned["score"],
            "win_rate": Rate.of(tuned["wins"], tuned["games"]).to_dict(),
        },
        "start": {
            "score": start["score"],
            "win_rate": Rate.of(start["wins"], start["games"]).to_dict(),
        },
        "seeds": int(diff["n"]),
        "games": int(tuned["games"]) + int(start["games"]),
        "verdict": verdict,
        **extra,
    }


def sprt_verdict(pair_scores: np.ndarray, bounds: tuple[float, float]) -> dict:
    """The SPRT of ``bnb compare --sprt`` (:class:`bnb_sim.analysis.sequential.SPRT`, 5%
    errors) on the final comparison's per-seed pair scores ``(1 + tuned − start) / 2``,
    scanned seed by seed in play order: a sequential test truncated at the final sample, so
    it may end undecided. Its Elo is that of the pair score against the field."""
    from bnb_sim.analysis.sequential import SPRT

    test = SPRT(bounds[0], bounds[1]).update(pair_scores)
    out = test.summary()
    e0, e1 = f"{bounds[0]:+g}", f"{bounds[1]:+g}"
    seeds = f"{out['decision_n'] or out['n']:,} seeds"
    if out["decision"] == "H1":
        text = (f"H1 accepted after {seeds}: the tuned parameters are stronger (the evidence "
                f"favours pair-score elo {e1} over {e0}: elo > {e0})")  # fmt: skip
    elif out["decision"] == "H0":
        text = (f"H0 accepted after {seeds}: the evidence favours pair-score elo {e0} over "
                f"{e1}: the tuned parameters are not shown to be {e1} Elo stronger (elo < "
                f"{e1})")  # fmt: skip
    else:
        text = f"undecided after all {seeds} of the final comparison (neither bound crossed)"
    out["verdict"] = text
    return out


def write_weights(
    path: Path, family: str, weights: dict, header: Sequence[str] = (), spec: str | None = None
) -> Path:
    """The tuned parameters as a TOML file usable as ``FAMILY:path`` (checked by parsing it).

    A search bot's or a bot file's answer is ``spec`` (the tuned spec text), written
    as the last line of ``tuned-spec.txt`` beside ``path`` (that path is returned)."""
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy

    if family in SEARCH_FAMILIES or family == "bot":  # bot:FILE:NAME=VALUE,... as for mc
        return _write_spec(path.with_name(SPEC_FILE), spec, header)
    lines = [f"# {h}" for h in header]
    lines += [f"# use as --policy {family}:{path}", "[weights]"]
    lines += [f"{k} = {_num(v)}" for k, v in weights.items()]
    try:
        write_atomic(path, "\n".join(lines) + "\n")  # never through a link
    except OSError as exc:
        raise BnbError(f"tune: cannot write {path} ({exc.strerror or exc})") from None
    loaded = parse_policy(f"{family}:{path}")
    expected = [float(weights[k]) for k in weights]
    if family == "heuristic" and list(loaded.params) != expected:
        raise BnbError(f"tune: {path} does not read back as the tuned weights")
    return path


def _write_spec(path: Path, spec: str | None, header: Sequence[str]) -> Path:
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy

    if not spec:
        raise BnbError("tune: no tuned spec to write")
    parse_policy(spec)  # it must play as it is written
    lines = [f"# {h}" for h in header]
    lines += ["# the tuned policy spec (the last line): use it as --policy SPEC", spec]
    try:
        write_atomic(path, "\n".join(lines) + "\n")  # never through a link
    except OSError as exc:
        raise BnbError(f"tune: cannot write {path} ({exc.strerror or exc})") from None
    return path
