"""Python API niceties: readable reprs (no dataclass dumps of long floats or frames), the
Game's ``str``, ``clone`` and ``action_to_string``."""

from __future__ import annotations

import engine_helpers as H
import pandas as pd

from bnb_sim.analysis.stats import Rate


def test_game_repr_str_and_action_names():
    game = H.new_game(2, ["heuristic", "random"], seed=4, game_index=1)
    text = repr(game)
    assert text.startswith("<Game 1 of seed 4: 2 players (heuristic, random); 0 decisions")
    assert "to act" in text and "XP [0, 0]" in text
    shown = str(game)
    assert "seat 0" in shown and "seat 1" in shown and "legal actions: " in shown
    for action in game.legal_actions():
        assert game.action_to_string(action) in shown
    game.play()
    assert "over" in repr(game) and "won" in str(game)


def test_clone_goes_on_alike_and_leaves_the_original_alone():
    game = H.new_game(3, ["heuristic", "greedy", "random"], seed=9, game_index=2)
    for _ in range(25):
        game.apply_action(game.policy_action())
    before = (game._pub.copy(), game._rng.copy(), list(game.history))
    twin = game.clone()
    twin.play()
    assert (game._pub == before[0]).all() and (game._rng == before[1]).all()
    assert game.history == before[2]
    game.play()
    assert pd.DataFrame(game.result()).equals(pd.DataFrame(twin.result()))
    assert game.history == twin.history


def test_rate_and_combat_odds_reprs_are_short():
    rate = Rate.of(503, 1000)
    assert repr(rate) == f"Rate({rate})" and "n=1,000" in repr(rate)
    from bnb_sim.games.builders_biomes.odds import combat_odds

    odds = combat_odds("iron_sword*2,bow", 5)
    text = repr(odds)
    assert text.startswith("CombatOdds(iron_sword*2, bow vs 5 hearts") and "win " in text
    assert len(text) < 200


def test_result_objects_have_one_line_reprs():
    from bnb_sim.runner.experiments import run_tournament

    result = run_tournament(["random", "greedy"], 2, 4, seed=1, threads=1, n_boot=20)
    text = repr(result)
    assert text.startswith("<TournamentResult random, greedy: 2 players") and "Elo" in text
    assert "\n" not in text and "DataFrame" not in text
