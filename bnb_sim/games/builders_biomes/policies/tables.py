"""Precomputed knowledge the built-in bots use: exact fight odds for every pile a player can
hold (from :func:`bnb_sim.games.builders_biomes.engine.odds.pile_table`) plus two derived columns.

* ``strength[row]``: the XP a fight with this pile is worth on average over the mob tiles of
  the components (P(win) x the mob's XP, bonus mobs at two matching spaces).
* ``weapon_gain[row]``: how much ``strength`` grows, on average, when one more colourless token
  joins the pile, drawn from the colourless tokens of the components (the identity of a token
  on the table is unknown, R-WEAPON-1).

All of it depends only on the components, so it is built once per run (a few ms).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from bnb_sim.games.builders_biomes.components.arrays import TILE_BONUS_MOB, TILE_BUILDING

PolicyTables = namedtuple(
    "PolicyTables",
    [
        "mins",  # int64[T]
        "strides",  # int64[T]
        "radix",  # int64[T]
        "p_win",  # float64[rows, h_max + 1]
        "e_tnt_spent",  # float64[rows, h_max + 1]
        "e_hoe_xp",  # float64[rows]
        "e_pickaxe_blocks",  # float64[rows]
        "strength",  # float64[rows]
        "weapon_gain",  # float64[rows]
    ],
)


def build_policy_tables(arrays) -> PolicyTables:
    """Exact pile odds plus the derived columns for ``arrays`` (a ComponentArrays)."""
    from bnb_sim.games.builders_biomes.components.arrays import RULE_FIGHT_REVEAL
    from bnb_sim.games.builders_biomes.engine.odds import pile_table

    mob = arrays.tile_kind != TILE_BUILDING
    h_max = int(arrays.tile_hearts[mob].max()) if mob.any() else 0
    table = pile_table(
        arrays.tok_start,
        arrays.tok_table,
        arrays.tok_hearts,
        arrays.tok_extra_reveals,
        arrays.tok_xp,
        arrays.tok_blocks,
        arrays.tok_detonate,
        int(arrays.rules[RULE_FIGHT_REVEAL]),
        h_max,
    )
    worth = arrays.tile_xp[mob].astype(np.float64)
    worth += np.where(arrays.tile_kind[mob] == TILE_BONUS_MOB, 2.0 * arrays.tile_bonus_xp[mob], 0)
    hearts = arrays.tile_hearts[mob]
    n_mobs = max(int(mob.sum()), 1)
    strength = (table.p_win[:, hearts] * worth).sum(axis=1) / n_mobs
    weapon_gain = _weapon_gain(strength, table, np.asarray(arrays.tok_table, np.int64))
    return PolicyTables(
        np.ascontiguousarray(table.mins),
        np.ascontiguousarray(table.strides),
        np.ascontiguousarray(table.radix),
        np.ascontiguousarray(table.p_win),
        np.ascontiguousarray(table.e_tnt_spent),
        np.ascontiguousarray(table.e_hoe_xp),
        np.ascontiguousarray(table.e_pickaxe_blocks),
        np.ascontiguousarray(strength),
        np.ascontiguousarray(weapon_gain),
    )


def _weapon_gain(strength, table, tok_table) -> np.ndarray:
    rows = strength.shape[0]
    idx = np.arange(rows)
    total = int(tok_table.sum())
    gain = np.zeros(rows)
    if total == 0:
        return gain
    for t, count in enumerate(tok_table):
        if count == 0:
            continue
        digit = (idx // table.strides[t]) % table.radix[t]
        room = digit < table.radix[t] - 1
        after = np.where(room, idx + table.strides[t], idx)
        gain += count / total * (strength[after] - strength)
    return gain
