"""Text, summary, key findings, report sections and plot of ``bnb robustness``
(:class:`~bnb_sim.analysis.robustness.RobustnessResult`), and the "How far these findings
hold" section that a run's own report gains when robustness results were recorded for it.

The report leads with the verdicts: one line per finding (holds at every rung, changes size
by how much, changes sign), then a plot of each headline finding across the rungs with its
95% intervals, then the values and the differences between rungs in full.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots, table_format
from bnb_sim.analysis.figure_scope import renders_figures
from bnb_sim.analysis.report_builder import Finding, ReportBuilder, Section
from bnb_sim.analysis.robustness import CHANGES_SIGN, CHANGES_SIZE, RobustnessResult
from bnb_sim.analysis.stats_intervals import num_digits
from bnb_sim.errors import BnbError

__all__ = [
    "LINK_NAME",
    "build_robustness_report",
    "format_robustness",
    "robustness_findings",
    "robustness_sections",
    "robustness_summary",
    "run_section",
    "write_run_link",
]

#: the file in a run folder that records robustness results for the run (``--run DIR``)
LINK_NAME = "robustness.json"

SECTION_TITLE = "How far these findings hold"

METHOD_TEXT = (
    "Every rung played the same game indices (the same deal, cubes, draws and dice) with its "
    "bot in every seat, so each difference between rungs is paired on the game index: the "
    "delta-method terms of the finding per game, one interval for the paired sum (clustered "
    "by game). The differences' intervals are simultaneous 95% intervals over the rung "
    "pairs of a finding (a Tukey-style critical value under the estimated correlation), so "
    'a finding that truly holds is called "changes" in at most 5% of analyses; the '
    "findings are judged one by one (not adjusted for each other). **holds at every rung**: "
    "no two rungs are separated; **changes size**: some pair is (the largest separated "
    "difference is quoted); **changes sign**: one rung's interval lies wholly above the "
    "reference (0, or the fair share for a seat) and another's wholly below."
)


# --------------------------------------------------------------------------------------
# numbers as text


def _digits(lo: float, hi: float) -> int:
    if np.isfinite(lo) and np.isfinite(hi):
        return num_digits(lo, hi)
    return 2


def fmt_value(kind: str, value: float, lo: float, hi: float, unit: str = "") -> str:
    """A rung's value with its interval, in the finding's own unit."""
    if kind == "rate":
        return table_format.fmt_rate(value, lo, hi)
    if kind == "pp":
        return table_format.fmt_signed_pp(value, lo, hi)
    text = table_format.fmt_mean(value, lo, hi, _digits(lo, hi))
    return f"{text} {unit}".rstrip()


def fmt_diff(kind: str, diff: float, lo: float, hi: float, unit: str = "") -> str:
    """A difference between rungs: percentage points for rates, the unit otherwise."""
    if kind in ("rate", "pp"):
        return table_format.fmt_signed_pp(diff, lo, hi, note="no variation")
    if not np.isfinite(diff):
        return "n/a"
    d = _digits(lo, hi)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{diff:+.{d}f} {unit} (no variation)".replace("  ", " ")
    return f"{diff:+.{d}f} [{lo:+.{d}f}, {hi:+.{d}f}] {unit}".rstrip()


def verdict_text(row: Mapping) -> str:
    """``changes size: +5.6 pp [+4.4, +6.8] from greedy to heuristic`` and the like."""
    verdict = row["verdict"]
    if row.get("lower") is None or not np.isfinite(row.get("diff", math.nan)):
        return verdict
    diff = fmt_diff(row["kind"], row["diff"], row["sim_lo"], row["sim_hi"], row["unit"])
    if verdict == CHANGES_SIZE:
        return f"{verdict}: {diff} from {row['lower']} to {row['upper']}"
    if verdict == CHANGES_SIGN:
        return f"{verdict} ({diff} from {row['lower']} to {row['upper']})"
    return f"{verdict} (largest difference {diff}, {row['lower']} to {row['upper']})"


def _values_of(result: RobustnessResult, key: str) -> pd.DataFrame:
    return result.values[result.values["key"] == key]


def _by_rung_text(result: RobustnessResult, key: str) -> str:
    rows = _values_of(result, key)
    return "; ".join(
        f"{r.rung} {fmt_value(r.kind, r.value, r.lo, r.hi, r.unit)}" for r in rows.itertuples()
    )


# --------------------------------------------------------------------------------------
# text, summary, key findings


def format_robustness(result: RobustnessResult) -> str:
    """The answer for the terminal: a verdict per finding, its values by rung."""
    lines = [
        f"{' < '.join(result.rungs)}: every seat the rung's bot, {result.games:,} paired games "
        f"per rung, {result.players} players, seed {result.seed}",
    ]
    for row in result.verdicts.to_dict("records"):
        lines.append(f"  {row['label']}: {verdict_text(row)}")
        lines.append(f"      {_by_rung_text(result, row['key'])}")
    lines.append(
        "  (differences: simultaneous 95% intervals over the rung pairs, paired by game index)"
    )
    return "\n".join(lines)


def robustness_summary(result: RobustnessResult) -> dict[str, Any]:
    """Machine-readable numbers (summary.json and --json)."""
    return {
        "kind": "robustness",
        "game": result.game,
        "rungs": result.rungs,
        "players": result.players,
        "games_per_rung": result.games,
        "seed": result.seed,
        "confidence": result.confidence,
        "verdicts": [
            {**row, "text": verdict_text(row)} for row in result.verdicts.to_dict("records")
        ],
        "values": result.values.to_dict("records"),
        "differences": result.differences.to_dict("records"),
        "seconds": result.seconds,
        "params": result.params,
    }


def robustness_findings(result: RobustnessResult, prefix: str = "") -> list[Finding]:
    """A key finding per headline finding (seat win rates together in one)."""
    out = []
    verdicts = result.verdicts
    head = verdicts[verdicts["group"] == "headline"] if len(verdicts) else verdicts
    seats = head[head["key"].str.startswith("win_rate_seat_")] if len(head) else head
    for row in head.to_dict("records"):
        if row["key"].startswith("win_rate_seat_"):
            continue
        out.append(Finding(
            f"{prefix}{row['label']} {verdict_text(row)} — {_by_rung_text(result, row['key'])} "
            f"({result.games:,} paired games per rung).",
            {"kind": "robustness", "key": row["key"], "verdict": row["verdict"],
             "diff": row["diff"], "lo": row["sim_lo"], "hi": row["sim_hi"],
             "n": result.games},
        ))  # fmt: skip
    if len(seats):
        said = "; ".join(
            f"seat {r['key'].rsplit('_', 1)[1]} {r['verdict']}" for r in seats.to_dict("records")
        )
        out.append(Finding(
            f"{prefix}Seat win rates across {', '.join(result.rungs)}: {said}.",
            {"kind": "robustness", "key": "win_rate_seats",
             "verdicts": {r["key"]: r["verdict"] for r in seats.to_dict("records")}},
        ))  # fmt: skip
    for group, what in (("items", "item effects"), ("pets", "pet effects")):
        rows = verdicts[verdicts["group"] == group] if len(verdicts) else verdicts
        if len(rows):
            counts = rows["verdict"].value_counts()
            said = ", ".join(f"{n} {v}" for v, n in counts.items())
            flips = [f"{r['label']} ({_by_rung_text(result, r['key'])})"
                     for r in rows.to_dict("records") if r["verdict"] == CHANGES_SIGN]  # fmt: skip
            if flips:
                said += "; the sign changes for " + "; ".join(flips)
            out.append(Finding(f"{prefix}{len(rows)} {what} across the rungs: {said}.",
                               {"kind": "robustness", "key": group}))  # fmt: skip
    return out


# --------------------------------------------------------------------------------------
# sections


def _verdict_table(result: RobustnessResult, group: str) -> pd.DataFrame:
    rows = result.verdicts[result.verdicts["group"] == group]
    return pd.DataFrame({
        "finding": rows["label"],
        "verdict": [verdict_text(r) for r in rows.to_dict("records")],
        **{rung: [
            next((fmt_value(v.kind, v.value, v.lo, v.hi, v.unit)
                  for v in _values_of(result, k).itertuples() if v.rung == rung), "–")
            for k in rows["key"]] for rung in result.rungs},
    })  # fmt: skip


def findings_plot(result: RobustnessResult, keys: list[str], title: str):
    """One panel per finding: its value at each rung with the 95% interval."""
    n = len(keys)
    cols = min(3, n)
    rows = -(-n // cols)
    fig, axes = plots.new_figure(2.6 * rows, nrows=rows, ncols=cols)
    x = np.arange(len(result.rungs))
    for i, key in enumerate(keys):
        ax = axes[i // cols][i % cols]
        v = _values_of(result, key).set_index("rung").reindex(result.rungs)
        scale = 100.0 if v["kind"].iloc[0] in ("rate", "pp") else 1.0
        val, lo, hi = (v[c].to_numpy(float) * scale for c in ("value", "lo", "hi"))
        err = np.vstack([val - lo, hi - val])
        ax.errorbar(x, val, yerr=np.where(np.isfinite(err), err, 0), fmt="o-", capsize=4)
        ref = _reference(result, key)
        if ref is not None:
            ax.axhline(ref * scale, color="grey", lw=0.8, ls="--")
        ax.set_xticks(x, result.rungs, rotation=20)
        unit = {"rate": "%", "pp": "pp"}.get(v["kind"].iloc[0], v["unit"].iloc[0])
        verdict = result.verdicts.set_index("key")["verdict"].get(key, "")
        ax.set_title(f"{v['label'].iloc[0]}\n{verdict}", loc="left", fontsize=9, fontweight="bold")
        ax.set_ylabel(unit, fontsize=8)
        ax.margins(y=0.25)
    for j in range(n, rows * cols):
        axes[j // cols][j % cols].set_visible(False)
    fig.suptitle(title, fontsize=12, fontweight="bold")
    return fig


def _reference(result: RobustnessResult, key: str):
    rows = result.verdicts[result.verdicts["key"] == key]
    if not len(rows):
        return None
    ref = rows["reference"].iloc[0]
    return None if ref is None or (isinstance(ref, float) and math.isnan(ref)) else float(ref)


def robustness_sections(result: RobustnessResult, name: str | None = None) -> list[Section]:
    """The verdicts (with the plot), the values per rung and the differences between rungs."""
    prefix = f"{name}: " if name else ""
    lead = Section(f"{prefix}{SECTION_TITLE}")
    lead.text(
        f"Each finding re-measured with {', '.join(f'`{r}`' for r in result.rungs)} in every "
        f"seat, {result.games:,} games per rung on the same game indices "
        f"({result.players} players, seed {result.seed})."
    )
    if len(result.verdicts):
        lead.table(_verdict_table(result, "headline"), caption="Verdict per finding")
        head = result.verdicts[result.verdicts["group"] == "headline"]["key"].tolist()
        lead.figure(
            f"{prefix}robustness", findings_plot(result, head, "Each finding at each rung"),
            "Each finding at each rung with its 95% interval (dashed: the reference, 0 or the "
            "fair share).",
        )  # fmt: skip
    lead.text(METHOD_TEXT)
    sections = [lead]
    for group, title, caption in (
        ("items", "Farmer's Market items at each rung",
         "Win rate of buyers minus non-buyers: a correlation, not what the item causes"),
        ("pets", "Pet effects at each rung",
         "Teams with the pet minus teams without it, paired on the game index"),
    ):  # fmt: skip
        if len(result.verdicts) and (result.verdicts["group"] == group).any():
            sec = Section(f"{prefix}{title}")
            sec.table(_verdict_table(result, group), caption=caption)
            keys = result.verdicts[result.verdicts["group"] == group]["key"].tolist()
            sec.figure(f"{prefix}robustness-{group}", findings_plot(result, keys, title),
                       f"{caption}; each at each rung with its 95% interval.")  # fmt: skip
            sections.append(sec)
    diffs = Section(f"{prefix}Differences between rungs")
    d = result.differences
    if len(d):
        kinds = result.verdicts.set_index("key")
        diffs.table(pd.DataFrame({
            "finding": [kinds.loc[k, "label"] for k in d["key"]],
            "rungs": [f"{u} − {lo}" for u, lo in zip(d["upper"], d["lower"], strict=True)],
            "difference [95%]": [fmt_diff(kinds.loc[r.key, "kind"], r.diff, r.lo, r.hi,
                                          kinds.loc[r.key, "unit"]) for r in d.itertuples()],
            "simultaneous [95%]": [fmt_diff(kinds.loc[r.key, "kind"], r.diff, r.sim_lo,
                                            r.sim_hi, kinds.loc[r.key, "unit"])
                                   for r in d.itertuples()],
            "games": [f"{n:,}" for n in d["n_games"]],
        }), caption="Upper rung minus lower rung, paired on the game index")  # fmt: skip
    notes = [n for n in result.verdicts.get("note", pd.Series(dtype=str)) if n]
    for note in dict.fromkeys(notes):
        diffs.text(f"Note: {note}.")
    seconds = ", ".join(f"{r} {s:.1f} s" for r, s in result.seconds.items())
    if seconds:
        diffs.text(f"Seconds per rung (playing and measuring): {seconds}.")
    sections.append(diffs)
    for section in sections:
        section.summary = {}
    return sections


@renders_figures()
def build_robustness_report(result: RobustnessResult) -> ReportBuilder:
    """The standalone report of ``bnb robustness``."""
    builder = ReportBuilder(
        f"bnb-sim robustness: {' < '.join(result.rungs)}",
        f"{result.players} players · {result.games:,} paired games per rung · seed {result.seed}",
    )
    for section in robustness_sections(result):
        builder.add(section)
    builder.summary.update(robustness_summary(result))
    builder.findings += robustness_findings(result)
    return builder


# --------------------------------------------------------------------------------------
# the section of a run's own report


def write_run_link(run_dir: str | os.PathLike, result: RobustnessResult, report: Mapping,
                   run_id: str | None = None):  # fmt: skip
    """Record the results for a run (``bnb robustness --run DIR``): ``DIR/robustness.json``
    holds the summary, where the full report is and the run's id (a run replaced in the
    folder later does not inherit them); the run's report then shows them."""
    from bnb_sim import jsonsafe
    from bnb_sim.safe_io import write_atomic

    data = {"report": str(Path(report["html"]).resolve()), "run_id": run_id,
            **robustness_summary(result)}  # fmt: skip
    try:
        write_atomic(Path(run_dir) / LINK_NAME, jsonsafe.dumps(data, indent=2) + "\n")
    except OSError as exc:
        raise BnbError(f"{run_dir}: cannot record the results ({exc.strerror or exc})") from None


