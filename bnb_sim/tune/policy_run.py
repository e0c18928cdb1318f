"""Running ``bnb tune policy``: the search, the re-evaluation of the finalists and the final
comparison, their ledger (``tune.json``) and the result dict."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from bnb_sim.tune.execute import run_in_folder
from bnb_sim.tune.hooks import estimated, game_keys
from bnb_sim.tune.policy_compare import final_comparison, team_comparison
from bnb_sim.tune.policy_play import evaluate_policy
from bnb_sim.tune.search import run_cmaes
from bnb_sim.tune.store import TuneStore
from bnb_sim.tune.threads import keeps_threads

Progress = Callable[[str], None] | None
Advance = Callable[[int], None] | None


@keeps_threads
def run_policy_tune(
    plan,  # a PolicyTune (bnb_sim.tune.policy_tune)
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
    return run_in_folder(
        plan, evaluate_policy,
        lambda store, batch: _policy_stages(plan, store, batch, progress), out,
        resume=resume, force=force, threads=threads, advance=advance, dask=dask, lock=lock,
    )  # fmt: skip


def _policy_stages(plan, store: TuneStore, many, progress: Progress) -> dict:
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
    if plan.team:  # a cooperative game: the team win rate on the same games
        comparison = team_comparison(final_tuned, final_start)
    else:
        comparison = final_comparison(final_tuned, final_start, sprt=plan.sprt)
    result = {
        "kind": "tune-policy",
        **game_keys(plan.game),
        **({"outcome": "team"} if plan.team else {}),
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
        "estimated": estimated(plan.components),
    }
    store.finish(result)
    return result


def _public(result: dict) -> dict:
    return {k: result[k] for k in ("score", "se", "n", "games", "wins") if k in result}


def _finalists(plan, search: dict) -> list[tuple[str, dict]]:
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
