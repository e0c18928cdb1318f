"""Paired-seed A/B comparison of two policies with sequential stopping (docs/design.md).

Two designs, both on common random numbers (the same game indices, hence the same deal and
the same dice per seat, for A and for B):

* **Head-to-head** (no opponents, 2 players): every seed is played twice, A in seat 0 and B in
  seat 1, then the seats swapped. A's *pair score* is the mean of its two game scores (a win
  is 1, a shared win ½, a loss 0), so it is 0, ¼, ½, ¾ or 1 and the first-player advantage
  cancels. ``B``'s pair score is ``1 - A's``.
* **Against a field** (``opponents`` given, 2-4 players): A sits at a table with the
  opponents, and B takes A's place at the same table (same seat, same opponents in the same
  seats) on the same seed. The seat of A/B rotates with the game index (seat ``g % P``), so
  every seat is used equally often. Each side's game score is ``won / winners`` (1 for an
  outright win, ½ for a win shared by two, ...). The per-seed difference is
  ``d = score_A - score_B`` in ``[-1, 1]`` and the pair score fed to the stopping rule is
  ``(1 + d) / 2``: 1 when A won where B did not, 0 for the reverse, ½ when the seed went the
  same way for both. Its Elo (``400·log10(x / (1 - x))``) is the Elo of a virtual duel
  between A and B on the same seeds; 0 means no difference. This *pair-score Elo* is not
  comparable with head-to-head or tournament Elo (``elo.kind`` says which one a result has).

Estimates (both designs): the mean pair score with a Student t interval, its Elo, and the
difference ``d`` (head-to-head: ``2·score - 1``, A's win rate minus B's, ties counting ½)
with the same interval in percentage points. When every pair score is the same the interval
is the bound of :func:`~bnb_sim.analysis.stats.constant_sample_interval`, never zero-width.
All of them are fixed-sample intervals at the stop, labelled "not adjusted for the
sequential stop". Head-to-head win rates have Wilson intervals clustered by seed. Decisions:

* ``--sprt ELO0 ELO1``: :class:`~bnb_sim.analysis.sequential.SPRT` on the pair scores,
  ``H1: elo = ELO1`` (A stronger) against ``H0: elo = ELO0``; positive Elo = A better. H1
  accepted means the evidence favours ELO1 over ELO0 (A is stronger: elo > ELO0), H0
  accepted that it favours ELO0 over ELO1 (A is not ELO1 stronger: elo < ELO1). Every
  estimate is that of the seeds the test had seen when it decided; the rest of the last
  batch, played after the decision, is shown apart (``after_decision``), never mixed in.
* ``--precision H``: :class:`~bnb_sim.analysis.sequential.PrecisionStop` until the 95% half-
  width of the *difference* ``d`` is at most ``H`` (e.g. 0.02 = ±2 pp); the verdict then says
  whether the interval excludes 0.
* Either way the run stops at ``max_games`` (games played, A's and B's together).

The games are played in batches of geometrically growing size (the SPRT still looks at every
pair, so batching does not change its decision). Nothing here imports numba; the runner
passes a ``play(start, n)`` callback (:mod:`bnb_sim.runner.experiments`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import table_format
from bnb_sim.analysis.figure_scope import renders_figures
from bnb_sim.analysis.ratings import elo_from_score
from bnb_sim.analysis.report_builder import ReportBuilder, Section
from bnb_sim.analysis.report_provenance import readings_text
from bnb_sim.analysis.sequential import REASON_MAX_GAMES, SPRT, PrecisionStop
from bnb_sim.analysis.stats_clustered import clustered_wilson
from bnb_sim.analysis.stats_intervals import Rate, constant_sample_interval, mean_ci
from bnb_sim.analysis.stats_paired import mcnemar
from bnb_sim.errors import BnbError

__all__ = [
    "FIELD",
    "HEAD_TO_HEAD",
    "PAIR_COLUMNS",
    "CompareResult",
    "build_compare_report",
    "compare_sections",
    "compare_summary",
    "format_result",
    "make_rule",
    "run_sequential",
    "summarise",
]

HEAD_TO_HEAD = "head-to-head"
FIELD = "field"
# what "Elo" means in each design (summary.json ``elo.kind``; docs/statistics.md)
ELO_HEAD_TO_HEAD = "head-to-head"  # logistic Elo of A's expected score against B
ELO_FIELD = "pair-score"  # Elo of the pair score (1 + d)/2 of a duel on the same seeds
STOP_NOTE = "not adjusted for the sequential stop"
DEFAULT_MAX_GAMES = 200_000
FIRST_BATCH = 128
MAX_BATCH = 8192

# per seed: A's and B's scores (means over their games of this seed), outright wins, shared
# wins and games played by each side on this seed
PAIR_COLUMNS = ("seed", "score_a", "score_b", "wins_a", "wins_b", "shared_a", "shared_b", "games")


def make_rule(
    sprt: tuple[float, float] | None = None,
    precision: float | None = None,
    alpha: float = 0.05,
    beta: float = 0.05,
):
    """The stopping rule: an :class:`SPRT` or a :class:`PrecisionStop` (exactly one of them).

    ``precision`` is the target half-width of the difference ``d`` (in win-rate units); the
    pair score is ``(1 + d)/2``, so the rule watches its half-width ``precision / 2``.
    """
    if (sprt is None) == (precision is None):
        raise BnbError("compare: give exactly one of --sprt ELO0 ELO1 and --precision H")
    if sprt is not None:
        elo0, elo1 = (float(v) for v in sprt)
        if not elo1 > elo0:
            raise BnbError(f"compare: --sprt needs ELO0 < ELO1, got {elo0:g} {elo1:g}")
        if not (0 < alpha < 0.5 and 0 < beta < 0.5):
            raise BnbError("compare: --alpha and --beta must be between 0 and 0.5")
        return SPRT(elo0, elo1, alpha, beta)
    h = float(precision)
    if not 0 < h < 1:
        raise BnbError(f"compare: --precision must be between 0 and 1 (e.g. 0.02), got {h:g}")
    return PrecisionStop(h / 2.0)


def _rule_done(rule) -> bool:
    if isinstance(rule, SPRT):
        return rule.decision is not None
    return bool(rule.done)


def pair_scores(pairs: pd.DataFrame) -> np.ndarray:
    """Pair score per seed, ``(1 + score_a - score_b) / 2`` (A's pair score head-to-head)."""
    d = pairs["score_a"].to_numpy(dtype=float) - pairs["score_b"].to_numpy(dtype=float)
    return np.clip((1.0 + d) / 2.0, 0.0, 1.0)


def run_sequential(
    play: Callable[[int, int], pd.DataFrame],
    rule,
    *,
    games_per_seed: int = 2,
    max_games: int = DEFAULT_MAX_GAMES,
    first_batch: int = FIRST_BATCH,
    max_batch: int = MAX_BATCH,
    progress: Callable[[str], None] | None = None,
) -> tuple[pd.DataFrame, str]:
    """Play seeds ``0, 1, 2, ...`` in batches until ``rule`` is done or the budget is spent.

    ``play(start, n)`` returns the :data:`PAIR_COLUMNS` frame of seeds ``start .. start+n-1``.
    Batches double from ``first_batch`` to ``max_batch`` seeds (geometrically spaced looks,
    as a precision target wants). Returns ``(pairs, reason)``.
    """
    max_seeds = int(max_games) // int(games_per_seed)
    if max_seeds < 2:
        raise BnbError(f"compare: --max-games {max_games} is too small")
    frames = []
    done_seeds = 0
    batch = max(1, int(first_batch))
    reason = REASON_MAX_GAMES
    while done_seeds < max_seeds:
        n = min(batch, max_seeds - done_seeds)
        part = play(done_seeds, n)
        frames.append(part)
        rule.update(pair_scores(part))
        done_seeds += n
        if progress is not None:
            progress(_progress_line(rule, done_seeds, games_per_seed))
        if _rule_done(rule):
            reason = rule.reason
            break
        batch = min(batch * 2, int(max_batch))
    pairs = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=PAIR_COLUMNS)
    return pairs, reason


