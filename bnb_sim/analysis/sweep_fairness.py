"""Seat fairness per sweep variant: "does this house rule make the game fairer?".

For every variant of a :mod:`~bnb_sim.analysis.sweep` this module gives the measures a run
report gives (:mod:`bnb_sim.analysis.report`, :mod:`bnb_sim.analysis.stats`), and each one's
change against the baseline:

* **Seat win rates** ``r_s`` (seat 0 starts), 95% Wilson intervals (a seat plays once per
  game). Change: the paired difference of ``won`` per game index (Student t).
* **First-player advantage** ``r_0 - mean(r_1, ..., r_{S-1})`` with the delta-method interval
  clustered by game (:func:`~bnb_sim.analysis.stats.first_player_advantage`). Change: the
  paired difference of the per-game terms ``won_0 - mean(won_others)`` (their mean is the
  advantage when every game has every seat, as in a sweep), Student t over game indices.
* **Balance** ``1 - (max_s r_s - min_s r_s)`` with the simultaneous interval of
  :func:`~bnb_sim.analysis.stats.balance_metric`. Change: ``balance_v - balance_b =
  gap_b - gap_v``, each gap the per-game mean of ``won_top - won_bottom`` for that arm's
  top and bottom seats, so the change is the mean of per-game differences and gets a paired
  Student t interval. This plug-in treats the top and bottom seats as known; it is valid
  (calibrated in ``tests/test_sweep_fairness.py``) when each arm's top seat is ahead of its
  runner-up and the bottom seat behind the next one (a within-game paired 95% interval
  excluding 0). Otherwise the largest gap is a maximum over near-ties, biased upward, and
  the change gets the conservative interval of :func:`conservative_balance_change` instead
  (each variant's own balance interval at 97.5%, unpaired; ``note`` says so).

All variants play the same game indices with the same seating, so a game index is the unit
that pairs them (the interval is clustered on it). When no game changed at all, a rate
difference gets :func:`~bnb_sim.analysis.stats.constant_sample_interval`, never a
zero-width interval.

Pure numpy/pandas; nothing here imports numba.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import table_format
from bnb_sim.analysis.stats_intervals import pct_digits, wilson_interval
from bnb_sim.analysis.stats_paired import paired_difference
from bnb_sim.analysis.stats_seats import balance_metric, first_player_advantage

__all__ = [
    "FAIRNESS_MEASURES",
    "analyse_fairness",
    "balance_change",
    "fairness_findings",
    "fairness_lines",
    "fairness_section",
    "fairness_summary",
    "is_mirror",
    "paired_fairness",
    "won_matrix",
]

FAIRNESS_MEASURES = ("first_player_advantage", "balance")
NOT_SEPARATED = "conservative: top or bottom seat not separated from the next"


def is_mirror(policies: Sequence[str]) -> bool:
    """Every seat plays the same policy: its win rate is the fair share (plus shared wins)
    by construction, so a change in it is no effect of the variant."""
    return len(set(map(str, policies))) == 1


def won_matrix(seats: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(games, seats_labels, y)``: the sorted game indices, the sorted seat labels and
    ``y[g, s]`` = 1.0 when seat ``s`` won game ``g`` (ties: every tied winner), NaN when the
    seat did not play."""
    game_idx, game_code = np.unique(seats["game"].to_numpy(), return_inverse=True)
    seat_idx, seat_code = np.unique(seats["seat"].to_numpy(), return_inverse=True)
    y = np.full((game_idx.size, seat_idx.size), np.nan)
    y[game_code, seat_code] = seats["won"].to_numpy(dtype=float)
    return game_idx, seat_idx, y


def _fpa_terms(y: np.ndarray) -> np.ndarray:
    """Per game ``won_0 - mean(won_others)``: their mean is the first-player advantage."""
    return y[:, 0] - np.nanmean(y[:, 1:], axis=1)


