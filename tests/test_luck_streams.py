"""Luck designs fix one chance source across a group of games (``bnb luck``).

The kernel options that do it (B&B ``OPT_FIX_SOURCES``/``OPT_FIX_GROUP``, HotV
``K_FIX_SOURCES``/``K_FIX_GROUP``) are 0 in every ordinary run; the pinned-row tests
(test_base_pinned.py, test_fm_determinism.py, the HotV pins) show those runs unchanged. Here:
a fixed source is the same in every game of a group and differs between groups, while every
other source still varies game by game.
"""

from __future__ import annotations

import numpy as np
import pytest

from bnb_sim.games.builders_biomes.engine import layout as BL
from bnb_sim.games.builders_biomes.engine import state as BS
from bnb_sim.games.builders_biomes.run_config import GameConfig


def _bnb_k(bits: int, group: int, players: int = 2, **options):
    config = GameConfig.create(players, ["random"], seed=4, **options)
    k = config.kernel_inputs[0].copy()
    k[BL.K_OPTS + BS.OPT_FIX_SOURCES] = bits
    k[BL.K_OPTS + BS.OPT_FIX_GROUP] = group
    return config, k


def _bnb_parts(k, master, game_index, players=2):
    """(cube, tiles, tokens, boards, rotation, combat stream, policy stream) of a new game."""
    from bnb_sim.games.builders_biomes.engine.play import new_game

    pub, hid, rng = new_game(k, master, game_index, players)
    cube = tuple(hid[BL.H_BLOCK : BL.H_BLOCK + 64])
    stacks = tuple(hid[BL.H_STACKS : BL.H_STACKS + 16 * BL.MAX_STACK_H])
    tokens = tuple(hid[BL.H_TOK_SLOT : BL.H_TOK_SLOT + 16])
    boards = tuple(pub[BL.P_BOARD_ID : BL.P_BOARD_ID + players])
    return {
        "cube": cube,
        "tiles": stacks,
        "tokens": tokens,
        "boards": boards,
        "seats": int(pub[BS.C_ROTATION]),
        "fights": tuple(rng[BL.RNG_COMBAT].tolist()),
        "policy": tuple(rng[BL.RNG_POLICY].tolist()),
    }


BNB_BITS = {"cube": 0, "tiles": 1, "tokens": 2, "boards": 3, "seats": 4, "fights": 6,
            "policy": 7}  # fmt: skip


def test_luck_fix_off_is_the_ordinary_game():
    """Group 0 (no fixing) and a mask of 0 give the game's own draws, part for part."""
    config, plain = _bnb_k(0, 0)
    _c, masked = _bnb_k(0, 5)
    for g in (0, 7):
        assert _bnb_parts(plain, config.master, g) == _bnb_parts(masked, config.master, g)


@pytest.mark.parametrize("source", sorted(BNB_BITS))
def test_luck_fixed_source_is_shared_by_a_group_and_only_it(source):
    config, k = _bnb_k(1 << BNB_BITS[source], 4, seating="random")
    parts = [_bnb_parts(k, config.master, g) for g in range(8)]  # two groups of 4
    first, second = parts[:4], parts[4:]
    assert all(p[source] == first[0][source] for p in first)
    assert all(p[source] == second[0][source] for p in second)
    if source != "seats":  # two players: 2 rotations, the groups may draw the same one
        assert first[0][source] != second[0][source]
    for other in BNB_BITS:  # the rest still varies inside the group
        if other not in (source, "seats", "boards"):  # few values: may repeat by chance
            assert len({p[other] for p in first}) == 4, other


def test_luck_fixed_rotated_seating_follows_the_group():
    """Under seating=rotate the seat source is the rotation: one per group of games."""
    config, k = _bnb_k(1 << BNB_BITS["seats"], 3, players=3, seating="rotate")
    rotations = [_bnb_parts(k, config.master, g, players=3)["seats"] for g in range(9)]
    assert rotations == [0, 0, 0, 1, 1, 1, 2, 2, 2]


def test_luck_fixed_market_in_farmers_market():
    from bnb_sim.games.builders_biomes.components import load_components
    from bnb_sim.games.builders_biomes.engine.play import new_game

    comps = load_components(None, expansion="farmers-market")
    config = GameConfig.create(3, ["random"], seed=2, components=comps)
    k = config.kernel_inputs[0].copy()
    k[BL.K_OPTS + BS.OPT_FIX_SOURCES] = 1 << BS.STREAM_MARKET
    k[BL.K_OPTS + BS.OPT_FIX_GROUP] = 3

    def market(g):
        pub, _hid, _rng = new_game(k, config.master, g, 3)
        return tuple(pub[BL.P_FM_MARKET : BL.P_FM_MARKET + BL.MAX_MARKET])

    def cube(g):
        return tuple(new_game(k, config.master, g, 3)[1][BL.H_BLOCK : BL.H_BLOCK + 64])

    assert market(0) == market(1) == market(2) != market(3)
    assert len({cube(g) for g in range(3)}) == 3


def _hotv_rng(bits: int, group: int, game_index: int):
    from bnb_sim.games.heroes_village import layout as L
    from bnb_sim.games.heroes_village.engine import setup_game
    from bnb_sim.games.heroes_village.runner import make_config, pet_codes

    config = make_config(_hotv_components(), 3, ["team"], None, seed=5)
    k = config.arrays()[0].copy()
    k[L.K_FIX_SOURCES] = bits
    k[L.K_FIX_GROUP] = group
    s = np.zeros(L.S_SIZE, np.int64)
    rng = np.zeros((L.N_STREAMS, 4), np.uint64)
    log = np.zeros((1, L.LOG_WIDTH), np.int64)
    setup_game(s, k, rng, pet_codes(config.teams[0]), config.master, game_index, 3, log)
    return s, rng


def _hotv_components():
    from bnb_sim.games.heroes_village.components import load_components

    return load_components()


def test_luck_hotv_fixed_stream_is_shared_by_a_group():
    from bnb_sim.games.heroes_village import layout as L

    for source, row in (("pouch", L.RNG_POUCH), ("dice", L.RNG_FIGHT),
                        ("illager", L.RNG_ILLAGERS)):  # fmt: skip
        bit = {"pouch": 1, "dice": 2, "illager": 3}[source]
        states = [_hotv_rng(1 << bit, 3, g)[1] for g in range(6)]
        assert all((st[row] == states[0][row]).all() for st in states[:3]), source
        assert not (states[3][row] == states[0][row]).all(), source
        assert len({tuple(st[L.RNG_SETUP]) for st in states[:3]}) == 3  # the set-up varies


def test_luck_hotv_fixed_setup_deals_the_same_stacks():
    from bnb_sim.games.heroes_village import layout as L

    board = [tuple(_hotv_rng(1 << 0, 2, g)[0][: L.S_SIZE]) for g in range(4)]
    assert board[0] == board[1] != board[2] == board[3]
    plain = [tuple(_hotv_rng(0, 2, g)[0]) for g in range(2)]
    assert plain[0] != plain[1]


def test_luck_hotv_policy_streams_fix_together_and_record_never():
    from bnb_sim.games.heroes_village import layout as L

    a, b = (_hotv_rng(1 << L.FIX_POLICY, 2, g)[1] for g in (0, 1))
    policy = slice(L.RNG_POLICY, L.RNG_RECORD)
    assert (a[policy] == b[policy]).all()
    assert not (a[L.RNG_RECORD] == b[L.RNG_RECORD]).all()
