"""The optimisers: CMA-ES (continuous), NTBEA and an exhaustive grid (discrete).

All three maximise a noisy score and see the games only through one callback::

    evaluate(stage, block, index, point) -> {"score": float, "se": float, "n": int, ...}

``block`` names the set of seeds the evaluation plays (the driver maps it to game indices):
every candidate of a CMA-ES generation gets the same block (common random numbers: the
candidates of a generation are compared on the same deals and dice), each NTBEA iteration a
new one, and every grid point block 0. ``index`` tells candidates of one block apart. The
callback is where a tuning run's ledger (:mod:`bnb_sim.tune.store`) memoises finished
evaluations, so a resumed run replays the search from its seed and only plays what is
missing: the optimisers are deterministic functions of their seed and the scores.

* :func:`run_cmaes`: CMA-ES (Hansen's covariance matrix adaptation) from the ``cmaes``
  library, in the unit cube of the space (bounds ``[0, 1]``), started at the start point with
  step ``sigma``. Integers are rounded when a point is decoded.
* :func:`run_ntbea`: the N-tuple bandit evolutionary algorithm (Lucas, Liu and Perez-Liebana,
  "The N-Tuple Bandit Evolutionary Algorithm for Game Agent Optimisation", 2018; as in the
  TAG framework): a model of the score made of every 1-tuple (one parameter's value) and the
  full tuple (the whole point), each a running mean; each iteration evaluates the current
  point once, then samples a neighbourhood (points that differ in one parameter, and in each
  other parameter with probability 1/D) and moves to the neighbour with the highest UCB
  ``mean + k·sqrt(ln(1 + N) / (n + ε))``, averaged over the tuples. ``k`` is ``explore``
  times the standard deviation of the scores seen so far, so it is in the score's own unit.
  The answer ranks every evaluated point by the model's mean (no exploration term).
* :func:`run_grid`: every point of a small discrete space on the same seeds.

Pure Python + numpy (``cmaes`` is pure numpy).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from bnb_sim.tune.space import Continuous, Integer, Space, grid_points

__all__ = ["Evaluate", "derive_seed", "model_ranking", "run_cmaes", "run_grid", "run_ntbea"]

Evaluate = Callable[[str, int, int, dict], dict]
EvaluateMany = Callable[[list[tuple[str, int, int, dict]]], list[dict]]
EPSILON = 1e-6


def _batch(evaluate: Evaluate, evaluate_many: EvaluateMany | None) -> EvaluateMany:
    """``evaluate_many`` (independent evaluations at once: a Dask cluster plays them side by
    side), or ``evaluate`` called for each in turn."""
    if evaluate_many is not None:
        return evaluate_many
    return lambda calls: [evaluate(*call) for call in calls]


def derive_seed(seed: int, *stream: int) -> int:
    """A 63-bit seed for a stream of ``seed`` (search, re-evaluation, final comparison)."""
    state = np.random.SeedSequence([int(seed), *map(int, stream)]).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


# --------------------------------------------------------------------------------------
# CMA-ES


def _encode(space: Space, point: dict) -> np.ndarray:
    return np.array([p.to_unit(point[p.name]) for p in space.params], dtype=float)


def _decode(space: Space, x: np.ndarray) -> dict:
    return {p.name: p.from_unit(v) for p, v in zip(space.params, x, strict=True)}


def default_population(dim: int) -> int:
    """CMA-ES's default population ``4 + floor(3 ln D)``."""
    return 4 + int(3 * math.log(max(dim, 1)))