def _separated(y: np.ndarray, seat: int, confidence: float) -> bool:
    """Seat ``seat`` is strictly ahead of (or behind) every other seat: each within-game
    paired difference against it has a t interval that excludes 0."""
    for other in range(y.shape[1]):
        if other == seat:
            continue
        d = paired_difference(y[:, seat], y[:, other], confidence)
        if not (d["lo"] > 0 or d["hi"] < 0):
            return False
    return True


def _gap_terms(y: np.ndarray, confidence: float) -> tuple[np.ndarray, bool]:
    """Per-game ``won_top - won_bottom`` for the top and bottom seat of ``y``, and whether
    those two seats are separated from the others."""
    rates = np.nanmean(y, axis=0)
    top, bottom = int(np.argmax(rates)), int(np.argmin(rates))
    ok = top != bottom and _separated(y, top, confidence) and _separated(y, bottom, confidence)
    return y[:, top] - y[:, bottom], ok


def balance_change(y_v: np.ndarray, y_b: np.ndarray, confidence: float = 0.95) -> dict:
    """Paired change of balance ``balance_v - balance_b`` from two aligned won matrices
    (games x seats, the same game indices in the same rows); see the module docstring."""
    gap_v, ok_v = _gap_terms(y_v, confidence)
    gap_b, ok_b = _gap_terms(y_b, confidence)
    # a per-game gap term is in [-1, 1], so a difference of two is in [-2, 2]
    diff = paired_difference(gap_b, gap_v, confidence, bounds=(-2.0, 2.0))
    if not (ok_v and ok_b):
        lo, hi = conservative_balance_change(y_v, y_b, confidence)
        diff.update(lo=lo, hi=hi, p_value=math.nan, note=NOT_SEPARATED)
    return diff


def _seats_frame(y: np.ndarray) -> pd.DataFrame:
    games, seats = y.shape
    return pd.DataFrame({"game": np.repeat(np.arange(games), seats),
                         "seat": np.tile(np.arange(seats), games), "won": y.ravel()})  # fmt: skip


def conservative_balance_change(
    y_v: np.ndarray, y_b: np.ndarray, confidence: float = 0.95
) -> tuple[float, float]:
    """``balance_v - balance_b`` bounded by each variant's own balance interval
    (:func:`~bnb_sim.analysis.stats.balance_metric`, valid near balance) at half the error
    rate each (Bonferroni): ``[lo_v - hi_b, hi_v - lo_b]``. Valid whatever the seats, but
    unpaired, so wide; used when the paired plug-in is not (seats not separated)."""
    each = 1.0 - (1.0 - confidence) / 2
    v = balance_metric(_seats_frame(y_v), each)
    b = balance_metric(_seats_frame(y_b), each)
    return v["lo"] - b["hi"], v["hi"] - b["lo"]


def paired_fairness(y_v: np.ndarray, y_b: np.ndarray, confidence: float = 0.95) -> list[dict]:
    """Every fairness change of a variant against the baseline, one dict per measure:
    ``measure`` (``first_player_advantage``, ``balance``, ``seat_0``, ...) and the fields of
    :func:`~bnb_sim.analysis.stats.paired_difference`. ``y_v``, ``y_b``: aligned won
    matrices (:func:`won_matrix`)."""
    rows = [
        {
            "measure": "first_player_advantage",
            **paired_difference(_fpa_terms(y_v), _fpa_terms(y_b), confidence, bounds=(-2, 2)),
        },
        {"measure": "balance", **balance_change(y_v, y_b, confidence)},
    ]
    for s in range(y_v.shape[1]):
        diff = paired_difference(y_v[:, s], y_b[:, s], confidence, bounds=(-1.0, 1.0))
        rows.append({"measure": f"seat_{s}", **diff})
    return rows


