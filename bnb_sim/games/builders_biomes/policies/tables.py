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
    tokens = tuple(
        np.ascontiguousarray(getattr(arrays, name), np.int64)
        for name in ("tok_start", "tok_table", "tok_hearts", "tok_extra_reveals", "tok_xp",
                     "tok_blocks", "tok_detonate")
    )  # fmt: skip
    fight_reveal = int(arrays.rules[RULE_FIGHT_REVEAL])
    key = b"|".join(t.tobytes() for t in tokens) + b"|%d" % fight_reveal
    kept = _PILE_TABLES.get(key)
    if kept is None or kept.p_win.shape[1] <= h_max:
        if len(_PILE_TABLES) >= 8:
            _PILE_TABLES.clear()
        kept = _PILE_TABLES[key] = pile_table(*tokens, fight_reveal, h_max)
    table = _first_columns(kept, h_max)
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


#: Pile tables filled already, by their tokens and fight rule (at most 8): the exact odds do
#: not depend on the mobs, only how many heart columns the bots need (the mobs' largest
#: hearts), and each heart value's column is filled on its own (``engine/odds.py``'s
#: ``_score``), so a table for more hearts serves fewer bit for bit (tests/test_odds.py). A
#: game tuning that moves a mob's hearts filled the same 0.3-second table for every candidate.
_PILE_TABLES: dict[bytes, object] = {}


def _first_columns(table, h_max: int):
    """``table`` (a PileTable) with heart columns 0..``h_max`` (views: read-only use)."""
    return table._replace(**{
        name: getattr(table, name)[:, : h_max + 1]
        for name in ("p_win", "p_win_no_tnt", "e_tnt_spent")
    })  # fmt: skip


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
