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
``:g``, e.g. ``"sprt: accepted H1 (the evidence favours elo 10 over elo 0)"``):

- ``"sprt: accepted H1 (the evidence favours elo ELO1 over elo ELO0)"`` -- :attr:`SPRT.reason`
  after an H1 decision (template :data:`REASON_SPRT_H1`);
- ``"sprt: accepted H0 (the evidence favours elo ELO0 over elo ELO1)"`` -- after an H0
  decision (:data:`REASON_SPRT_H0`);
- ``"precision reached"`` -- :attr:`PrecisionStop.reason` once done (:data:`REASON_PRECISION`);
- ``"max games reached"`` -- the caller's game budget ran out first (:data:`REASON_MAX_GAMES`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bnb_sim.analysis.ratings import elo_from_score, score_from_elo
from bnb_sim.analysis.stats_intervals import (
    _check_confidence,
    _t,
    _z,
    constant_sample_interval,
    wilson_interval,
)

__all__ = [
    "REASON_MAX_GAMES",
    "REASON_PRECISION",
    "REASON_SPRT_H0",
    "REASON_SPRT_H1",
    "PrecisionStop",
    "SPRT",
]

# What a decision means: the likelihood ratio favours one bound over the other. Accepting H1
# wrongly when elo <= ELO0 happens at most alpha of the time, accepting H0 wrongly when
# elo >= ELO1 at most beta: so H1 says "elo > ELO0" and H0 says "elo < ELO1", never
# "elo >= ELO1" or "elo <= ELO0" (a true Elo between the bounds may end either way).
REASON_SPRT_H1 = "sprt: accepted H1 (the evidence favours elo {elo1:g} over elo {elo0:g})"
REASON_SPRT_H0 = "sprt: accepted H0 (the evidence favours elo {elo0:g} over elo {elo1:g})"
REASON_PRECISION = "precision reached"
REASON_MAX_GAMES = "max games reached"

PENTANOMIAL_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


def _as_scores(scores: Any) -> np.ndarray:
    x = np.asarray(scores, dtype=float).ravel()
    if not np.all(np.isfinite(x)) or np.any((x < 0.0) | (x > 1.0)):
        raise ValueError("pair scores must be finite and in [0, 1]")
    return x


def _tilted_lambda(counts: np.ndarray, dev: np.ndarray, iterations: int = 50) -> np.ndarray:
    """Solve ``Σ_i n_i d_i / (1 + λ d_i) = 0`` for ``λ`` row by row (``d_i = a_i - s``).

    This is the Lagrange multiplier of the maximum-likelihood multinomial with mean ``s``
    (Van den Bergh's generalised SPRT, as fishtest computes it). The left side decreases in
    ``λ`` on the interval where every ``1 + λ d_i > 0``; safeguarded Newton steps (bisection
    whenever a step would leave the bracket) converge in a handful of iterations. The first
    Newton step from 0 is exactly the normal approximation ``Σ n d / Σ n d²``.
    """
    occupied = counts > 0
    pos = np.where(occupied & (dev > 0), dev, 0.0).max(axis=1)
    neg = np.where(occupied & (dev < 0), dev, 0.0).min(axis=1)
    with np.errstate(divide="ignore"):
        lo = np.where(pos > 0, -1.0 / pos, -np.inf)
        hi = np.where(neg < 0, -1.0 / neg, np.inf)
    lam = np.zeros(counts.shape[0])
    active = np.arange(counts.shape[0])
    for _ in range(iterations):
        c, d, x = counts[active], dev[active], lam[active]
        denom = 1.0 + x[:, None] * d
        f = (c * d / denom).sum(axis=1)
        df = -(c * d * d / (denom * denom)).sum(axis=1)
        lo[active] = np.where(f > 0, x, lo[active])  # the root lies to the right
        hi[active] = np.where(f < 0, x, hi[active])
        with np.errstate(invalid="ignore", divide="ignore"):
            step = x - f / df
        # both ends are finite: the prior puts counts on 0 and 1, on either side of s
        a, b = lo[active], hi[active]
        inside = np.isfinite(step) & (((step > a) & (step < b)) | (step == x))
        new = np.where(inside, step, 0.5 * (a + b))
        lam[active] = new
        moving = np.abs(new - x) > 1e-13 * (1.0 + np.abs(x))
        active = active[moving]
        if active.size == 0:
            break
    return lam


def _neutral_prior(count: float, mean: float) -> np.ndarray:
    """``5·count`` pseudo-pairs on the pentanomial scores with mean ``mean``.

    The closest distribution to uniform (the same tilted form as the MLE) whose mean lies
    halfway between the two hypotheses, so the prior favours neither of them.
    """
    dev = (PENTANOMIAL_SCORES - mean)[None, :]
    lam = _tilted_lambda(np.ones((1, 5)), dev)
    weights = 1.0 / (1.0 + lam[:, None] * dev)
    return (5.0 * count * weights / weights.sum())[0]