def _levels(seats: pd.DataFrame, labels: np.ndarray, y: np.ndarray, confidence: float) -> list:
    fpa = first_player_advantage(seats, confidence)
    bal = balance_metric(seats, confidence)
    rows = [
        {"measure": "first_player_advantage", "value": fpa["value"], "lo": fpa["lo"],
         "hi": fpa["hi"], "n": fpa["n_games"], "note": fpa["note"]},
        {"measure": "balance", "value": bal["value"], "lo": bal["lo"], "hi": bal["hi"],
         "n": bal["n_games"], "note": bal["note"]},
    ]  # fmt: skip
    for s, label in enumerate(labels):
        col = y[:, s][~np.isnan(y[:, s])]
        k, n = float(col.sum()), int(col.size)
        lo, hi = wilson_interval(k, n, confidence)
        rows.append({"measure": f"seat_{int(label)}", "value": k / n if n else math.nan,
                     "lo": float(lo), "hi": float(hi), "n": n, "note": ""})  # fmt: skip
    return rows


def analyse_fairness(
    names: Sequence[str],
    base_name: str,
    frames: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]],
    confidence: float = 0.95,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(levels, changes)`` for every variant: ``levels`` has ``variant, measure, value, lo,
    hi, n, note``; ``changes`` (variants other than the baseline) has ``variant, measure,
    mean_diff, lo, hi, n, p_value, sd, note``, paired on the game index."""
    base_games, base_labels, base_y = won_matrix(frames[base_name][0])
    level_rows, change_rows = [], []
    for variant in names:
        seats = frames[variant][0]
        games, labels, y = won_matrix(seats)
        for row in _levels(seats, labels, y, confidence):
            level_rows.append({"variant": variant, **row})
        if variant == base_name:
            continue
        common = np.intersect1d(games, base_games)
        if not np.array_equal(labels, base_labels) or labels[0] != 0:
            continue  # different seats: nothing to pair (a sweep never does this)
        y_v = y[np.searchsorted(games, common)]
        y_b = base_y[np.searchsorted(base_games, common)]
        for row in paired_fairness(y_v, y_b, confidence):
            change_rows.append({"variant": variant, **row})
    return pd.DataFrame(level_rows), pd.DataFrame(change_rows)


# --------------------------------------------------------------------------------------
# words and tables


def _level(levels: pd.DataFrame, variant: str, measure: str) -> pd.Series | None:
    rows = levels[(levels["variant"] == variant) & (levels["measure"] == measure)]
    return rows.iloc[0] if len(rows) else None


def level_text(row: Mapping | None, measure: str) -> str:
    """A measure's value with its interval: pp for the advantage, a rate for a seat, three
    decimals for balance."""
    if row is None or not math.isfinite(row["value"]):
        return "n/a"
    if measure == "balance":
        return table_format.fmt_mean(row["value"], row["lo"], row["hi"], 3, row.get("note"))
    if measure == "first_player_advantage":
        return table_format.fmt_signed_pp(row["value"], row["lo"], row["hi"], note=row.get("note"))
    return table_format.fmt_rate(row["value"], row["lo"], row["hi"])


def change_text(row: Mapping, measure: str) -> str:
    """A paired change: pp for rates and the advantage, balance units for balance; the
    reason instead of an interval when there is none."""
    mean, lo, hi = row["mean_diff"], row["lo"], row["hi"]
    note = row.get("note") if isinstance(row.get("note"), str) else ""
    if measure != "balance":
        text = table_format.fmt_signed_pp(mean, lo, hi, note=note)
        if note == "all differences equal" and math.isfinite(lo):
            text += f" (no game changed, n={int(row['n']):,})"
        return text
    if not math.isfinite(mean):
        return "n/a"
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{table_format._num(mean, 3, True)} ({table_format.no_interval_text(note)})"
    num = table_format._num
    text = f"{num(mean, 3, True)} [{num(lo, 3, True)}, {num(hi, 3, True)}]"
    return text + (" (conservative)" if note == NOT_SEPARATED else "")


def detected(row: Mapping) -> bool:
    lo, hi = float(row["lo"]), float(row["hi"])
    return math.isfinite(lo) and math.isfinite(hi) and (lo > 0 or hi < 0)


def verdict(row: Mapping) -> str:
    if not (math.isfinite(float(row["lo"])) and math.isfinite(float(row["hi"]))):
        return "no interval"
    if not detected(row):
        return "no detectable change"
    if row["measure"] == "balance":
        return "fairer" if row["mean_diff"] > 0 else "less fair"
    if row["measure"] == "first_player_advantage":
        return "larger edge" if row["mean_diff"] > 0 else "smaller edge"
    return "detectable change"


def _seat_measures(levels: pd.DataFrame) -> list[str]:
    seats = [m for m in dict.fromkeys(levels["measure"]) if str(m).startswith("seat_")]
    return sorted(seats, key=lambda m: int(m.split("_")[1]))


def seat_label(measure: str) -> str:
    s = int(measure.split("_")[1])
    return f"seat {s}" + (" (starts)" if s == 0 else "")


TITLES = {"first_player_advantage": "first-player advantage", "balance": "balance"}


def _title(measure: str) -> str:
    return TITLES.get(measure) or seat_label(measure)


def _change(changes: pd.DataFrame, variant: str, measure: str) -> pd.Series | None:
    if not len(changes):
        return None
    rows = changes[(changes["variant"] == variant) & (changes["measure"] == measure)]
    return rows.iloc[0] if len(rows) else None


def short_names(result) -> dict[str, str]:
    """Variant labels for the fairness tables: each path cut to its last two parts (more
    when two paths would read alike), so a narrow column does not break a long name
    mid-word; the design table below gives the full names."""
    paths = list(dict.fromkeys(p for v in result.variants for p in v.changes))
    keep = 2
    while len({".".join(p.split(".")[-keep:]) for p in paths}) < len(paths):
        keep += 1
    short = {p: ".".join(p.split(".")[-keep:]) for p in paths}
    out = {}
    for v in result.variants:
        name = v.name
        for path in sorted(paths, key=len, reverse=True):
            name = name.replace(f"{path}=", f"{short[path]}=")
        out[v.name] = name
    return out


def fairness_table(result) -> pd.DataFrame:
    """One row per variant: first-player advantage and balance, each with its paired change
    against the baseline and the verdict."""
    levels, changes = result.fairness, result.fairness_changes
    shown = short_names(result)
    rows = []
    for v in result.variants:
        row: dict[str, str] = {"variant": shown[v.name]}
        for measure, change_title in zip(FAIRNESS_MEASURES, ("advantage", "balance"),
                                         strict=True):  # fmt: skip
            row[_title(measure)] = level_text(_level(levels, v.name, measure), measure)
            ch = _change(changes, v.name, measure)
            row[f"{change_title} change vs baseline"] = (
                "– (baseline)" if v.baseline
                else "n/a" if ch is None
                else f"{change_text(ch, measure)}: {verdict(ch)}"
            )  # fmt: skip
        rows.append(row)
    return pd.DataFrame(rows)


def seat_table(result) -> pd.DataFrame:
    """One row per variant and one column per seat: the seat's win rate."""
    levels = result.fairness
    shown = short_names(result)
    rows = []
    for v in result.variants:
        row: dict[str, str] = {"variant": shown[v.name]}
        for measure in _seat_measures(levels):
            row[seat_label(measure)] = level_text(_level(levels, v.name, measure), measure)
        rows.append(row)
    return pd.DataFrame(rows)


