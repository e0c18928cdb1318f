"""``bnb tune game``: search component values toward targets (first-player advantage, ...).

Design (every number counted in games, out of ``--budget``):

* **Parameters.** ``--param PATH=LO..HI`` (integers) or ``--param PATH=V1,V2,...`` (any
  values, e.g. bonus targets) for any dotted key a sweep accepts; every value is validated by
  the component loader before a game is played.
* **Targets.** :mod:`bnb_sim.tune.targets` (several combine into one score, documented there).
* **Search (half of the budget).** An exhaustive grid when the space is small (``--method
  auto`` picks it when NTBEA would evaluate each point at least :data:`GRID_FACTOR` times
  on average anyway): every point on the same seeds. Otherwise NTBEA
  (:func:`bnb_sim.tune.search.run_ntbea`), one evaluation of ``--games-per-eval`` games per
  iteration, each iteration on new seeds of the search stream.
* **Re-evaluation (30%).** The ``--top`` best settings (by the model, or by the grid's
  score) and the component file's own values are played on fresh seeds (another stream), all
  on the same seeds, and every target is estimated with its 95% interval; the best combined
  score is the answer. It is called the *best* setting only when a paired bootstrap of the
  score over those games puts it ahead of every other finalist (:mod:`bnb_sim.tune.score_gaps`);
  otherwise it is tied with them. The answer is written as a component override file
  (``tuned-components.toml``) that any command takes as ``--components``.
* **Confirmation (20%).** The answer and the baseline on fresh seeds of a third stream that
  no selection has seen: the answer's target estimates and its paired differences from the
  baseline come from these games (the re-evaluation's would carry the winner's curse of the
  choice among ``--top + 1`` settings).
* **Sensitivity.** For every parameter and value: the mean of each target over the search's
  evaluations with that value (a plot and a table).

Seating rotates with the game index (``seating = "rotate"``), so every policy sits in every
seat equally often; ``--games-per-eval`` and the stage sizes are multiples of the players.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bnb_sim.errors import BnbError
from bnb_sim.tune.execute import run_in_folder
from bnb_sim.tune.game_sensitivity import sensitivity
from bnb_sim.tune.hooks import DEFAULT as DEFAULT_GAME
from bnb_sim.tune.hooks import content_hash, estimated, game_keys, game_name, is_team, tune_hooks
from bnb_sim.tune.override import write_override
from bnb_sim.tune.score_gaps import finalist_leader, game_terms, replicate_scores
from bnb_sim.tune.search import derive_seed, run_grid, run_ntbea
from bnb_sim.tune.space import Categorical, Space, discrete_param, parse_range
from bnb_sim.tune.store import TuneStore
from bnb_sim.tune.targets import Target, combined_score, measure, parse_target, per_game
from bnb_sim.tune.threads import engine_threads, keeps_threads

__all__ = ["GameTune", "plan_game_tune", "run_game_tune", "write_override"]

STREAM_SEARCH, STREAM_REEVAL, STREAM_FINAL = 1, 2, 3
STREAMS = {"search": STREAM_SEARCH, "reeval": STREAM_REEVAL, "final": STREAM_FINAL}
SEATING = "rotate"  # every policy sits in every seat equally often
SHARE_REEVAL = 0.3
SHARE_FINAL = 0.2  # the answer and the baseline, half each
GRID_FACTOR = 4
MIN_ITERATIONS = 10
MIN_FINAL_GAMES = 100
MIN_CONFIRM_GAMES = 50  # per side of the confirmation
_SEAT_KEEP = ("game", "seat", "policy", "won", "xp")
Progress = Callable[[str], None] | None
Advance = Callable[[int], None] | None


@dataclass
class GameTune:
    space: Space
    targets: list[Target]
    players: int
    policies: list[str]  # in player order (cycled over the players)
    budget: int
    seed: int
    method: str  # "grid" or "ntbea"
    games_per_eval: int
    iterations: int
    top: int
    games_final: int  # per finalist of the re-evaluation
    games_confirm: int  # per side (answer, baseline) of the confirmation
    explore: float
    neighbours: int
    readings: dict = field(default_factory=dict)  # every rule reading (seating: rotate)
    components: Any = None
    component_files: list[str] = field(default_factory=list)
    game: str = DEFAULT_GAME  # the registry name of the game (bnb_sim.games)
    team: bool = False  # a cooperative game: its targets are the team's results

    @property
    def variant(self) -> str:
        return self.readings.get("variant", "standard")

    @property
    def planned_games(self) -> dict[str, int]:
        return {
            "search": self.iterations * self.games_per_eval,
            "reeval": (self.top + 1) * self.games_final,
            "final": 2 * self.games_confirm,
        }

    def spec_dict(self) -> dict:
        return {
            "command": "game",
            **game_keys(self.game),
            "space": self.space.to_dict(),
            "targets": [t.to_dict() for t in self.targets],
            "players": self.players,
            "policies": self.policies,
            "budget": self.budget,
            "seed": self.seed,
            "method": self.method,
            "games_per_eval": self.games_per_eval,
            "iterations": self.iterations,
            "top": self.top,
            "games_final": self.games_final,
            "games_confirm": self.games_confirm,
            "explore": self.explore,
            "neighbours": self.neighbours,
            "readings": self.readings,
            "components": content_hash(self.game, self.components),
        }

    def warm_config(self):
        """A config of this run's kernels: what a Dask worker plays once to load them."""
        return tune_hooks(self.game).game_warm_config(self)

    def baseline(self) -> dict:
        value_at = tune_hooks(self.game).value_at
        return {p.name: value_at(self.components, p.name) for p in self.space.params}

    def components_for(self, point: dict):
        return tune_hooks(self.game).with_values(self.components, point, "bnb tune")


