"""Is the answer of ``bnb tune game`` ahead of the runner-up? A paired bootstrap of the score.

The finalists of the re-evaluation play the same game indices, so their combined scores
(:func:`bnb_sim.tune.targets.combined_score`, a function of every target's estimate) are
paired. The score is not a mean over games (a target may be a maximum, a ratio or a distance
to a goal), so its sampling error comes from a bootstrap over the game indices: every
finalist computes its score on the *same* resamples (the weights depend only on the seed of
the stream and the number of games), and the gap between two finalists' replicate scores
gives a percentile interval (:func:`bnb_sim.analysis.leaders.gaps_from_replicates`). The
answer is called the best setting only when that interval excludes 0 for every other
finalist; otherwise it is tied with them.

Each evaluation returns its :data:`N_BOOT` replicate scores (rounded), so nothing per game
needs to be stored and the evaluations stay independent (Dask, resume).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from bnb_sim.tune.targets import Target

__all__ = ["N_BOOT", "finalist_leader", "game_terms", "replicate_scores", "score_of_means"]

N_BOOT = 1000
_CHUNK = 100  # replicates per block of multinomial weights (memory: chunk x games)


def game_terms(targets: Sequence[Target], seats: pd.DataFrame, games: pd.DataFrame):
    """Per-game columns (by game index) whose means give every target's estimate."""
    cols: dict[str, np.ndarray] = {}
    names = {t.name for t in targets}
    if names & {"first_player_advantage", "balance"}:
        wide = seats.pivot_table(index="game", columns="seat", values="won", aggfunc="mean")
        for s in wide.columns:
            cols[f"seat:{int(s)}"] = wide[s].sort_index().to_numpy(dtype=float)
    if "game_length" in names:
        cols["turns"] = games.sort_values("game")["turns"].to_numpy(dtype=float)
    for t in targets:
        if t.name == "xp_share":
            per_game = seats.groupby("game", sort=True)[["xp", f"xp_{t.arg}"]].sum()
            cols["xp"] = per_game["xp"].to_numpy(dtype=float)
            cols[f"xp:{t.arg}"] = per_game[f"xp_{t.arg}"].to_numpy(dtype=float)
        elif t.name == "win_rate" and t.arg is None:  # a cooperative game: the team's
            cols["share:None"] = games.sort_values("game")["won"].to_numpy(dtype=float)
        elif t.name == "win_rate":
            rows = seats[seats["policy"].astype(str).to_numpy() == t.arg]
            share = rows.groupby("game", sort=True)["won"].mean().to_numpy(dtype=float)
            cols[f"share:{t.arg}"] = share
    return cols


def _value(target: Target, means: dict[str, np.ndarray]) -> np.ndarray:
    """The target's estimate from column means (vectorised over replicates)."""
    if target.name in ("first_player_advantage", "balance"):
        seats = sorted(int(k.split(":")[1]) for k in means if k.startswith("seat:"))
        rates = np.stack([means[f"seat:{s}"] for s in seats])
        if target.name == "balance":
            return 1.0 - (rates.max(axis=0) - rates.min(axis=0))
        return rates[0] - rates[1:].mean(axis=0)
    if target.name == "game_length":
        return means["turns"]
    if target.name == "xp_share":
        with np.errstate(invalid="ignore", divide="ignore"):
            return means[f"xp:{target.arg}"] / means["xp"]
    return means[f"share:{target.arg}"]


def score_of_means(targets: Sequence[Target], means: dict[str, np.ndarray]) -> np.ndarray:
    """``−Σ weight · loss`` (as :func:`~bnb_sim.tune.targets.combined_score`), vectorised."""
    total = 0.0
    for t in targets:
        e = _value(t, means)
        if t.goal == "max":
            loss = -e / t.unit
        elif t.goal == "min":
            loss = e / t.unit
        else:
            loss = np.abs(e - float(t.goal)) / t.unit
        total = total + t.weight * np.where(np.isfinite(loss), loss, math.inf)
    return -np.asarray(total, dtype=float)


def replicate_scores(
    targets: Sequence[Target], terms: dict[str, np.ndarray], seed: int, n_boot: int = N_BOOT
) -> list[float]:
    """The combined score on ``n_boot`` bootstrap resamples of the games: resample ``r``
    draws the games with multinomial weights that depend only on ``seed``, ``r`` and the
    number of games, so every finalist of one stream is scored on the same resamples."""
    if not terms:
        return []
    n = len(next(iter(terms.values())))
    if n < 2:
        return []
    matrix = np.column_stack([np.asarray(v, dtype=float) for v in terms.values()])
    keys = list(terms)
    rng = np.random.default_rng([int(seed), 0xB0075])
    out = []
    for start in range(0, n_boot, _CHUNK):
        size = min(_CHUNK, n_boot - start)
        weights = rng.multinomial(n, np.full(n, 1.0 / n), size=size).astype(float)
        sums = weights @ np.nan_to_num(matrix)
        counts = weights @ np.isfinite(matrix).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums / counts
        out.append(score_of_means(targets, {k: means[:, j] for j, k in enumerate(keys)}))
    return [round(float(v), 6) for v in np.concatenate(out)]


def finalist_leader(space, reeval: list[dict]) -> dict:
    """Whether the answer's score is ahead of every other finalist's on the re-evaluation's
    games (paired bootstrap, :mod:`bnb_sim.tune.score_gaps`); the replicates are dropped
    from ``reeval`` afterwards (they are in the ledger)."""
    from bnb_sim.analysis.leaders import gaps_from_replicates, leader_of

    labels = [space.point_key(r["point"]) for r in reeval]
    pairs = zip(labels, reeval, strict=True)
    reps = {k: np.asarray(r.pop("score_replicates", []), float) for k, r in pairs}
    order = [labels[i] for i in sorted(range(len(reeval)), key=lambda i: -reeval[i]["score"])]
    scores = {k: r["score"] for k, r in zip(labels, reeval, strict=True)}
    if len(order) < 2 or any(reps[k].size < 2 for k in order):
        return leader_of(order, {}).to_dict()
    method = "paired bootstrap over the re-evaluation's games"
    gaps = gaps_from_replicates(order, scores, reps, unit="points", method=method)
    return leader_of(order, gaps).to_dict()
