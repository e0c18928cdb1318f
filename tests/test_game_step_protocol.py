"""Every registered game's step-by-step game satisfies one protocol
(:class:`bnb_sim.core.game_api.Game`), and ``bnb_sim.new_game`` reaches each through the
registry: game 0 of a batch equals game 0 played step by step, for every game."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pandas as pd
import pytest

import bnb_sim
from bnb_sim.core.game_api import GAME_METHODS, GAME_PROPERTIES, Game
from bnb_sim.errors import BnbError, SpecError
from bnb_sim.games import GAMES, get_game

# per game: the new_game arguments of a short game
ARGS = {
    "builders_biomes": {"players": 3, "policies": ["heuristic", "random", "greedy"], "log": True},
    "heroes_village": {"players": 3, "policies": ["team", "random"], "pets": "wolf,cat,fox"},
}


def _base_batch(seed: int, n: int):
    from bnb_sim.games.builders_biomes.batch import play_block
    from bnb_sim.games.builders_biomes.run_config import GameConfig

    args = ARGS["builders_biomes"]
    return play_block(GameConfig.create(args["players"], args["policies"], seed=seed), 0, n)


def _hotv_batch(seed: int, n: int):
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.runner import make_config, play_block

    args = ARGS["heroes_village"]
    config = make_config(load_components(), 3, args["policies"], args["pets"], seed=seed)
    return play_block(config, 0, n)


#: per game: ``(seats, games)`` of games 0..n-1 from the game's own batch runner
BATCH = {"builders_biomes": _base_batch, "heroes_village": _hotv_batch}


def test_every_game_with_a_step_api_has_settings_here():
    stepped = [name for name, spec in GAMES.items() if spec.hook("new_game") is not None]
    assert sorted(ARGS) == sorted(BATCH) == sorted(stepped)


@pytest.mark.parametrize("name", sorted(ARGS))
def test_the_game_satisfies_the_protocol(name):
    game = bnb_sim.new_game(game=name, seed=1, **ARGS[name])
    assert isinstance(game, Game)
    for member in GAME_PROPERTIES:
        assert isinstance(inspect.getattr_static(type(game), member), property), member
    for member in GAME_METHODS:
        want = inspect.signature(getattr(Game, member))
        have = inspect.signature(getattr(type(game), member))
        wanted = list(want.parameters.values())
        given = list(have.parameters.values())[: len(wanted)]
        assert [p.name for p in given] == [p.name for p in wanted], (member, have)
        assert [p.default for p in given] == [p.default for p in wanted], (member, have)
    assert isinstance(game.game_index, int) and game.history == []
    assert isinstance(game.n_players, int) and 0 <= game.current_seat < game.n_players


@pytest.mark.parametrize("name", sorted(ARGS))
def test_game_zero_of_a_batch_equals_game_zero_step_by_step(name):
    seed, n = 5, 3
    seats, games = BATCH[name](seed, n)
    for index in range(n):
        game = bnb_sim.new_game(game=name, seed=seed, game_index=index, **ARGS[name])
        while not game.is_over():
            legal = game.legal_actions()
            action = game.policy_action()
            assert action in legal
            assert isinstance(game.action_to_string(action), str)
            events = game.apply_action(action)
            assert all(isinstance(e, dict) and "text" in e for e in events)
        mine_seats, mine_games = game.result_frames()
        # values and dtypes; a categorical's categories may hold more in a batch of games
        for mine, batch in ((mine_seats, seats), (mine_games, games)):
            want = batch[batch["game"] == index].reset_index(drop=True)
            pd.testing.assert_frame_equal(mine, want, check_categorical=False)
        assert game.result() == mine_seats.to_dict("records")
        assert all("won" in row for row in game.result())
        assert game.events() and all(isinstance(line, str) for line in game.events())


@pytest.mark.parametrize("name", sorted(ARGS))
def test_clone_and_play_agree(name):
    game = bnb_sim.new_game(game=name, seed=2, **ARGS[name])
    for _ in range(5):
        game.apply_action(game.policy_action())
    other = game.clone().play()
    assert game.play().result() == other.result() and game.history == other.history


def test_new_game_without_a_game_is_the_base_game_as_before():
    from bnb_sim.games.builders_biomes.game import Game as BaseGame
    from bnb_sim.games.builders_biomes.game import new_game

    policies = ["heuristic", "random"]
    game = bnb_sim.new_game(seed=1, game_index=2, players=2, policies=policies).play()
    same = new_game(seed=1, game_index=2, players=2, policies=policies).play()
    positional = bnb_sim.new_game(1, 2, 2, policies).play()
    assert type(game) is BaseGame and bnb_sim.Game is BaseGame
    assert game.history == same.history == positional.history
    hooked = get_game("bnb").entry("new_game")(1, 2, 2, policies).play()  # the object's hook
    assert hooked.history == game.history


def test_unknown_games_and_base_game_events_without_a_log_are_one_line():
    with pytest.raises(SpecError, match="unknown game 'chess'"):
        bnb_sim.new_game(game="chess")
    with pytest.raises(BnbError, match=r"no event log: make it with new_game\(..., log=True\)"):
        bnb_sim.new_game(seed=1).events()


def test_base_game_events_are_the_lines_of_bnb_play(capsys):
    from bnb_sim.cli import main

    try:
        main(["play", "--players", "2", "--seed", "4", "--policy", "heuristic"])
    except SystemExit as exc:
        assert not exc.code
    printed = capsys.readouterr().out.splitlines()
    game = bnb_sim.new_game(
        seed=4, players=2, policies=["heuristic"], log=True, readings=None
    ).play()
    lines = game.events()
    start = printed.index(lines[0])
    assert printed[start : start + len(lines)] == lines


def test_the_protocol_imports_no_game_and_no_numba():
    code = (
        "import sys, bnb_sim.core.game_api, bnb_sim.core.playthrough; "
        "bad = [m for m in sys.modules if m.startswith('bnb_sim.games') "
        "or m in ('numba', 'pandas', 'click')]; print(bad)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stderr