def _progress_line(rule, seeds: int, games_per_seed: int) -> str:
    if isinstance(rule, SPRT):
        return (
            f"  {seeds:,} seeds ({seeds * games_per_seed:,} games): LLR {rule.llr:+.2f} "
            f"in [{rule.lower:.2f}, {rule.upper:.2f}]"
        )
    return (
        f"  {seeds:,} seeds ({seeds * games_per_seed:,} games): half-width of the difference "
        f"±{100 * 2 * rule.half_width:.2f} pp (target ±{100 * 2 * rule.target:.2f})"
    )


# --------------------------------------------------------------------------------------
# result


@dataclass
class CompareResult:
    """The outcome of a comparison: verdict, estimates with intervals, n and the reason."""

    a: str
    b: str
    mode: str  # HEAD_TO_HEAD or FIELD
    opponents: list[str]
    players: int
    seed: int
    n_pairs: int
    n_games: int
    reason: str
    verdict: str
    decision: str | None  # "H1", "H0", "A", "B", "none" (precision: which side is better)
    score: dict  # mean pair score with t interval
    elo: dict  # elo, lo, hi
    difference: dict  # mean_diff, lo, hi (win-rate units)
    rates: dict  # per side: Rate dicts; draws
    test: dict  # the stopping rule's summary()
    mcnemar: dict | None = None
    params: dict = field(default_factory=dict)
    name: str | None = None
    after_decision: dict | None = None  # SPRT: estimates on every seed played (not the test's)

    def __repr__(self) -> str:
        return (
            f"<CompareResult {self.a} vs {self.b}: {self.verdict} "
            f"({self.n_games:,} games, {self.n_pairs:,} pairs; {self.reason})>"
        )


