"""The sensitivity table of a ``bnb tune game`` search: per parameter, value and target (and
the score), the mean of the search's evaluations with that value and its standard error, so
that the report's sensitivity panels carry error bars (issue 25, item 4)."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["sensitivity"]


def _own_se(record: dict, key: str, targets) -> float:
    """The standard error of one evaluation's estimate: its ``se``, else from its 95%
    interval; for the score, ``Σ weight · se / unit`` over the targets (a bound: the
    targets' errors are correlated, and a loss moves at most one for one with them)."""
    if key == "score":
        parts = [t.weight * _own_se(record, t.key, targets) / t.unit for t in targets]
        return float(sum(parts))
    est = record["targets"][key]
    se = est.get("se")
    if se is not None and math.isfinite(float(se)):
        return float(se)
    lo, hi = est.get("lo"), est.get("hi")
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return math.nan
    return (float(hi) - float(lo)) / (2 * 1.959964)


def sensitivity(plan, history: list[dict]) -> list[dict]:
    """Per parameter, value and target (and the score): mean over the search's evaluations
    with that value, and its standard error: between those evaluations when there are
    several, else the one evaluation's own (``se_from`` says which)."""
    rows = []
    keys = [t.key for t in plan.targets] + ["score"]
    for p in plan.space.params:
        for value in p.values():
            recs = [r for r in history if r["point"][p.name] == value]
            if not recs:
                continue
            for key in keys:
                x = np.array(
                    [r["score"] if key == "score" else r["targets"][key]["value"] for r in recs],
                    dtype=float,
                )
                x = x[np.isfinite(x)]
                if x.size > 1:
                    se, se_from = float(x.std(ddof=1) / math.sqrt(x.size)), "evaluations"
                else:
                    se, se_from = _own_se(recs[0], key, plan.targets), "games"
                rows.append(
                    {
                        "param": p.name,
                        "value": value,
                        "target": key,
                        "mean": float(x.mean()) if x.size else math.nan,
                        "se": se,
                        "se_from": se_from,
                        "evaluations": int(x.size),
                    }
                )
    return rows