def seat_change_table(result) -> pd.DataFrame:
    """One row per variant but the baseline: each seat's paired win-rate change (one number
    of decimals for the whole table, stats.pct_digits)."""
    changes = result.fairness_changes
    if not len(changes):
        return pd.DataFrame()
    seat_changes = changes[changes["measure"].str.startswith("seat_")]
    digits = pct_digits(seat_changes["lo"].to_numpy(float), seat_changes["hi"].to_numpy(float))
    shown = short_names(result)
    rows = []
    for v in result.variants:
        if v.baseline:
            continue
        row: dict[str, str] = {"variant": shown[v.name]}
        for measure in _seat_measures(result.fairness):
            ch = _change(changes, v.name, measure)
            row[seat_label(measure)] = "n/a" if ch is None else table_format.fmt_signed_pp(
                ch["mean_diff"], ch["lo"], ch["hi"], digits, ch.get("note"))  # fmt: skip
        rows.append(row)
    return pd.DataFrame(rows)


def mirror_text(result) -> str:
    """Why a mirror match reports no per-policy win-rate change."""
    policy = result.policies[0]
    return (
        f"Every seat plays **{policy}**, so its win rate is the fair share 1/{result.players} "
        "(plus shared wins, which count for every tied winner) under every variant: a change "
        "in it is zero by construction, not a finding, and is not reported. The seat win "
        "rates, first-player advantage and balance above are what a variant changes."
    )