def run_cmaes(
    space: Space,
    start: dict,
    evaluate: Evaluate,
    *,
    generations: int,
    population: int | None = None,
    sigma: float = 0.2,
    seed: int = 0,
    on_generation: Callable[[dict], None] | None = None,
    evaluate_many: EvaluateMany | None = None,
) -> dict[str, Any]:
    """Maximise ``score`` with CMA-ES for ``generations`` generations.

    The candidates of a generation are asked for together (``evaluate_many``, if given).

    Returns ``{"generations": [...], "best": point, "mean": point}``: per generation the
    candidates (point, score, se, n) and the distribution mean before it was updated; the
    final distribution mean (decoded), which is usually a better answer than the luckiest
    candidate.
    """
    from cmaes import CMA

    for p in space.params:
        if not isinstance(p, Continuous | Integer):
            raise ValueError(f"CMA-ES needs numeric parameters, '{p.name}' is categorical")
    dim = len(space.params)
    population = int(population or default_population(dim))
    mean = np.clip(_encode(space, start), 0.0, 1.0)
    bounds = np.tile([0.0, 1.0], (dim, 1))
    if dim == 1:
        # the library needs at least two dimensions; a second, inert coordinate is harmless
        mean, bounds = np.append(mean, 0.5), np.vstack([bounds, [0.0, 1.0]])
    batch = _batch(evaluate, evaluate_many)
    optimizer = CMA(
        mean=mean,
        sigma=float(sigma),
        bounds=bounds,
        seed=derive_seed(seed, 11) % (2**32),
        population_size=population,
    )
    history = []
    for gen in range(int(generations)):
        mean_point = _decode(space, optimizer.mean[:dim])
        xs = [optimizer.ask() for _ in range(optimizer.population_size)]
        points = [_decode(space, x[:dim]) for x in xs]
        results = batch([("search", gen, i, point) for i, point in enumerate(points)])
        candidates, told = [], []
        for x, point, result in zip(xs, points, results, strict=True):
            candidates.append({"point": point, **_score_fields(result)})
            told.append((x, -float(result["score"])))
        optimizer.tell(told)
        record = {"generation": gen, "mean": mean_point, "candidates": candidates}
        history.append(record)
        if on_generation is not None:
            on_generation(record)
    final_mean = _decode(space, optimizer.mean[:dim])
    best = max((c for g in history for c in g["candidates"]), key=lambda c: c["score"])
    return {"generations": history, "best": best["point"], "mean": final_mean}


def _score_fields(result: dict) -> dict:
    se = result.get("se")  # None when stored as JSON from a NaN (a single seed)
    return {
        "score": float(result["score"]),
        "se": math.nan if se is None else float(se),
        "n": int(result.get("n", 0)),
    }


# --------------------------------------------------------------------------------------
# NTBEA


class NTupleModel:
    """Running means of the score for every 1-tuple and the full tuple of a discrete space."""

    def __init__(self, space: Space):
        self.space = space
        dim = len(space.params)
        self.tuples = [(d,) for d in range(dim)] + ([tuple(range(dim))] if dim > 1 else [])
        self.stats: list[dict[tuple, list[float]]] = [{} for _ in self.tuples]
        self.scores: list[float] = []

    def _index(self, point: dict) -> tuple:
        return tuple(p.values().index(point[p.name]) for p in self.space.params)

    def add(self, point: dict, score: float) -> None:
        idx = self._index(point)
        for t, table in zip(self.tuples, self.stats, strict=True):
            key = tuple(idx[d] for d in t)
            entry = table.setdefault(key, [0.0, 0.0])
            entry[0] += 1
            entry[1] += float(score)
        self.scores.append(float(score))

    @property
    def overall_mean(self) -> float:
        return float(np.mean(self.scores)) if self.scores else 0.0

    @property
    def scale(self) -> float:
        return float(np.std(self.scores)) if len(self.scores) > 1 else 1.0

    def estimate(self, point: dict, explore: float = 0.0) -> float:
        """Mean over the tuples of (tuple mean + k·sqrt(ln(1+N)/(n+ε))); unseen -> overall mean."""
        idx = self._index(point)
        total_n = len(self.scores)
        k = explore * max(self.scale, EPSILON)
        values = []
        for t, table in zip(self.tuples, self.stats, strict=True):
            n, s = table.get(tuple(idx[d] for d in t), (0.0, 0.0))
            mean = s / n if n else self.overall_mean
            values.append(mean + k * math.sqrt(math.log(1 + total_n) / (n + EPSILON)))
        return float(np.mean(values))

    def one_tuple_means(self) -> dict[str, list[tuple[Any, float, int]]]:
        """Per parameter: (value, mean score, n) for every value seen."""
        out = {}
        for d, p in enumerate(self.space.params):
            rows = []
            for vi, value in enumerate(p.values()):
                n, s = self.stats[d].get((vi,), (0.0, 0.0))
                if n:
                    rows.append((value, s / n, int(n)))
            out[p.name] = rows
        return out


