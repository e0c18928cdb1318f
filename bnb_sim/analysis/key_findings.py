"""The key findings of a simulate-run report, built to answer the run's question first.

:func:`~bnb_sim.analysis.report.run_findings` states who wins and the first-player
advantage. Two kinds of run need more than that:

* **a mirror match** (every seat plays the same policy): the per-policy win rate is the fair
  share by construction ("heuristic wins 33.465%" says nothing), so the findings lead with the
  seat win rates, the first-player advantage and the balance instead;
* **a Farmer's Market run**: which items look worth buying and which look like traps (within
  seat, :mod:`bnb_sim.analysis.fm_findings`), and, when the first-player advantage is extreme,
  the item one seat buys far more often than the others.

Everything is read from the report's merged ``summary``; nothing is computed here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from bnb_sim.analysis import tables
from bnb_sim.analysis.numbers import fmt_p
from bnb_sim.analysis.report import Finding, run_findings


def is_mirror(summary: Mapping[str, Any]) -> bool:
    """Every seat played the same policy (one policy in the per-policy win rates)."""
    return len((summary.get("win_rate") or {}).get("by_policy") or []) == 1


def seat_rates_finding(summary: Mapping[str, Any], prefix: str = "") -> Finding | None:
    """The seat win rates of a mirror match, seat 0 (the starting player) first."""
    by_policy = (summary.get("win_rate") or {}).get("by_policy") or []
    by_seat = sorted((summary.get("win_rate") or {}).get("by_seat") or [], key=lambda r: r["seat"])
    if len(by_policy) != 1 or not by_seat:
        return None
    policy = by_policy[0]["policy"]
    fair = summary.get("fair_share")
    cells = []
    for r in by_seat:
        cell = tables.fmt_rate(r["rate"], r["lo"], r["hi"])
        name = f"seat {r['seat']}" + (" (starts)" if r["seat"] == 0 else "")
        cells.append(f"{name} **{cell}**" if r["seat"] == 0 else f"{name} {cell}")
    ns = {int(r["n"]) for r in by_seat}
    n_text = f"n = {ns.pop():,} games each" if len(ns) == 1 else "n: see the seat table"
    fair_text = f", fair share {100 * fair:.1f}%" if fair else ""
    return Finding(
        f"{prefix}Seat win rates: " + ", ".join(cells) + f" ({n_text}{fair_text}). Every seat "
        f"plays **{policy}** (a mirror match), so its win rate per policy is the fair share "
        "by construction; the seats carry the answer.",
        {"kind": "seat_win_rates", "policy": policy, "fair_share": fair,
         "by_seat": [{k: r[k] for k in ("seat", "rate", "lo", "hi", "n")} for r in by_seat]},
    )  # fmt: skip


def balance_finding(summary: Mapping[str, Any], prefix: str = "") -> Finding | None:
    balance = summary.get("balance") or {}
    value = balance.get("value")
    if value is None or not math.isfinite(value) or balance.get("withheld"):
        return None
    lo, hi = balance.get("lo"), balance.get("hi")
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    text = f"{prefix}Balance **{tables.fmt_mean(value, lo, hi, 3)}** (1 = every seat wins equally "
    text += "often; 1 minus the largest gap between two seats' win rates"
    p = balance.get("p_value")
    if p is not None and math.isfinite(p):
        shown = f"p {fmt_p(p)}" if p < 0.001 else f"p = {fmt_p(p)}"
        text += f"; test that all seats win equally: χ²({balance['df']}) = {balance['chi2']:.1f}, "
        text += shown
    text += f"; n = {int(balance.get('n_games') or 0):,} games)."
    return Finding(text, {"kind": "balance", "value": value, "lo": lo, "hi": hi,
                          "n": balance.get("n_games"), "p_value": p})  # fmt: skip


def simulate_findings(summary: Mapping[str, Any], prefix: str = "") -> list[Finding]:
    """:func:`run_findings`, with a mirror match led by its seats and a Farmer's Market run
    followed by its items."""
    from bnb_sim.analysis.fm_findings import item_findings

    found = run_findings(summary, prefix)
    if is_mirror(summary):
        seats = seat_rates_finding(summary, prefix)
        found = [f for f in found if f.numbers.get("kind") != "win_rate"]
        if seats is not None:
            found.insert(0, seats)
        balance = balance_finding(summary, prefix)
        if balance is not None:
            at = next(
                (i + 1 for i, f in enumerate(found)
                 if f.numbers.get("kind") == "first_player_advantage"),
                len(found),
            )  # fmt: skip
            found.insert(at, balance)
    game_length = [f for f in found if f.numbers.get("kind") == "game_length"]
    found = [f for f in found if f.numbers.get("kind") != "game_length"]
    return found + item_findings(summary, prefix) + game_length
