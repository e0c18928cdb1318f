"""The report of ``bnb sensitivity``: the answer first (which estimates move the finding most,
and whether it hinges on one), then the ranked table, the tornado plot and the screening.

:func:`build_sensitivity_report` returns a :class:`~bnb_sim.analysis.report.ReportBuilder`;
:func:`format_sensitivity` is the terminal text; :func:`sensitivity_summary` the numbers of
``summary.json`` and ``--json``; :func:`sensitivity_findings` the key findings (also used by
an experiment file's ``[[sensitivity]]`` item).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots
from bnb_sim.analysis.figure_scope import renders_figures
from bnb_sim.analysis.report_builder import Finding, ReportBuilder, Section
from bnb_sim.analysis.sensitivity import SensitivityResult
from bnb_sim.analysis.stats_intervals import num_digits, pct_digits

__all__ = [
    "build_sensitivity_report",
    "format_sensitivity",
    "sensitivity_findings",
    "sensitivity_sections",
    "sensitivity_summary",
    "tornado_plot",
]


def _digits(result: SensitivityResult, lo, hi) -> int:
    return pct_digits(lo, hi, 2) if result.finding.rate else num_digits(lo, hi, 1, 3)


def _value(result: SensitivityResult, x: float, d: int, signed: bool = False) -> str:
    if not math.isfinite(x):
        return "n/a"
    if result.finding.rate:  # a difference in points, a rate in percent
        return f"{100 * x:+.{d}f} pp" if signed else f"{100 * x:.{d}f}%"
    return f"{x:+.{d}f}" if signed else f"{x:.{d}f}"


def _interval(result: SensitivityResult, x, lo, hi, d: int, signed: bool, note: str = "") -> str:
    head = _value(result, x, d, signed)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{head} ({note or 'no interval'})"
    scale = 100 if result.finding.rate else 1
    sign = "+" if signed else ""
    return f"{head} [{scale * lo:{sign}.{d}f}, {scale * hi:{sign}.{d}f}]"


def baseline_text(result: SensitivityResult) -> str:
    b = result.baseline
    d = _digits(result, b["lo"], b["hi"])
    return _interval(result, b["value"], b["lo"], b["hi"], d, _signed(result))


def _signed(result: SensitivityResult) -> bool:
    """The finding itself is a difference (shown signed, in pp) rather than a rate."""
    return result.finding.name == "first_player_advantage"


def _effect_text(result: SensitivityResult, row, d: int | None = None) -> str:
    d = _digits(result, row["lo"], row["hi"]) if d is None else d
    return _interval(result, row["effect"], row["lo"], row["hi"], d, True, row.get("note", ""))


def sensitivity_findings(result: SensitivityResult, prefix: str = "") -> list[Finding]:
    """The answer: the estimate that moves the finding most (with interval and n) and one
    finding per estimate the finding hinges on."""
    f = result.finding.label
    found = []
    if len(result.ranking):
        top = result.ranking.iloc[0]
        row = result.final[
            (result.final["key"] == top["key"]) & (result.final["value"] == top["at"])
        ]
        row = row.iloc[0]
        found.append(
            Finding(
                f"{prefix}**{f}** moves most under the estimate **{top['key']}**: "
                f"{_effect_text(result, row)} at {top['at']} (shipped {top['shipped']}; range "
                f"{top['range']}), against {baseline_text(result)} as shipped "
                f"(n = {int(row['n']):,} paired fresh games).",
                {"kind": "largest_sensitivity", "finding": f, "key": top["key"],
                 "value": top["at"], "effect": row["effect"], "lo": row["lo"],
                 "hi": row["hi"], "n": int(row["n"])},
            )
        )  # fmt: skip
    for key, part in result.hinges.groupby("key", sort=False):
        ends = "; ".join(f"{r['value']}: {_effect_text(result, r)}" for _, r in part.iterrows())
        found.append(
            Finding(
                f"{prefix}{f} hinges on the estimate {key}: moving it within its range moves "
                f"the finding by more than its own interval (±{_half(result)}): {ends}.",
                {"kind": "hinges_on_estimate", "finding": f, "key": key,
                 "values": part["value"].tolist(), "effects": part["effect"].tolist()},
            )
        )  # fmt: skip
    if not found:
        found.append(Finding(f"{prefix}No estimate moved {f} on the screening games."))
    return found


def _half(result: SensitivityResult) -> str:
    h = result.half_width
    if not math.isfinite(h):
        return "n/a"
    return f"{100 * h:.2f} pp" if result.finding.rate else f"{h:.3g}"


def ranking_table(result: SensitivityResult) -> pd.DataFrame:
    """The ranked table: estimate, range and reason, the finding at each value tried, the
    paired effect with its interval, n."""
    rows = []
    final = result.final
    d = _digits(result, final["lo"], final["hi"]) if len(final) else 1
    hinge = set(result.hinges["key"])
    for i, top in result.ranking.iterrows():
        part = final[final["key"] == top["key"]]
        for j, (_, r) in enumerate(part.iterrows()):
            fd = _digits(result, r["finding_lo"], r["finding_hi"])
            rows.append({
                "rank": str(i + 1) if j == 0 else "",
                "estimate": top["key"] + (" (hinges)" if top["key"] in hinge and j == 0 else "")
                if j == 0 else "",
                "shipped": r["shipped"] if j == 0 else "",
                "range": r["range"] if j == 0 else "",
                "moved to": r["value"],
                f"{result.finding.label} there": _interval(
                    result, r["finding"], r["finding_lo"], r["finding_hi"], fd,
                    _signed(result)),
                "effect vs shipped [95% CI]": _effect_text(result, r, d),
                "n": f"{int(r['n']):,}",
                "reason for the range": r["reason"] if j == 0 else "",
            })  # fmt: skip
    return pd.DataFrame(rows)


def screen_table(result: SensitivityResult, limit: int = 25) -> pd.DataFrame:
    """The screening, by reach: the first ``limit`` estimates' largest screening effect."""
    s = result.screen
    if s.empty:
        return pd.DataFrame()
    rows = []
    for key, part in s.groupby("key", sort=False):
        best = part.loc[part["effect"].abs().idxmax()]
        rows.append((int(best["screen_rank"]), key, bool(best["selected"]), best))
    rows.sort(key=lambda r: r[0])
    d = _digits(result, s["lo"], s["hi"])
    return pd.DataFrame(
        [{"screen rank": str(rank), "estimate": key, "range": b["range"],
          "largest screening effect": f"{_effect_text(result, b, d)} at {b['value']}",
          "n": f"{int(b['n']):,}", "chosen for fresh games": "yes" if sel else "no"}
         for rank, key, sel, b in rows[:limit]]
    )  # fmt: skip


