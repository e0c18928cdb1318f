"""The bots' placement table equals the board value it stands for (R-SCORE-2, R-END-1)."""

from __future__ import annotations

import numpy as np

import bnb_sim
from bnb_sim.games.builders_biomes.components.arrays import TILE_BONUS_MOB
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine.state import C_ROUNDS_DONE
from bnb_sim.games.builders_biomes.policies import onestep_layout as OL
from bnb_sim.games.builders_biomes.policies import onestep_values as O


def _group(k, mask):
    return k[L.K_GROUP + (mask & 0x1FF)]  # standard rules: the largest connected group


def board_value(pub, k, seat, w, space=0, tile=-1):
    """Reference: rounds still to come at their best choice now, plus bonus mobs' end XP, as
    if ``tile`` stood on ``space`` (plain Python, straight from the rules)."""

    def mask_of(c, v):
        mask = int(pub[L.mask_at(seat, c, v)])
        if tile < 0:
            return mask
        bit = 1 << space
        shown = int(k[L.K_TILE + (L.TILE_BIOME + c) * L.MAX_TILES + tile])
        return mask | bit if v == shown else mask & ~bit

    total = 0.0
    for r in range(3):
        if (pub[C_ROUNDS_DONE] >> r) & 1:
            continue
        card = [k[L.K_SCORE_CARD + r * 4 + v] for v in range(4)]
        total += w[OL.W_BOARD] * max(_group(k, mask_of(r, v)) * card[v] for v in range(4))
    for j in range(pub[L.P_N_HELD + seat]):
        held = pub[L.P_HELD + seat * L.MAX_HELD + j]
        if L.tile_attr(k, L.TILE_KIND, held) != TILE_BONUS_MOB:
            continue
        c = L.tile_attr(k, L.TILE_BONUS_CHAR, held)
        v = L.tile_attr(k, L.TILE_BONUS_VALUE, held)
        spaces = bin(mask_of(c, v)).count("1")
        total += w[OL.W_BONUS_MOB] * L.tile_attr(k, L.TILE_BONUS_XP, held) * spaces
    return total


def test_placement_table_is_exactly_the_change_of_board_value():
    game = bnb_sim.new_game(seed=3, game_index=5, players=4, policies=["heuristic"])
    k, w = game._k, game._params[0]
    n_buildings = int((game.config.components.arrays.tile_kind == 0).sum())
    checked = 0
    step = 0
    while not game.is_over():
        game.apply_action(game.policy_action())
        step += 1
        if step % 40:
            continue
        pub = game._pub
        for seat in range(4):
            mem = np.zeros(1024)
            O.fill_placement_table(pub, k, seat, w, mem)
            base = board_value(pub, k, seat, w)
            for tile in range(0, n_buildings, 3):
                chars = [L.tile_char(k, c, tile) for c in range(3)]
                for space in range(9):
                    entry = OL.MEM_TABLE + space * 12
                    got = sum(mem[entry + 4 * c + chars[c]] for c in range(3))
                    want = board_value(pub, k, seat, w, space, tile) - base
                    assert abs(got - want) < 1e-9, (step, seat, tile, space)
                    checked += 1
    assert checked > 1000