def _seed_rate(wins: np.ndarray, games: np.ndarray) -> Rate:
    """A side's win rate over its games, with the Wilson interval clustered by seed.

    Head-to-head, the two seat-swapped games of a seed share the deal and the dice, so they
    are not independent: the interval uses the seed as the unit (stats.clustered_wilson),
    which is what makes it consistent with the paired difference next to it.
    """
    k, n, g = float(wins.sum()), float(games.sum()), int(wins.size)
    if n == 0:
        return Rate.of(0, 0)
    p = k / n
    ss = float(((wins - p * games) ** 2).sum())
    se = math.sqrt(g / (g - 1) * ss) / n if g > 1 else math.nan
    lo, hi = clustered_wilson(k, n, se, g, bool(np.any(games > 1)))
    return Rate(k, int(n), p, float(lo), float(hi))


def _elo_interval(mean: float, lo: float, hi: float) -> dict[str, float]:
    def elo(s: float) -> float:
        if not math.isfinite(s):
            return math.nan
        return float(elo_from_score(min(max(s, 0.0), 1.0)))

    return {"elo": elo(mean), "lo": elo(lo), "hi": elo(hi)}


def summarise(
    pairs: pd.DataFrame,
    rule,
    reason: str,
    *,
    a: str,
    b: str,
    mode: str,
    opponents=(),
    players: int = 2,
    seed: int = 0,
    params: dict | None = None,
    name: str | None = None,
) -> CompareResult:
    """Estimates, intervals and the verdict from the per-seed frame and the stopping rule.

    After an SPRT decision the estimates use the seeds up to the decision only (the state at
    which the test decided); the seeds played after it are summarised in ``after_decision``.
    """
    after = None
    if isinstance(rule, SPRT) and rule.decision_n is not None and rule.decision_n < len(pairs):
        full = pair_scores(pairs)
        d_all = mean_ci(2.0 * full - 1.0)
        d_all["lo"], d_all["hi"] = max(d_all["lo"], -1.0), min(d_all["hi"], 1.0)
        after = {"n_pairs": int(full.size), "n_games": int(pairs["games"].sum()),
                 "seeds_after_decision": int(full.size - rule.decision_n),
                 "difference": {"mean_diff": d_all["mean"], "lo": d_all["lo"], "hi": d_all["hi"],
                                "n": d_all["n"]},
                 "elo": _elo_interval(float(full.mean()), (1 + d_all["lo"]) / 2,
                                      (1 + d_all["hi"]) / 2)}  # fmt: skip
        pairs = pairs.iloc[: rule.decision_n]
    x = pair_scores(pairs)
    n = int(x.size)
    score = mean_ci(x)
    if n >= 2 and score["sd"] == 0.0:
        # every seed went the same way (often: every pair split): the t interval would have
        # zero width. A different pair score, in [0, 1], may still occur on up to about 3/n
        # of the seeds; that bounds the mean (stats.constant_sample_interval).
        score["lo"], score["hi"] = constant_sample_interval(score["mean"], n, (0.0, 1.0))
        score["note"] = f"all {n:,} pair scores equal"
    elif n >= 2:  # a pair score lies in [0, 1], so does their mean: an end past it is cut
        score["lo"], score["hi"] = max(score["lo"], 0.0), min(score["hi"], 1.0)
    d_lo = 2 * score["lo"] - 1 if math.isfinite(score["lo"]) else math.nan
    d_hi = 2 * score["hi"] - 1 if math.isfinite(score["hi"]) else math.nan
    difference = {"mean_diff": 2 * score["mean"] - 1 if n else math.nan, "lo": d_lo, "hi": d_hi}
    difference["n"] = n
    elo = _elo_interval(score["mean"], score["lo"], score["hi"])
    n_games = int(pairs["games"].sum()) if n else 0
    if mode == HEAD_TO_HEAD:
        games = pairs["games"].to_numpy(dtype=float)
        rates = {
            key: _seed_rate(pairs[column].to_numpy(dtype=float), games).to_dict()
            for key, column in (("a", "wins_a"), ("b", "wins_b"), ("draws", "shared_a"))
        }
        mc = None
    else:
        won_a = (pairs["wins_a"] + pairs["shared_a"]).to_numpy() > 0
        won_b = (pairs["wins_b"] + pairs["shared_b"]).to_numpy() > 0
        rates = {
            "a": Rate.of(float(won_a.sum()), n).to_dict(),
            "b": Rate.of(float(won_b.sum()), n).to_dict(),
            "shared_a": Rate.of(float(pairs["shared_a"].sum()), n).to_dict(),
            "shared_b": Rate.of(float(pairs["shared_b"].sum()), n).to_dict(),
        }
        mc = mcnemar(won_a, won_b)
    test = rule.summary()
    test["interval_adjusted_for_stop"] = False
    if mode == FIELD:
        elo["kind"] = ELO_FIELD
    else:
        elo["kind"] = ELO_HEAD_TO_HEAD
    if isinstance(rule, SPRT):
        decision = rule.decision or "none"
        if rule.decision == "H1":
            verdict = (f"H1 accepted: {a} is stronger than {b} (the evidence favours elo "
                       f"{rule.elo1:g} over elo {rule.elo0:g}: elo > {rule.elo0:g})")  # fmt: skip
        elif rule.decision == "H0":
            verdict = (f"H0 accepted: the evidence favours elo {rule.elo0:g} over elo "
                       f"{rule.elo1:g}: {a} is not shown to be {rule.elo1:g} Elo stronger "
                       f"than {b} (elo < {rule.elo1:g})")  # fmt: skip
        else:
            verdict = "inconclusive: the SPRT reached neither bound"
    else:
        if n >= 2 and d_lo > 0:
            decision, verdict = "A", f"{a} is better than {b} (the 95% interval excludes 0)"
        elif n >= 2 and d_hi < 0:
            decision, verdict = "B", f"{b} is better than {a} (the 95% interval excludes 0)"
        else:
            decision, verdict = "none", f"no significant difference between {a} and {b}"
        if not rule.done:
            verdict += " (precision target not reached)"
    return CompareResult(
        a=a,
        b=b,
        mode=mode,
        opponents=list(opponents),
        players=int(players),
        seed=int(seed),
        n_pairs=n,
        n_games=n_games,
        reason=reason,
        verdict=verdict,
        decision=decision,
        score=score,
        elo=elo,
        difference=difference,
        rates=rates,
        test=test,
        mcnemar=mc,
        params=dict(params or {}),
        name=name,
        after_decision=after,
    )