def fairness_section(result, name: str | None = None):
    """The report's first section: seat fairness per variant and its paired change."""
    from bnb_sim.analysis.report_builder import Section

    pre = f"{name}: " if name else ""
    base = next(v.name for v in result.variants if v.baseline)
    section = Section(f"{pre}Fairness per variant")
    section.text(
        "Does a variant make the game fairer? Per variant: the first-player advantage (seat "
        "0's win rate minus the mean of the other seats', delta-method 95% interval "
        "clustered by game), balance (1 − the largest gap between seat win rates; 1 = all "
        "seats equal; simultaneous 95% interval) and each seat's win rate (95% Wilson), as "
        "in a run report. Changes are paired differences against "
        f'`{base}` on the same game indices (95% Student t over games); "no detectable '
        "change\" when the interval includes 0. When a variant's top or bottom seat is not "
        "clearly apart from the next (a largest gap over near-ties is biased), a balance "
        "change gets a wider, conservative interval from the two variants' own balance "
        "intervals, marked conservative."
    )
    section.table(fairness_table(result), f"Fairness per variant (n = {result.games:,} games "
                  "each, the same game indices).")  # fmt: skip
    section.table(seat_table(result), "Win rate per seat (seat 0 starts) [95% Wilson CI].")
    seat_changes = seat_change_table(result)
    if len(seat_changes):
        section.table(seat_changes, "Change in each seat's win rate against the baseline "
                      "[95% CI], in percentage points (paired on the game index).")  # fmt: skip
    return section


def _records(df: pd.DataFrame) -> list[dict]:
    return df.to_dict(orient="records") if len(df) else []


def fairness_summary(result) -> dict[str, Any]:
    """The fairness part of ``summary.json`` (and ``bnb sweep --json``)."""
    changes = result.fairness_changes
    changes = changes.assign(
        detected=[detected(r) for _, r in changes.iterrows()],
        verdict=[verdict(r) for _, r in changes.iterrows()],
    ) if len(changes) else changes  # fmt: skip
    return {
        "fairness": _records(result.fairness),
        "fairness_effect": _records(changes),
        "mirror": is_mirror(result.policies),
        "win_rate_effect_note": (
            "every seat plays the same policy: per-policy win-rate changes are zero by "
            "construction (apart from shared wins) and are not findings"
            if is_mirror(result.policies) else ""
        ),
    }  # fmt: skip


