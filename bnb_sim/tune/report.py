"""Terminal text, plots and the report (md + html + summary.json) of a tuning run.

Built on :class:`bnb_sim.analysis.report.ReportBuilder`, like every other report.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots, table_format
from bnb_sim.analysis.estimated import add_estimated_warning
from bnb_sim.analysis.figure_scope import renders_figures
from bnb_sim.analysis.report_builder import ReportBuilder, Section

__all__ = [
    "build_game_report",
    "build_policy_report",
    "convergence_figure",
    "format_game",
    "format_policy",
    "sensitivity_figure",
]


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _point_text(point: dict) -> str:
    return ", ".join(f"{k}={_fmt(v)}" for k, v in point.items())


def _score_ci(score: float, se: float, n: int | None = None) -> str:
    """A mean game score with its 95% interval; seeds that all scored the same give the
    interval valid for a constant sample (never a zero-width one)."""
    from bnb_sim.analysis.stats_intervals import constant_sample_interval

    if se is None or not math.isfinite(se):
        return f"{score:.3f} (no interval: one seed)"
    if se == 0 and n:
        lo, hi = constant_sample_interval(score, int(n), (0.0, 1.0))
        return f"{score:.3f} [{lo:.3f}, {hi:.3f}] (all {int(n):,} seeds equal)"
    return f"{score:.3f} ± {1.96 * se:.3f}"


# --------------------------------------------------------------------------------------
# policy


def _difference_text(comparison: dict) -> str:
    d = comparison["difference"]
    return f"{table_format.fmt_signed_pp(d['mean_diff'], d['lo'], d['hi'])} (95% CI, paired t)"


def _elo_text(elo: dict) -> str:
    def f(v):
        if v is None or not math.isfinite(v):
            return "n/a"
        return f"{v:+.1f}"

    return f"{f(elo['elo'])} [{f(elo['lo'])}, {f(elo['hi'])}]"


PAIR_SCORE_NOTE = (
    "the Elo of the per-seed pair score (1 + d)/2 against the field, d the difference of mean "
    "game scores; not comparable with head-to-head or tournament Elo"
)


def _rate_text(rate: dict) -> str:
    return (
        f"{table_format.fmt_rate(rate['rate'], rate['lo'], rate['hi'])} n={int(rate['n']):,} games"
    )


def _team(result: dict) -> bool:
    """A cooperative game's tuning: the score is the team's result (no field, no Elo)."""
    return result.get("outcome") == "team"


def policy_rows(result: dict) -> list[tuple[str, str]]:
    c = result["comparison"]
    if _team(result):
        return _team_rows(result)
    return [
        ("verdict", c["verdict"]),
        ("difference tuned − start", f"{_difference_text(c)} in mean game score"),
        ("pair-score Elo tuned − start", f"{_elo_text(c['elo'])} ({PAIR_SCORE_NOTE})"),
        *([(_sprt_label(c["sprt"]), c["sprt"]["verdict"])] if c.get("sprt") else []),
        ("win rate tuned", _rate_text(c["tuned"]["win_rate"])),
        ("win rate start", _rate_text(c["start"]["win_rate"])),
        ("final comparison", f"{c['seeds']:,} fresh seeds, {c['games']:,} games"),
        ("tuned", _point_text(result["tuned"])),
        *([("tuned spec", result["spec"])] if result["family"] in ("mc", "ismcts", "bot") else []),
        ("start", _point_text(result["start"])),
        ("field", _field_text(result)),
        ("readings", readings_text(result)),
        ("games played", f"{result['games']:,} of a budget of {result['budget']:,}"),
    ]


def _team_rows(result: dict) -> list[tuple[str, str]]:
    c = result["comparison"]
    return [
        ("verdict", c["verdict"]),
        ("difference tuned − start", f"{_difference_text(c)} in team win rate"),
        ("team win rate tuned", _rate_text(c["tuned"]["win_rate"])),
        ("team win rate start", _rate_text(c["start"]["win_rate"])),
        ("final comparison", f"{c['games']:,} games on {c['seeds']:,} fresh game indices"),
        ("tuned", _point_text(result["tuned"])),
        ("start", _point_text(result["start"])),
        ("team", _field_text(result)),
        ("readings", readings_text(result)),
        ("games played", f"{result['games']:,} of a budget of {result['budget']:,}"),
    ]


def readings_text(result: dict) -> str:
    """Every rule reading the tuning played under (``bnb readings``); "none" for a game
    without rule readings."""
    from bnb_sim.analysis.report_provenance import readings_text as run_readings

    return run_readings(result) or "none"


def _sprt_label(sprt: dict) -> str:
    return f"SPRT [{sprt['elo0']:g}, {sprt['elo1']:g}]"


def _field_text(result: dict) -> str:
    if not result["lineups"]:  # a cooperative game: the candidate is the whole team
        return (
            f"{result['players']} players, the tuned policy in every seat; every candidate "
            "on the same game indices"
        )
    lineups = "; ".join(", ".join(x) for x in result["lineups"])
    return (
        f"{result['players']} players against {lineups} "
        f"({len(result['lineups'])} lineup(s), every seating on every seed)"
    )


def format_policy(result: dict, out=None) -> str:
    rows = policy_rows(result)
    width = max(len(k) for k, _ in rows)
    lines = [f"tune policy {result['policy']}"]
    lines += [f"  {k.ljust(width)}  {v}" for k, v in rows]
    if out is not None:
        lines.append(f"  {'weights'.ljust(width)}  {out}")
    return "\n".join(lines)


def convergence_figure(result: dict):
    """Best and median candidate score per generation, the final estimates, the CMA-ES mean."""
    gens = result["search"]["generations"]
    space = result["space"]["params"]
    x = np.arange(1, len(gens) + 1)
    fig, axes = plots.new_figure(6.0, nrows=2, ncols=1, sharex=True)
    ax = axes[0, 0]
    best = np.array([g["best_score"] for g in gens], dtype=float)
    best_se = np.array([g["best_se"] or 0.0 for g in gens], dtype=float)
    ax.errorbar(
        x,
        best,
        yerr=1.96 * best_se,
        fmt="o-",
        ms=3,
        lw=1,
        capsize=2,
        label="best candidate (95% CI)",
    )
    ax.plot(x, [g["median_score"] for g in gens], "s--", ms=3, lw=1, label="median candidate")
    comp = result["comparison"]
    ax.axhline(
        comp["tuned"]["score"], color="tab:green", lw=1.5, label="tuned, fresh seeds (final)"
    )
    ax.axhline(
        comp["start"]["score"], color="tab:red", lw=1.5, ls=":", label="start, fresh seeds (final)"
    )
    plots._style(ax, "Search: score per generation", None, "mean game score")
    ax.legend(loc="best")
    ax = axes[1, 0]
    for p in space:
        lo, hi = p["lo"], p["hi"]
        ax.plot(
            x,
            [(g["mean_point"][p["name"]] - lo) / (hi - lo) for g in gens],
            lw=1.2,
            label=p["name"],
        )
    ax.set_ylim(-0.02, 1.02)
    plots._style(ax, "CMA-ES mean per generation", "generation", "share of the range")
    ax.legend(loc="best", ncol=3, fontsize=8)
    return fig


@renders_figures()
def build_policy_report(result: dict, command: str | None = None) -> ReportBuilder:
    builder = ReportBuilder(
        f"bnb-sim tuning: {result['policy']}",
        f"{result['games']:,} games · budget {result['budget']:,} · seed {result['seed']}",
    )
    answer = builder.add(Section("Answer"))
    if _team(result):
        answer.text(
            "The tuned parameters against the start on fresh games that no stage of the "
            "search has seen: both teams play the same game indices (the same tiles, mobs, "
            "draws and dice), and the per-game difference of their results (won 1, lost 0) "
            "gives the interval of the difference in team win rate. Positive values favour "
            "the tuned parameters."
        )
    else:
        answer.text(
            "The tuned parameters against the start on fresh seeds that no stage of the "
            "search has seen: both play the same seeds in every seating against the same "
            "field, and the per-seed difference of their mean game score (a win 1, a shared "
            "win 1/k, a loss 0) gives the interval. Positive values favour the tuned "
            "parameters."
        )
    answer.table(pd.DataFrame(policy_rows(result), columns=["", "value"]))
    add_estimated_warning(answer, result.get("estimated"))
    if command:
        answer.text(f"Command: `{command}`")
    weights = pd.DataFrame(
        [
            {
                "parameter": p["name"],
                "range": f"{p['lo']:g} .. {p['hi']:g}",
                "start": _fmt(result["start"][p["name"]]),
                "tuned": _fmt(result["tuned"][p["name"]]),
            }
            for p in result["space"]["params"]
        ]
    )
    answer.table(weights, caption="Tuned parameters (the others keep their start values)")
    reeval = builder.add(Section("Re-evaluation of the finalists"))
    reeval.text(
        "The best search candidates and the final CMA-ES mean, replayed on fresh seeds (the "
        "same seeds for all of them) with a larger sample; the best of them is the answer. "
        "Scores: mean game score ± 95% half-width."
    )
    reeval.table(
        pd.DataFrame(
            [
                {
                    "": "answer" if i == result["winner"] else "",
                    "finalist": r["origin"],
                    "score": _score_ci(r["score"], r["se"], r.get("n")),
                    "seeds": f"{r['n']:,}",
                    "parameters": _point_text(r["point"]),
                }
                for i, r in enumerate(result["reeval"])
            ]
        )
    )
    search = builder.add(Section("Search"))
    g = result["search"]["generations"]
    search.text(
        f"CMA-ES over {len(result['space']['params'])} parameter(s): {len(g)} generations of "
        f"{len(g[0]['candidates']) if g else 0} candidates, every candidate of a generation on "
        "the same seeds. The search scores of the best candidates are optimistic (the best of "
        "many noisy estimates); the lines are the final, unbiased estimates."
    )
    search.figure("tune-convergence", convergence_figure(result), "Convergence of the search")
    search.table(_budget_table(result), caption="Games per stage")
    builder.summary.update(result)
    return builder


def _budget_table(result: dict) -> pd.DataFrame:
    """Games per stage: planned from the budget, and played (what the ledger holds, the
    number the report's header gives) when the result records it."""
    planned = result["planned_games"]
    played = result.get("played_games")
    rows = []
    for stage, games in planned.items():
        row = {"stage": stage, "planned": f"{games:,}"}
        if played is not None:
            row["played"] = f"{int(played.get(stage, 0)):,}"
        rows.append(row)
    total = {"stage": "total", "planned": f"{sum(planned.values()):,}"}
    if played is not None:
        total["played"] = f"{int(sum(played.values())):,}"
    rows.append(total)
    if played is None:
        rows.append({"stage": "budget", "planned": f"{result['budget']:,}"})
    return pd.DataFrame(rows)


BUDGET_CAPTION = (
    "Games per stage: planned from the budget, and played. Fewer are played than planned "
    "when the search has fewer settings to re-evaluate than --top, or when the answer is "
    "the baseline (its confirmation is played once); the header counts the games played."
)


# --------------------------------------------------------------------------------------
# game


def _target_text(t: dict) -> str:
    name = f"{t['name']}:{t['arg']}" if t.get("arg") else t["name"]
    goal = t["goal"] if isinstance(t["goal"], str) else f"= {t['goal']:g}"
    return f"{name} {goal}" + (f" (weight {t['weight']:g})" if t["weight"] != 1 else "")


def _finite(x) -> float:
    """A number from tune.json (where NaN is stored as null) as a float, NaN for null."""
    return math.nan if x is None else float(x)


def _estimate_text(key: str, e: dict) -> str:
    v, lo, hi = _finite(e.get("value")), _finite(e.get("lo")), _finite(e.get("hi"))
    if key == "game_length":
        return table_format.fmt_mean(v, lo, hi, 1) + (" turns" if math.isfinite(v) else "")
    if key == "first_player_advantage":
        return table_format.fmt_signed_pp(v, lo, hi)
    return table_format.fmt_rate(v, lo, hi)


def _target_keys(result: dict) -> list[str]:
    return [f"{t['name']}:{t['arg']}" if t.get("arg") else t["name"] for t in result["targets"]]


def _delta_text(key: str, d: dict) -> str:
    """A paired difference from the baseline: pp for rates, turns for game length."""
    mean, lo, hi = _finite(d.get("mean_diff")), _finite(d.get("lo")), _finite(d.get("hi"))
    note = d.get("note")
    if key == "game_length":
        if not math.isfinite(mean):
            return "n/a"
        if not (math.isfinite(lo) and math.isfinite(hi)):
            return f"{mean:+.2f} turns ({table_format.no_interval_text(note)})"
        return f"{mean:+.2f} [{lo:+.2f}, {hi:+.2f}] turns"
    return table_format.fmt_signed_pp(mean, lo, hi, note=note)


def reeval_table(result: dict) -> pd.DataFrame:
    """The finalists on the re-evaluation's games (where the answer was chosen)."""
    keys = _target_keys(result)
    rows = []
    for i, r in enumerate(result["reeval"]):
        row = {"": "answer" if i == result["winner"] else "", "setting": r["origin"]}
        row["values"] = _point_text(r["point"])
        for key in keys:
            row[key] = _estimate_text(key.partition(":")[0], r["targets"][key])
        row["score"] = f"{r['score']:.2f}"
        rows.append(row)
    return pd.DataFrame(rows)


def final_table(result: dict) -> pd.DataFrame:
    """The answer and the baseline on the confirmation's fresh games, with the paired
    difference of each target that is a mean over games."""
    final = result["final"]
    rows = []
    for side in ("answer", "baseline"):
        row = {"": side}
        for key in _target_keys(result):
            row[key] = _estimate_text(key.partition(":")[0], final[side]["targets"][key])
        row["score"] = f"{final[side]['score']:.2f}"
        rows.append(row)
    if final["vs_baseline"]:
        row = {"": "answer − baseline (paired)"}
        for key in _target_keys(result):
            d = final["vs_baseline"].get(key)
            row[key] = _delta_text(key, d) if d is not None else "–"
        row["score"] = ""
        rows.append(row)
    return pd.DataFrame(rows)


def answer_claim(result: dict) -> str:
    """The answer in words: "best" only when its score is ahead of every other finalist."""
    from bnb_sim.analysis.leaders import Leader

    data = result.get("leader")
    if not data or not data.get("gaps"):
        return "the highest score of the re-evaluation"
    lead = Leader.from_dict(data)
    gap = f"score gap to the runner-up {lead.gap.text()}"
    if lead.separated:
        return f"the best setting: its score is ahead of every other finalist ({gap})"
    n = len(lead.tied)
    return (f"the highest score, but no detectable difference: tied with {n} other "
            f"finalist{'s' if n > 1 else ''} ({gap})")  # fmt: skip


def _target_line(key: str, r: dict, vs: dict | None = None) -> str:
    text = f"{key} {_estimate_text(key.partition(':')[0], r['targets'][key])}"
    if vs and key in vs:
        text += f" (Δ vs baseline {_delta_text(key, vs[key])})"
    return text


def format_game(result: dict, override=None) -> str:
    keys = _target_keys(result)
    best = result["reeval"][result["winner"]]
    lines = [
        f"tune game: {len(result['space']['params'])} parameter(s), "
        f"{', '.join(_target_text(t) for t in result['targets'])}",
        f"  method   {result['method']}, {result['games']:,} games of a budget of "
        f"{result['budget']:,}",
        f"  answer   {_point_text(best['point'])}: {answer_claim(result)}",
        f"  readings {readings_text(result)}",
        "  re-evaluation (the games that chose the answer):",
    ]
    for r in result["reeval"]:
        mark = "*" if r is best else " "
        est = "; ".join(_target_line(k, r) for k in keys)
        lines.append(
            f"  {mark} {r['origin']:<8} {_point_text(r['point'])}: {est} "
            f"(score {r['score']:.2f}, {r['games']:,} games)"
        )
    final = result["final"]
    what = "the answer is the baseline" if final["answer_is_baseline"] else "answer vs baseline"
    lines.append(f"  confirmation on {final['games']:,} fresh games each ({what}):")
    est = "; ".join(_target_line(k, final["answer"], final["vs_baseline"]) for k in keys)
    lines.append(f"    answer   {est} (score {final['answer']['score']:.2f})")
    if not final["answer_is_baseline"]:
        est = "; ".join(_target_line(k, final["baseline"]) for k in keys)
        lines.append(f"    baseline {est} (score {final['baseline']['score']:.2f})")
    if override is not None:
        lines.append(f"  components  {override}")
    return "\n".join(lines)


#: How a target is plotted: (scale, axis label, least y-span shown in plotted units). The
#: least span keeps a flat panel flat: a 0.01 pp wobble is not drawn as a steep line.
SENSITIVITY_UNITS = {
    "first_player_advantage": (100.0, "first-player advantage (pp)", 4.0),
    "balance": (100.0, "balance (%, 100 = equal seats)", 4.0),
    "xp_share": (100.0, "share of XP (%)", 4.0),
    "win_rate": (100.0, "win rate (%)", 4.0),
    "game_length": (1.0, "game length (turns)", 2.0),
    "score": (1.0, "score (−loss, pp)", 4.0),
}
SENSITIVITY_TITLE = "Sensitivity: each target by parameter value (search evaluations, 95% CI)"


def steady_limits(low: np.ndarray, high: np.ndarray, least_span: float) -> tuple[float, float]:
    """y-limits that show every error bar (``low``..``high``) with a margin and span at
    least ``least_span``, centred on the data, so noise is not magnified."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    ok = np.isfinite(low) & np.isfinite(high)
    if not ok.any():
        return -least_span / 2, least_span / 2
    lo, hi = float(low[ok].min()), float(high[ok].max())
    span = max(least_span, 1.1 * (hi - lo))
    mid = (lo + hi) / 2
    return mid - span / 2, mid + span / 2


def sensitivity_figure(result: dict):
    """Mean of each target (rows) per value of each parameter (columns) in percentage points
    (turns for game length), 95% error bars, and a y-span of at least a few points."""
    import textwrap

    df = pd.DataFrame(result["sensitivity"])
    params = [p["name"] for p in result["space"]["params"]]
    keys = _target_keys(result) + ["score"]
    width = max(5.5, 3.2 * len(params))
    fig, axes = plots.new_figure(
        2.2 * len(keys) + 0.8, width=width, nrows=len(keys), ncols=len(params)
    )
    for j, param in enumerate(params):
        for i, key in enumerate(keys):
            ax = axes[i, j]
            scale, label, least = SENSITIVITY_UNITS[key.partition(":")[0]]
            rows = df[(df["param"] == param) & (df["target"] == key)] if len(df) else df
            if len(rows):
                labels = [str(v) for v in rows["value"]]
                mean = rows["mean"].to_numpy(dtype=float) * scale
                half = 1.96 * rows["se"].to_numpy(dtype=float) * scale
                ax.errorbar(range(len(labels)), mean, yerr=np.nan_to_num(half), fmt="o-", ms=4,
                            capsize=3)  # fmt: skip
                ax.set_xticks(range(len(labels)), labels, rotation=30 if len(labels) > 8 else 0)
                half = np.where(np.isfinite(half), half, 0.0)
                ax.set_ylim(*steady_limits(mean - half, mean + half, least))
            title = f"{key}" if j == 0 else ""
            plots._style(
                ax, title, param if i == len(keys) - 1 else None, label if j == 0 else None
            )
    # wrapped to the figure's width: one line of 11 pt text holds about 11 characters an inch
    fig.suptitle(textwrap.fill(SENSITIVITY_TITLE, int(width * 11)), fontsize=11)
    return fig


def game_findings(result: dict) -> list:
    """Key findings: the answer in words ("best" only when separated, else "no detectable
    difference") and its targets on the confirmation's fresh games, with Δ vs baseline."""
    from bnb_sim.analysis.report_builder import Finding

    best = result["reeval"][result["winner"]]
    final = result["final"]
    found = [Finding(f"Answer: **{_point_text(best['point'])}**, {answer_claim(result)}.",
                     {"kind": "tune_answer", "point": best["point"],
                      "separated": bool((result.get("leader") or {}).get("best"))})]  # fmt: skip
    keys = _target_keys(result)
    if final["answer_is_baseline"]:
        est = "; ".join(_target_line(k, final["answer"]) for k in keys)
        text = f"It is the component file's own value; on {final['games']:,} fresh games: {est}."
    else:
        est = "; ".join(_target_line(k, final["answer"], final["vs_baseline"]) for k in keys)
        text = f"On {final['games']:,} fresh games each, the answer: {est}."
    found.append(Finding(text, {"kind": "tune_confirmation", "games": final["games"]}))
    return found


@renders_figures()
def build_game_report(result: dict, override=None, command: str | None = None) -> ReportBuilder:
    builder = ReportBuilder(
        "bnb-sim tuning: component values",
        f"{result['games']:,} games played · budget {result['budget']:,} · "
        f"seed {result['seed']} · "
        f"{result['players']} players: {', '.join(result['policies'])}",
    )
    answer = builder.add(Section("Answer"))
    answer.text(
        "Targets: " + "; ".join(_target_text(t) for t in result["targets"]) + ". The score "
        "combines them as −Σ weight · loss (percentage points for rates and shares, turns for "
        "game length; higher is better). The answer and the component file's own values "
        f"(baseline) were replayed on {result['final']['games']:,} fresh games each that no "
        "stage of the choice has seen: these are the estimates to quote. Δ: the paired "
        "difference from the baseline on those games (Student t on the per-game "
        "differences), for the targets that are means over games."
    )
    builder.findings += game_findings(result)
    answer.table(final_table(result), caption="The answer on fresh games")
    add_estimated_warning(answer, result.get("estimated"))
    answer.text(
        "The answer was chosen as the highest score among the best settings of the search "
        "and the baseline, replayed on the same games (the re-evaluation, below); its "
        "estimates there lean its way (the best of several noisy scores). Answer: "
        f"{answer_claim(result)} (the score gap has a paired bootstrap interval over those "
        "games; best only when it excludes 0 for every other setting)."
    )
    answer.table(reeval_table(result), caption="Re-evaluation: the games that chose the answer")
    answer.text(f"Rule readings: {readings_text(result)}.")
    if override is not None:
        answer.text(f"Component override with the answer: `{override}` (use `--components`).")
    if command:
        answer.text(f"Command: `{command}`")
    sens = builder.add(Section("Sensitivity"))
    sens.text(
        "How each target moves with each parameter: the mean over the search's evaluations "
        "that had that value (the other parameters vary), in percentage points (turns for "
        "game length), with 95% error bars: over those evaluations when there are several, "
        "else the one evaluation's own interval over its games (for the score, a bound "
        "summing its targets' errors). Each y-axis spans at least 4 pp (2 turns), so a "
        "panel flat within its noise looks flat."
    )
    sens.figure("tune-sensitivity", sensitivity_figure(result), "Sensitivity of the targets")
    search = builder.add(Section("Search"))
    search.text(
        f"Method: {result['method']} ({len(result['search'])} evaluations). Ranking by the "
        "model's estimate (NTBEA) or the grid's score:"
    )
    search.table(
        pd.DataFrame(
            [
                {
                    "setting": _point_text(r["point"]),
                    "estimate": f"{r['estimate']:.2f}",
                    "evaluations": r["evaluations"],
                }
                for r in result["ranking"]
            ]
        )
    )
    search.table(_budget_table(result), caption=f"{BUDGET_CAPTION} Budget {result['budget']:,}.")
    builder.summary.update(result)
    return builder