# --------------------------------------------------------------------------------------
# output


def _fmt_elo(e: dict) -> str:
    def f(v: float) -> str:
        if math.isinf(v):
            return "+inf" if v > 0 else "-inf"
        return f"{v:+.1f}" if math.isfinite(v) else "n/a"

    return f"{f(e['elo'])} [{f(e['lo'])}, {f(e['hi'])}]"


def _fmt_rate_dict(r: dict) -> str:
    return f"{table_format.fmt_rate(r['rate'], r['lo'], r['hi'])} n={int(r['n']):,}"


def _design_text(result: CompareResult) -> str:
    if result.mode == HEAD_TO_HEAD:
        return (
            f"{result.a} vs {result.b}, 2 players, head-to-head: every seed played twice with "
            "the seats swapped; pair score = mean of A's two game scores"
        )
    return (
        f"{result.a} vs {result.b}, {result.players} players, each in the same seat against "
        f"{', '.join(result.opponents)} on the same seeds (seat rotating with the seed); "
        "pair score = (1 + score_A − score_B) / 2"
    )


def result_rows(result: CompareResult) -> list[tuple[str, str]]:
    """(label, value) rows shared by the terminal output and the report."""
    d = result.difference
    ci = f"95% CI, {STOP_NOTE}"
    first_ci = ci
    if result.score.get("note"):
        first_ci += f"; {result.score['note']}: the interval bounds how often they could differ"
    if result.mode == FIELD:
        elo_row = (
            "pair-score Elo A − B",
            f"{_fmt_elo(result.elo)} ({ci}; field mode: the Elo of the pair score (1 + d)/2, "
            "not comparable with head-to-head or tournament Elo)",
        )
    else:
        elo_row = ("Elo A − B", f"{_fmt_elo(result.elo)} ({ci})")
    rows = [
        ("verdict", result.verdict),
        (
            "difference A − B",
            f"{table_format.fmt_signed_pp(d['mean_diff'], d['lo'], d['hi'])} "
            f"(win rate, {first_ci})",
        ),
        elo_row,
        (
            "mean pair score of A",
            table_format.fmt_rate(result.score["mean"], result.score["lo"], result.score["hi"])
            + f" ({ci})",
        ),
        ("n", f"{result.n_pairs:,} seeds ({result.n_games:,} games)"),
        ("stopped", result.reason),
        ("design", _design_text(result)),
    ]
    if result.mode == HEAD_TO_HEAD:
        rows += [
            (f"win rate {result.a}", _fmt_rate_dict(result.rates["a"]) + " (CI by seed)"),
            (f"win rate {result.b}", _fmt_rate_dict(result.rates["b"]) + " (CI by seed)"),
            ("shared wins (draws)", _fmt_rate_dict(result.rates["draws"]) + " (CI by seed)"),
        ]
    else:
        rows += [
            (f"win rate {result.a} (shared wins count)", _fmt_rate_dict(result.rates["a"])),
            (f"win rate {result.b} (shared wins count)", _fmt_rate_dict(result.rates["b"])),
        ]
        if result.mcnemar:
            m = result.mcnemar
            rows.append(
                (
                    "McNemar (exact)",
                    f"{result.a} only won {m['b10']:,} seeds, {result.b} only {m['b01']:,}; "
                    f"p = {m['p_value']:.3g}",
                )
            )
    t = result.test
    if t.get("test") == "sprt":
        at = f" at the decision, {t['decision_n']:,} seeds" if t.get("decision_n") else ""
        rows.append(
            (
                "SPRT",
                f"H0 elo = {t['elo0']:g}, H1 elo = {t['elo1']:g}, alpha {t['alpha']:g}, "
                f"beta {t['beta']:g}; LLR {t['llr']:+.2f} in [{t['lower']:.2f}, "
                f"{t['upper']:.2f}]{at}" + (f": {t['meaning']}" if t.get("meaning") else ""),
            )
        )
        if result.after_decision:
            rows.append(("after the decision", _after_text(result)))
    else:
        rows.append(
            (
                "precision",
                f"half-width of the difference ±{100 * 2 * t['half_width']:.2f} pp "
                f"(target ±{100 * 2 * t['target']:.2f} pp)",
            )
        )
    return rows


