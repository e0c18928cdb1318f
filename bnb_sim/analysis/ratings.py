"""Bradley--Terry ratings on the Elo scale and head-to-head tables (docs/design.md, "Statistics").

A multi-player game is scored as all its pairwise results between seats with different
policies: the better rank wins, equal ranks score ½-½ (:func:`pairwise_from_games`). Ratings
are the maximum a-posteriori Bradley--Terry log-strengths with a small L2 (Gaussian) prior so
that perfect records stay finite, converted to Elo with ``400/ln(10)·θ``. Intervals come from
a bootstrap over games (each game's pairwise results move together), never over individual
pairwise results.

Note: pairwise results from one multi-player game are not independent and the pairwise
decomposition of a ranking is not exactly a Bradley--Terry model; the point ratings are still a
consistent ordering summary and the game-level bootstrap keeps the intervals honest.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import numpy as np

from bnb_sim.analysis.stats_clustered import _pattern_bootstrap, _percentile, _unique_patterns
from bnb_sim.analysis.stats_intervals import _check_confidence, _scalar_or_array

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "ELO_PER_THETA",
    "bradley_terry",
    "bt_ratings",
    "elo_from_theta",
    "head_to_head",
    "pairwise_from_games",
]

ELO_PER_THETA = 400.0 / math.log(10.0)  # about 173.7 Elo per unit of natural-log strength


def _bt_objective(theta: np.ndarray, wins: np.ndarray, l2: float) -> float:
    diff = theta[:, None] - theta[None, :]
    # log sigmoid(diff) = -log1p(exp(-diff)), computed stably
    return float(-(wins * np.logaddexp(0.0, -diff)).sum() - 0.5 * l2 * theta @ theta)


def bradley_terry(wins, l2: float = 1e-2, max_iter: int = 10_000, tol: float = 1e-10) -> np.ndarray:
    """Bradley--Terry log-strengths ``θ`` (mean 0) from a matrix of pairwise wins.

    ``wins[i, j]`` is the number of times ``i`` beat ``j`` (floats allowed: a tie adds ½ to
    both ``wins[i, j]`` and ``wins[j, i]``); the diagonal is ignored. The model is
    ``P(i beats j) = 1 / (1 + exp(θ_j - θ_i))``.

    Fit: maximise ``Σ_ij wins[i,j]·log σ(θ_i - θ_j) - (l2/2)·Σ θ_i²`` by Newton's method with
    backtracking (the objective is strictly concave for ``l2 > 0``, so this converges
    quadratically from 0; it is the same optimum an MM iteration would reach). ``l2`` is the
    precision of a Gaussian prior on ``θ`` in natural-log units: ``1e-2`` is worth about a
    hundredth of a game per player, negligible with real sample sizes, but keeps a perfect
    record finite. The optimum has ``Σθ = 0`` automatically; the result is re-centred anyway.

    Players who never met anybody get ``θ = 0``. Disconnected groups of players are each
    centred at 0 by the prior; ratings across such groups are not comparable. ``l2 = 0`` gives
    the plain maximum-likelihood fit, which does not exist for perfect records (θ then grows
    until the likelihood is flat to rounding); a ``RuntimeWarning`` is emitted if the
    iteration does not converge.
    """
    w = np.array(wins, dtype=float)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"wins must be a square matrix, got shape {w.shape}")
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError("wins must be finite and >= 0")
    if l2 < 0:
        raise ValueError("l2 must be >= 0")
    np.fill_diagonal(w, 0.0)
    p = w.shape[0]
    if p == 0:
        return np.zeros(0)
    games = w + w.T
    row_wins = w.sum(axis=1)
    theta = np.zeros(p)
    obj = _bt_objective(theta, w, l2)
    converged = False
    for _ in range(max_iter):
        diff = theta[:, None] - theta[None, :]
        prob = 0.5 * (1.0 + np.tanh(0.5 * diff))  # sigmoid, stable
        grad = row_wins - (games * prob).sum(axis=1) - l2 * theta
        info = games * prob * (1.0 - prob)
        hess = info - np.diag(info.sum(axis=1) + l2)  # negative (semi)definite
        if l2 > 0:
            step = np.linalg.solve(hess, -grad)
        else:
            step = np.linalg.lstsq(hess, -grad, rcond=None)[0]
        # The optimum has Σθ = 0 and so does every exact step from a centred θ; centring the step
        # removes rounding noise along the weakly determined constant direction.
        step -= step.mean()
        # Newton decrement: the predicted gain of this step. Once it is at the rounding level of
        # the objective, this last step is as accurate as the arithmetic allows (with huge win
        # counts the steps cannot shrink below `tol`).
        tiny_gain = 0.5 * float(grad @ step) <= 1e-15 * (1.0 + abs(obj))
        # backtracking line search on the concave objective
        t = 1.0
        while True:
            cand = theta + t * step
            cand_obj = _bt_objective(cand, w, l2)
            if cand_obj >= obj - 1e-12 * abs(obj) or t < 1e-10:
                break
            t *= 0.5
        theta, obj = cand, cand_obj
        if tiny_gain or np.max(np.abs(t * step)) < tol:
            converged = True
            break
    if not converged:
        warnings.warn(
            f"bradley_terry did not converge in {max_iter} iterations (l2={l2})",
            RuntimeWarning,
            stacklevel=2,
        )
    return theta - theta.mean()


def elo_from_theta(theta, anchor: int | None = None) -> np.ndarray:
    """Elo ratings ``400/ln(10)·θ``; shifted so player ``anchor`` is 0, else to mean 0.

    A higher θ (stronger player) gives a higher Elo; a difference of 400 Elo means odds of 10:1.
    """
    elo = ELO_PER_THETA * np.asarray(theta, dtype=float)
    if anchor is None:
        return elo - elo.mean(axis=-1, keepdims=True)
    return elo - elo[..., anchor : anchor + 1]


# --------------------------------------------------------------------------------------------
# from per-seat rows to pairwise results
# --------------------------------------------------------------------------------------------


def _game_patterns(seats_df: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Distinct per-game pairwise-win contributions.

    Returns ``(names, patterns, counts)``: ``patterns[k]`` is the flattened ``P x P`` win
    matrix of one kind of game (which policies sat where and how they ranked) and
    ``counts[k]`` how many games were of that kind. Summing ``counts @ patterns`` gives the
    total win matrix; resampling games is a multinomial over the kinds.
    """
    import pandas as pd

    for col in ("game", "policy", "rank"):
        if col not in seats_df.columns:
            raise KeyError(f"seats DataFrame needs a {col!r} column")
    codes, uniques = pd.factorize(seats_df["policy"].astype(str), sort=True)
    names = [str(u) for u in uniques]
    n_pol = len(names)
    if seats_df.shape[0] == 0:
        return names, np.zeros((0, 0)), np.zeros(0, dtype=np.int64)
    game = seats_df["game"].to_numpy()
    rank = seats_df["rank"].to_numpy(dtype=float)
    if "seat" in seats_df.columns:
        order = np.lexsort((seats_df["seat"].to_numpy(), game))
    else:
        order = np.argsort(game, kind="stable")
    _, per_game = np.unique(game[order], return_counts=True)
    row_size = np.repeat(per_game, per_game)
    all_patterns = []
    all_counts = []
    for size in np.unique(per_game):
        rows = order[row_size == size]
        block = np.concatenate(
            [codes[rows].reshape(-1, size), rank[rows].reshape(-1, size)], axis=1
        )
        uniq, cnt = _unique_patterns(block)
        pol = uniq[:, :size].astype(np.int64)
        rk = uniq[:, size:]
        contrib = np.zeros((uniq.shape[0], n_pol * n_pol))
        idx = np.arange(uniq.shape[0])
        for a in range(size):
            for b in range(a + 1, size):
                pa, pb, ra, rb = pol[:, a], pol[:, b], rk[:, a], rk[:, b]
                sel = pa != pb
                wa = (ra < rb) + 0.5 * (ra == rb)
                np.add.at(contrib, (idx[sel], (pa * n_pol + pb)[sel]), wa[sel])
                np.add.at(contrib, (idx[sel], (pb * n_pol + pa)[sel]), 1.0 - wa[sel])
        all_patterns.append(contrib)
        all_counts.append(cnt)
    return names, np.concatenate(all_patterns), np.concatenate(all_counts)


