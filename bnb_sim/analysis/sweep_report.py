"""What a balance sweep's report shows: its sections (win-rate and XP effects against the
baseline, fairness), its JSON summary, its plain-text table (:func:`format_sweep`) and its
findings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots, tables
from bnb_sim.analysis.estimated import add_estimated_warning
from bnb_sim.analysis.figure_scope import renders_figures
from bnb_sim.analysis.report import ReportBuilder, Section, readings_text
from bnb_sim.analysis.stats import pct_digits
from bnb_sim.analysis.sweep_analysis import SweepResult
from bnb_sim.analysis.sweep_fairness import (
    fairness_findings,
    fairness_lines,
    fairness_section,
    fairness_summary,
    is_mirror,
    mirror_text,
)
from bnb_sim.analysis.sweep_plots import _short, effect_plot
from bnb_sim.analysis.sweep_variants import _fmt_value


def _paths(result: SweepResult) -> list[str]:
    return list(dict.fromkeys(p for v in result.variants for p in v.changes))


def _digits(df: pd.DataFrame) -> int:
    """One number of decimals for a whole table of rates or differences (stats.pct_digits)."""
    return pct_digits(df["lo"].to_numpy(float), df["hi"].to_numpy(float))


def _effect_cell(row, percent: bool, digits: int | None = None) -> str:
    note = row.get("note", "") if hasattr(row, "get") else ""
    note = note if isinstance(note, str) else ""
    if percent:
        text = tables.fmt_signed_pp(row["mean_diff"], row["lo"], row["hi"], digits, note)
        if note == "all differences equal" and math.isfinite(row["lo"]):
            text += f" (no seed changed, n={int(row['n']):,})"
        return text
    if not math.isfinite(row["mean_diff"]):
        return "n/a"
    if not (math.isfinite(row["lo"]) and math.isfinite(row["hi"])):
        return f"{tables._num(row['mean_diff'], 2, True)} ({tables.no_interval_text(note)})"
    return (
        f"{tables._num(row['mean_diff'], 2, True)} [{tables._num(row['lo'], 2, True)}, "
        f"{tables._num(row['hi'], 2, True)}]"
    )


def _wide(df: pd.DataFrame, cells: list[str], columns: str, index: Sequence[str], order):
    wide = df.assign(cell=cells).pivot(index="variant", columns=columns, values="cell")
    wide = wide.reindex(index=list(index), columns=[c for c in order if c in wide.columns])
    return wide.fillna("–").rename_axis("variant").reset_index()


def sweep_sections(result: SweepResult, name: str | None = None) -> list[Section]:
    """Report sections: fairness per variant first (:mod:`~bnb_sim.analysis.sweep_fairness`),
    then the design, win-rate effects (table + plot; one sentence in a mirror match, where
    they are fixed by construction), XP effects, fights, length."""
    name = name if name is not None else result.name
    pre = f"{name}: " if name else ""
    slug = (name or "sweep").lower()
    paths = _paths(result)
    names = [v.name for v in result.variants]
    others = [v.name for v in result.variants if not v.baseline]
    base_name = next(v.name for v in result.variants if v.baseline)

    setup = Section(f"{pre}Sweep design" if name else "Sweep design")
    setup.text(
        f"{len(others)} variant{'s' if len(others) != 1 else ''} of "
        f"{', '.join(f'`{p}`' for p in paths)} ({result.mode}) against the baseline (the "
        f"component file's values), each on the same {result.games:,} seeds (game indices 0.."
        f"{result.games - 1}): {result.players} players, policies "
        f"{', '.join(result.policies)}, seating rotating with the game index. Effects are paired "
        "differences per seed against the baseline with 95% Student t intervals; win rates "
        "carry 95% Wilson intervals."
    )
    setup.text(f"Rule readings: {readings_text(result.params) or 'none'}.")
    setup.table(
        pd.DataFrame(
            {
                "variant": names,
                "changed values": [
                    "–"
                    if v.baseline
                    else ", ".join(f"`{p}` = {_fmt_value(x)}" for p, x in v.changes.items())
                    for v in result.variants
                ],
                "games": [f"{result.games:,}"] * len(names),
            }
        )
    )
    setup.text(
        "The swept values are this sweep's settings (house rules under test), not estimates; "
        "the baseline keeps the component file's values and provenance."
    )

    wins = Section(f"{pre}Effect on win rates")
    if is_mirror(result.policies):  # a one-policy table: the rate is fixed by construction
        wins.text(mirror_text(result))
    else:
        _win_blocks(wins, result, names, others, paths, pre, slug, base_name)
    rest = _xp_and_other(result, names, others, paths, pre, slug, base_name)
    return [fairness_section(result, name), setup, wins, *rest]


def _win_blocks(wins, result, names, others, paths, pre, slug, base_name) -> None:
    """The win-rate tables and plot of a sweep with more than one policy."""
    wins.text(
        "Win rate of each policy under each variant (95% Wilson interval, n = seats played), "
        "then the paired difference from the baseline: per seed, the policy's win share "
        "(wins / its seats), variant minus baseline, averaged over seeds."
    )
    wr = result.win_rates
    wins.table(
        _wide(wr, tables.rate_cells(wr, with_n=True), "policy", names, result.policies),
        "Win rate [95% CI] n=seats, per variant and policy.",
    )
    if len(result.win_effects):
        we = result.win_effects
        wins.table(
            _wide(
                we,
                [_effect_cell(r, True, _digits(we)) for _, r in we.iterrows()],
                "policy",
                others,
                result.policies,
            ),
            f"Change in win rate against `{base_name}` [95% CI], in percentage points.",
        )
        wins.figure(
            f"{slug}-win-rate-effects",
            effect_plot(
                we,
                others,
                result.policies,
                paths,
                f"{pre}Change in win rate against the baseline",
                "win-rate change (pp, paired 95% CI)",
                True,
                value="mean_diff",
                zero_line=True,
            ),
            f"Paired change in each policy's win rate against `{base_name}` on the same "
            "seeds, 95% Student t intervals (dashed: no change).",
        )
    if not len(result.win_effects):  # the effect plot above says the same, relative
        wins.figure(
            f"{slug}-win-rates",
            effect_plot(
                wr,
                names,
                result.policies,
                paths,
                f"{pre}Win rate per variant",
                "win rate (95% CI)",
                True,
            ),
            "Win rate of each policy under each variant, 95% Wilson intervals.",
        )


def _xp_and_other(result, names, others, paths, pre, slug, base_name) -> list[Section]:
    """The XP effects, fights and game-length sections of a sweep (XP and fights where the
    game's rows have them)."""
    other = _other_section(result, names, pre)
    if not len(result.xp):
        return [other]
    xp = Section(f"{pre}Effect on XP")
    xp.text(
        "Mean final XP per player and game (policy's seats averaged per seed; Student t "
        "interval), the paired change against the baseline, and the mean XP per source."
    )
    x = result.xp
    xp.table(
        _wide(x, tables.mean_cells(x), "policy", names, result.policies),
        "Mean XP [95% CI] per variant and policy.",
    )
    if len(result.xp_effects):
        xe = result.xp_effects
        xp.table(
            _wide(
                xe,
                [_effect_cell(r, False) for _, r in xe.iterrows()],
                "policy",
                others,
                result.policies,
            ),
            f"Change in mean XP against `{base_name}` [95% CI], XP per player and game.",
        )
    if len(result.xp_effects):
        xp.figure(
            f"{slug}-xp-effects",
            effect_plot(
                result.xp_effects,
                others,
                result.policies,
                paths,
                f"{pre}Change in mean XP against the baseline",
                "XP change per player and game (paired 95% CI)",
                False,
                value="mean_diff",
                zero_line=True,
            ),
            f"Paired change in each policy's mean final XP against `{base_name}` on the same "
            "seeds, 95% Student t intervals (dashed: no change).",
        )
    else:
        xp.figure(
            f"{slug}-xp",
            effect_plot(
                x,
                names,
                result.policies,
                paths,
                f"{pre}Mean XP per variant",
                "mean final XP per player (95% CI)",
                False,
            ),
            "Mean final XP of each policy under each variant, 95% Student t intervals.",
        )
    if len(result.xp_sources.columns):
        src = result.xp_sources
        label = {c: tables.source_label(c) for c in src.columns}
        shown = src.rename(columns=label).map("{:.2f}".format)
        shown["total"] = src.sum(axis=1).map("{:.2f}".format)
        xp.table(shown.reset_index(), "Mean XP per player and game from each source.")
        if len(result.source_effects):
            se = result.source_effects
            order = [*src.columns, "total"]
            wide = _wide(
                se, [_effect_cell(r, False) for _, r in se.iterrows()], "source", others, order
            )
            wide.columns = [label.get(c, c) for c in wide.columns]
            xp.table(wide, f"Change in mean XP per source against `{base_name}` [95% CI].")
        xp.figure(
            f"{slug}-xp-sources",
            plots.stacked_bars(
                src.set_axis(_short(list(src.index), paths), axis=0),
                f"{pre}Mean XP by source per variant",
                "mean XP per player and game",
                label,
            ),
            "Where the XP comes from under each variant (means over all players).",
        )
    return [xp, other]


def _other_section(result, names, pre) -> Section:
    """Fights won per mob (where the rows count fights), the game length (where they count
    turns) and the share of shared wins."""
    f = result.fights
    other = Section(f"{pre}Fights and game length" if len(f) else f"{pre}Game length")
    if len(f):
        mobs = list(dict.fromkeys(f["mob"]))
        other.table(
            _wide(f, tables.rate_cells(f, with_n=True), "mob", names, mobs).rename(
                columns={m: tables.label(m) for m in mobs}
            ),
            "Fights won per mob [95% Wilson CI] n=attempts (fights of one player are not "
            "independent: approximate).",
        )
    ln = result.length
    if not len(ln):  # rows without turns: the shared wins alone
        ties = result.ties
        other.table(
            pd.DataFrame({"variant": ties["variant"], "shared wins [95% CI]": _tie_cells(ties)}),
            "The share of games with a shared win.",
        )
        return other
    other.table(
        pd.DataFrame(
            {
                "variant": ln["variant"],
                "turns per game [95% CI]": tables.mean_cells(ln),
                "change vs baseline [95% CI]": [
                    "–"
                    if not math.isfinite(r.get("mean_diff", math.nan))
                    else _effect_cell(
                        {"mean_diff": r["mean_diff"], "lo": r["d_lo"], "hi": r["d_hi"]}, False
                    )
                    for _, r in ln.iterrows()
                ],
                "shared wins [95% CI]": _tie_cells(result.ties),
            }
        ),
        "Game length (turns of all players) and the share of games with a shared win.",
    )
    return other


def _tie_cells(ties: pd.DataFrame) -> list[str]:
    return [
        f"{tables.fmt_rate(t['rate'], t['lo'], t['hi'])} n={int(t['n']):,}"
        for _, t in ties.iterrows()
    ]


def sweep_summary(result: SweepResult) -> dict[str, Any]:
    def records(df: pd.DataFrame) -> list[dict]:
        return df.to_dict(orient="records") if len(df) else []

    return {
        "kind": "sweep",
        "mode": result.mode,
        "paths": _paths(result),
        "variants": [
            {"name": v.name, "changes": v.changes, "baseline": v.baseline} for v in result.variants
        ],
        "policies": result.policies,
        "players": result.players,
        "games": result.games,
        "seed": result.seed,
        "win_rate": records(result.win_rates),
        "win_rate_effect": records(result.win_effects),
        "xp": records(result.xp),
        "xp_effect": records(result.xp_effects),
        "xp_sources": {v: row.to_dict() for v, row in result.xp_sources.iterrows()},
        "xp_source_effect": records(result.source_effects),
        "fights": records(result.fights),
        "turns": records(result.length),
        "tie_rate": records(result.ties),
        **fairness_summary(result),
        "params": result.params,
    }


@renders_figures()
def build_sweep_report(result: SweepResult, title: str | None = None) -> ReportBuilder:
    builder = ReportBuilder(
        title or f"bnb-sim sweep: {', '.join(_paths(result))}",
        f"{len(result.variants)} variants (baseline included) · {result.games:,} games each · "
        f"{result.players} players · seed {result.seed}",
    )
    for section in sweep_sections(result):
        builder.add(section)
    add_estimated_warning(builder.sections[0], result.params.get("estimated"))
    builder.summary.update(sweep_summary(result))
    builder.findings += sweep_findings(result)
    return builder


def format_sweep(result: SweepResult) -> str:
    """Terminal table: fairness per variant, then win rate (its change unless every seat
    plays the same policy) and XP per variant and policy."""
    lines = [
        f"sweep of {', '.join(_paths(result))}: {result.games:,} games per variant, "
        f"{result.players} players, seed {result.seed}"
    ]
    lines += fairness_lines(result)
    names = [v.name for v in result.variants]
    mirror = is_mirror(result.policies)
    change = "" if mirror else ", change vs baseline"
    xp = ", mean XP" if len(result.xp) else ""  # rows without XP: win rates alone
    lines.append(f"  per policy (win rate [95% CI] n=seats{change}{xp}):")
    for variant in names:
        lines.append(f"  {variant}")
        for policy in result.policies:
            r = result.win_rates[
                (result.win_rates["variant"] == variant) & (result.win_rates["policy"] == policy)
            ]
            if not len(r):
                continue
            r = r.iloc[0]
            digits = _digits(result.win_rates)
            text = f"win {tables.fmt_rate(r['rate'], r['lo'], r['hi'], digits)} n={int(r['n']):,}"
            if len(result.win_effects) and not mirror:
                e = result.win_effects[
                    (result.win_effects["variant"] == variant)
                    & (result.win_effects["policy"] == policy)
                ]
                if len(e):
                    text += f"  change {_effect_cell(e.iloc[0], True, _digits(result.win_effects))}"
            x = result.xp
            x = x[(x["variant"] == variant) & (x["policy"] == policy)] if len(x) else x
            if len(x):
                x = x.iloc[0]
                text += f"  XP {tables.fmt_mean(x['mean'], x['lo'], x['hi'])}"
            lines.append(f"    {policy.ljust(max(len(p) for p in result.policies))}  {text}")
    return "\n".join(lines)


def _largest(effects: pd.DataFrame) -> pd.Series | None:
    """The row with the largest absolute finite effect (``mean_diff``), or None."""
    if not len(effects) or "mean_diff" not in effects.columns:
        return None
    finite = effects[np.isfinite(effects["mean_diff"].to_numpy(dtype=float))]
    if not len(finite):
        return None
    return finite.loc[finite["mean_diff"].abs().idxmax()]


def _detected(row) -> bool:
    lo, hi = float(row["lo"]), float(row["hi"])
    return math.isfinite(lo) and math.isfinite(hi) and (lo > 0 or hi < 0)


def sweep_findings(result: SweepResult, prefix: str = "") -> list:
    """Key findings of a sweep: fairness first (each variant's first-player advantage and
    balance against the baseline's, :func:`~bnb_sim.analysis.sweep_fairness.fairness_findings`),
    then the largest win-rate effect (none in a mirror match, where it is fixed by
    construction) and the largest XP effect, with interval and n, and whether detectable."""
    from bnb_sim.analysis.leaders import largest_of
    from bnb_sim.analysis.report import Finding

    base = next((v.name for v in result.variants if v.baseline), "the baseline")
    found = fairness_findings(result, prefix)
    row = None if is_mirror(result.policies) else _largest(result.win_effects)
    if row is not None:
        cell = _effect_cell(row, True)
        words = "the biggest effect" if _detected(row) else "no detectable effect; the largest"
        found.append(
            Finding(
                f"{prefix}Win rate: {words} is **{row['variant']}** for {row['policy']}: "
                f"{cell} against {base} (n = {int(row['n']):,} paired games; "
                f"{largest_of(result.win_effects['mean_diff'])}).",
                {"kind": "largest_win_rate_effect", "variant": row["variant"],
                 "policy": row["policy"], "value": row["mean_diff"], "lo": row["lo"],
                 "hi": row["hi"], "n": int(row["n"]), "detected": _detected(row)},
            )
        )  # fmt: skip
    row = _largest(result.xp_effects)
    if row is not None:
        words = "the biggest effect" if _detected(row) else "no detectable effect; the largest"
        found.append(
            Finding(
                f"{prefix}Final XP: {words} is **{row['variant']}** for {row['policy']}: "
                f"{_effect_cell(row, False)} XP against {base} (n = {int(row['n']):,} paired "
                f"games; {largest_of(result.xp_effects['mean_diff'])}).",
                {"kind": "largest_xp_effect", "variant": row["variant"], "policy": row["policy"],
                 "value": row["mean_diff"], "lo": row["lo"], "hi": row["hi"],
                 "n": int(row["n"]), "detected": _detected(row)},
            )
        )  # fmt: skip
    return found