def multinomial_llr(counts: np.ndarray, values: np.ndarray, s0: float, s1: float) -> np.ndarray:
    """GSPRT log-likelihood ratio of mean ``s1`` against ``s0`` for category ``counts``.

    ``counts`` has shape ``(rows, V)`` (one row per look), ``values`` the V category scores.
    For each row, the multinomial distribution on ``values`` of largest likelihood whose mean
    is ``s_j`` is ``p_ji = (n_i / N) / (1 + λ_j (a_i - s_j))`` (:func:`_tilted_lambda`), and
    ``LLR = Σ_i n_i log(p_1i / p_0i) = Σ_i n_i [log(1 + λ_0 d_0i) - log(1 + λ_1 d_1i)]``.
    """
    counts = np.asarray(counts, dtype=float)
    values = np.asarray(values, dtype=float)
    total = np.zeros(counts.shape[0])
    for sign, s in ((1.0, s0), (-1.0, s1)):
        dev = values - s
        lam = _tilted_lambda(counts, dev[None, :].repeat(counts.shape[0], axis=0))
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(counts > 0, counts * np.log1p(lam[:, None] * dev), 0.0)
        total += sign * terms.sum(axis=1)
    return total


#: Looks of one batch whose LLRs are solved together (SPRT.update)
LOOKS_PER_BLOCK = 256