def _after_text(result: CompareResult) -> str:
    """The seeds the last batch played after the SPRT decided, shown apart."""
    x = result.after_decision
    d = x["difference"]
    return (
        f"{x['seeds_after_decision']:,} more seeds of the last batch were played after the "
        f"decision (not part of the test); on all {x['n_pairs']:,} seeds: difference "
        f"{table_format.fmt_signed_pp(d['mean_diff'], d['lo'], d['hi'])}, Elo {_fmt_elo(x['elo'])}"
    )


def format_result(result: CompareResult) -> str:
    """The terminal output of ``bnb compare``."""
    rows = result_rows(result)
    width = max(len(k) for k, _ in rows)
    head = f"compare {result.a} vs {result.b}"
    return "\n".join([head] + [f"  {k.ljust(width)}  {v}" for k, v in rows])


def compare_summary(result: CompareResult) -> dict[str, Any]:
    """Machine-readable result (``--json`` and summary.json)."""
    return {
        "kind": "compare",
        "a": result.a,
        "b": result.b,
        "mode": result.mode,
        "opponents": result.opponents,
        "players": result.players,
        "seed": result.seed,
        "verdict": result.verdict,
        "decision": result.decision,
        "reason": result.reason,
        "n_pairs": result.n_pairs,
        "n_games": result.n_games,
        "difference": result.difference,
        "elo": result.elo,
        "score": result.score,
        "rates": result.rates,
        "mcnemar": result.mcnemar,
        "test": result.test,
        "after_decision": result.after_decision,
        "params": result.params,
        "warnings": compare_warnings(result),
    }