def tornado_plot(result: SensitivityResult):
    """One bar per confirmed estimate from its lowest to its highest effect (the ends of its
    range, or its choices), with each value's 95% interval as a whisker; largest on top."""
    r = result.ranking.iloc[::-1]
    fig, axes = plots.new_figure(1.0 + 0.45 * max(len(r), 1), width=9.0)
    ax = axes[0, 0]
    scale = 100.0 if result.finding.rate else 1.0
    y = np.arange(len(r))
    for yi, (_, top) in zip(y, r.iterrows(), strict=True):
        part = result.final[result.final["key"] == top["key"]]
        for _, row in part.iterrows():
            e = scale * row["effect"]
            color = "#c0392b" if e < 0 else "#2471a3"
            ax.barh(yi, e, color=color, alpha=0.55, height=0.6)
            if math.isfinite(row["lo"]):
                ax.plot([scale * row["lo"], scale * row["hi"]], [yi, yi], color="#222222",
                        linewidth=1.2)  # fmt: skip
            ax.annotate(str(row["value"]), (e, yi), xytext=(3 if e >= 0 else -3, 6),
                        textcoords="offset points", ha="left" if e >= 0 else "right",
                        fontsize=8)  # fmt: skip
    h = scale * result.half_width
    if math.isfinite(h):
        ax.axvspan(-h, h, color="#888888", alpha=0.15, label="the finding's own 95% interval")
        ax.legend(loc="lower right", frameon=False, fontsize=8)
    ax.axvline(0.0, color="#444444", linewidth=1)
    ax.set_yticks(y, list(r["key"]))
    unit = " (pp)" if result.finding.rate else ""
    title = f"What moves {result.finding.label}"
    plots._style(ax, title, f"effect vs the shipped values{unit}")
    return fig


