"""Farmer's Market items judged within seat: which look worth buying, which look like traps.

**Why within seat.** Seat 0 plays first and may buy an item the others rarely can; it also
wins more. Pooling buyers against non-buyers over all seats then credits the item with the
seat's advantage, and every item seat 0 does not buy looks bad. :func:`within_seat_effects`
compares buyers with non-buyers *inside* each stratum (policy x seat) and pools the strata:

    D = Σ_s w_s (p1_s − p0_s) / Σ_s w_s,   w_s = n1_s n0_s / (n1_s + n0_s)

(the Cochran–Mantel–Haenszel weights of a risk difference; a stratum without buyers or
without non-buyers weighs 0). The players of one game are correlated (one of them wins), so
the variance is the cluster-robust (linearised) one by game: with the weights held fixed,
each row's influence is ``w_s/W · (b (y − p1_s)/n1_s − (1 − b)(y − p0_s)/n0_s)``, summed per
game ``u_g``, and ``Var D = G/(G−1) Σ_g u_g²``; a normal 95% interval. Buying is the bot's
choice, so D is a **correlation**, not the effect of forcing the item: an item bought by a
player already ahead looks better than it is. The calibration test checks the coverage at a
null effect with seat-dependent buying and winning (tests/test_fm_findings.py).

**Verdicts.** An item is judged when at least :data:`MIN_PLAYERS` players bought it and as
many did not; it "looks worth buying" (or "looks like a trap") when its Holm-adjusted p over
the judged items is below 0.05 and D is positive (negative).

**A seat's outlier item.** :func:`seat_outlier` finds the item one seat buys far more often
than the others; :func:`item_findings` names it when the first-player advantage is extreme
(at least :data:`EXTREME_FPA`), since such an item is the first suspect.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from bnb_sim.analysis import table_columns, table_format
from bnb_sim.analysis.leaders import holm
from bnb_sim.analysis.numbers import fmt_p
from bnb_sim.analysis.report_builder import Finding
from bnb_sim.analysis.stats_clustered import clustered_rate

MIN_PLAYERS = 30  # buyers (and non-buyers) needed before an item is judged
EXTREME_FPA = 0.20  # +20 pp: half again the base game's first-player advantage with heuristic bots
OUTLIER_GAP = 0.25  # one seat buys the item 25 pp more often than the other seats
Z95 = 1.959963984540054

VERDICTS = ("looks worth buying", "looks like a trap", "no detectable difference",
            "too rarely bought to judge", "no seat both bought it and went without")  # fmt: skip


def _strata(seats: pd.DataFrame) -> np.ndarray:
    keys = seats["seat"].astype(str)
    if "policy" in seats.columns:
        keys = seats["policy"].astype(str) + "|" + keys
    return pd.factorize(keys)[0]


def within_seat_difference(
    bought: np.ndarray, won: np.ndarray, stratum: np.ndarray, game: np.ndarray
) -> dict[str, float]:
    """The pooled within-stratum difference ``D`` of win rates, buyers minus non-buyers, with
    its game-clustered normal 95% interval and two-sided p (module docstring)."""
    b = bought.astype(bool)
    y = won.astype(float)
    n_s = stratum.max() + 1 if stratum.size else 0
    n1 = np.bincount(stratum, weights=b, minlength=n_s)
    n0 = np.bincount(stratum, weights=~b, minlength=n_s)
    k1 = np.bincount(stratum, weights=y * b, minlength=n_s)
    k0 = np.bincount(stratum, weights=y * ~b, minlength=n_s)
    out = {"diff": math.nan, "lo": math.nan, "hi": math.nan, "p_value": math.nan,
           "buyers": int(n1.sum()), "non_buyers": int(n0.sum())}  # fmt: skip
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where((n1 > 0) & (n0 > 0), n1 * n0 / (n1 + n0), 0.0)
        p1, p0 = np.where(n1 > 0, k1 / n1, 0.0), np.where(n0 > 0, k0 / n0, 0.0)
    total = w.sum()
    if total <= 0:
        return out
    diff = float((w * (p1 - p0)).sum() / total)
    scale = w / total
    with np.errstate(invalid="ignore", divide="ignore"):
        infl = np.where(
            b,
            scale[stratum] * (y - p1[stratum]) / np.where(n1 > 0, n1, 1)[stratum],
            -scale[stratum] * (y - p0[stratum]) / np.where(n0 > 0, n0, 1)[stratum],
        )
    codes, per_game = np.unique(game, return_inverse=True)
    u = np.bincount(per_game, weights=infl, minlength=codes.size)
    g = codes.size
    se = math.sqrt(g / max(g - 1, 1) * float((u**2).sum()))
    out["diff"] = diff
    if se > 0:
        out.update(lo=diff - Z95 * se, hi=diff + Z95 * se,
                   p_value=float(2 * sps.norm.sf(abs(diff) / se)))  # fmt: skip
    return out


def within_seat_effects(seats: pd.DataFrame) -> pd.DataFrame:
    """Per item: buyers, D with its interval and p, the Holm-adjusted p and a verdict."""
    stratum = _strata(seats)
    game = seats["game"].to_numpy()
    won = seats["won"].to_numpy(dtype=float)
    rows = []
    for name in table_columns.prefixed(seats.columns, "item_"):
        bought = seats[f"item_{name}"].to_numpy() > 0
        rows.append({"item": name, **within_seat_difference(bought, won, stratum, game)})
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    enough = (df["buyers"] >= MIN_PLAYERS) & (df["non_buyers"] >= MIN_PLAYERS)
    judged = enough & np.isfinite(df["p_value"].to_numpy(float))
    df["p_holm"] = math.nan
    if judged.any():
        df.loc[judged, "p_holm"] = holm(df.loc[judged, "p_value"].to_numpy(float))
    verdict = np.where(enough.to_numpy(), VERDICTS[4], VERDICTS[3]).astype(object)
    significant = judged & (df["p_holm"] < 0.05)
    verdict[(judged & ~significant).to_numpy()] = VERDICTS[2]
    verdict[(significant & (df["diff"] > 0)).to_numpy()] = VERDICTS[0]
    verdict[(significant & (df["diff"] < 0)).to_numpy()] = VERDICTS[1]
    df["verdict"] = verdict
    return df.sort_values("diff", ascending=False, na_position="last").reset_index(drop=True)


def within_seat_table(effects: pd.DataFrame) -> pd.DataFrame:
    """The table for people: item, buyers, D [95% CI], Holm p, verdict."""
    return pd.DataFrame(
        {
            "item": effects["item"],
            "buyers": effects["buyers"].map("{:,}".format),
            "non-buyers": effects["non_buyers"].map("{:,}".format),
            "buyers minus non-buyers, within seat [95% CI]": [
                table_format.fmt_signed_pp(d, lo, hi)
                for d, lo, hi in zip(effects["diff"], effects["lo"], effects["hi"], strict=True)
            ],
            "p (Holm)": [fmt_p(p) for p in effects["p_holm"]],
            "reading (a correlation)": effects["verdict"],
        }
    )


def seat_outlier(seats: pd.DataFrame) -> dict[str, Any] | None:
    """The (item, seat) whose purchase share most exceeds the other seats' share, with that
    seat's win rate when it buys the item and when it does not; None below
    :data:`OUTLIER_GAP` or with a single seat."""
    seat = seats["seat"].to_numpy()
    game = seats["game"].to_numpy()
    won = seats["won"].to_numpy(dtype=float)
    best = None
    for name in table_columns.prefixed(seats.columns, "item_"):
        bought = (seats[f"item_{name}"].to_numpy() > 0).astype(float)
        for s in np.unique(seat):
            mine, others = seat == s, seat != s
            if not others.any():
                return None
            gap = bought[mine].mean() - bought[others].mean()
            if best is None or gap > best[0]:
                best = (gap, name, int(s))
    if best is None or best[0] < OUTLIER_GAP:
        return None
    gap, name, s = best
    bought = seats[f"item_{name}"].to_numpy() > 0
    mine, others = seat == s, seat != s
    share = clustered_rate(bought[mine].astype(float), game[mine]).to_dict()
    other_share = clustered_rate(bought[others].astype(float), game[others]).to_dict()
    buyer = clustered_rate(won[mine & bought], game[mine & bought]).to_dict()
    non_buyer = clustered_rate(won[mine & ~bought], game[mine & ~bought]).to_dict()
    return {"item": name, "seat": s, "gap": gap, "share": share, "others_share": other_share,
            "win_if_bought": buyer, "win_if_not": non_buyer}  # fmt: skip


def _rate(d: Mapping[str, Any]) -> str:
    return table_format.fmt_rate(d["rate"], d["lo"], d["hi"]) if d.get("n") else "n/a"


def _and_without(outlier: Mapping[str, Any]) -> str:
    if not outlier["win_if_not"].get("n"):
        return " (it bought it in every game)"
    return f" and {_rate(outlier['win_if_not'])} where it does not"


def _items_text(rows: list[Mapping[str, Any]], limit: int = 6) -> str:
    shown = [f"{r['item']} {table_format.fmt_signed_pp(r['diff'], r['lo'], r['hi'])}" for r in rows]
    more = f" and {len(shown) - limit} more" if len(shown) > limit else ""
    return ", ".join(shown[:limit]) + more


def item_findings(summary: Mapping[str, Any], prefix: str = "") -> list[Finding]:
    """Worth buying / traps (within seat), and the outlier item of an extreme first-player
    advantage; empty for a run without Farmer's Market items."""
    items = summary.get("items") or {}
    effects = items.get("within_seat") or []
    if not effects:
        return []
    found = []
    worth = [r for r in effects if r["verdict"] == VERDICTS[0]]
    traps = sorted((r for r in effects if r["verdict"] == VERDICTS[1]), key=lambda r: r["diff"])
    unjudged = [r["item"] for r in effects if r["verdict"] in VERDICTS[3:]]
    judged = len(effects) - len(unjudged)
    parts = [f"look worth buying: {_items_text(worth) if worth else 'none detected'}",
             f"look like traps: {_items_text(traps) if traps else 'none detected'}"]  # fmt: skip
    if unjudged:
        parts.append(f"not judged (under {MIN_PLAYERS} buyers, or no seat that both bought "
                     "it and went without): " + ", ".join(unjudged))  # fmt: skip
    n = max(int(r["buyers"]) + int(r["non_buyers"]) for r in effects)
    found.append(
        Finding(
            f"{prefix}Farmer's Market items, buyers' win rate minus non-buyers' within each "
            f"seat (a correlation, not a cause; Holm-adjusted over {judged} items; n = {n:,} "
            "player results): " + "; ".join(parts) + ".",
            {"kind": "fm_items", "worth_buying": [r["item"] for r in worth],
             "traps": [r["item"] for r in traps], "unjudged": unjudged, "n": n,
             "method": "within-seat risk difference, CMH weights, clustered by game"},
        )
    )  # fmt: skip
    outlier = items.get("seat_outlier")
    fpa = summary.get("first_player_advantage") or {}
    value = fpa.get("value")
    if outlier and value is not None and math.isfinite(value) and value >= EXTREME_FPA:
        o = outlier
        found.append(
            Finding(
                f"{prefix}Why the first-player advantage is so large: seat {o['seat']} buys "
                f"**{o['item']}** in **{_rate(o['share'])}** of its games (n = "
                f"{int(o['share']['n']):,}), the other seats in {_rate(o['others_share'])}; "
                f"seat {o['seat']} wins {_rate(o['win_if_bought'])} of the games where it buys "
                f"it{_and_without(o)} (a correlation). Try the item later or dearer with "
                "`--components FILE`.",
                {"kind": "fm_seat_outlier", **{k: o[k] for k in ("item", "seat", "gap")},
                 "share": o["share"]["rate"], "others_share": o["others_share"]["rate"],
                 "win_if_bought": o["win_if_bought"]["rate"],
                 "win_if_not": o["win_if_not"]["rate"]},
            )
        )  # fmt: skip
    return found


def add_within_seat(section: Any, seats: pd.DataFrame) -> None:
    """The within-seat table in the items section and its numbers in ``summary["items"]``."""
    effects = within_seat_effects(seats)
    if effects.empty:
        return
    section.heading("Worth buying or a trap? Buyers against non-buyers within seat")
    section.table(
        within_seat_table(effects),
        "Win rate of buyers minus non-buyers inside each seat (and policy), pooled with "
        "Mantel–Haenszel weights; 95% interval clustered by game. A correlation: the bot "
        f"chooses what to buy. Judged with at least {MIN_PLAYERS} buyers; Holm-adjusted over "
        "the items judged.",
    )
    items = section.summary.setdefault("items", {})
    items["within_seat"] = effects.to_dict(orient="records")
    items["seat_outlier"] = seat_outlier(seats)
