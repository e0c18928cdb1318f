"""The OpenSpiel-style Game API: identical to the batch, clear errors, no hidden information
in observations."""

from __future__ import annotations

import engine_helpers as H
import numpy as np
import pandas as pd
import pytest

from bnb_sim.errors import ArgumentTypeError, BnbError
from bnb_sim.games.builders_biomes.batch import play_block
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import state as S
from bnb_sim.games.builders_biomes.game import Game


@pytest.mark.parametrize(
    "players, policies, seating, variant",
    [
        (3, ["heuristic", "greedy", "random"], "rotate", "standard"),
        (2, ["greedy", "heuristic"], "random", "beginner"),
        (4, ["random", "heuristic"], "fixed", "standard"),
    ],
)
def test_game_played_step_by_step_equals_the_batch(players, policies, seating, variant):
    config = H.config(players, policies, seed=77, seating=seating, variant=variant)
    start, n = 5, 4
    seats, _ = play_block(config, start, n)
    for i in range(start, start + n):
        game = Game(config, i)
        while not game.is_over():
            game.legal_actions()  # asking does not consume anything
            game.observation(0)
            game.apply_action(game.policy_action())
        mine = pd.DataFrame(game.result())
        batch = seats[seats.game == i].reset_index(drop=True)
        assert list(mine.columns) == list(batch.columns)
        for column in batch.columns:
            assert mine[column].astype(str).tolist() == batch[column].astype(str).tolist(), (
                i,
                column,
            )


def test_result_as_frame_equals_the_rows_of_simulate():
    """``result(as_frame=True)`` is the DataFrame ``simulate`` gives for the same game:
    columns, dtypes (categories included) and values."""
    from bnb_sim import new_game, simulate

    policies = ["heuristic", "greedy", "random"]
    seats = simulate(6, 3, policies, seed=12)
    for index in (0, 4):
        game = new_game(seed=12, game_index=index, players=3, policies=policies).play()
        frame = game.result(as_frame=True)
        want = seats[seats["game"] == index].reset_index(drop=True)
        pd.testing.assert_frame_equal(frame, want, check_categorical=True)
        assert frame.to_dict("records") == game.result()
    with pytest.raises(ArgumentTypeError, match="as_frame"):
        game.result(as_frame="yes")


def test_xp_after_rounds_a_and_b_are_the_totals_when_each_round_ends():
    """total_xp_after_a/b hold each seat's XP right after every player scored round A / B
    (R-SCORE-2), here read off a game played step by step."""
    from bnb_sim.games.builders_biomes.engine.state import C_ROUNDS_DONE

    for index in range(3):
        game = H.new_game(3, ["heuristic", "greedy", "random"], seed=21, game_index=index)
        seen = {}
        while not game.is_over():
            game.apply_action(game.policy_action())
            done = int(game._pub[C_ROUNDS_DONE])
            for rnd in (0, 1):
                if done >> rnd & 1 and rnd not in seen:
                    seen[rnd] = game.xp()
        frame = game.result(as_frame=True)
        assert frame["total_xp_after_a"].tolist() == seen[0]
        assert frame["total_xp_after_b"].tolist() == seen[1]
        assert (frame["total_xp_after_a"] >= frame["xp_round_a"]).all()
        assert (frame["xp"] >= frame["total_xp_after_b"]).all()


def test_new_game_and_play_match_the_batch_xp_and_ranks():
    game = H.new_game(2, ["heuristic", "random"], seed=5, game_index=3).play()
    seats, _ = play_block(H.config(2, ["heuristic", "random"], seed=5), 3, 1)
    assert game.xp() == seats.xp.tolist()
    assert [r["rank"] for r in game.result()] == seats["rank"].tolist()


def test_policy_action_replays_the_same_decisions():
    a = H.new_game(2, ["heuristic", "random"], seed=6, game_index=2)
    b = H.new_game(2, ["heuristic", "random"], seed=6, game_index=2)
    trace_a = []
    while not a.is_over():
        trace_a.append(a.policy_action())
        a.apply_action(trace_a[-1])
    for action in trace_a:  # the same actions applied by hand give the same game
        b.apply_action(action)
    assert b.is_over() and a.xp() == b.xp() and a.history == b.history