def compare_warnings(result: CompareResult) -> list[dict[str, str]]:
    """Caveats of a comparison, one ``{"code", "message"}`` per entry (summary.json)."""
    out = [
        {
            "code": "interval_not_adjusted_for_stop",
            "message": "The intervals are fixed-sample 95% intervals computed at the sequential "
            "stop; they are not adjusted for stopping on the data, so their coverage can be "
            "somewhat lower than 95% (about 88-94% at an SPRT decision).",
        }
    ]
    if result.mode == FIELD:
        out.append(
            {
                "code": "field_mode_elo",
                "message": "In field mode the Elo is that of the pair score (1 + d)/2, a duel "
                "on the seeds where A and B fared differently; it is not comparable with "
                "head-to-head or tournament Elo.",
            }
        )
    if result.score.get("note"):
        out.append(
            {
                "code": "degenerate_sample",
                "message": f"{result.score['note'].capitalize()}: there is no variation to "
                "estimate from; the interval only bounds how often the outcome could differ.",
            }
        )
    return out


def compare_sections(result: CompareResult, name: str | None = None) -> list[Section]:
    """One report section with the verdict and the estimates."""
    name = name if name is not None else result.name
    section = Section(f"{name}: comparison" if name else f"Comparison: {result.a} vs {result.b}")
    section.text(
        "Paired-seed comparison (common random numbers): both policies play the same game "
        "indices, so the deal and the dice are shared and only the policy differs. Positive "
        f"differences and Elo favour {result.a}."
    )
    section.text(f"Rule readings: {readings_text(result.params)}.")
    section.table(pd.DataFrame(result_rows(result), columns=["", "value"]))
    return [section]


@renders_figures()
def build_compare_report(result: CompareResult, title: str | None = None) -> ReportBuilder:
    builder = ReportBuilder(
        title or f"bnb-sim comparison: {result.a} vs {result.b}",
        f"{result.n_pairs:,} seeds · {result.n_games:,} games · seed {result.seed}",
    )
    for section in compare_sections(result):
        builder.add(section)
    builder.summary.update(compare_summary(result))
    builder.findings += compare_findings(result)
    return builder


def compare_findings(result: CompareResult, prefix: str = "") -> list:
    """Key finding of a comparison: the verdict with the difference, its interval and n."""
    from bnb_sim.analysis.report_builder import Finding
    from bnb_sim.analysis.table_format import fmt_signed_pp

    d = result.difference
    cell = fmt_signed_pp(d["mean_diff"], d["lo"], d["hi"])
    # in an experiment the prefix already names the comparison
    verdict = result.verdict if prefix else f"{result.a} vs {result.b}: {result.verdict}"
    return [
        Finding(
            f"{prefix}**{verdict}** — win-rate difference "
            f"{cell} (n = {result.n_games:,} games on {result.n_pairs:,} paired seeds).",
            {"kind": "compare_verdict", "a": result.a, "b": result.b, "verdict": result.verdict,
             "decision": result.decision, "value": d["mean_diff"], "lo": d["lo"],
             "hi": d["hi"], "n": result.n_games},
        )
    ]  # fmt: skip
