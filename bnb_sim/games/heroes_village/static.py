"""The static arrays of a Heroes of the Village game: its components, start space and
buildings as the ``k`` (int64) and ``kf`` (float) vectors the kernels read (layout.py)."""

from __future__ import annotations

import numpy as np

from bnb_sim.games.heroes_village import layout as L


def static_arrays(
    comps, start: int, chosen: list[int], check: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """``(k, kf)`` for the kernels: ``start`` is the Illager's start space, ``chosen`` the
    three buildings (an index into the building list, or ``-level - 1`` for one drawn per
    game from that level)."""
    from bnb_sim.games.heroes_village.odds import kf_table

    d = comps.data
    k = np.zeros(L.K_SIZE, np.int64)
    rules, path, readings = d["rules"], d["path"], d["readings"]
    tiles = d["tiles"]["list"]
    tokens = comps.mob_tokens
    k[L.K_N_TILES] = len(tiles)
    k[L.K_N_TOKENS] = len(tokens)
    k[L.K_N_STACKS] = rules["stacks"]
    k[L.K_START] = start
    k[L.K_LAST_SPACE] = path["last_space"]
    k[L.K_N_DARK] = len(path["darkness_spaces"])
    for i, space in enumerate(path["darkness_spaces"]):
        k[L.K_DARK_SPACES + i] = space
    k[L.K_ACTIONS] = rules["actions_per_turn"]
    k[L.K_DRAW] = rules["blocks_per_collect"]
    k[L.K_FIGHT_ROLLS] = rules["fight_rolls"]
    k[L.K_REWARD_DRAW] = rules["reward_draw"]
    k[L.K_GEN_SLOTS] = rules["general_slots"]
    k[L.K_RED_SLOTS] = rules["redstone_slots"]
    k[L.K_TO_WIN] = rules["buildings_to_win"]
    k[L.K_BUILD_PUSH] = rules["building_push"]
    k[L.K_MAX_TURNS] = readings["max_turns"]
    k[L.K_CHECK] = int(check)
    k[L.K_DISCARD_TO_POUCH] = int(readings["discard_to"] == "pouch")
    k[L.K_MOBS_REUSED] = int(readings["defeated_mobs"] == "reused")
    k[L.K_PANDA_PER_TURN] = int(readings["panda_scope"] == "turn")
    k[L.K_N_FIGHT_FACES] = len(comps.fight_faces)
    k[L.K_FIGHT_FACES : L.K_FIGHT_FACES + len(comps.fight_faces)] = comps.fight_faces
    k[L.K_N_ILL_FACES] = len(comps.illager_faces)
    k[L.K_ILL_FACES : L.K_ILL_FACES + len(comps.illager_faces)] = comps.illager_faces
    k[L.K_TOTAL : L.K_TOTAL + L.N_BLOCKS] = d["_totals"]
    k[L.K_POUCH0 : L.K_POUCH0 + L.N_BLOCKS] = d["_pouch"]
    for t, tile in enumerate(tiles):
        k[L.K_TILE_SYMBOL + t] = tile["_symbol"]
        k[L.K_TILE_BACK + t * L.N_BLOCKS : L.K_TILE_BACK + (t + 1) * L.N_BLOCKS] = tile["_back"]
    for i, (_, value) in enumerate(tokens):
        k[L.K_TOKEN_VALUE + i] = value
    blist = comps.buildings
    k[L.K_N_BUILDINGS] = len(blist)
    for b, building in enumerate(blist):
        base = L.K_BUILDING_COST + b * L.N_BLOCKS
        k[base : base + L.N_BLOCKS] = building["_cost"]
        k[L.K_BUILDING_LEVEL + b] = building["level"]
    k[L.K_N_CHOSEN] = len(chosen)
    for i, c in enumerate(chosen):
        k[L.K_CHOSEN + i] = c
    strength = comps.pet_strength
    k[L.K_WOLF_BONUS] = strength["wolf"]
    k[L.K_CAT_IGNORE] = strength["cat"]
    k[L.K_FOX_EXTRA] = strength["fox"]
    k[L.K_PANDA_IGNORE] = strength["panda"]
    k[L.K_HORSE_TILES] = strength["horse"]
    k[L.K_LLAMA_SLOTS] = strength["llama"]
    k[L.K_BUILD_SEVERAL] = int(readings["build"] == "several")
    k[L.K_CAT_DRAW] = int(readings["cat"] == "first-draw")
    k[L.K_FREE_NEEDED] = int(readings["free_lay"] == "needed")
    return k, kf_table(comps)