class SPRT:
    """Generalised SPRT on pair scores with Elo bounds (the multinomial GSPRT of fishtest).

    Hypotheses on the Elo ``e`` of B vs A (logistic scale, ``s = 1/(1 + 10^(-e/400))`` the
    expected pair score): ``H0: e = elo0`` against ``H1: e = elo1`` (``elo0 < elo1``).

    The pair scores take a few values (0, ¼, ½, ¾, 1 head-to-head; a few more in field mode),
    so their distribution is a multinomial over those categories. After each pair the test
    takes, for ``j = 0, 1``, the multinomial of largest likelihood whose mean is ``s_j``, and
    the log-likelihood ratio of the two (:func:`multinomial_llr`). It accepts H1 when
    ``LLR >= upper = ln((1-β)/α)`` and H0 when ``LLR <= lower = ln(β/(1-α))``.

    **Prior counts.** Before any data the pentanomial categories (0, ¼, ½, ¾, 1) hold
    ``5·prior`` pseudo-pairs (default 5), spread as evenly as possible with a mean halfway
    between the two hypotheses (so the prior favours neither). This keeps the variance from
    collapsing:
    close policies split most pairs (½), and without it 20 pairs of ½ would be a sample
    with zero variance, for which any mean other than ½ is impossible, so the test would
    accept whichever hypothesis is nearer ½ at once (the old normal approximation did that
    with a variance floor, and accepted "no better" up to 40% of the time instead of β).
    With the prior the first pairs move the LLR only a little; after a few hundred pairs
    the prior weighs nothing. The calibration tests (``tests/test_sequential.py``) check
    that type I and type II errors stay near ``alpha`` and ``beta`` for pair-score
    distributions with 44% to 95% split pairs.

    Decisions are checked after *every* observation (``update`` takes a batch but scans its
    prefixes with cumulative counts), so the outcome does not depend on how the scores were
    batched, and no decision is taken before ``min_n`` pairs. The decision is sticky: once
    taken, later updates still accumulate (``n`` and ``llr`` count all the data) but
    ``decision`` and ``decision_n`` keep the first crossing, and :meth:`summary` reports the
    state *at the decision* (its n, LLR, mean score and Elo interval), with the pairs
    played after it shown apart (``after_decision``).
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
        prior: float = 1.0,
    ) -> None:
        if not elo1 > elo0:
            raise ValueError(f"need elo0 < elo1, got {elo0}, {elo1}")
        if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
            raise ValueError("need 0 < alpha, beta and alpha + beta < 1")
        if not prior > 0:
            raise ValueError("prior must be > 0 (it keeps the variance from collapsing)")
        self.elo0 = float(elo0)
        self.elo1 = float(elo1)
        self.alpha = float(alpha)
        self.beta = float(beta)
        self.min_n = int(min_n)
        self.prior = float(prior)
        self.s0 = float(score_from_elo(self.elo0))
        self.s1 = float(score_from_elo(self.elo1))
        self._prior_counts = _neutral_prior(self.prior, 0.5 * (self.s0 + self.s1))
        self._n = 0
        self._sum = 0.0
        self._sumsq = 0.0
        # category value -> count of observed pairs (the prior is added when computing)
        self._counts: dict[float, float] = {}
        self._decision: str | None = None
        self._decision_n: int | None = None
        self._decision_llr: float | None = None
        self._decision_sums: tuple[float, float] | None = None  # Σx, Σx² at the decision

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
    def _categories(self, extra: np.ndarray) -> np.ndarray:
        values = set(self._counts) | {float(v) for v in extra} | set(PENTANOMIAL_SCORES)
        return np.array(sorted(values))

    def _llr_rows(self, values: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """LLR per row of observed ``counts`` over ``values`` (the prior added here)."""
        by_value = dict(zip(PENTANOMIAL_SCORES.tolist(), self._prior_counts, strict=True))
        prior = np.array([by_value.get(float(v), 0.0) for v in values])
        return multinomial_llr(counts + prior, values, self.s0, self.s1)

    def _current_counts(self, values: np.ndarray) -> np.ndarray:
        return np.array([self._counts.get(float(v), 0.0) for v in values])

    @property
    def n(self) -> int:
        """Pair scores seen so far."""
        return self._n

    @property
    def llr(self) -> float:
        """Current log-likelihood ratio (0 before any observation)."""
        if self._n == 0:
            return 0.0
        values = self._categories(np.empty(0))
        return float(self._llr_rows(values, self._current_counts(values)[None, :])[0])

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
            return REASON_SPRT_H1.format(elo1=self.elo1, elo0=self.elo0)
        if self._decision == "H0":
            return REASON_SPRT_H0.format(elo0=self.elo0, elo1=self.elo1)
        return None

    def _decide(self, n: np.ndarray, llr: np.ndarray, sums: np.ndarray, sumsq: np.ndarray):
        """Take the first crossing of a bound among the looks ``n`` (with the running sums
        of the scores and their squares at each look, kept for the summary)."""
        if self._decision is not None:
            return
        hit = (n >= self.min_n) & ((llr >= self.upper) | (llr <= self.lower))
        if np.any(hit):
            i = int(np.argmax(hit))
            self._decision = "H1" if llr[i] >= self.upper else "H0"
            self._decision_n = int(n[i])
            self._decision_llr = float(llr[i])
            self._decision_sums = (float(sums[i]), float(sumsq[i]))

    # updates ------------------------------------------------------------------------------
    def update(self, scores: Any) -> SPRT:
        """Add pair scores (a scalar or an array, in play order); returns ``self``."""
        x = _as_scores(scores)
        if x.size == 0:
            return self
        n = self._n + np.arange(1, x.size + 1)
        if self._decision is None:
            values = self._categories(np.unique(x))
            onehot = (x[:, None] == values[None, :]).astype(float)
            counts = self._current_counts(values)[None, :] + np.cumsum(onehot, axis=0)
            sums = self._sum + np.cumsum(x)
            sumsq = self._sumsq + np.cumsum(x * x)
            # the LLR of each look is solved row by row (_tilted_lambda), so it is the same
            # computed in blocks: the scan stops at the block of the first crossing instead
            # of solving every look of a large batch (a decision after 300 of 4,000 pairs)
            for look in range(0, x.size, LOOKS_PER_BLOCK):
                block = slice(look, look + LOOKS_PER_BLOCK)
                llr = self._llr_rows(values, counts[block])
                self._decide(n[block], llr, sums[block], sumsq[block])
                if self._decision is not None:
                    break
        for v, c in zip(*np.unique(x, return_counts=True), strict=True):
            self._counts[float(v)] = self._counts.get(float(v), 0.0) + float(c)
        self._n = int(n[-1])
        self._sum += float(x.sum())
        self._sumsq += float((x * x).sum())
        return self

    def update_pentanomial(self, counts: Any) -> SPRT:
        """Add pentanomial counts: pairs scoring 0, ¼, ½, ¾ and 1 (five numbers).

        The order of these pairs is unknown, so the decision is checked once, after adding.
        """
        c = np.asarray(counts, dtype=float).ravel()
        if c.shape != (5,) or np.any(c < 0) or np.any(c != np.rint(c)):
            raise ValueError("pentanomial counts must be five non-negative integers")
        for v, k in zip(PENTANOMIAL_SCORES, c, strict=True):
            if k:
                self._counts[float(v)] = self._counts.get(float(v), 0.0) + float(k)
        self._n += int(c.sum())
        self._sum += float(c @ PENTANOMIAL_SCORES)
        self._sumsq += float(c @ PENTANOMIAL_SCORES**2)
        if self._n:
            self._decide(np.array([self._n]), np.array([self.llr]), np.array([self._sum]),
                         np.array([self._sumsq]))  # fmt: skip
        return self

    @staticmethod
    def _estimate(n: int, total: float, squares: float) -> dict[str, Any]:
        """Mean pair score of ``n`` pairs (sums ``total``, ``squares``) with its Elo and a
        normal 95% interval; a sample without variation gets the constant-sample bound."""
        mean = total / n if n else math.nan
        if n >= 2:
            var = max(squares / n - mean * mean, 0.0)
            half = _z(0.95) * math.sqrt(var * n / (n - 1) / n)
            s_lo, s_hi = max(mean - half, 0.0), min(mean + half, 1.0)
            if var <= 1e-15:  # no variation: not a zero-width interval
                s_lo, s_hi = constant_sample_interval(mean, n, (0.0, 1.0))
            elo_lo, elo_hi = float(elo_from_score(s_lo)), float(elo_from_score(s_hi))
        else:
            elo_lo = elo_hi = math.nan
        return {
            "n": n,
            "mean_score": mean,
            "elo": float(elo_from_score(mean)) if n else math.nan,
            "elo_lo": elo_lo,
            "elo_hi": elo_hi,
        }

    def summary(self) -> dict[str, Any]:
        """Everything the CLI reports: bounds, the decision and the state at it.

        ``n``, ``llr``, ``mean_score`` and the Elo with its interval describe the pairs the
        test had seen when it decided (all pairs while undecided). ``n_played`` and
        ``llr_played`` count every pair added; when pairs were added after the decision
        (the rest of a batch), ``after_decision`` holds the estimate on all of them, which
        is *not* part of the test."""
        played = self._estimate(self._n, self._sum, self._sumsq)
        if self._decision_sums is not None:
            at = self._estimate(self._decision_n, *self._decision_sums)
            llr = self._decision_llr
        else:
            at, llr = played, self.llr
        out = {
            "test": "sprt",
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "s0": self.s0,
            "s1": self.s1,
            **at,
            "llr": llr,
            "lower": self.lower,
            "upper": self.upper,
            "decision": self._decision,
            "decision_n": self._decision_n,
            "llr_at_decision": self._decision_llr,
            "reason": self.reason,
            "meaning": self.meaning(),
            "n_played": self._n,
            "llr_played": self.llr,
            "after_decision": None,
            "prior": self.prior,
            "interval_adjusted_for_stop": False,
        }
        if self._decision_n is not None and self._n > self._decision_n:
            out["after_decision"] = {**played, "pairs_after": self._n - self._decision_n,
                                     "llr": self.llr}  # fmt: skip
        return out

    def meaning(self) -> str:
        """What the decision says, in words (empty while undecided)."""
        if self._decision == "H1":
            return (f"the evidence favours elo {self.elo1:g} over elo {self.elo0:g}: elo > "
                    f"{self.elo0:g} (wrongly accepted at most {self.alpha:g} of the time when "
                    f"elo <= {self.elo0:g})")  # fmt: skip
        if self._decision == "H0":
            return (f"the evidence favours elo {self.elo0:g} over elo {self.elo1:g}: elo < "
                    f"{self.elo1:g} (wrongly accepted at most {self.beta:g} of the time when "
                    f"elo >= {self.elo1:g}); a true Elo between the bounds may end either "
                    "way")  # fmt: skip
        return ""

    def __repr__(self) -> str:
        return (
            f"SPRT(elo0={self.elo0:g}, elo1={self.elo1:g}, alpha={self.alpha:g}, "
            f"beta={self.beta:g}; n={self._n}, llr={self.llr:.3f} "
            f"[{self.lower:.3f}, {self.upper:.3f}], decision={self._decision})"
        )


class PrecisionStop:
    """Stop when the confidence-interval half-width of the mean pair score is at most ``h``.

    Half-width = ``t_{n-1} · sd / √n`` (``sd`` with ``ddof=1``), the :func:`mean_ci` interval.
    When every score so far is the same (no variation: e.g. two policies that split every
    pair) that would be 0 and "precision reached" after ``min_n`` pairs; instead the
    half-width is then the bound of :func:`~bnb_sim.analysis.stats.constant_sample_interval`
    (about ``3/n`` times the distance to the far end of [0, 1]).
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
        if var <= 1e-15:
            # all scores equal (e.g. every pair split): the t half-width would be 0. Another
            # score in [0, 1] may occur on up to u ≈ 3/n of the seeds; the mean can then move
            # by max(mean, 1 - mean)·u (stats.constant_sample_interval).
            _, u = wilson_interval(0, n, self.confidence)
            return max(mean, 1.0 - mean) * u
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