def pairwise_from_games(seats_df: pd.DataFrame) -> tuple[list[str], np.ndarray]:
    """Pairwise win matrix from per-seat rows (``game``, ``policy``, ``rank`` columns).

    In every game, every pair of seats with *different* policies is one meeting: the better
    (lower) rank scores a win, equal ranks score ½ each. Returns ``(names, wins)`` with
    ``names`` the sorted policy labels and ``wins[i, j]`` the (possibly half-integer) number of
    times ``names[i]`` beat ``names[j]``. Two seats with the same policy are not compared.
    """
    names, patterns, counts = _game_patterns(seats_df)
    n_pol = len(names)
    if patterns.shape[0] == 0:
        return names, np.zeros((n_pol, n_pol))
    wins = (counts.astype(float) @ patterns).reshape(n_pol, n_pol)
    return names, wins


def _resolve_anchor(anchor, names: list[str]) -> int | None:
    if anchor is None:
        return None
    if isinstance(anchor, str):
        if anchor not in names:
            raise KeyError(f"anchor policy {anchor!r} not among {names}")
        return names.index(anchor)
    idx = int(anchor)
    if not -len(names) <= idx < len(names):
        raise IndexError(f"anchor index {anchor} out of range for {len(names)} policies")
    return idx % len(names)