def _round_down(n: int, k: int) -> int:
    return (int(n) // k) * k


def plan_game_tune(
    *,
    params: Sequence[str],
    targets: Sequence[str],
    players: int,
    policies: Sequence[str],
    budget: int,
    seed: int = 0,
    method: str = "auto",
    games_per_eval: int | None = None,
    top: int = 3,
    explore: float = 1.0,
    neighbours: int = 50,
    components=None,
    component_files: Sequence[str] = (),
    variant: str | None = None,
    readings=None,
    game: str | None = None,
) -> GameTune:
    """Validate every value, target and policy and split the budget (before any game).

    ``readings``: rule readings (name -> value, as ``--reading``; ``variant`` is an alias);
    the seating rotates with the game index (the design's), one variant per player is
    refused."""
    hooks = tune_hooks(game)
    team = is_team(game)
    if components is None or isinstance(components, list | tuple):  # not loaded yet
        components = list(component_files) or None
    components = hooks.load_components(components)
    players = int(players)
    low, high = hooks.PLAYERS
    if not low <= players <= high:
        raise BnbError(f"tune: --players must be between {low} and {high}, got {players}")
    components, readings = hooks.tune_readings(components, readings, variant, SEATING,
                                               "tune game")  # fmt: skip
    labels = hooks.game_policies(list(policies) or [hooks.DEFAULT_POLICY], players)
    space = Space(
        tuple(discrete_param(*parse_range(t, integer=True, allow_list=True)) for t in params)
    )
    for p in space.params:
        ends = p.values() if isinstance(p, Categorical) else [p.lo, p.hi]
        for v in ends:
            hooks.with_values(components, {p.name: v}, "--param")  # names the path and value
    if not targets:
        raise BnbError("tune: give at least one --target (e.g. first_player_advantage=0)")
    parsed = [parse_target(t, labels, team=team) for t in targets]
    check_targets = getattr(hooks, "check_targets", None)  # a protocol game's columns
    if check_targets is not None:
        check_targets(parsed)
    keys = [t.key for t in parsed]
    dup = next((k for k in keys if keys.count(k) > 1), None)
    if dup:
        raise BnbError(f"tune: --target {dup} is given twice")
    if method not in ("auto", "grid", "ntbea"):
        raise BnbError(f"tune: --method must be auto, grid or ntbea, got '{method}'")
    if int(top) < 1:
        raise BnbError("tune: --top must be at least 1")
    if not explore >= 0:
        raise BnbError("tune: --explore must be >= 0")
    budget = int(budget)
    games_final = _round_down(int(budget * SHARE_REEVAL) // (int(top) + 1), players)
    games_confirm = _round_down(int(budget * SHARE_FINAL) // 2, players)
    search_budget = budget - (int(top) + 1) * games_final - 2 * games_confirm
    g = games_per_eval or max(players * 25, 100)
    g = _round_down(g, players)
    if g < players:
        raise BnbError(f"tune: --games-per-eval must be at least {players} (the players)")
    size = space.size
    if method == "auto":
        method = "grid" if size * GRID_FACTOR * g <= search_budget else "ntbea"
    if method == "grid":
        g = _round_down(search_budget // size, players)
        iterations = int(size)
        need = math.ceil((size * players * 10) / (1 - SHARE_REEVAL - SHARE_FINAL))
        if g < players * 10:
            raise BnbError(
                f"tune: --budget {budget:,} is too small for a grid of {size:,} points "
                f"({players * 10} games each at least); give at least --budget {need:,} "
                "or --method ntbea"
            )
    else:
        iterations = search_budget // g
        if iterations < MIN_ITERATIONS:
            need = math.ceil(MIN_ITERATIONS * g / (1 - SHARE_REEVAL - SHARE_FINAL))
            raise BnbError(
                f"tune: --budget {budget:,} is too small for NTBEA with {g:,} games per "
                f"evaluation; give at least --budget {need:,} (or a smaller --games-per-eval)"
            )
    if games_final < MIN_FINAL_GAMES or games_confirm < MIN_CONFIRM_GAMES:
        need = math.ceil(max(MIN_FINAL_GAMES * (int(top) + 1) / SHARE_REEVAL,
                             2 * MIN_CONFIRM_GAMES / SHARE_FINAL))  # fmt: skip
        raise BnbError(f"tune: --budget {budget:,} is too small; give at least {need:,}")
    return GameTune(
        space=space,
        targets=parsed,
        players=players,
        policies=labels,
        budget=budget,
        seed=int(seed),
        method=method,
        games_per_eval=int(g),
        iterations=int(iterations),
        top=int(top),
        games_final=int(games_final),
        games_confirm=int(games_confirm),
        explore=float(explore),
        neighbours=int(neighbours),
        readings=readings,
        components=components,
        component_files=list(component_files),
        game=game_name(game),
        team=team,
    )


# --------------------------------------------------------------------------------------
# playing


def _keep(column: str) -> bool:
    return column in _SEAT_KEEP or column.startswith("xp_")


def play_point(
    plan: GameTune, point: dict, seed: int, start: int, n: int, *, intervals: bool, threads=None
) -> dict:
    """Games ``start .. start+n-1`` under ``point``: the targets and the combined score."""
    seats, games = tune_hooks(plan.game).play_games(
        plan, plan.components_for(point), seed, start, n, engine_threads(threads, n), _keep
    )
    estimates = {
        t.key: measure(t, seats, games, intervals=intervals, seed=seed) for t in plan.targets
    }
    out = {"score": combined_score(plan.targets, estimates), "n": n, "games": n}
    out["targets"] = estimates
    if intervals:  # the re-evaluation keeps per-game terms for paired differences
        terms = {t.key: per_game(t, seats, games) for t in plan.targets}
        out["per_game"] = {
            k: [round(float(v), 6) for v in x] for k, x in terms.items() if x is not None
        }
        # the score on resamples of these games, the same resamples for every setting
        out["score_replicates"] = replicate_scores(
            plan.targets, game_terms(plan.targets, seats, games), seed
        )
    return out


# --------------------------------------------------------------------------------------
# the run


def evaluate_game(plan: GameTune, stage: str, block: int, point: dict, threads=None) -> dict:
    """One evaluation: ``point`` on block ``block`` of the games of ``stage`` (search or
    reeval), as the ledger stores it. A pure function of its arguments."""
    n = {"search": plan.games_per_eval, "reeval": plan.games_final, "final": plan.games_confirm}
    seed = derive_seed(plan.seed, STREAMS[stage])
    return play_point(plan, point, seed, block * n[stage], n[stage],
                      intervals=stage != "search", threads=threads)  # fmt: skip


@keeps_threads
def run_game_tune(
    plan: GameTune,
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
    """Search and re-evaluate; returns the result dict (also in tune.json).

    ``dask``: ``"local"`` or a scheduler address plays the evaluations on Dask workers
    (:mod:`bnb_sim.tune.execute`); the answer is the same as without. ``lock``: the lock of
    ``out`` when the caller holds it (:func:`~bnb_sim.tune.store.open_tune_folder`)."""
    return run_in_folder(
        plan, evaluate_game, lambda store, batch: _game_stages(plan, store, batch, progress), out,
        resume=resume, force=force, threads=threads, advance=advance, dask=dask, lock=lock,
    )  # fmt: skip


def _game_stages(plan: GameTune, store: TuneStore, many, progress: Progress) -> dict:
    def evaluate(*call):
        return many([call])[0]

    def on_step(record: dict) -> None:
        if progress is not None and (record["iteration"] + 1) % max(1, plan.iterations // 10) == 0:
            progress(
                f"  {record['iteration'] + 1}/{plan.iterations} evaluations; last: "
                f"{plan.space.point_key(record['point'])} score {record['score']:.2f}"
            )

    if plan.method == "grid":
        search = run_grid(plan.space, evaluate, on_point=on_step, evaluate_many=many)
    else:
        search = run_ntbea(
            plan.space,
            evaluate,
            iterations=plan.iterations,
            seed=plan.seed,
            neighbours=plan.neighbours,
            explore=plan.explore,
            start=_start_point(plan),
            on_iteration=on_step,
        )
    finalists = [("baseline", plan.baseline())]
    for entry in search["ranking"]:
        if len(finalists) > plan.top:
            break
        if all(entry["point"] != p for _, p in finalists):
            finalists.append(("search", entry["point"]))
    if progress is not None:
        progress(f"  re-evaluating {len(finalists)} settings on {plan.games_final:,} fresh games")
    reeval = []
    results = many([("reeval", 0, i, point) for i, (_, point) in enumerate(finalists)])
    for (origin, point), r in zip(finalists, results, strict=True):
        reeval.append(
            {
                "origin": origin,
                "point": point,
                "score": r["score"],
                "targets": r["targets"],
                "games": r["games"],
                "per_game": r.get("per_game", {}),
                "score_replicates": r.get("score_replicates", []),
            }
        )
    _paired_with_baseline(reeval)
    best = max(range(len(reeval)), key=lambda i: reeval[i]["score"])
    leader = finalist_leader(plan.space, reeval)
    final = _confirm(plan, reeval[best]["point"], many, progress)
    result = {
        "kind": "tune-game",
        **game_keys(plan.game),
        **({"outcome": "team"} if plan.team else {}),
        "method": plan.method,
        "players": plan.players,
        "policies": plan.policies,
        "readings": plan.readings,
        "seed": plan.seed,
        "budget": plan.budget,
        "games": store.games_done(),
        "planned_games": plan.planned_games,
        "played_games": store.games_by_stage(),
        "space": plan.space.to_dict(),
        "targets": [t.to_dict() for t in plan.targets],
        "baseline": plan.baseline(),
        "search": [
            {k: r[k] for k in ("iteration", "point", "score", "targets")}
            for r in search["iterations"]
        ],
        "ranking": search["ranking"][: max(10, plan.top)],
        "reeval": reeval,
        "winner": best,
        "best": reeval[best]["point"],
        "leader": leader,
        "final": final,
        "sensitivity": sensitivity(plan, search["iterations"]),  # game_sensitivity.py
        "estimated": estimated(plan.components, [p.name for p in plan.space.params]),
    }
    store.finish(result)
    return result


def _paired_with_baseline(reeval: list[dict]) -> None:
    """Each finalist's paired difference from the baseline (same seeds) per target that has
    per-game terms: Student t on the per-game differences."""
    from bnb_sim.analysis.stats_paired import paired_difference

    base = reeval[0]["per_game"]  # the baseline is the first finalist
    for i, r in enumerate(reeval):
        terms = r.pop("per_game")
        if i == 0:
            r["vs_baseline"] = {}
            continue
        r["vs_baseline"] = {k: paired_difference(x, base[k]) for k, x in terms.items()}


def _confirm(plan: GameTune, answer: dict, many, progress: Progress) -> dict:
    """The answer and the baseline on fresh games (a third stream): the answer's target
    estimates and its paired differences from the baseline, free of the selection."""
    from bnb_sim.analysis.stats_paired import paired_difference

    base = plan.baseline()
    if progress is not None:
        progress(f"  confirming the answer against the baseline on {plan.games_confirm:,} "
                 "fresh games each")  # fmt: skip
    same = answer == base
    calls = [("final", 0, 0, answer)] + ([] if same else [("final", 0, 1, base)])
    results = many(calls)
    mine, theirs = results[0], results[-1]
    vs = {} if same else {k: paired_difference(x, theirs["per_game"][k])
                          for k, x in mine["per_game"].items()}  # fmt: skip
    return {
        "games": plan.games_confirm,
        "answer_is_baseline": same,
        "answer": {"targets": mine["targets"], "score": mine["score"]},
        "baseline": {"targets": theirs["targets"], "score": theirs["score"]},
        "vs_baseline": vs,
    }


def _start_point(plan: GameTune) -> dict | None:
    """NTBEA starts from the file's values when they lie in the space (else at random)."""
    base = plan.baseline()
    for p in plan.space.params:
        if base[p.name] not in p.values():
            return None
    return base