def _run_id(run: Path) -> str | None:
    try:
        return json.loads((run / "run.json").read_text(encoding="utf-8")).get("run_id")
    except (OSError, ValueError, AttributeError):
        return None


def run_section(source: str | os.PathLike | None) -> Section | None:
    """ "How far these findings hold" for the report of run ``source``, when robustness
    results were recorded for it (``robustness.json``); None otherwise."""
    if source is None:
        return None
    path = Path(source) / LINK_NAME
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        verdicts = data["verdicts"]
    except (OSError, ValueError, KeyError, TypeError):
        sec = Section(SECTION_TITLE)
        sec.warning("Unreadable.", f"{path} could not be read; rerun `bnb robustness --run`.")
        return sec
    sec = Section(SECTION_TITLE)
    if data.get("run_id") != _run_id(Path(source)):
        sec.warning("Results of another run.", f"{path} was recorded for an earlier run in "
                    "this folder; rerun `bnb robustness --run` for this one.")  # fmt: skip
        return sec
    sec.text(
        f"These findings were re-measured with {', '.join(f'`{r}`' for r in data['rungs'])} "
        f"in every seat, {data['games_per_rung']:,} paired games per rung (`bnb robustness`; "
        f"full report: [{data['report']}]({Path(data['report']).as_uri()}))."
    )
    sec.table(
        pd.DataFrame({"finding": [v["label"] for v in verdicts],
                      "across the rungs": [v["text"] for v in verdicts]}),
        caption="Verdict per finding (simultaneous 95% intervals over the rung pairs)",
    )  # fmt: skip
    sec.summary["robustness"] = {"report": data["report"], "verdicts": {
        v["key"]: v["verdict"] for v in verdicts}}  # fmt: skip
    return sec
