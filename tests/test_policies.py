"""Built-in policies: legal decisions only, fights decided with the exact win probability,
weight specs, and the strength order heuristic > greedy > random."""

from __future__ import annotations

import math

import engine_helpers as H
import numpy as np
import pytest

from bnb_sim import combat_odds
from bnb_sim.errors import PolicyError
from bnb_sim.games.builders_biomes.batch import play_block
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.policies import onestep, onestep_layout
from bnb_sim.games.builders_biomes.policies.kinds import (
    GREEDY_PARAMS,
    HEURISTIC_DEFAULTS,
    HEURISTIC_WEIGHTS,
)
from bnb_sim.games.builders_biomes.policies.registry import parse_policies, parse_policy


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("policy", ["random", "greedy", "heuristic"])
def test_builtin_policies_only_make_legal_decisions(players, policy):
    # play_block raises PolicyError naming the game on the first illegal decision
    config = H.config(players, [policy], seed=50 + players)
    seats, games = play_block(config, 0, 1500)
    assert len(games) == 1500 and (games.round_c_turn == games.turns).all()
    beginner = H.config(players, [policy], seed=60 + players, variant="beginner")
    play_block(beginner, 0, 300)


def test_mixed_policies_only_make_legal_decisions():
    config = H.config(4, ["heuristic", "greedy", "random", "heuristic:board=2,weapon=0"], seed=3)
    seats, _ = play_block(config, 0, 1000)
    assert seats.policy.nunique() == 4


# ---- fights decided with the exact odds -----------------------------------------------------
# Piles that can occur in a game: the start tokens never leave a pile (only TNT does), and
# the policy tables cover exactly those piles.
START = {"wooden_sword": 1, "stone_sword": 1, "poisonous_potato": 3}
EXTRAS = [
    {},
    {"diamond_sword": 2, "iron_sword": 2},
    {"iron_sword": 2, "bow": 2},
    {"diamond_sword": 2, "tnt": 2},
    {"tnt": 2},
    {"diamond_sword": 2, "iron_sword": 3, "stone_sword": 2, "bow": 2, "tnt": 2},
]


def _pile(extra):
    pile = dict(START)
    for name, count in extra.items():
        pile[name] = pile.get(name, 0) + count
    return pile


def _spec(pile):
    return ",".join(f"{n}*{c}" for n, c in pile.items())


def _two_mobs(policy, pile, seed=1):
    game = H.new_game(2, [policy, "random"], seed=seed)
    zombie = H.tile(game, kind="hunger", species="zombie")  # 2 hearts, 3 XP
    enderman = H.tile(game, kind="hunger", species="enderman")  # 6 hearts, 6 XP
    H.put_on_top(game, 5, zombie)
    H.put_on_top(game, 6, enderman)
    H.set_pile(game, 0, pile)
    H.assert_consistent(game)
    return game, zombie, enderman


@pytest.mark.parametrize("policy", ["greedy", "heuristic"])
def test_policy_tables_hold_the_exact_win_probability(policy):
    from bnb_sim.games.builders_biomes.engine.static import ft_columns

    for extra in EXTRAS:
        pile = _pile(extra)
        game, _, _ = _two_mobs(policy, pile)
        k, ft = game._k, game.config.kernel_inputs[1]
        row = onestep.pile_row(game.observation(0), k)
        assert 0 <= row < ft.shape[0]
        cols = ft_columns(int(k[L.K_FT_HMAX]))
        for hearts in range(1, int(k[L.K_FT_HMAX]) + 1):
            odds = combat_odds(_spec(pile), hearts, components=game.config.components)
            assert ft[row, cols["p_win"] + hearts] == pytest.approx(odds.p_win, abs=1e-12)
            spent = ft[row, cols["e_tnt_spent"] + hearts]
            assert spent == pytest.approx(odds.expected_tnt_spent, abs=1e-12)


def test_both_rule_based_bots_read_the_pile_row_of_one_function():
    # the priority-list bots and the one-step bots index the odds table alike (no copy)
    from bnb_sim.games.builders_biomes.policies import priority

    assert priority.pile_row is onestep.pile_row


@pytest.mark.parametrize("policy", ["greedy", "heuristic"])
def test_policy_picks_the_mob_with_the_best_expected_prize(policy):
    weights = parse_policy(policy).weights()
    chosen = set()
    for extra in EXTRAS:
        pile = _pile(extra)
        game, zombie, enderman = _two_mobs(policy, pile)
        comps = game.config.components
        value = {}
        for stack, t in ((5, zombie), (6, enderman)):
            odds = combat_odds(_spec(pile), H.tile_attr(game, L.TILE_HEARTS, t), components=comps)
            prize = weights["xp"] * H.tile_attr(game, L.TILE_XP, t) + weights["hunger_mob"]
            value[stack] = odds.p_win * prize - weights["tnt"] * odds.expected_tnt_spent
        if abs(value[5] - value[6]) < 0.2:
            continue  # too close to call
        H.play(game, H.FIGHT)
        best = max(value, key=value.get)
        for _ in range(5):  # not a tie-break: the same every time
            assert game.policy_action() == best, (pile, value)
        chosen.add(best)
    assert chosen == {5, 6}  # each mob was the right choice for some pile


