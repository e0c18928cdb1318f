"""Sequential stopping rules for simulation runs (docs/design.md, "Statistics").

Two rules, both fed with *pair scores*: play each seed twice with the seats swapped and score
the pair as the mean of its two game scores (0, ½ or 1 when games are won or lost; 0, ¼, ½, ¾, 1
when single games can be drawn), which cancels the first-player advantage.

- :class:`SPRT` answers "is B at least ``elo1`` better than A, or at most ``elo0``?" with
  error rates ``alpha`` / ``beta``, like ``cutechess -sprt`` / fishtest. Never use "stop when
  significant" instead: repeated looks inflate the false-positive rate.
- :class:`PrecisionStop` stops once the estimate is precise enough (a confidence interval
  half-width target); that is harmless for estimation.

Stopping reasons (the strings the CLI prints; ``ELO1``/``ELO0`` are the bounds formatted with
``:g``, e.g. ``"sprt: accepted H1 (elo >= 10)"``):

- ``"sprt: accepted H1 (elo >= ELO1)"`` -- :attr:`SPRT.reason` after an H1 decision
  (template :data:`REASON_SPRT_H1`);
- ``"sprt: accepted H0 (elo <= ELO0)"`` -- after an H0 decision (:data:`REASON_SPRT_H0`);
- ``"precision reached"`` -- :attr:`PrecisionStop.reason` once done (:data:`REASON_PRECISION`);
- ``"max games reached"`` -- the caller's game budget ran out first (:data:`REASON_MAX_GAMES`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bnb_sim.analysis.stats import _check_confidence, _t, _z, elo_from_score, score_from_elo

__all__ = [
    "REASON_MAX_GAMES",
    "REASON_PRECISION",
    "REASON_SPRT_H0",
    "REASON_SPRT_H1",
    "PrecisionStop",
    "SPRT",
]

REASON_SPRT_H1 = "sprt: accepted H1 (elo >= {elo1:g})"
REASON_SPRT_H0 = "sprt: accepted H0 (elo <= {elo0:g})"
REASON_PRECISION = "precision reached"
REASON_MAX_GAMES = "max games reached"

PENTANOMIAL_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


def _as_scores(scores: Any) -> np.ndarray:
    x = np.asarray(scores, dtype=float).ravel()
    if not np.all(np.isfinite(x)) or np.any((x < 0.0) | (x > 1.0)):
        raise ValueError("pair scores must be finite and in [0, 1]")
    return x


class SPRT:
    """Generalised SPRT on pair scores with Elo bounds (normal approximation, as fishtest).

    Hypotheses on the Elo ``e`` of B vs A (logistic scale, ``s = 1/(1 + 10^(-e/400))`` the
    expected pair score): ``H0: e = elo0`` against ``H1: e = elo1`` (``elo0 < elo1``). After
    ``n`` pair scores ``x_i`` with sum ``Σx`` the log-likelihood ratio is approximated by::

        LLR = (s1 - s0) · (2·Σx - n·(s0 + s1)) / (2·var)

    with ``s_i = score_from_elo(elo_i)`` and ``var`` the sample variance of the pair scores
    (the ``1/n`` version, as fishtest uses for pentanomial frequencies), floored at
    ``var_floor`` so a run of identical scores cannot divide by zero. The test accepts H1 when
    ``LLR >= upper = ln((1-β)/α)`` and H0 when ``LLR <= lower = ln(β/(1-α))``.

    Decisions are checked after *every* observation (``update`` takes a batch but scans its
    prefixes with cumulative sums), so the outcome does not depend on how the scores were
    batched, and no decision is taken before ``min_n`` pairs (the variance estimate, and hence
    the normal approximation, is unreliable on a handful of pairs). The decision is sticky:
    once taken, later updates still accumulate (``n``, ``llr`` and ``summary()`` describe all the
    data) but ``decision`` and ``decision_n`` keep the first crossing.
    :meth:`update_pentanomial` adds counts whose order is unknown and checks once at the end.
    """

    def __init__(
        self,
        elo0: float,
        elo1: float,
        alpha: float = 0.05,
        beta: float = 0.05,
        *,
        min_n: int = 20,
        var_floor: float = 1e-6,
    ) -> None:
        if not elo1 > elo0:
            raise ValueError(f"need elo0 < elo1, got {elo0}, {elo1}")
        if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
            raise ValueError("need 0 < alpha, beta and alpha + beta < 1")
        self.elo0 = float(elo0)
        self.elo1 = float(elo1)
        self.alpha = float(alpha)
        self.beta = float(beta)
        self.min_n = int(min_n)
        self.var_floor = float(var_floor)
        self.s0 = float(score_from_elo(self.elo0))
        self.s1 = float(score_from_elo(self.elo1))
        self._n = 0
        self._sum = 0.0
        self._sumsq = 0.0
        self._decision: str | None = None
        self._decision_n: int | None = None
        self._decision_llr: float | None = None

    # bounds -------------------------------------------------------------------------------
    @property
    def lower(self) -> float:
        """``ln(β / (1 - α))``: accept H0 at or below."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """``ln((1 - β) / α)``: accept H1 at or above."""
        return math.log((1.0 - self.beta) / self.alpha)

    # statistics ---------------------------------------------------------------------------
    def _llr(self, n, sx, sxx) -> np.ndarray:
        n = np.asarray(n, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = sx / n
            var = np.maximum(sxx / n - mean * mean, self.var_floor)
            llr = (self.s1 - self.s0) * (2.0 * sx - n * (self.s0 + self.s1)) / (2.0 * var)
        return np.where(n >= 2, llr, 0.0)

    @property
    def n(self) -> int:
        """Pair scores seen so far."""
        return self._n

    @property
    def llr(self) -> float:
        """Current log-likelihood ratio (0 before two observations)."""
        return float(self._llr(self._n, self._sum, self._sumsq))

    @property
    def decision(self) -> str | None:
        """``"H1"``, ``"H0"`` or ``None`` (continue)."""
        return self._decision

    @property
    def decision_n(self) -> int | None:
        """Number of pairs at which the decision was taken."""
        return self._decision_n

    @property
    def reason(self) -> str | None:
        """Stopping-reason string for the CLI, or ``None`` while undecided."""
        if self._decision == "H1":
            return REASON_SPRT_H1.format(elo1=self.elo1)
        if self._decision == "H0":
            return REASON_SPRT_H0.format(elo0=self.elo0)
        return None

    def _decide(self, n: np.ndarray, llr: np.ndarray) -> None:
        if self._decision is not None:
            return
        hit = (n >= self.min_n) & ((llr >= self.upper) | (llr <= self.lower))
        if np.any(hit):
            i = int(np.argmax(hit))
            self._decision = "H1" if llr[i] >= self.upper else "H0"
            self._decision_n = int(n[i])
            self._decision_llr = float(llr[i])

    # updates ------------------------------------------------------------------------------
    def update(self, scores: Any) -> SPRT:
        """Add pair scores (a scalar or an array, in play order); returns ``self``."""
        x = _as_scores(scores)
        if x.size == 0:
            return self
        n = self._n + np.arange(1, x.size + 1)
        sx = self._sum + np.cumsum(x)
        sxx = self._sumsq + np.cumsum(x * x)
        if self._decision is None:
            self._decide(n, self._llr(n, sx, sxx))
        self._n = int(n[-1])
        self._sum = float(sx[-1])
        self._sumsq = float(sxx[-1])
        return self

    def update_pentanomial(self, counts: Any) -> SPRT:
        """Add pentanomial counts: pairs scoring 0, ¼, ½, ¾ and 1 (five numbers).

        The order of these pairs is unknown, so the decision is checked once, after adding.
        """
        c = np.asarray(counts, dtype=float).ravel()
        if c.shape != (5,) or np.any(c < 0) or np.any(c != np.rint(c)):
            raise ValueError("pentanomial counts must be five non-negative integers")
        self._n += int(c.sum())
        self._sum += float(c @ PENTANOMIAL_SCORES)
        self._sumsq += float(c @ PENTANOMIAL_SCORES**2)
        if self._n:
            self._decide(np.array([self._n]), np.array([self.llr]))
        return self

    def summary(self) -> dict[str, Any]:
        """Everything the CLI reports: bounds, LLR, decision, and the Elo estimate with a CI."""
        n = self._n
        mean = self._sum / n if n else math.nan
        var = max(self._sumsq / n - mean * mean, 0.0) if n else math.nan
        if n >= 2:
            half = _z(0.95) * math.sqrt(var * n / (n - 1) / n)
            s_lo, s_hi = max(mean - half, 0.0), min(mean + half, 1.0)
            elo_lo, elo_hi = float(elo_from_score(s_lo)), float(elo_from_score(s_hi))
        else:
            elo_lo = elo_hi = math.nan
        return {
            "test": "sprt",
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "s0": self.s0,
            "s1": self.s1,
            "n": n,
            "mean_score": mean,
            "elo": float(elo_from_score(mean)) if n else math.nan,
            "elo_lo": elo_lo,
            "elo_hi": elo_hi,
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "decision": self._decision,
            "decision_n": self._decision_n,
            "llr_at_decision": self._decision_llr,
            "reason": self.reason,
        }

    def __repr__(self) -> str:
        return (
            f"SPRT(elo0={self.elo0:g}, elo1={self.elo1:g}, alpha={self.alpha:g}, "
            f"beta={self.beta:g}; n={self._n}, llr={self.llr:.3f} "
            f"[{self.lower:.3f}, {self.upper:.3f}], decision={self._decision})"
        )


class PrecisionStop:
    """Stop when the confidence-interval half-width of the mean pair score is at most ``h``.

    Half-width = ``t_{n-1} · sd / √n`` (``sd`` with ``ddof=1``), the :func:`mean_ci` interval.
    ``done`` needs at least ``min_n`` observations. Check it at geometrically spaced chunk
    boundaries (e.g. after 1k, 2k, 4k, ... pairs) and report ``n``: stopping on a precision
    target barely affects coverage, unlike stopping on significance. ``done`` reflects the
    current data (it is not sticky). Works for any scores in [0, 1], including 0/1 win
    indicators.
    """

    def __init__(self, half_width: float, confidence: float = 0.95, min_n: int = 100) -> None:
        if not half_width > 0:
            raise ValueError("half_width must be > 0")
        self.target = float(half_width)
        self.confidence = _check_confidence(confidence)
        self.min_n = int(min_n)
        self._n = 0
        self._sum = 0.0
        self._sumsq = 0.0

    def update(self, scores: Any) -> PrecisionStop:
        x = _as_scores(scores)
        self._n += int(x.size)
        self._sum += float(x.sum())
        self._sumsq += float((x * x).sum())
        return self

    @property
    def n(self) -> int:
        return self._n

    @property
    def mean(self) -> float:
        return self._sum / self._n if self._n else math.nan

    @property
    def half_width(self) -> float:
        """Current half-width (``inf`` before two observations)."""
        n = self._n
        if n < 2:
            return math.inf
        mean = self._sum / n
        var = max((self._sumsq - n * mean * mean) / (n - 1), 0.0)
        return _t(self.confidence, n - 1) * math.sqrt(var / n)

    @property
    def done(self) -> bool:
        return self._n >= self.min_n and self.half_width <= self.target

    @property
    def reason(self) -> str | None:
        return REASON_PRECISION if self.done else None

    def summary(self) -> dict[str, Any]:
        hw = self.half_width
        mean = self.mean
        return {
            "test": "precision",
            "n": self._n,
            "mean": mean,
            "lo": mean - hw if math.isfinite(hw) else math.nan,
            "hi": mean + hw if math.isfinite(hw) else math.nan,
            "half_width": hw,
            "target": self.target,
            "confidence": self.confidence,
            "min_n": self.min_n,
            "done": self.done,
            "reason": self.reason,
        }
