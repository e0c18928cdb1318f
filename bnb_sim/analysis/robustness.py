"""How far a finding holds across play strength: one finding measured at every rung of bots,
on the same game indices, with paired differences and a verdict (``bnb robustness``).

Design (docs/statistics.md, "Robustness across play strength"):

* A **finding** at one rung is a smooth function of sums over games (a seat's win rate, the
  first-player advantage, the mean game length, a pet's paired effect, ...). Each is given
  here as a :class:`FindingSample`: its value and its **influence** ``ψ_g`` on every game
  ``g``, the per-game terms of its linearisation (delta method), so that
  ``value - truth ≈ Σ_g ψ_g`` and ``var ≈ G/(G-1) Σ_g ψ_g²`` (clustered by game, as
  :func:`bnb_sim.analysis.stats.first_player_advantage` does).
* Every rung plays the **same game indices** (the same deal, cubes and draws), so the rungs'
  estimates are paired by game: the difference between rungs ``r`` and ``s`` has influence
  ``ψ_gs - ψ_gr`` and its variance is that of a paired mean. The covariance of all the
  rungs' estimates is ``G/(G-1) ΨᵀΨ`` (``Ψ`` games × rungs).
* The **verdict** compares every pair of rungs at once: the differences' intervals are
  simultaneous 95% intervals (the Tukey-style critical value of ``max |d| / se`` under the
  estimated correlation, :func:`bnb_sim.analysis.stats._max_gap_quantile`), so a finding that
  truly holds at every rung is called "changes" in at most 5% of analyses, whatever the
  number of rungs. Each finding is judged on its own (the findings of one analysis are not
  adjusted for each other; the report says so).

  - **changes sign**: one rung's interval lies wholly above the finding's reference (0 for a
    difference, the fair share for a seat's win rate) and another's wholly below it;
  - **changes size**: otherwise, when some pair's simultaneous interval excludes 0 (the
    largest such difference is quoted, with its interval);
  - **holds at every rung**: no pair of rungs is separated.

Nothing here imports numba or matplotlib.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis.stats_clustered import clustered_wilson
from bnb_sim.analysis.stats_intervals import _t, constant_sample_interval, wilson_interval
from bnb_sim.analysis.stats_seats import _max_gap_quantile

__all__ = [
    "HOLDS",
    "CHANGES_SIZE",
    "CHANGES_SIGN",
    "FindingSample",
    "RobustnessResult",
    "analyse_findings",
    "mean_sample",
    "ratio_sample",
    "verdict_of",
]

HOLDS = "holds at every rung"
CHANGES_SIZE = "changes size"
CHANGES_SIGN = "changes sign"

#: Monte Carlo draws for the simultaneous critical value (fixed seed: deterministic)
N_SIM = 20_000


@dataclass
class FindingSample:
    """One finding measured at one rung: its value and its per-game influence.

    ``kind`` says how it reads: ``"rate"`` (a share, shown in %, Wilson-shaped interval),
    ``"pp"`` (a difference of shares, in percentage points), ``"mean"`` (a number in
    ``unit``). ``reference`` is the value that separates the finding's two signs (0 for a
    difference, 1/players for a seat's win rate); None when a sign means nothing (game
    length, balance)."""

    key: str
    label: str
    kind: str
    value: float
    games: np.ndarray  # game indices, one per influence term
    influence: np.ndarray  # ψ_g: value - truth ≈ Σ ψ_g
    reference: float | None = None
    unit: str = ""
    note: str = ""
    group: str = "headline"  # "headline", "items", "pets": the report's tables

    @property
    def n_games(self) -> int:
        return int(np.asarray(self.games).size)

    @property
    def se(self) -> float:
        g = self.n_games
        if g < 2:
            return math.nan
        psi = np.asarray(self.influence, float)
        return math.sqrt(g / (g - 1) * float(psi @ psi))


def ratio_sample(key, label, kind, games, num, den, **kw) -> FindingSample:
    """The finding ``Σ_g num_g / Σ_g den_g`` (a rate over rows, clustered by game): its
    influence is ``(num_g - value·den_g) / Σ den`` (the linearised ratio)."""
    num = np.asarray(num, float)
    den = np.asarray(den, float)
    total = float(den.sum())
    value = float(num.sum()) / total if total > 0 else math.nan
    psi = (num - value * den) / total if total > 0 else np.zeros_like(num)
    return FindingSample(key, label, kind, value, np.asarray(games), psi, **kw)


def mean_sample(key, label, kind, games, values, **kw) -> FindingSample:
    """The mean over games of one number per game (influence ``(x_g - mean) / G``)."""
    values = np.asarray(values, float)
    return ratio_sample(key, label, kind, games, values, np.ones_like(values), **kw)


# --------------------------------------------------------------------------------------
# intervals and verdicts


def _value_interval(s: FindingSample, confidence: float) -> tuple[float, float]:
    """95% interval of one rung's value: Wilson at the effective sample size for rates
    (:func:`~bnb_sim.analysis.stats.clustered_wilson`), ``value ± t·se`` otherwise."""
    g, se = s.n_games, s.se
    if s.kind == "rate" and g >= 1 and se == 0 and s.value in (0.0, 1.0):
        lo, hi = wilson_interval(s.value * g, g, confidence)  # 0 of n games: not [0, 0]
        return float(lo), float(hi)
    if g < 2 or not np.isfinite(s.value) or not se > 0:
        return math.nan, math.nan
    if s.kind == "rate":
        lo, hi = clustered_wilson(s.value * g, g, se, g, True, confidence)
        return float(lo), float(hi)
    half = _t(confidence, g - 1) * se
    return s.value - half, s.value + half


def _aligned(samples: Sequence[FindingSample]) -> tuple[np.ndarray, np.ndarray]:
    """``(games, Ψ)``: the union of the rungs' game indices and the influence matrix (a game a
    rung did not record contributes 0 to its sum, which is what its linearisation says)."""
    games = np.unique(np.concatenate([np.asarray(s.games) for s in samples]))
    psi = np.zeros((games.size, len(samples)))
    for j, s in enumerate(samples):
        psi[np.searchsorted(games, np.asarray(s.games)), j] = s.influence
    return games, psi


def _sign(lo: float, hi: float, reference: float | None) -> int:
    if reference is None or not (np.isfinite(lo) and np.isfinite(hi)):
        return 0
    return 1 if lo > reference else -1 if hi < reference else 0


def pair_differences(
    samples: Sequence[FindingSample],
    rungs: Sequence[str],
    confidence: float = 0.95,
    n_sim: int = N_SIM,
    seed: int = 0,
) -> pd.DataFrame:
    """Every pair of rungs (``lower`` before ``upper`` in rung order): the difference
    ``upper - lower`` with its marginal and simultaneous intervals, paired by game.

    Where no game differs at all (se 0), a difference of shares gets the interval of
    :func:`~bnb_sim.analysis.stats.constant_sample_interval` (about ±3/G), not ``[d, d]``;
    other findings get none."""
    bounded = bool(samples) and samples[0].kind in ("rate", "pp")
    games, psi = _aligned(samples)
    g = games.size
    values = np.array([s.value for s in samples], float)
    cov = g / (g - 1) * (psi.T @ psi) if g > 1 else np.full((len(samples),) * 2, np.nan)
    crit = math.nan
    if g > 1 and np.all(np.isfinite(cov)):
        crit = _max_gap_quantile(cov, confidence, n_sim, seed)
    t = _t(confidence, g - 1) if g > 1 else math.nan
    rows = []
    for i in range(len(samples)):
        for j in range(i + 1, len(samples)):
            d = float(values[j] - values[i])
            var = cov[i, i] + cov[j, j] - 2.0 * cov[i, j] if g > 1 else math.nan
            se = math.sqrt(max(var, 0.0)) if np.isfinite(var) else math.nan
            ok = np.isfinite(d) and se > 0 and np.isfinite(crit)
            if bounded and g > 1 and se == 0 and np.isfinite(d):
                lo, hi = constant_sample_interval(d, g, (-1.0, 1.0), confidence)
                rows.append({
                    "lower": rungs[i], "upper": rungs[j], "diff": d, "se": se, "lo": lo,
                    "hi": hi, "sim_lo": lo, "sim_hi": hi, "separated": bool(lo > 0 or hi < 0),
                    "n_games": int(g),
                })  # fmt: skip
                continue
            rows.append({
                "lower": rungs[i], "upper": rungs[j], "diff": d, "se": se,
                "lo": d - t * se if ok else math.nan, "hi": d + t * se if ok else math.nan,
                "sim_lo": d - crit * se if ok else math.nan,
                "sim_hi": d + crit * se if ok else math.nan,
                "separated": bool(ok and (d - crit * se > 0 or d + crit * se < 0)),
                "n_games": int(g),
            })  # fmt: skip
    return pd.DataFrame(rows)


def verdict_of(values: pd.DataFrame, pairs: pd.DataFrame, reference: float | None) -> dict:
    """The verdict of one finding from its per-rung ``values`` (``lo``, ``hi``) and its rung
    ``pairs`` (:func:`pair_differences`): ``{"verdict", "pair"}`` where ``pair`` is the row of
    the largest separated difference (changes size), else of the largest difference."""
    signs = [_sign(lo, hi, reference) for lo, hi in zip(values["lo"], values["hi"], strict=True)]
    usable = pairs[np.isfinite(pairs["diff"].to_numpy(float))] if len(pairs) else pairs
    separated = usable[usable["separated"]] if len(usable) else usable
    pick = separated if len(separated) else usable
    pair = None
    if len(pick):
        pair = pick.iloc[int(np.argmax(np.abs(pick["diff"].to_numpy(float))))].to_dict()
    if 1 in signs and -1 in signs:
        verdict = CHANGES_SIGN
    elif len(separated):
        verdict = CHANGES_SIZE
    else:
        verdict = HOLDS
    return {"verdict": verdict, "pair": pair, "signs": signs}


@dataclass
class RobustnessResult:
    """Every finding at every rung, the differences between rungs and the verdicts."""

    rungs: list[str]
    players: int
    games: int
    seed: int
    game: str
    values: pd.DataFrame  # key, label, kind, unit, group, rung, value, lo, hi, n_games, note
    differences: pd.DataFrame  # key, lower, upper, diff, se, lo, hi, sim_lo, sim_hi, ...
    verdicts: pd.DataFrame  # key, label, kind, unit, group, verdict, lower, upper, diff, ...
    seconds: dict[str, float] = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    confidence: float = 0.95

    def __repr__(self) -> str:
        counts = self.verdicts["verdict"].value_counts().to_dict() if len(self.verdicts) else {}
        said = ", ".join(f"{n} {v}" for v, n in counts.items())
        return (
            f"<RobustnessResult {' < '.join(self.rungs)}: {self.players} players, "
            f"{self.games:,} games per rung; {len(self.verdicts)} findings ({said})>"
        )

    def verdict(self, key: str) -> dict[str, Any]:
        """The verdict row of finding ``key`` as a dict (KeyError if there is none)."""
        rows = self.verdicts[self.verdicts["key"] == key]
        if not len(rows):
            raise KeyError(f"no finding '{key}' (known: {', '.join(self.verdicts['key'])})")
        return rows.iloc[0].to_dict()


def analyse_findings(
    by_rung: Mapping[str, Sequence[FindingSample]],
    *,
    players: int,
    games: int,
    seed: int = 0,
    game: str = "builders_biomes",
    confidence: float = 0.95,
    n_sim: int = N_SIM,
    seconds: Mapping[str, float] | None = None,
    params: Mapping | None = None,
) -> RobustnessResult:
    """Values, paired differences and verdicts of every finding measured at two or more
    rungs (``by_rung``: rung -> its samples, in rung order, weakest first)."""
    rungs = list(by_rung)
    keys: list[str] = []
    for samples in by_rung.values():
        keys += [s.key for s in samples if s.key not in keys]
    value_rows, diff_rows, verdict_rows = [], [], []
    for key in keys:
        present = [(r, s) for r in rungs for s in by_rung[r] if s.key == key]
        first = present[0][1]
        head = {"key": key, "label": first.label, "kind": first.kind, "unit": first.unit,
                "group": first.group}  # fmt: skip
        rows = []
        for rung, s in present:
            lo, hi = _value_interval(s, confidence)
            rows.append({**head, "rung": rung, "value": s.value, "lo": lo, "hi": hi,
                         "se": s.se, "n_games": s.n_games, "note": s.note})  # fmt: skip
        value_rows += rows
        if len(present) < 2:
            continue
        pairs = pair_differences(
            [s for _, s in present], [r for r, _ in present], confidence, n_sim, seed
        )
        pairs.insert(0, "key", key)
        diff_rows += pairs.to_dict("records")
        judged = verdict_of(pd.DataFrame(rows), pairs, first.reference)
        pair = judged["pair"] or {}
        verdict_rows.append({
            **head, "verdict": judged["verdict"], "reference": first.reference,
            "lower": pair.get("lower"), "upper": pair.get("upper"),
            "diff": pair.get("diff", math.nan), "sim_lo": pair.get("sim_lo", math.nan),
            "sim_hi": pair.get("sim_hi", math.nan), "rungs": len(present),
            "note": "; ".join(dict.fromkeys(s.note for _, s in present if s.note)),
        })  # fmt: skip
    return RobustnessResult(
        rungs=rungs,
        players=int(players),
        games=int(games),
        seed=int(seed),
        game=game,
        values=pd.DataFrame(value_rows),
        differences=pd.DataFrame(diff_rows),
        verdicts=pd.DataFrame(verdict_rows),
        seconds=dict(seconds or {}),
        params=dict(params or {}),
        confidence=confidence,
    )