def _neighbours(space: Space, point: dict, count: int, rng: np.random.Generator) -> list[dict]:
    dim = len(space.params)
    out = []
    for _ in range(count):
        new = dict(point)
        forced = int(rng.integers(dim))
        for d, p in enumerate(space.params):
            if d == forced or rng.random() < 1.0 / dim:
                others = [v for v in p.values() if v != point[p.name]]
                new[p.name] = others[int(rng.integers(len(others)))]
        out.append(new)
    return out


def _random_point(space: Space, rng: np.random.Generator) -> dict:
    return {p.name: p.values()[int(rng.integers(len(p.values())))] for p in space.params}


def run_ntbea(
    space: Space,
    evaluate: Evaluate,
    *,
    iterations: int,
    seed: int = 0,
    neighbours: int = 50,
    explore: float = 1.0,
    start: dict | None = None,
    on_iteration: Callable[[dict], None] | None = None,
) -> dict[str, Any]:
    """Maximise ``score`` over a discrete space with NTBEA for ``iterations`` evaluations.

    Returns ``{"iterations": [...], "ranking": [...], "model": NTupleModel}``: each iteration's
    point and score, and the distinct evaluated points ranked by the model's mean estimate.
    """
    rng = np.random.default_rng(derive_seed(seed, 12))
    model = NTupleModel(space)
    current = dict(start) if start is not None else _random_point(space, rng)
    history = []
    for it in range(int(iterations)):
        result = evaluate("search", it, 0, current)
        model.add(current, float(result["score"]))
        record = {"iteration": it, "point": dict(current), **_score_fields(result)}
        for key in ("targets",):
            if key in result:
                record[key] = result[key]
        history.append(record)
        if on_iteration is not None:
            on_iteration(record)
        candidates = _neighbours(space, current, int(neighbours), rng)
        ucb = [model.estimate(c, explore) for c in candidates]
        best = max(ucb)
        ties = [c for c, u in zip(candidates, ucb, strict=True) if u >= best - 1e-12]
        current = ties[int(rng.integers(len(ties)))]
    return {"iterations": history, "ranking": model_ranking(space, model, history), "model": model}


def model_ranking(space: Space, model: NTupleModel, history: list[dict]) -> list[dict]:
    """Distinct evaluated points, best model estimate first (ties: the order they were seen)."""
    seen: dict[str, dict] = {}
    for rec in history:
        key = space.point_key(rec["point"])
        entry = seen.setdefault(key, {"point": rec["point"], "evaluations": 0})
        entry["evaluations"] += 1
    ranked = []
    for entry in seen.values():
        ranked.append({**entry, "estimate": model.estimate(entry["point"], 0.0)})
    return sorted(ranked, key=lambda e: -e["estimate"])


# --------------------------------------------------------------------------------------
# grid


def run_grid(
    space: Space,
    evaluate: Evaluate,
    *,
    on_point: Callable[[dict], None] | None = None,
    evaluate_many: EvaluateMany | None = None,
) -> dict[str, Any]:
    """Evaluate every point of a discrete space on the same seeds (block 0), all asked for
    together (``evaluate_many``, if given)."""
    history = []
    points = list(grid_points(space))
    results = _batch(evaluate, evaluate_many)([("search", 0, i, p) for i, p in enumerate(points)])
    for i, (point, result) in enumerate(zip(points, results, strict=True)):
        record = {"iteration": i, "point": point, **_score_fields(result)}
        if "targets" in result:
            record["targets"] = result["targets"]
        history.append(record)
        if on_point is not None:
            on_point(record)
    ranking = sorted(
        ({"point": r["point"], "estimate": r["score"], "evaluations": 1} for r in history),
        key=lambda e: -e["estimate"],
    )
    return {"iterations": history, "ranking": ranking}
