"""Seat effects: the first-player advantage, the seat gap test and the balance metric.

:func:`first_player_advantage` (seat 0's win rate minus the mean of the other seats'),
:func:`seat_gap_test` (a Wald test, clustered by game, that every seat wins equally often)
and :func:`balance_metric` (1 minus the largest gap between seat win rates, its interval
from simultaneous pairwise intervals), all from the game x seat matrix of a run's seat rows
(:func:`_game_seat_matrix`), with intervals clustered by game.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from bnb_sim.analysis.stats_intervals import Rate, _check_confidence, _z

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


# --------------------------------------------------------------------------------------------
# seat effects
# --------------------------------------------------------------------------------------------


def _game_seat_matrix(seats_df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-game won (y) and present (m) matrices, shape (games, seats), and the seat labels.

    Counted with ``np.bincount`` on one flat (game, seat) index: ``np.add.at`` on factorized
    codes held about 250 MB of temporaries for 4,000,000 rows."""
    import pandas as pd

    game = seats_df["game"].to_numpy()
    if game.dtype.kind in "iu" and game.size and np.all(game[1:] >= game[:-1]):
        # a run's rows are sorted by game: codes from the changes, no hash table
        game_codes = np.zeros(game.size, np.int64)
        np.cumsum(game[1:] != game[:-1], out=game_codes[1:])
    else:
        game_codes = pd.factorize(game, sort=True)[0].astype(np.int64, copy=False)
    seat_codes, seat_labels = pd.factorize(seats_df["seat"], sort=True)
    won = seats_df["won"]
    if won.dtype == bool:
        values, ok = won.to_numpy(), None
    else:
        values = won.astype("Float64").to_numpy(dtype=float, na_value=np.nan)
        ok = ~np.isnan(values)
    n_games = int(game_codes.max()) + 1 if game_codes.size else 0
    n_seats = len(seat_labels)
    flat = game_codes
    flat *= n_seats
    flat += seat_codes
    del seat_codes
    if ok is not None:
        flat, values = flat[ok], values[ok]
    size = n_games * n_seats
    y = np.bincount(flat, weights=values, minlength=size).reshape(n_games, n_seats)
    m = np.bincount(flat, minlength=size).astype(float).reshape(n_games, n_seats)
    return y, m, np.asarray(seat_labels)


def first_player_advantage(seats_df: pd.DataFrame, confidence: float = 0.95) -> dict[str, Any]:
    """First-player advantage: win rate of seat 0 minus the mean win rate of the other seats.

    With ``r_s`` the win rate of seat ``s``, ``value = r_0 - mean(r_1, ..., r_{S-1})`` (the
    unweighted mean over the other seats), in probability units: 0 means seat 0 wins as often
    as the average other seat. Ties count as wins for every tied winner (the ``won`` column).

    Interval: delta method clustered by game. Each ``r_s`` is a ratio ``Y_s / M_s`` of sums over
    games, so ``value`` is linearised as a sum of per-game terms
    ``z_g = Σ_s c_s (y_gs - r_s m_gs) / M_s`` (``c_0 = 1``, ``c_s = -1/(S-1)``) and
    ``var ≈ G/(G-1) Σ_g z_g²``; the interval is ``value ± z·se``, clipped to ``[-1, 1]``. When
    every game has every seat this is exactly the normal interval for the mean of the per-game
    differences ``won_0 - mean(won_other)``; it is deterministic and costs O(rows).

    With one game, or when the standard error is 0, there is no interval: ``lo``/``hi`` are
    NaN and ``note`` says why (never a zero-width or ``[-100, +100]`` "interval").

    Returns ``dict(value, lo, hi, se, n_games, confidence, method, seats, note)`` where
    ``seats`` maps each seat to its :class:`Rate` (the per-seat Wilson intervals are per row,
    which is right because a seat appears once per game).
    """
    z = _z(confidence)
    y, m, labels = _game_seat_matrix(seats_df)
    seats = {
        int(s): Rate.of(y[:, i].sum(), int(m[:, i].sum()), confidence) for i, s in enumerate(labels)
    }
    result: dict[str, Any] = {
        "value": math.nan,
        "lo": math.nan,
        "hi": math.nan,
        "se": math.nan,
        "n_games": int(y.shape[0]),
        "confidence": confidence,
        "method": "delta method, clustered by game",
        "seats": seats,
        "note": "",
    }
    if 0 not in seats or len(seats) < 2:
        return result
    big_y, big_m = y.sum(axis=0), m.sum(axis=0)
    if np.any(big_m == 0):
        return result
    r = big_y / big_m
    coef = np.full(len(labels), -1.0 / (len(labels) - 1))
    coef[list(labels).index(0)] = 1.0
    value = float(coef @ r)
    n_games = y.shape[0]
    dev = m * r  # (y - r m) / M in place: one (games, seats) temporary instead of three
    np.subtract(y, dev, out=dev)
    dev /= big_m
    zg = dev @ coef
    del dev
    se = math.sqrt(n_games / (n_games - 1) * float(zg @ zg)) if n_games > 1 else math.nan
    result["value"] = value
    result["se"] = se
    if not se > 0:  # one game, or no variation at all: no interval (not a zero-width one)
        result["note"] = "n < 2" if n_games < 2 else "no variation between games"
        return result
    result.update(lo=max(-1.0, value - z * se), hi=min(1.0, value + z * se))
    return result