def test_illegal_and_malformed_actions_give_clear_errors():
    game = H.new_game(2, seed=7)
    with pytest.raises(BnbError, match=r"action 64 is not legal in phase 'turn' \(legal: \["):
        game.apply_action(S.PASS)
    with pytest.raises(BnbError, match="not legal"):
        game.apply_action(99)
    with pytest.raises(BnbError, match="not legal"):
        game.apply_action(-1)
    with pytest.raises(BnbError, match="an action is an integer"):
        game.apply_action(1.0)
    with pytest.raises(BnbError, match="an action is an integer"):
        game.apply_action(True)
    with pytest.raises(BnbError, match="not over"):
        game.result()
    with pytest.raises(BnbError, match="game index"):
        Game(game.config, -1)
    game.play()
    with pytest.raises(BnbError, match="over"):
        game.policy_action()
    assert game.legal_actions() == [] and not game.legal_action_mask().any()


def test_current_seat_phase_and_players():
    game = H.new_game(3, ["heuristic", "greedy", "random"], seed=8, game_index=4)
    assert game.n_players == 3 and game.phase == "turn" and game.current_seat == 0
    assert game.player_of_seat(0) == 4 % 3  # rotate seating
    assert game.policy_of_seat(0).label == ["heuristic", "greedy", "random"][4 % 3]


# ---- observations hide what the seat cannot see ----------------------------------------------
def _scramble_hidden(game, seat, rng):
    """Change everything ``seat`` cannot see: hidden block materials (kept per type), the
    face-down tiles (keeping face-up tops), the tokens on the table, other seats' piles."""
    hid = game._hid
    pub = game._pub
    hidden = [p for p in range(64) if pub[L.P_VIS_BLOCK + p] == -2]
    hid[[L.H_BLOCK + p for p in hidden]] = rng.permutation(hid[[L.H_BLOCK + p for p in hidden]])
    face_down = []
    for s in range(16):
        h = int(pub[L.P_STACK_H + s])
        top_known = pub[L.P_TOP_UP + s] >= 0
        face_down += [(s, j) for j in range(h - (1 if top_known else 0))]
    ids = [L.H_STACKS + s * L.MAX_STACK_H + j for s, j in face_down]
    hid[ids] = rng.permutation(hid[ids])
    on_table = [L.H_TOK_SLOT + s for s in range(16) if hid[L.H_TOK_SLOT + s] >= 0]
    hid[on_table] = rng.permutation(hid[on_table])
    others = [s for s in range(game.n_players) if s != seat]
    if len(others) >= 2:  # swap two other seats' piles (their contents are theirs alone)
        a, b = (L.pile_at(others[0], 0), L.pile_at(others[1], 0))
        n = L.MAX_TOKEN_TYPES
        hid[a : a + n], hid[b : b + n] = hid[b : b + n].copy(), hid[a : a + n].copy()


def test_observation_does_not_depend_on_hidden_information():
    rng = np.random.default_rng(3)
    for g in range(3):
        game = H.new_game(3, ["random", "heuristic", "greedy"], seed=9, game_index=g)
        step = 0
        while not game.is_over():
            if step % 7 == 0:
                seat = game.current_seat
                obs = game.observation(seat)
                truth = game.reveal()
                saved = game._hid.copy()
                _scramble_hidden(game, seat, rng)
                assert np.array_equal(game.observation(seat), obs), (g, step)
                game._hid[:] = saved
                # spot checks against the hidden state
                up = obs[L.P_TOP_UP : L.P_TOP_UP + 16]
                for s in range(16):
                    h = int(obs[L.P_STACK_H + s])
                    if up[s] < 0 and h > 0:
                        assert truth["stacks"][s, h - 1] not in up
                vis = obs[L.P_VIS_BLOCK : L.P_VIS_BLOCK + 64]
                blocks = truth["blocks"].reshape(64)
                assert ((vis == blocks) | (vis == -2)).all()
                own = obs[L.P_OWN_PILE : L.P_OWN_PILE + truth["piles"].shape[1]]
                assert (own == truth["piles"][seat]).all()
            game.apply_action(game.policy_action())
            step += 1


def test_observation_of_two_seats_differs_only_in_the_own_pile():
    game = H.new_game(2, ["random"], seed=10)
    H.set_pile(game, 0, {"stone_sword": 1, "wooden_sword": 1, "diamond_sword": 2})
    a, b = game.observation(0), game.observation(1)
    differ = np.flatnonzero(a != b)
    assert differ.size > 0
    assert ((differ >= L.P_OWN_PILE) & (differ < L.P_OWN_PILE + L.MAX_TOKEN_TYPES)).all()
    assert game.observation().shape == (L.P_SIZE,)


def test_reveal_shows_the_hidden_state():
    game = H.new_game(3, seed=11)
    hidden = game.reveal()
    assert hidden["blocks"].shape == (4, 4, 4)
    assert hidden["stacks"].shape == (16, L.MAX_STACK_H)
    assert hidden["tokens"].shape == (16,)
    assert hidden["piles"].shape[0] == 3