def sensitivity_sections(result: SensitivityResult, name: str | None = None) -> list[Section]:
    f = result.finding
    head = Section(name or f"Sensitivity of {f.label}", anchor="sensitivity")
    head.text(
        f"{result.game}, {result.setup}. Finding: **{f.label}** ({f.description}); as shipped "
        f"{baseline_text(result)} on {result.games:,} fresh games. Each estimated component "
        f"value was moved alone to each end of its plausible range (or each other choice) on "
        f"the same game indices as the shipped values (paired seeds)."
    )
    head.text(
        f"**Two stages.** Screening: all {result.estimates} estimates with a range, "
        f"{result.screen_games:,} games per value; the {len(result.ranking)} with the largest "
        f"reach (the far end of their screening interval) were chosen. Final: those were "
        f"played again on {result.games:,} fresh games (indices {result.screen_games:,} and "
        f"up), so their effects and intervals below are not biased by the choice. Intervals: "
        f"95%, Student t on the per-game paired differences, each on its own (not adjusted "
        f"for the {len(result.final)} values shown)."
    )
    if f.name == "balance":
        head.text("Balance is a maximum over seats: its effects are linearised at each arm's "
                  "highest and lowest seat, valid away from ties between seats.")  # fmt: skip
    head.table(ranking_table(result), "Ranked by the largest effect of any value tried")
    if len(result.ranking):
        head.figure(
            "tornado",
            tornado_plot(result),
            f"Tornado plot: the effect on {f.label} of each chosen estimate at each value "
            "tried, with 95% intervals; the grey band is the finding's own interval.",
        )
    screen = Section("Screening (all estimates)", anchor="screening")
    screen.text(
        f"Every estimate's largest effect on the {result.screen_games:,} screening games, by "
        "reach. The numbers of the chosen ones are biased upwards by the choice; read the "
        "final table for their size. An estimate under which no game changed has no effect on "
        "these games."
    )
    screen.table(screen_table(result))
    skipped = result.params.get("skipped") or []
    if skipped:
        screen.warning("Values not tried.", "The component checks refused these values:",
                       [f"{s['key']} = {s['value']}: {s['why']}" for s in skipped])  # fmt: skip
    if result.fixed:
        screen.text(f"{len(result.fixed)} estimates have no range to move (fixed or none "
                    "given): " + ", ".join(result.fixed[:20]) + (" …" if len(result.fixed) > 20
                    else ""))  # fmt: skip
    head.summary.update(sensitivity_summary(result))
    return [head, screen]


def _records(df: pd.DataFrame) -> list[dict]:
    return df.to_dict(orient="records") if len(df) else []


def sensitivity_summary(result: SensitivityResult) -> dict[str, Any]:
    return {
        "kind": "sensitivity",
        "finding": result.finding.label,
        "game": result.game,
        "setup": result.setup,
        "baseline": result.baseline,
        "screen_baseline": result.screen_baseline,
        "half_width": result.half_width,
        "ranking": _records(result.ranking),
        "final": _records(result.final),
        "screen": _records(result.screen),
        "hinges": sorted(set(result.hinges["key"])),
        "screen_games": result.screen_games,
        "games": result.games,
        "top": result.top,
        "estimates": result.estimates,
        "games_played": result.games_played,
        "seconds": round(result.seconds, 1),
        "params": result.params,
    }


@renders_figures()
def build_sensitivity_report(result: SensitivityResult, title: str | None = None) -> ReportBuilder:
    builder = ReportBuilder(
        title or f"bnb-sim sensitivity: {result.finding.label}",
        f"{result.game} · {result.setup} · {result.estimates} estimates screened · "
        f"{result.games_played:,} games · seed {result.seed}",
    )
    for section in sensitivity_sections(result):
        builder.add(section)
    builder.summary.update(sensitivity_summary(result))
    builder.findings += sensitivity_findings(result)
    return builder


def format_sensitivity(result: SensitivityResult) -> str:
    """The terminal answer: key findings, then the ranked table."""
    lines = [f"{result.finding.label} as shipped: {baseline_text(result)} "
             f"({result.setup}; n = {result.games:,} fresh games)"]  # fmt: skip
    lines += ["- " + f.text.replace("**", "") for f in sensitivity_findings(result)]
    table = ranking_table(result).drop(columns=["reason for the range"], errors="ignore")
    if len(table):
        lines += ["", table.to_string(index=False)]
    lines.append(
        f"\n{result.estimates} estimates screened on {result.screen_games:,} games each; "
        f"{len(result.ranking)} confirmed on {result.games:,} fresh games; "
        f"{result.games_played:,} games in {result.seconds:.0f} s."
    )
    return "\n".join(lines)