def _seat_rates_and_cov(y: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Seat win rates ``r_s = Y_s / M_s`` and their covariance, delta method clustered by game.

    Linearisation: ``z_gs = (y_gs - r_s m_gs) / M_s``; ``cov = G/(G-1) Σ_g z_g z_gᵀ``.
    """
    big_y, big_m = y.sum(axis=0), m.sum(axis=0)
    r = big_y / big_m
    z = m * r  # (y - r m) / M in place: one (games, seats) temporary instead of three
    np.subtract(y, z, out=z)
    z /= big_m
    g = y.shape[0]
    cov = g / (g - 1) * (z.T @ z) if g > 1 else np.full((y.shape[1],) * 2, np.nan)
    return r, cov


def seat_gap_test(y: np.ndarray, m: np.ndarray) -> dict[str, float]:
    """Wald test that every seat wins equally often, clustered by game.

    The contrasts ``r_s - r_0`` (``s = 1..S-1``) with their delta-method covariance ``V``
    (clustered by game, so shared wins and one-winner-per-game dependence are accounted
    for) give ``W = dᵀ V⁻¹ d``, asymptotically χ² with ``S-1`` degrees of freedom under
    equal seat rates. Returns ``dict(chi2, df, p_value)`` (NaN when it cannot be computed).
    """
    from scipy.special import chdtrc

    s = y.shape[1]
    out = {"chi2": math.nan, "df": s - 1, "p_value": math.nan}
    if s < 2 or y.shape[0] < 2:
        return out
    r, cov = _seat_rates_and_cov(y, m)
    contrast = np.hstack([-np.ones((s - 1, 1)), np.eye(s - 1)])
    d = contrast @ r
    v = contrast @ cov @ contrast.T
    if not np.all(np.isfinite(v)) or np.linalg.matrix_rank(v) < s - 1:
        return out
    chi2 = float(d @ np.linalg.solve(v, d))
    out.update(chi2=chi2, p_value=float(chdtrc(s - 1, chi2)))
    return out


def _max_gap_quantile(cov: np.ndarray, confidence: float, n_sim: int, seed: int) -> float:
    """``c`` with ``P(max_{i<j} |Z_i - Z_j| / sd_ij <= c) = confidence`` for ``Z ~ N(0, cov)``.

    The simultaneous critical value for all pairwise seat differences (Tukey-style, with the
    estimated correlation), by Monte Carlo from a fixed seed.
    """
    s = cov.shape[0]
    i, j = np.triu_indices(s, 1)
    contrast = np.zeros((i.size, s))
    contrast[np.arange(i.size), i] = 1.0
    contrast[np.arange(i.size), j] = -1.0
    dcov = contrast @ cov @ contrast.T
    sd = np.sqrt(np.diag(dcov))
    keep = sd > 0
    if not np.any(keep):
        return math.nan
    dcov = dcov[np.ix_(keep, keep)] / np.outer(sd[keep], sd[keep])
    vals, vecs = np.linalg.eigh(dcov)
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    draws = np.random.default_rng(seed).standard_normal((n_sim, root.shape[0])) @ root.T
    return float(np.quantile(np.abs(draws).max(axis=1), confidence))


def balance_metric(
    seats_df: pd.DataFrame, confidence: float = 0.95, n_sim: int = 20_000, seed: int = 0
) -> dict[str, Any]:
    """Balance = 1 - (largest gap between seat win rates), with an interval valid up to 1.

    1 means every seat wins equally often. The estimate is biased low near balance (the
    largest of several noisy gaps is never below 0), so a bootstrap of it cannot reach the
    truth of a balanced game. The interval here is instead the projection of simultaneous
    intervals for all pairwise seat differences ``d_ij = r_i - r_j``: each is
    ``d_ij ± c·se_ij`` (delta method clustered by game), with ``c`` the simultaneous 95%
    critical value of ``max |d_ij| / se_ij`` under the estimated correlation (a Tukey-style
    constant, by Monte Carlo from a fixed seed, so the result is deterministic). When all of
    them hold, the true largest gap lies between ``max_ij max(0, |d_ij| - c·se_ij)`` and
    ``max_ij (|d_ij| + c·se_ij)``, so the balance interval covers the truth at least 95% of
    the time, and its upper end is exactly 1 whenever the data cannot exclude equal seats.

    The matching test of equal seat rates is :func:`seat_gap_test` (χ², p value).

    Returns ``dict(value, lo, hi, n_games, confidence, rates, chi2, df, p_value, method,
    note)`` with ``rates`` the per-seat win rates (a dict seat -> rate). With fewer than two
    games, or no variation, ``lo``/``hi`` are NaN and ``note`` says why.
    """
    _check_confidence(confidence)
    y, m, labels = _game_seat_matrix(seats_df)
    n_games = int(y.shape[0])
    out: dict[str, Any] = {
        "value": math.nan,
        "lo": math.nan,
        "hi": math.nan,
        "n_games": n_games,
        "confidence": confidence,
        "rates": {},
        "chi2": math.nan,
        "df": max(len(labels) - 1, 0),
        "p_value": math.nan,
        "method": "simultaneous pairwise seat differences, delta method clustered by game",
        "note": "",
    }
    if n_games == 0 or len(labels) < 1 or np.any(m.sum(axis=0) == 0):
        out["note"] = "no games"
        return out
    r = y.sum(axis=0) / m.sum(axis=0)
    out["value"] = float(1.0 - (r.max() - r.min()))
    out["rates"] = {int(s): float(v) for s, v in zip(labels, r, strict=True)}
    if len(labels) < 2:
        out["note"] = "one seat"
        return out
    if n_games < 2:
        out["note"] = "n < 2"
        return out
    out.update(seat_gap_test(y, m))
    _, cov = _seat_rates_and_cov(y, m)
    c = _max_gap_quantile(cov, confidence, n_sim, seed)
    if not math.isfinite(c):
        out["note"] = "no variation between games"
        return out
    i, j = np.triu_indices(len(labels), 1)
    gap = np.abs(r[i] - r[j])
    se = np.sqrt(np.maximum(cov[i, i] + cov[j, j] - 2.0 * cov[i, j], 0.0))
    top = float(np.max(gap + c * se))
    bottom = float(np.max(np.maximum(gap - c * se, 0.0)))
    out.update(lo=max(0.0, 1.0 - top), hi=min(1.0, 1.0 - bottom))
    return out
