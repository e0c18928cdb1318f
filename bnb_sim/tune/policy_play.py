"""Playing ``bnb tune policy``'s evaluations: a candidate's per-seed scores on a block of
seeds, through the game's ``tune`` hooks (:mod:`bnb_sim.tune.hooks`)."""

from __future__ import annotations

import math

from bnb_sim.tune.hooks import tune_hooks
from bnb_sim.tune.search import derive_seed
from bnb_sim.tune.threads import engine_threads

STREAM_SEARCH, STREAM_REEVAL, STREAM_FINAL = 1, 2, 3
STREAMS = {"search": STREAM_SEARCH, "reeval": STREAM_REEVAL, "final": STREAM_FINAL}


def field_scores(plan, spec, seed: int, start: int, n: int, threads=None) -> dict:
    """Per-seed scores of ``spec`` on seeds ``start .. start+n-1``: ``{"per_seed", "wins",
    "games"}``. A ranked game plays the field in every seating (a win 1, a win shared by k
    players 1/k, a loss 0); a team game plays the candidate in every seat (1 won, 0 lost)."""
    hooks = tune_hooks(plan.game)
    return hooks.policy_scores(plan, spec, seed, start, n, engine_threads(threads, n))


def _summary_of(scores: dict, keep_seeds: bool) -> dict:
    x = scores["per_seed"]
    n = int(x.size)
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    out = {"score": float(x.mean()), "se": se, "n": n, "games": scores["games"]}
    out["wins"] = scores["wins"]
    if keep_seeds:
        out["per_seed"] = [round(float(v), 6) for v in x]
    return out


def evaluate_policy(plan, stage: str, block: int, point: dict, threads=None) -> dict:
    """One evaluation: ``point`` on block ``block`` of the seeds of ``stage`` (search,
    reeval or final), as the ledger stores it. A pure function of its arguments."""
    n = {"search": plan.seeds_search, "reeval": plan.seeds_reeval, "final": plan.seeds_final}
    seed = derive_seed(plan.seed, STREAMS[stage])
    spec = plan.spec_for(point, "candidate")
    scores = field_scores(plan, spec, seed, block * n[stage], n[stage], threads)
    return _summary_of(scores, keep_seeds=stage != "search")
