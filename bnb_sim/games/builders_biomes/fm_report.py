"""The Farmer's Market part of ``bnb report`` (runs with ``item_<name>`` columns, R-FM-4/5):
how often each policy buys each item, and how buyers of an item fare against non-buyers."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots, table_columns, table_format, tables
from bnb_sim.analysis.fm_findings import add_within_seat


def item_names(seats: pd.DataFrame) -> list[str]:
    return table_columns.prefixed(seats.columns, "item_")


def purchase_rates(seats: pd.DataFrame, policy_order: Sequence[str]) -> pd.DataFrame:
    """Per policy and item: share of the policy's player results that bought it (Wilson 95%)."""
    rows = []
    policy = seats["policy"].astype(str).to_numpy()
    for p in policy_order:
        mine = policy == p
        n = int(np.count_nonzero(mine))
        for name in item_names(seats):
            k = int(np.count_nonzero(seats[f"item_{name}"].to_numpy()[mine]))
            rows.append(tables.rate_row({"policy": p, "item": name}, k, n))
    return pd.DataFrame(rows)


def buyer_win_rates(seats: pd.DataFrame, policy_order: Sequence[str]) -> pd.DataFrame:
    """Per policy and item: win rate of results that bought it and of those that did not."""
    frames = []
    for p in policy_order:
        mine = seats[seats["policy"].astype(str) == p]
        table = tables.win_rate_when_owning(mine, "item_")
        table.insert(0, "policy", p)
        frames.append(table)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


ROUND_LABELS = ("before round A", "between A and B", "after round B")


def purchase_timing(seats: pd.DataFrame) -> pd.DataFrame:
    """Per item: how many purchases fell before round A, between A and B, after B (all
    policies), each as a share of the item's purchases with a Wilson 95% interval."""
    rows = []
    for name in item_names(seats):
        column = f"bought_round_{name}"
        if column not in seats.columns:
            continue
        rounds = seats[column].to_numpy()
        n = int(np.count_nonzero(rounds >= 0))
        for r, when in enumerate(ROUND_LABELS):
            k = int(np.count_nonzero(rounds == r))
            rows.append(tables.rate_row({"item": name, "when": when}, k, n))
    return pd.DataFrame(rows)


def items_section(seats: pd.DataFrame, policy_order: Sequence[str], source=None):
    """Purchase rate per item and policy, buyers' and non-buyers' win rates, a plot; first
    the causal values of ``bnb value --attach`` when the run folder ``source`` holds them."""
    from bnb_sim.analysis.report_builder import Section
    from bnb_sim.analysis.value_report import value_hook

    section = Section("Farmer's Market items")
    section.text(
        "How often each policy bought each item (share of its player results, 95% Wilson "
        "interval), and the win rate of the results that bought it next to those that did "
        "not, by policy. Buying is a choice of the bot, so this is a correlation: an item "
        "bought late by a player already ahead looks better than it is."
    )
    value_hook(section, source, "buy:")  # the causal values, when bnb value saved them here
    rates = purchase_rates(seats, policy_order)
    shown = rates.pivot(index="item", columns="policy", values="rate")
    cells = pd.DataFrame({"item": list(dict.fromkeys(rates["item"]))})
    for p in policy_order:
        part = rates[rates["policy"] == p].reset_index(drop=True)
        cells[f"{p} bought [95% CI]"] = table_format.rate_cells(part)
        cells[f"{p} n"] = part["n"].map("{:,}".format)
    section.heading("Purchase rate per item")
    section.table(cells)
    wins = buyer_win_rates(seats, policy_order)
    section.heading("Win rate of buyers and non-buyers")
    for p in policy_order:
        part = wins[wins["policy"] == p].reset_index(drop=True)
        without = part[[f"{c}_without" for c in table_columns.RATE_COLUMNS]]
        without.columns = table_columns.RATE_COLUMNS
        section.table(
            pd.DataFrame(
                {
                    "item": part["name"],
                    "win rate if bought [95% CI]": table_format.rate_cells(part),
                    "n bought": part["n"].map("{:,}".format),
                    "win rate if not [95% CI]": table_format.rate_cells(without),
                    "n not": without["n"].map("{:,}".format),
                }
            ),
            f"Policy {p}.",
        )
        section.figure(
            f"item-value-{table_columns.label(p)}",
            plots.rate_bars(
                list(part["name"]),
                {"bought": part, "not bought": without},
                f"Win rate of buyers and non-buyers ({p}; a correlation, not a cause)",
            ),
            f"Win rate of {p}'s results that bought / did not buy each item, 95% Wilson intervals.",
        )
    timing = purchase_timing(seats)
    if len(timing):
        section.heading("When items are bought")
        wide = pd.DataFrame({"item": list(dict.fromkeys(timing["item"]))})
        for when in ROUND_LABELS:
            part = timing[timing["when"] == when].reset_index(drop=True)
            wide[f"{when} [95% CI]"] = table_format.rate_cells(part)
        wide["purchases"] = (
            timing[timing["when"] == ROUND_LABELS[0]]["n"].map("{:,}".format).to_numpy()
        )
        section.table(wide, "Share of each item's purchases by the rounds scored before it.")
    section.summary["items"] = {
        "timing": timing.to_dict(orient="records"),
        "purchase_rates": rates.to_dict(orient="records"),
        "buyer_win_rates": wins.to_dict(orient="records"),
        "purchase_share": shown.to_dict(),
    }
    add_within_seat(section, seats)  # the first-screen answer (fm_findings)
    return section
