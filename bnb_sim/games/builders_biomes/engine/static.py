"""Pack components, table geometry, run options and policy tables into the static arrays the
kernels read (``k``: int64, ``ft``: float64). Plain numpy; runs once per run."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from bnb_sim.games.builders_biomes.components.arrays import (
    N_RULES,
    RULE_EXPLORE_MAX_STEPS,
    TILE_BUILDING,
)
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine.geometry import build_geometry
from bnb_sim.games.builders_biomes.engine.state import N_OPTS

Static = namedtuple("Static", ["k", "ft"])


def check_sizes(arrays) -> None:
    """Raise ValueError when component data exceeds the engine's fixed maxima."""
    limits = [
        ("weapon token types", arrays.tok_hearts.shape[0], L.MAX_TOKEN_TYPES),
        ("tiles", arrays.tile_kind.shape[0], L.MAX_TILES),
        ("player boards", arrays.boards.shape[0], L.MAX_BOARDS),
        ("stack height", int(arrays.rules[8]), L.MAX_STACK_H),
        ("mob species", int(arrays.tile_species.max()) + 1, L.MAX_SPECIES),
        ("mob tiles", int((arrays.tile_kind != TILE_BUILDING).sum()), L.MAX_HELD),
    ]
    for what, value, limit in limits:
        if value > limit:
            raise ValueError(f"the engine supports at most {limit} {what}, got {value}")


def fill_farmers_market(k, data: dict, readings) -> None:
    """The expansion's part of ``k`` (R-FM-*), from validated component data with its
    ``farmers_market`` section and the run's readings (the ``fm_*`` ones)."""
    from bnb_sim.games.builders_biomes.components.expansion import ABILITIES, LETTERS

    fm = data["farmers_market"]
    k[L.K_FM_ON] = 1
    items = list(fm["items"].values())
    k[L.K_FM_N_ITEMS] = len(items)
    k[L.K_FM_VEG_TOKENS] = fm["vegetable_tokens"]
    k[L.K_FM_XP_FARM] = fm["xp_per_farming_space"]
    for i, letter in enumerate("xab"):
        k[L.K_FM_MARKET + i] = fm[f"market_{letter}"]
    for i, side in enumerate(("side_2", "side_3_4")):
        k[L.K_FM_FARMLAND + 2 * i] = fm["farmland"][side]["spaces"]
        k[L.K_FM_FARMLAND + 2 * i + 1] = fm["farmland"][side]["vegetables_per_space"]
    k[L.K_FM_NEW_FARM_FILLED] = 1 if readings["fm_new_farm"] == "filled" else 0
    k[L.K_FM_COLLECT_PER_BLOCK] = 1 if readings["fm_collect_xp"] == "block" else 0
    k[L.K_FM_EMPTY_BUY] = 1 if readings["fm_empty_buy"] == "allowed" else 0
    k[L.K_FM_BUILDINGS_ONLY] = 1 if readings["fm_end_structures"] == "buildings-only" else 0
    k[L.K_FM_COVERED_LOST] = 1 if readings["fm_covered_vegetables"] == "lost" else 0
    k[L.K_FM_BED_ITEM_REVEAL] = 1 if readings["fm_bed_reveal"] == "item" else 0
    biomes = data["characteristics"]["biome"]
    k[L.K_FM_FOREST] = biomes.index("forest") if "forest" in biomes else 0
    steps = max([it["amount"] for it in items if it["ability"] == "explore_steps"] or [0])
    if steps > 0:
        reach = build_geometry(int(steps)).reach
        k[L.K_FM_REACH_ITEM : L.K_FM_REACH_ITEM + L.N_POINTS] = reach
    for i, it in enumerate(items):
        k[L.K_FM_ITEM + L.FM_COST * L.MAX_ITEMS + i] = it["cost"]
        k[L.K_FM_ITEM + L.FM_LETTER * L.MAX_ITEMS + i] = LETTERS.index(it["letter"])
        k[L.K_FM_ITEM + L.FM_ABILITY * L.MAX_ITEMS + i] = ABILITIES.index(it["ability"])
        k[L.K_FM_ITEM + L.FM_AMOUNT * L.MAX_ITEMS + i] = it["amount"]
    tile = 0
    for b in data["buildings"].values():
        for _ in range(b["copies"]):
            k[L.K_FM_TILE_VEG + tile] = b.get("vegetables", 0)
            tile += 1