def bt_ratings(
    seats_df: pd.DataFrame,
    n_boot: int = 200,
    seed: int = 0,
    anchor: str | int | None = None,
    confidence: float = 0.95,
    l2: float = 1e-2,
) -> pd.DataFrame:
    """Bradley--Terry Elo table with bootstrap intervals over games.

    Returns a DataFrame with columns ``policy, elo, lo, hi, games`` sorted by ``elo``
    (descending). ``anchor`` is a policy label (or an index into the sorted labels) whose Elo is
    pinned to 0 (for example ``"random"``; its interval is then ``[0, 0]`` and the others are
    relative to it); by default the ratings have mean 0. ``games`` counts the games each policy
    played. ``lo``/``hi`` are percentile intervals from ``n_boot`` resamples of whole games
    (deterministic for ``seed``), each refitted.
    """
    import pandas as pd

    _check_confidence(confidence)
    names, patterns, counts = _game_patterns(seats_df)
    n_pol = len(names)
    anchor_idx = _resolve_anchor(anchor, names)
    if n_pol == 0:
        return pd.DataFrame({"policy": [], "elo": [], "lo": [], "hi": [], "games": []})
    wins = (counts.astype(float) @ patterns).reshape(n_pol, n_pol)
    elo = elo_from_theta(bradley_terry(wins, l2=l2), anchor_idx)

    def stat(sums: np.ndarray) -> np.ndarray:
        return np.stack(
            [
                elo_from_theta(bradley_terry(s.reshape(n_pol, n_pol), l2=l2), anchor_idx)
                for s in sums
            ]
        )

    if n_boot > 0 and patterns.shape[0] > 0:
        reps = _pattern_bootstrap(patterns, counts, stat, n_boot, np.random.default_rng(seed))
        lo, hi = _percentile(reps, confidence)
    else:
        lo = hi = np.full(n_pol, np.nan)
    games = seats_df.groupby(seats_df["policy"].astype(str))["game"].nunique()
    out = pd.DataFrame(
        {
            "policy": names,
            "elo": elo,
            "lo": lo,
            "hi": hi,
            "games": [int(games.get(n, 0)) for n in names],
        }
    )
    return out.sort_values(["elo", "policy"], ascending=[False, True], ignore_index=True)


def head_to_head(seats_df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Head-to-head score table: ``(score_df, n_df)``.

    ``score_df.loc[a, b]`` is the score of ``a`` against ``b`` over all their meetings (wins + ½
    ties, divided by meetings; NaN where they never met and on the diagonal) and
    ``n_df.loc[a, b]`` the number of meetings (symmetric). Meetings are the pairwise results of
    :func:`pairwise_from_games`.
    """
    import pandas as pd

    names, wins = pairwise_from_games(seats_df)
    meetings = wins + wins.T
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(meetings > 0, wins / np.where(meetings > 0, meetings, 1.0), np.nan)
    np.fill_diagonal(score, np.nan)
    score_df = pd.DataFrame(score, index=names, columns=names)
    n_df = pd.DataFrame(np.rint(meetings).astype(np.int64), index=names, columns=names)
    score_df.index.name = n_df.index.name = "policy"
    return score_df, n_df


# --------------------------------------------------------------------------------------------
# the Elo scale
# --------------------------------------------------------------------------------------------

ELO_PER_LOG10 = 400.0


def elo_from_score(s):
    """Elo difference for an expected score ``s``: ``400·log10(s / (1 - s))``.

    Vectorised; ``s = 0`` gives ``-inf`` and ``s = 1`` gives ``+inf``. 0.51 is about 7 Elo,
    0.55 about 35 and 0.60 about 70.
    """
    scalar = np.ndim(s) == 0
    arr = np.asarray(s, dtype=float)
    if np.any((arr < 0) | (arr > 1)):
        raise ValueError("elo_from_score: scores must be in [0, 1]")
    with np.errstate(divide="ignore"):
        out = ELO_PER_LOG10 * (np.log10(arr) - np.log10(1.0 - arr))
    return _scalar_or_array(out, scalar)


def score_from_elo(elo):
    """Expected score for an Elo difference: ``1 / (1 + 10^(-elo/400))`` (vectorised)."""
    scalar = np.ndim(elo) == 0
    arr = np.asarray(elo, dtype=float)
    out = 1.0 / (1.0 + np.power(10.0, -arr / ELO_PER_LOG10))
    return _scalar_or_array(out, scalar)


def _fmt_elo(elo: float, lo: float, hi: float) -> str:
    if not math.isfinite(elo):
        return "n/a"
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{elo:+.0f}"
    return f"{elo:+.0f} [{lo:+.0f}, {hi:+.0f}]"
