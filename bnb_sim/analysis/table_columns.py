"""What the ``seats`` / ``games`` frames hold: column discovery and display labels.

Mob species and building types are read from the column names (``fights_<mob>`` with a
matching ``wins_<mob>``, ``defeated_<mob>``, ``built_<type>``), never from a fixed list
(:func:`mob_names`, :func:`prefixed`, :func:`xp_sources`); :func:`label` and
:func:`source_label` turn a column into a heading; :func:`policies_in` and the policy order
of a table.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from bnb_sim.columns import XP_SOURCES

RATE_COLUMNS = ["k", "n", "rate", "lo", "hi"]
ROUNDS = ("a", "b", "c")
PLAY_STYLE = (
    "mobs_defeated",
    "buildings_built",
    "weapons_taken",
    "fights",
    "fights_won",
    "tnt_detonated",
    "hunger_spent",
    "blocks_left",
)


# --------------------------------------------------------------------------------------
# column discovery


def mob_names(columns: Iterable[str]) -> list[str]:
    """Mob species with both ``fights_<mob>`` and ``wins_<mob>`` columns, in column order.

    (``fights_won`` is a fixed column; there is no ``wins_won``, so it is not a species.)
    """
    columns = list(columns)
    names = set(columns)
    return [c[7:] for c in columns if c.startswith("fights_") and f"wins_{c[7:]}" in names]


def prefixed(columns: Iterable[str], prefix: str) -> list[str]:
    """The names after ``prefix`` of the columns that start with it, in column order."""
    return [c[len(prefix) :] for c in columns if c.startswith(prefix) and len(c) > len(prefix)]


def xp_sources(columns: Iterable[str]) -> list[str]:
    """The ``xp_*`` columns: the contract's in contract order, then any others."""
    columns = list(columns)
    known = [c for c in XP_SOURCES if c in columns]
    return known + [c for c in columns if c.startswith("xp_") and c not in known]


def source_label(column: str) -> str:
    """``xp_round_a`` -> ``round A``, ``xp_bonus_mobs`` -> ``bonus mobs``."""
    name = column.removeprefix("xp_")
    if name.startswith("round_") and len(name) == 7:
        return f"round {name[-1].upper()}"
    return name.replace("_", " ")


def label(name: str) -> str:
    """``snowy_tundra`` -> ``snowy tundra`` (for axes and tables)."""
    return str(name).replace("_", " ")


def policies_in(seats: pd.DataFrame) -> list[str]:
    """Policy labels in the order of the players (``player`` column) when present."""
    if "player" in seats.columns:
        first = seats.drop_duplicates("policy")[["player", "policy"]].sort_values("player")
        return [str(p) for p in first["policy"]]
    return [str(p) for p in pd.unique(seats["policy"])]


def _order_policies(df: pd.DataFrame, order: Sequence[str] | None) -> pd.DataFrame:
    if order is None or "policy" not in df.columns:
        return df
    rank = {p: i for i, p in enumerate(order)}
    key = df["policy"].astype(str).map(rank).fillna(len(rank))
    other = [c for c in df.columns if c not in RATE_COLUMNS and c != "policy"]
    return (
        df.assign(_o=key.to_numpy())
        .sort_values(["_o", *other], kind="stable")
        .drop(columns="_o")
        .reset_index(drop=True)
    )
