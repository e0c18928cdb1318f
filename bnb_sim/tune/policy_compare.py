"""The final comparison of ``bnb tune policy``: the tuned parameters against the start on
fresh seeds, paired by seed (a ranked game: mean game score against the field, pair-score
Elo, optional SPRT; a team game: the team win rate on the same game indices)."""

from __future__ import annotations

import numpy as np


def final_comparison(tuned: dict, start: dict, sprt: tuple[float, float] | None = None) -> dict:
    """Paired difference tuned − start of the per-seed scores, 95% t interval, verdict; with
    ``sprt`` (Elo bounds) also an SPRT verdict on the per-seed pair scores."""
    from bnb_sim.analysis.stats import Rate, elo_from_score, paired_difference

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


def team_comparison(tuned: dict, start: dict) -> dict:
    """A cooperative game's final comparison: the paired difference tuned − start of the
    team's per-game results (1 won, 0 lost) on the same fresh game indices, its 95%
    Student t interval, both team win rates with their intervals and a verdict."""
    from bnb_sim.analysis.stats import Rate, paired_difference

    a = np.asarray(tuned["per_seed"], dtype=float)
    b = np.asarray(start["per_seed"], dtype=float)
    diff = paired_difference(a, b, bounds=(-1.0, 1.0))  # a game's result lies in [0, 1]
    if diff["lo"] > 0:
        verdict = "the tuned team wins more often than the start (the 95% interval excludes 0)"
    elif diff["hi"] < 0:
        verdict = "the tuned team wins less often than the start (the 95% interval excludes 0)"
    else:
        verdict = "no significant difference between the tuned parameters and the start"
    return {
        "difference": diff,
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
        "outcome": "team",
    }


def _rate(side: dict) -> dict:
    from bnb_sim.analysis.stats import Rate

    return Rate.of(side["wins"], side["games"]).to_dict()