def build_static(arrays, opts, tables=None) -> Static:
    """``k`` and ``ft`` for a ComponentArrays, an options vector (OPT_*) and PolicyTables."""
    check_sizes(arrays)
    if len(opts) > 16 or N_OPTS > 16:
        raise ValueError("too many options")
    k = np.zeros(L.K_SIZE, np.int64)
    k[L.K_RULES : L.K_RULES + N_RULES] = arrays.rules
    k[L.K_OPTS : L.K_OPTS + len(opts)] = opts
    n_types = arrays.tok_hearts.shape[0]
    n_tiles = arrays.tile_kind.shape[0]
    k[L.K_N_TOKEN_TYPES] = n_types
    k[L.K_N_TILES] = n_tiles
    k[L.K_N_SPECIES] = int(arrays.tile_species.max()) + 1
    k[L.K_N_BOARDS] = arrays.boards.shape[0]
    k[L.K_STACK_H] = arrays.rules[8]
    k[L.K_BLOCK_COUNT : L.K_BLOCK_COUNT + L.N_BLOCK_TYPES] = arrays.block_count
    token_columns = [
        arrays.tok_hearts,
        arrays.tok_extra_reveals,
        arrays.tok_xp,
        arrays.tok_blocks,
        arrays.tok_detonate,
        arrays.tok_start,
        arrays.tok_table,
    ]
    for attr, column in enumerate(token_columns):
        start = L.K_TOK + attr * L.MAX_TOKEN_TYPES
        k[start : start + n_types] = column
    tile_columns = {
        L.TILE_KIND: arrays.tile_kind,
        L.TILE_BIOME: arrays.tile_biome,
        L.TILE_MATERIAL: arrays.tile_material,
        L.TILE_TYPE: arrays.tile_type,
        L.TILE_XP: arrays.tile_xp,
        L.TILE_HEARTS: arrays.tile_hearts,
        L.TILE_SPECIES: arrays.tile_species,
        L.TILE_SOURCE: arrays.tile_source,
        L.TILE_BONUS_CHAR: arrays.tile_bonus_char,
        L.TILE_BONUS_VALUE: arrays.tile_bonus_value,
        L.TILE_BONUS_XP: arrays.tile_bonus_xp,
    }
    for block in range(L.N_BLOCK_TYPES):
        tile_columns[L.TILE_COST + block] = arrays.tile_cost[:, block]
    for attr, column in tile_columns.items():
        start = L.K_TILE + attr * L.MAX_TILES
        k[start : start + n_tiles] = column
        rows = L.K_TILE_ROWS + attr
        k[rows : rows + n_tiles * L.N_TILE_ATTRS : L.N_TILE_ATTRS] = column
    k[L.K_SCORE_CARD : L.K_SCORE_CARD + 12] = np.asarray(arrays.score_card).reshape(12)
    boards = np.asarray(arrays.boards).reshape(-1)
    k[L.K_BOARDS : L.K_BOARDS + boards.shape[0]] = boards
    k[L.K_GROUP : L.K_GROUP + 512] = arrays.group_table
    geo = build_geometry(int(arrays.rules[RULE_EXPLORE_MAX_STEPS]))
    k[L.K_ADJ_STACKS : L.K_ADJ_STACKS + L.N_POINTS] = geo.adj_stacks
    k[L.K_ADJ_SLOTS : L.K_ADJ_SLOTS + L.N_POINTS] = geo.adj_slots
    k[L.K_REACH : L.K_REACH + L.N_POINTS] = geo.reach
    for point in range(L.N_POINTS):
        near = 0
        for other in range(L.N_POINTS):
            if (int(geo.reach[point]) >> other) & 1:
                near |= int(geo.adj_stacks[other])
        k[L.K_REACH_STACKS + point] = near
    ft = np.zeros((1, 8), np.float64)
    if tables is not None:
        k[L.K_PILE_MINS : L.K_PILE_MINS + n_types] = tables.mins
        k[L.K_PILE_STRIDES : L.K_PILE_STRIDES + n_types] = tables.strides
        k[L.K_FT_HMAX] = tables.p_win.shape[1] - 1
        ft = policy_float_table(tables)
    else:
        mob = arrays.tile_kind != TILE_BUILDING
        k[L.K_FT_HMAX] = int(arrays.tile_hearts[mob].max()) if mob.any() else 0
    return Static(k, ft)


# Columns of ft: p_win[h] for h = 0..hmax, then e_tnt_spent[h], then the per-pile scalars.
def ft_columns(hmax: int) -> dict[str, int]:
    n = hmax + 1
    return {
        "p_win": 0,
        "e_tnt_spent": n,
        "e_hoe_xp": 2 * n,
        "e_pickaxe_blocks": 2 * n + 1,
        "strength": 2 * n + 2,
        "weapon_gain": 2 * n + 3,
        "_width": 2 * n + 4,
    }


def policy_float_table(tables) -> np.ndarray:
    hmax = tables.p_win.shape[1] - 1
    cols = ft_columns(hmax)
    ft = np.zeros((tables.p_win.shape[0], cols["_width"]), np.float64)
    ft[:, : hmax + 1] = tables.p_win
    ft[:, cols["e_tnt_spent"] : cols["e_tnt_spent"] + hmax + 1] = tables.e_tnt_spent
    ft[:, cols["e_hoe_xp"]] = tables.e_hoe_xp
    ft[:, cols["e_pickaxe_blocks"]] = tables.e_pickaxe_blocks
    ft[:, cols["strength"]] = tables.strength
    ft[:, cols["weapon_gain"]] = tables.weapon_gain
    return np.ascontiguousarray(ft)
