"""Strength against budget in a tournament: entrants that are one search bot at several budgets.

A *budget family* is two or more entrants of a tournament that are the same search bot
(``mc`` or ``ismcts``; the game's ``studies`` entry reads the specs,
:mod:`bnb_sim.games.builders_biomes.study_hooks`) with the same settings except the budget
(``rollouts`` for ``mc``, ``iterations`` for ``ismcts``) and at least two different budgets.
Their strength is read from the tournament's own estimates: the Bradley--Terry Elo with its
bootstrap interval over seeds and the win rate with its Wilson interval clustered by seed, so
the curve and the ratings table never disagree.

Pure Python (no numba): the specs are parsed by the same code that validates ``--policy``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots, table_format
from bnb_sim.analysis.ratings import _fmt_elo
from bnb_sim.analysis.report_builder import Section

__all__ = ["BudgetFamily", "budget_families", "budget_section", "budget_summary"]


@dataclass(frozen=True)
class BudgetFamily:
    """One search bot at several budgets: ``members`` are (entrant label, budget), by budget."""

    bot: str
    budget_key: str
    settings: tuple[tuple[str, Any], ...]  # every setting but the budget, in spec order
    members: tuple[tuple[str, int], ...]

    @property
    def label(self) -> str:
        shown = ",".join(f"{k}={_fmt_setting(v)}" for k, v in self.settings)
        return f"{self.bot}:{shown}" if shown else self.bot


def _fmt_setting(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _search_settings(spec: str, game: str | None = None) -> tuple[str, str, int, tuple] | None:
    """(bot, budget key, budget, other settings) of a search-bot spec, or None for any other
    policy: ``game`` says (its ``study`` entry's ``search_budget``; None: the default game)."""
    from bnb_sim.analysis.study_hooks import study_hooks

    return study_hooks(game).search_budget(spec)


def budget_families(policies: Sequence[str], game: str | None = None) -> list[BudgetFamily]:
    """The budget families among ``policies`` (in order of first appearance).

    Entrants are grouped by bot and by every setting but the budget (defaults filled in, so
    ``ismcts`` and ``ismcts:c=0.7,iterations=8`` are one family); a group is a family when
    it has at least two different budgets.
    """
    groups: dict[tuple, list[tuple[str, int]]] = {}
    for policy in policies:
        parsed = _search_settings(str(policy), game)
        if parsed is None:
            continue
        bot, key, budget, others = parsed
        groups.setdefault((bot, key, others), []).append((str(policy), budget))
    families = []
    for (bot, key, others), members in groups.items():
        if len({b for _, b in members}) < 2:
            continue
        ordered = tuple(sorted(members, key=lambda m: (m[1], m[0])))
        families.append(BudgetFamily(bot, key, others, ordered))
    return families


def _family_frame(family: BudgetFamily, ratings: pd.DataFrame, win_rates: pd.DataFrame):
    r = ratings.set_index("policy")
    w = win_rates.set_index("policy")
    rows = []
    for policy, budget in family.members:
        row = {"policy": policy, "budget": budget}
        row.update({k: float(r.loc[policy, k]) for k in ("elo", "lo", "hi")})
        row["games"] = int(r.loc[policy, "games"])
        for k in ("rate", "lo", "hi", "n"):
            row[f"win_{k}"] = w.loc[policy, k] if policy in w.index else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


def budget_plot(frames: dict[str, pd.DataFrame], title: str, anchor: str | None, xlabel: str):
    """Elo against budget (log axis) with 95% bootstrap error bars, one series per family."""
    fig, axes = plots.new_figure(3.6)
    ax = axes[0, 0]
    colors = plots.colors_for(list(frames))
    for i, (label, df) in enumerate(frames.items()):
        # series side by side (a few % of a doubling) so their error bars do not overlap
        dodge = 2.0 ** (0.05 * (i - (len(frames) - 1) / 2))
        x = df["budget"].to_numpy(dtype=float) * dodge
        y = df["elo"].to_numpy(dtype=float)
        err = np.vstack(
            [
                np.nan_to_num(y - df["lo"].to_numpy(dtype=float)),
                np.nan_to_num(df["hi"].to_numpy(dtype=float) - y),
            ]
        )
        ax.errorbar(
            x, y, yerr=err, marker="o", capsize=3, linewidth=1.5, color=colors[label], label=label
        )
    ax.set_xscale("log", base=2)
    budgets = sorted({int(b) for df in frames.values() for b in df["budget"]})
    ax.set_xticks(budgets, [str(b) for b in budgets])
    ax.minorticks_off()
    ax.axhline(0.0, color="#888888", linewidth=1)
    ax.legend(fontsize=8, loc="best")
    zero = f"{anchor} = 0" if anchor else "mean = 0"
    plots._style(
        ax,
        title,
        f"{xlabel} per decision (log scale)",
        f"Elo ({zero}; 95% bootstrap CI)",
    )
    return fig


def budget_section(result, pre: str = "", slug: str = "tournament") -> Section | None:
    """The "Strength against budget" section of a tournament, or None without a family."""
    families = budget_families(result.policies, result.game)
    if not families:
        return None
    frames = {f.label: _family_frame(f, result.ratings, result.win_rates) for f in families}
    section = Section(f"{pre}Strength against budget")
    zero = f"`{result.anchor}` = 0" if result.anchor else "mean 0"
    section.text(
        "Entrants that are the same search bot with the same settings except the budget "
        "(`rollouts` for `mc`, `iterations` for `ismcts`), read off this tournament's own "
        f"estimates: the Bradley–Terry Elo ({zero}) with its 95% bootstrap interval over "
        "seeds, and the win rate with its 95% Wilson interval clustered by seed (n = games "
        "played). The strength is relative to this field of entrants."
    )
    for label, df in frames.items():
        family = next(f for f in families if f.label == label)
        section.table(
            pd.DataFrame(
                {
                    family.budget_key: df["budget"].map("{:,}".format),
                    "policy": df["policy"],
                    "Elo [95% CI]": [
                        _fmt_elo(e, lo, hi)
                        for e, lo, hi in zip(df["elo"], df["lo"], df["hi"], strict=True)
                    ],
                    "win rate [95% CI]": [
                        table_format.fmt_rate(r, lo, hi) if math.isfinite(r) else "n/a"
                        for r, lo, hi in zip(
                            df["win_rate"], df["win_lo"], df["win_hi"], strict=True
                        )
                    ],
                    "n (games)": df["games"].map("{:,}".format),
                }
            ),
            f"{label}: strength by {family.budget_key} per decision.",
        )
    section.figure(
        f"{slug}-strength-vs-budget",
        budget_plot(
            frames,
            f"{pre}Strength against budget",
            result.anchor,
            " / ".join(dict.fromkeys(f.budget_key for f in families)),
        ),
        "Elo rating of each search bot against its budget (log scale) with 95% bootstrap "
        "intervals over seeds; one line per bot and settings.",
    )
    return section


def budget_summary(result) -> list[dict]:
    """Machine-readable strength-against-budget series (for summary.json)."""
    out = []
    for family in budget_families(result.policies, result.game):
        df = _family_frame(family, result.ratings, result.win_rates)
        out.append(
            {
                "bot": family.bot,
                "budget_key": family.budget_key,
                "settings": dict(family.settings),
                "points": df.to_dict(orient="records"),
            }
        )
    return out
