"""Filling :class:`~bnb_sim.games.builders_biomes.components.arrays.ComponentArrays` from
validated data."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from bnb_sim.games.builders_biomes.components import arrays as A


@lru_cache(maxsize=1)
def _group_table() -> np.ndarray:
    table = A.group_table()
    table.flags.writeable = False
    return table


def build_arrays(data: dict, tiles: list[tuple[str, int | None]]) -> A.ComponentArrays:
    """Arrays per the contract in ``arrays.py``; ``tiles`` lists (id, mob variant or None)."""
    values = data["characteristics"]
    biome_ix = {v: i for i, v in enumerate(values["biome"])}
    material_ix = {v: i for i, v in enumerate(values["material"])}
    type_ix = {v: i for i, v in enumerate(values["type"])}
    char_ix = {c: i for i, c in enumerate(("biome", "material", "type"))}
    value_ix = {c: {v: i for i, v in enumerate(values[c])} for c in char_ix}
    weapons = list(data["weapons"].values())
    mob_ix = {name: i for i, name in enumerate(data["mobs"])}
    building_ix = {bid: i for i, bid in enumerate(data["buildings"])}
    boards = list(data["boards"].values())

    a = A.empty_like_sizes(len(weapons), len(tiles), len(boards))
    a.rules[:] = [data["rules"][k] for k in A.RULE_KEYS]
    # blocks: the four materials in characteristic order, then the wild block (validated)
    a.block_count[:] = [b["count"] for b in data["blocks"].values()]
    for column, field in (
        (a.tok_hearts, "hearts"),
        (a.tok_extra_reveals, "extra_reveals"),
        (a.tok_xp, "xp_on_reveal"),
        (a.tok_blocks, "blocks_on_reveal"),
        (a.tok_detonate, "detonate_hearts"),
        (a.tok_start, "start_count"),
        (a.tok_table, "table_count"),
    ):
        column[:] = [w[field] for w in weapons]
    for t, (name, variant) in enumerate(tiles):
        if variant is None:
            b = data["buildings"][name]
            a.tile_kind[t] = A.TILE_BUILDING
            a.tile_biome[t] = biome_ix[b["biome"]]
            a.tile_material[t] = material_ix[b["material"]]
            a.tile_type[t] = type_ix[b["type"]]
            for m, n in b["cost"].items():
                a.tile_cost[t, material_ix[m]] = n
            a.tile_xp[t] = b["xp"]
            a.tile_source[t] = building_ix[name]
        else:
            m = data["mobs"][name]
            tile = m["tiles"][variant]
            a.tile_xp[t] = tile["xp"]
            a.tile_hearts[t] = m["hearts"]
            a.tile_species[t] = mob_ix[name]
            a.tile_source[t] = mob_ix[name]
            if tile["kind"] == "bonus":
                char, _, value = tile["bonus"].partition(".")
                a.tile_kind[t] = A.TILE_BONUS_MOB
                a.tile_bonus_char[t] = char_ix[char]
                a.tile_bonus_value[t] = value_ix[char][value]
                a.tile_bonus_xp[t] = tile["bonus_xp"]
            else:
                a.tile_kind[t] = A.TILE_HUNGER_MOB
    for card in data["scoring"].values():
        c = char_ix[card["characteristic"]]
        a.score_card[c, :] = [card["values"][v] for v in values[card["characteristic"]]]
    for i, board in enumerate(boards):
        a.boards[i, :] = [biome_ix[s] for row in board["spaces"] for s in row]
    a.group_table[:] = _group_table()
    return a
