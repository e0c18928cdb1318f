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
* **The field.** A cooperative game (Heroes of the Village) has none: the candidate plays
  every seat (the team), a *seed* is one game index and its score 1 (won) or 0 (lost),
  every candidate on the same game indices; the final comparison is the paired difference
  of the team win rates. A ranked game: ``--against A,B`` with ``--players P``: one
  lineup per opponent (the P-1 other seats filled cyclically from that opponent on), and
  every lineup is played in all P seatings on each seed (the candidate in seat 0, 1, ...,
  P-1), so a *seed* is ``L × P`` games and its score is the candidate's mean game score
  (a win 1, a win shared by k players 1/k, a loss 0). Seat and deal luck cancel within a seed.
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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bnb_sim.errors import BnbError
from bnb_sim.tune.hooks import DEFAULT as DEFAULT_GAME
from bnb_sim.tune.hooks import content_hash, game_keys, game_name, game_spec, is_team, tune_hooks
from bnb_sim.tune.policy_answer import _policy_family, policy_family, write_weights
from bnb_sim.tune.policy_compare import final_comparison, sprt_verdict, team_comparison
from bnb_sim.tune.policy_play import STREAMS, evaluate_policy, field_scores
from bnb_sim.tune.policy_run import run_policy_tune
from bnb_sim.tune.policy_space import _space, default_bounds
from bnb_sim.tune.search import default_population
from bnb_sim.tune.space import Integer, Space
from bnb_sim.tune.threads import engine_threads, keeps_threads, threads_kept

__all__ = [
    "STREAMS",
    "PolicyTune",
    "_policy_family",
    "default_bounds",
    "engine_threads",
    "evaluate_policy",
    "field_scores",
    "final_comparison",
    "keeps_threads",
    "plan_policy_tune",
    "policy_family",
    "run_policy_tune",
    "sprt_verdict",
    "team_comparison",
    "threads_kept",
    "write_weights",
]

SEATING = "fixed"  # the driver seats the candidate in every seat itself
SHARE_REEVAL = 0.25
SHARE_FINAL = 0.25
TARGET_GENERATIONS = 20
MIN_GENERATIONS = 3
MIN_SEEDS_SEARCH = 2
MIN_SEEDS_REEVAL = 10
MIN_SEEDS_FINAL = 20


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
    game: str = DEFAULT_GAME  # the registry name of the game (bnb_sim.games)
    team: bool = False  # a cooperative game: the candidate is the whole team, no field

    @property
    def variant(self) -> str:
        return self.readings.get("variant", "standard")

    @property
    def games_per_seed(self) -> int:
        """Games per seed: every lineup in every seating; a team game's seed is one game."""
        return len(self.lineups) * self.players if self.lineups else 1

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
        return {
            "command": "policy",
            **game_keys(self.game),
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
            "components": content_hash(self.game, self.components),
        }

    def warm_config(self):
        """A config of this run's kernels (the start spec): what a Dask worker plays once to
        load or compile them."""
        return tune_hooks(self.game).warm_config(self)

    def spec_for(self, point: dict, label: str):
        """The policy spec of a point (every other parameter at its start value)."""
        return replace(tune_hooks(self.game).parse_policy(self.spec_text(point)), label=label)

    def spec_text(self, point: dict) -> str:
        """The policy spec of a point, e.g. ``mc:rollouts=12,margin=0.05,rollout=heuristic``."""
        values = {**self.base_values, **point}
        return tune_hooks(self.game).spec_text(self.family, values, self.fixed, self.integers)


def _field_lineups(against: Sequence[str], players: int) -> list[list[str]]:
    f = len(against)
    lineups = []
    for i in range(f):
        lineup = [against[(i + j) % f] for j in range(players - 1)]
        if lineup not in lineups:
            lineups.append(lineup)
    return lineups


def _per_seed_text(u: int, lineups: list, players: int) -> str:
    if not lineups:
        return "1 game per seed (the team in every seat)"
    return f"{u} games per seed ({len(lineups)} lineup(s) x {players} seatings)"


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
    game: str | None = None,
) -> PolicyTune:
    """Validate everything and split the budget (raises BnbError before any game).

    ``readings``: rule readings (name -> value, as ``--reading``; ``variant`` is an alias).
    The candidate moves through every seat, so the seating is the design's (fixed seats,
    rotated by the driver) and one variant per player is refused."""
    hooks = tune_hooks(game)
    team = is_team(game)
    against = [a.strip() for a in against if a.strip()]
    if team and against:
        raise BnbError(
            f"tune: --against: {game_spec(game).title} is cooperative: the tuned policy plays "
            "every seat (the team) on the same games; drop --against"
        )
    if not team and not against:
        raise BnbError("tune: --against needs at least one policy")
    for spec in against:
        hooks.check_policy(spec)
    low, high = hooks.PLAYERS
    if not low <= int(players) <= high:
        raise BnbError(f"tune: --players must be between {low} and {high}, got {players}")
    if not 0 < float(sigma) <= 1:
        raise BnbError(f"tune: --sigma must be in (0, 1] (a share of each range), got {sigma:g}")
    if int(top) < 1:
        raise BnbError("tune: --top must be at least 1")
    components = hooks.load_components(components)
    components, readings = hooks.tune_readings(components, readings, variant, SEATING,
                                               "tune policy")  # fmt: skip
    if sprt is not None and team:
        raise BnbError("tune: --sprt tests Elo against a field; a cooperative game has none "
                       "(the final comparison gives the team win rates' difference)")  # fmt: skip
    if sprt is not None:
        sprt = (float(sprt[0]), float(sprt[1]))
        if not sprt[0] < sprt[1]:
            raise BnbError(f"tune: --sprt needs ELO0 < ELO1, got {sprt[0]:g} {sprt[1]:g}")
    family, names, values, fixed = hooks.policy_family(policy)
    thresholds = hooks.bot_thresholds(policy)[1]
    space = _space(params, names, values, family, thresholds,
                   budgets=hooks.budget_params(family),
                   defaults=hooks.default_params(family, names),
                   owner=getattr(hooks, "PARAMS_OWNER", "the bot file"))  # fmt: skip
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
    lineups = [] if team else _field_lineups(against, int(players))
    u = len(lineups) * int(players) if lineups else 1
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
            f"and {_per_seed_text(u, lineups, players)}; "
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
        game=game_name(game),
        team=team,
    )


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
