"""The invariant checker: it holds over many random games, and each invariant can fail."""

from __future__ import annotations

import engine_helpers as H
import pytest

from bnb_sim.errors import PolicyError
from bnb_sim.games.builders_biomes.batch import GameFailed, play_block
from bnb_sim.games.builders_biomes.engine import invariants as I
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import state as S

BLOCKS = [
    (2, "standard", 3000),
    (3, "standard", 2500),
    (4, "standard", 2500),
    (2, "beginner", 1000),
    (4, "beginner", 1000),
]


def test_invariants_hold_in_ten_thousand_random_games():
    total = 0
    for players, variant, n in BLOCKS:
        config = H.config(players, ["random"], seed=40 + players, variant=variant, check=True)
        seats, games = play_block(config, 0, n)  # raises GameFailed on a broken invariant
        assert len(games) == n and len(seats) == n * players
        assert (games.round_c_turn > 0).all()  # every game reached its end
        total += n
    assert total >= 10_000


def test_invariants_hold_for_mixed_policies():
    config = H.config(3, ["heuristic", "greedy", "random"], seed=41, check=True)
    seats, _ = play_block(config, 0, 500)
    assert set(seats.policy) == {"heuristic", "greedy", "random"}


def _midgame(seed=1):
    game = H.new_game(3, ["random"], seed=seed)
    for _ in range(60):
        game.apply_action(game.policy_action())
    H.assert_consistent(game)
    return game


def _hidden_position(game):
    vis = game._pub[L.P_VIS_BLOCK : L.P_VIS_BLOCK + 64]
    return next(p for p in range(63, -1, -1) if vis[p] == -2)


def _first_face_down_stack(game):
    return next(
        s for s in range(16) if game._pub[L.P_TOP_UP + s] < 0 and game._pub[L.P_STACK_H + s] > 0
    )


def _corrupt_blocks(game):
    game._pub[L.supply_at(0, 0)] += 1  # a block from nowhere


def _corrupt_cube_bits(game):
    game._pub[L.P_OCC] ^= 1  # position 0 (checked first) flips between block and hole


def _corrupt_visible(game):
    p = _hidden_position(game)
    game._pub[L.P_VIS_BLOCK + p] = game._hid[L.H_BLOCK + p]  # a hidden block is shown


def _corrupt_tiles(game):
    s = _first_face_down_stack(game)
    game._pub[L.P_STACK_H + s] -= 1  # a tile vanishes


def _corrupt_face_up(game):
    s = _first_face_down_stack(game)
    game._pub[S.C_UP_MOBS] |= 1 << s


def _corrupt_tokens(game):
    potato = H.weapon(game, "poisonous_potato")
    game._hid[L.pile_at(1, potato)] += 1


def _corrupt_token_mask(game):
    slot = next(s for s in range(16) if game._hid[L.H_TOK_SLOT + s] >= 0)
    game._pub[S.C_TOKENS] &= ~(1 << slot)


def _corrupt_xp(game):
    game._pub[L.xp_at(2, S.XP_HOES)] += 7
    H.assert_consistent(game)  # the checker remembers this XP
    game._pub[L.xp_at(2, S.XP_HOES)] -= 3


def _corrupt_rounds(game):
    game._pub[S.C_ROUNDS_DONE] = 2  # round B scored before round A


def _corrupt_board(game):
    empty = next(sp for sp in range(9) if game._pub[L.P_BOARD_TOP + 9 + sp] < 0)
    game._pub[L.mask_at(1, 1, 0)] |= 1 << empty  # a material on a space without a building


def _corrupt_hunger(game):
    game._pub[L.P_N_HUNGER + 0] += 1


def _corrupt_negative(game):
    old = int(game._pub[L.supply_at(0, 1)])
    game._pub[L.supply_at(0, 1)] = -1  # totals still add up
    game._pub[S.C_SPENT + 1] += old + 1