def _variant_sentence(result, variant: str, base: str) -> tuple[str, dict]:
    levels, changes = result.fairness, result.fairness_changes
    fpa_v = _level(levels, variant, "first_player_advantage")
    fpa_b = _level(levels, base, "first_player_advantage")
    ch = _change(changes, variant, "first_player_advantage")
    bal_v, bal_b = _level(levels, variant, "balance"), _level(levels, base, "balance")
    bch = _change(changes, variant, "balance")
    v_text, b_text = (f"{table_format._num(100 * r['value'], 1, True)} pp" for r in (fpa_v, fpa_b))
    text = (
        f"**{variant}**: first-player advantage {v_text} vs {b_text} at baseline, paired "
        f"difference {change_text(ch, 'first_player_advantage')}: {verdict(ch)}; balance "
        f"{bal_v['value']:.3f} vs {bal_b['value']:.3f}, paired difference "
        f"{change_text(bch, 'balance')}: {verdict(bch)} (n = {int(ch['n']):,} paired games)"
    )
    numbers = {
        "kind": "fairness_change", "variant": variant,
        "first_player_advantage": float(fpa_v["value"]),
        "baseline_first_player_advantage": float(fpa_b["value"]),
        "value": float(ch["mean_diff"]), "lo": float(ch["lo"]), "hi": float(ch["hi"]),
        "n": int(ch["n"]), "detected": detected(ch),
        "balance": float(bal_v["value"]), "baseline_balance": float(bal_b["value"]),
        "balance_change": float(bch["mean_diff"]), "balance_lo": float(bch["lo"]),
        "balance_hi": float(bch["hi"]), "balance_detected": detected(bch),
    }  # fmt: skip
    return text, numbers


MAX_FINDINGS = 3


def fairness_findings(result, prefix: str = "") -> list:
    """Key findings that lead a sweep report: each variant's first-player advantage and
    balance against the baseline's, with the paired difference (the variants with the
    largest advantage change first, at most :data:`MAX_FINDINGS`, the rest in the table)."""
    from bnb_sim.analysis.report_builder import Finding

    changes = result.fairness_changes
    base = next(v.name for v in result.variants if v.baseline)
    if not len(changes):
        return []
    fpa = changes[changes["measure"] == "first_player_advantage"]
    order = fpa.assign(size=fpa["mean_diff"].abs()).sort_values("size", ascending=False)
    found = []
    for variant in list(order["variant"])[:MAX_FINDINGS]:
        text, numbers = _variant_sentence(result, variant, base)
        found.append(Finding(f"{prefix}Fairness: {text}.", numbers))
    if len(order) > MAX_FINDINGS:
        found[-1].text += (
            f" The other {len(order) - MAX_FINDINGS} variants are in the fairness table; "
            f"these are the {MAX_FINDINGS} largest advantage changes of {len(order)} "
            "(unadjusted 95% intervals)."
        )
    if is_mirror(result.policies):
        found.append(
            Finding(
                f"{prefix}Every seat plays {result.policies[0]}: per-policy win-rate changes "
                "are zero by construction (apart from shared wins) and not reported.",
                {"kind": "mirror_match", "policy": result.policies[0]},
            )
        )
    return found


def fairness_lines(result) -> list[str]:
    """Terminal lines: per variant, the first-player advantage and balance with their
    paired change against the baseline, and the seat win rates."""
    levels, changes = result.fairness, result.fairness_changes
    lines = ["  fairness (95% CI; change: paired difference against the baseline):"]
    for v in result.variants:
        lines.append(f"    {v.name}")
        for measure in FAIRNESS_MEASURES:
            text = (
                f"      {_title(measure):<23}{level_text(_level(levels, v.name, measure), measure)}"
            )
            ch = _change(changes, v.name, measure)
            if ch is not None:
                text += f"  change {change_text(ch, measure)}: {verdict(ch)}"
            lines.append(text)
        seats = " / ".join(
            f"{100 * _level(levels, v.name, m)['value']:.1f}" for m in _seat_measures(levels)
        )
        lines.append(f"      {'seat win rates':<23}{seats}% (seat 0 starts)")
    if is_mirror(result.policies):
        lines.append(
            f"  every seat plays {result.policies[0]}: per-policy win-rate changes are zero "
            "by construction (not shown)"
        )
    return lines
