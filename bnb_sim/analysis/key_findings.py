"""The key findings of a simulate-run report, built to answer the run's question first.

:func:`run_findings` states who wins and the first-player
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

from bnb_sim.analysis import leaders, table_format
from bnb_sim.analysis.numbers import fmt_p
from bnb_sim.analysis.report_builder import Finding
from bnb_sim.analysis.report_wins import _fpa_cell
from bnb_sim.analysis.stats_intervals import num_digits

# --------------------------------------------------------------------------------------
# key findings


def _rate_text(row: Mapping) -> str:
    return f"{table_format.fmt_rate(row['rate'], row['lo'], row['hi'])}"


def _n_text(row: Mapping) -> str:
    return f"n = {int(row['n']):,}"


def _digits(ci: Mapping) -> int:
    """Decimals that show an interval's width (1 at least, 3 at most)."""
    return num_digits(ci.get("lo", math.nan), ci.get("hi", math.nan), 1, 3)


def run_findings(summary: Mapping, prefix: str = "") -> list[Finding]:
    """The headline answers of a simulated run, from its sections' summary: who wins and by
    how much, the first-player advantage, how long a game lasts. ``prefix`` names the item
    (``"2 players: "``) in an experiment."""
    found: list[Finding] = []
    rates = (summary.get("win_rate") or {}).get("by_policy") or []
    fair = summary.get("fair_share")
    if len(rates) > 1 and summary.get("win_rate_leader"):
        ranked = sorted(rates, key=lambda r: -r["rate"])
        best, rest = ranked[0], ranked[1:]
        others = "; ".join(f"{r['policy']} {_rate_text(r)} ({_n_text(r)})" for r in rest)
        lead = leaders.Leader.from_dict(summary["win_rate_leader"])
        claim = lead.claim(f"wins most often: {_rate_text(best)} of its player results "
                           f"({_n_text(best)})")  # fmt: skip
        if not lead.separated:
            others = f"{best['policy']} {_rate_text(best)} ({_n_text(best)}); {others}"
        found.append(
            Finding(
                f"{prefix}{claim[0].upper()}{claim[1:]}; win rates of the others: {others} "
                "(gaps: the difference of two policies' win rates, paired by game)."
                if lead.separated
                else f"{prefix}{claim[0].upper()}{claim[1:]}; win rates: {others} (gaps: the "
                "difference of two policies' win rates, paired by game).",
                {"kind": "best_policy", "policy": best["policy"], "rate": best["rate"],
                 "lo": best["lo"], "hi": best["hi"], "n": best["n"],
                 "best": lead.to_dict()["best"], "gap": lead.to_dict()["gap_to_runner_up"]},
            )
        )  # fmt: skip
    elif len(rates) == 1:
        r = rates[0]
        found.append(
            Finding(
                f"{prefix}Every seat plays **{r['policy']}**: it wins {_rate_text(r)} of its "
                f"player results ({_n_text(r)})"
                + (f"; the fair share is {100 * fair:.1f}%." if fair else "."),
                {"kind": "win_rate", "policy": r["policy"], "rate": r["rate"], "lo": r["lo"],
                 "hi": r["hi"], "n": r["n"]},
            )
        )  # fmt: skip
    fpa = summary.get("first_player_advantage") or {}
    if fpa.get("withheld"):
        found.append(
            Finding(
                f"{prefix}First-player advantage not measured: seat and policy are confounded.",
                {"kind": "first_player_advantage", "withheld": fpa["withheld"]},
            )
        )
    elif fpa.get("value") is not None and math.isfinite(fpa["value"]):
        lo, hi = fpa.get("lo"), fpa.get("hi")
        cell = _fpa_cell(fpa)
        n = int(fpa.get("n_games") or 0)
        if lo is not None and hi is not None and math.isfinite(lo) and lo > 0:
            words = f"the starting player gains **{cell}**"
        elif hi is not None and math.isfinite(hi) and hi < 0:
            words = f"the starting player loses **{cell}**"
        else:
            words = f"no first-player advantage detected: {cell}"
        found.append(
            Finding(
                f"{prefix}First-player advantage: {words} over the mean of the other seats "
                f"(n = {n:,} games).",
                {"kind": "first_player_advantage", "value": fpa["value"], "lo": lo, "hi": hi,
                 "n": n},
            )
        )  # fmt: skip
    turns = summary.get("turns") or {}
    if turns.get("n"):
        found.append(
            Finding(
                f"{prefix}A game lasts "
                f"{table_format.fmt_mean(turns['mean'], turns['lo'], turns['hi'], _digits(turns))} "
                "turns on "
                f"average (all players together; n = {int(turns['n']):,} games).",
                {"kind": "game_length", "value": turns["mean"], "lo": turns["lo"],
                 "hi": turns["hi"], "n": turns["n"]},
            )
        )  # fmt: skip
    return found


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
        cell = table_format.fmt_rate(r["rate"], r["lo"], r["hi"])
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
    shown = table_format.fmt_mean(value, lo, hi, 3)
    text = f"{prefix}Balance **{shown}** (1 = every seat wins equally "
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