CORRUPTIONS = [
    (I.INV_BLOCKS, _corrupt_blocks),
    (I.INV_CUBE_BITS, _corrupt_cube_bits),
    (I.INV_VISIBLE, _corrupt_visible),
    (I.INV_TILES, _corrupt_tiles),
    (I.INV_FACE_UP, _corrupt_face_up),
    (I.INV_TOKENS, _corrupt_tokens),
    (I.INV_TOKEN_MASK, _corrupt_token_mask),
    (I.INV_XP_DECREASED, _corrupt_xp),
    (I.INV_ROUNDS, _corrupt_rounds),
    (I.INV_BOARD, _corrupt_board),
    (I.INV_HUNGER, _corrupt_hunger),
    (I.INV_NEGATIVE, _corrupt_negative),
]


def _fm_midgame(seed=1):
    """A Farmer's Market game 60 decisions in (R-FM-*), consistent."""
    import bnb_sim

    game = bnb_sim.new_game(seed, 0, 3, ["random"], expansion="farmers-market")
    for _ in range(60):
        game.apply_action(game.policy_action())
    H.assert_consistent(game)
    return game


def _corrupt_vegetables(game):
    game._pub[L.P_FM_SUPPLY] += 1  # a vegetable from nowhere


def _corrupt_items(game):
    slots = [int(game._hid[L.H_FM_MARKET + s]) for s in range(L.MAX_MARKET)]
    owner_item = next(i for i in slots if i >= 0)  # an item on the marketplace...
    game._pub[L.P_FM_OWNED + 1] |= 1 << owner_item  # ...owned by a player too
    cost = int(game._k[L.K_FM_ITEM + L.FM_COST * L.MAX_ITEMS + owner_item])
    game._pub[L.P_FM_SPENT + 1] += cost


def _corrupt_payment(game):
    game._pub[L.P_FM_SPENT + 0] += 1  # paid more than the items cost


def _corrupt_phase(game):
    # R-FM-5: the reveal-4 item's decision with no offer open (and, likely, no such item)
    game._pub[S.C_PHASE] = S.PH_REVEAL_FOUR
    game._pub[S.C_FM_REVEAL_OFFER] = 0


FM_CORRUPTIONS = [
    (I.INV_VEGETABLES, _corrupt_vegetables),
    (I.INV_ITEMS, _corrupt_items),
    (I.INV_PAYMENT, _corrupt_payment),
    (I.INV_PHASE, _corrupt_phase),
]


def test_an_expansion_phase_in_a_base_game_is_detected():
    game = _midgame()
    game._pub[S.C_PHASE] = S.PH_BED  # the bed's decision without the expansion
    assert I.check_invariants(game._pub, game._hid, game._k) == I.INV_PHASE


def test_every_invariant_has_a_corruption_test():
    codes = [code for code, _ in CORRUPTIONS + FM_CORRUPTIONS]
    assert sorted(codes) == sorted(I.INVARIANT_MESSAGES)


@pytest.mark.parametrize(
    "code, corrupt", FM_CORRUPTIONS, ids=[f.__name__ for _, f in FM_CORRUPTIONS]
)
def test_corrupted_farmers_market_state_is_detected(code, corrupt):
    # R-FM-3 (vegetables), R-FM-8 (items in one place), R-FM-4 (paid in full)
    game = _fm_midgame()
    corrupt(game)
    assert I.check_invariants(game._pub, game._hid, game._k) == code


@pytest.mark.parametrize("code, corrupt", CORRUPTIONS, ids=[f.__name__ for _, f in CORRUPTIONS])
def test_corrupted_state_is_detected(code, corrupt):
    game = _midgame()
    corrupt(game)
    assert I.check_invariants(game._pub, game._hid, game._k) == code


def test_game_with_check_reports_a_broken_invariant():
    game = H.new_game(2, ["random"], seed=3, game_index=17, check=True)
    game.apply_action(game.policy_action())
    game._pub[L.supply_at(1, 4)] += 1
    with pytest.raises(GameFailed, match="game 17: invariant broken: block conservation"):
        game.apply_action(game.policy_action())


def test_turn_bound_names_the_game():
    config = H.config(2, ["random"], seed=4, max_turns=5)
    with pytest.raises(GameFailed, match=r"game 7 did not end within 5 turns"):
        play_block(config, 7, 3)
    game = H.new_game(2, ["random"], seed=4, game_index=9, max_turns=5)
    with pytest.raises(GameFailed, match=r"game 9 did not end within 5 turns"):
        game.play()
    assert issubclass(GameFailed, Exception) and not issubclass(GameFailed, PolicyError)