@pytest.mark.parametrize("policy", ["greedy", "heuristic"])
def test_policy_fights_a_sure_win(policy):
    game = H.new_game(2, [policy, "random"], seed=2)
    H.put_on_top(game, 5, H.tile(game, kind="hunger", species="zombie"))
    pile = _pile({"diamond_sword": 2, "iron_sword": 3, "stone_sword": 2})
    H.set_pile(game, 0, pile)
    assert combat_odds(_spec(pile), 2).p_win > 0.98
    for _ in range(5):
        assert game.policy_action() == H.FIGHT


@pytest.mark.parametrize("policy", ["greedy", "heuristic"])
def test_policy_avoids_a_hopeless_fight(policy):
    game = H.new_game(2, [policy, "random"], seed=3)
    H.put_on_top(game, 5, H.tile(game, kind="hunger", species="enderman"))  # start pile: p = 0
    assert combat_odds(_spec(START), 6).p_win == 0
    wood = H.tile(game, kind="building", material="wood", cost=4)
    H.put_on_top(game, 6, wood)  # a building the seat cannot pay yet: wood is worth taking
    H.set_material(game, H.pos(0, 0, 0), H.block(game, "wood"))
    assert H.FIGHT in game.legal_actions()
    for _ in range(20):
        assert game.policy_action() != H.FIGHT


# ---- weights ----------------------------------------------------------------------------
def test_weight_order_matches_the_engine_indices():
    names = list(HEURISTIC_WEIGHTS)
    for name in names:
        assert getattr(onestep_layout, f"W_{name.upper()}") == names.index(name)
    assert set(GREEDY_PARAMS) == set(names)


def test_heuristic_weights_inline_and_defaults():
    spec = parse_policy("heuristic:board=2,tnt=0.5")
    weights = spec.weights()
    assert weights["board"] == 2.0 and weights["tnt"] == 0.5
    defaults = dict(zip(HEURISTIC_WEIGHTS, HEURISTIC_DEFAULTS, strict=True))
    assert {k: v for k, v in weights.items() if k not in ("board", "tnt")} == {
        k: v for k, v in defaults.items() if k not in ("board", "tnt")
    }
    assert parse_policy("heuristic").weights() == defaults
    assert parse_policy("greedy").weights() == GREEDY_PARAMS
    assert spec.to_dict()["weights"]["board"] == 2.0


@pytest.mark.parametrize("table", [True, False])
def test_heuristic_weights_from_a_toml_file(tmp_path, table):
    path = tmp_path / "w.toml"
    body = "board = 3\nweapon = 0.25\n"
    path.write_text(("[weights]\n" + body) if table else body)
    weights = parse_policy(f"heuristic:{path}").weights()
    assert weights["board"] == 3.0 and weights["weapon"] == 0.25


@pytest.mark.parametrize(
    "spec, message",
    [
        ("heuristic:boardd=2", "unknown weight 'boardd'"),
        ("heuristic:board=abc", "'abc' is not a number"),
        ("heuristic:board=nan", "not a finite number"),
        ("heuristic:board", "is not NAME=VALUE"),
        ("greedy:board=1", "greedy takes no parameters"),
        ("random:x=1", "random takes no parameters"),
        ("alphazero", "unknown policy 'alphazero'"),
        ("", "non-empty"),
    ],
)
def test_bad_policy_specs_are_refused_with_the_reason(spec, message):
    with pytest.raises(PolicyError, match=message):
        parse_policy(spec)


def test_unknown_weight_in_a_toml_file(tmp_path):
    path = tmp_path / "w.toml"
    path.write_text("[weights]\nbored = 1\n")
    with pytest.raises(PolicyError, match="unknown weight 'bored'"):
        parse_policy(f"heuristic:{path}")
    with pytest.raises(PolicyError, match="cannot read"):
        parse_policy(f"heuristic:{tmp_path / 'missing.toml'}")


def test_too_many_policies_for_the_players():
    with pytest.raises(PolicyError, match="3 policies for 2 players"):
        parse_policies(["random", "greedy", "heuristic"], 2)
    assert [p.label for p in parse_policies(["random", "greedy"], 4)] == [
        "random",
        "greedy",
        "random",
        "greedy",
    ]


# ---- strength: paired seats, Wilson intervals ---------------------------------------------
def wilson(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def paired_score(a: str, b: str, n_setups: int, seed: int) -> tuple[float, int]:
    """Every set-up twice with the seats swapped; A's points (1 win, 1/2 shared, 0 loss)."""
    points = 0.0
    for order in ((a, b), (b, a)):
        config = H.config(2, list(order), seed=seed, seating="fixed")
        seats, games = play_block(config, 0, n_setups)
        mine = seats[seats.policy == a]
        shared = games.winners.to_numpy()[mine.game.to_numpy()] > 1
        won = mine.won.to_numpy()
        points += float(np.where(won & shared, 0.5, won.astype(float)).sum())
    return points, 2 * n_setups


@pytest.mark.parametrize(
    "stronger, weaker", [("heuristic", "greedy"), ("greedy", "random"), ("heuristic", "random")]
)
def test_stronger_policy_wins_more_than_half_with_95_percent_confidence(stronger, weaker):
    points, n = paired_score(stronger, weaker, 1000, seed=2024)
    low, high = wilson(points, n)
    print(f"{stronger} vs {weaker}: {points / n:.3f} [{low:.3f}, {high:.3f}] over {n} games")
    assert low > 0.5, f"{stronger} scored {points / n:.3f} [{low:.3f}, {high:.3f}]"
