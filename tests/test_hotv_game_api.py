"""Heroes of the Village one decision at a time (``bnb_sim.new_game(game="hotv")``): the same
games as the batch and ``bnb simulate --game hotv``, the same event text as ``bnb play``,
clear errors (R-HV-1 .. R-HV-11 through the engine's own kernels)."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from test_hotv_plugins import entry_points  # noqa: F401 (a fixture)

import bnb_sim
from bnb_sim.errors import ArgumentTypeError, BnbError, PolicyError, SpecError
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village.components import load_components
from bnb_sim.games.heroes_village.game import HotvGame
from bnb_sim.games.heroes_village.runner import make_config, play_block

SETTINGS = [
    dict(players=2, policies=["team"], pets=None),
    dict(players=3, policies=["random", "team"], pets="cat,fox,panda", difficulty="easy"),
    dict(players=4, policies=["team"], pets="horse,llama,wolf,none", buildings="level:3,3,3"),
]


def _main(main, args) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def _config(seed, players, policies, pets, **options):
    return make_config(load_components(), players, policies, pets, seed=seed, **options)


@pytest.mark.parametrize("setting", SETTINGS)
def test_games_played_step_by_step_equal_the_batch(setting):
    """Both tables' rows of games 0..4 equal a batch's (columns, dtypes, values)."""
    seed, n = 21, 5
    seats, games = play_block(_config(seed, **setting), 0, n)
    pets = setting["pets"]
    options = {k: v for k, v in setting.items() if k != "pets"}
    for index in range(n):
        game = bnb_sim.new_game(game="hotv", seed=seed, game_index=index, pets=pets, **options)
        while not game.is_over():
            game.legal_actions()  # asking does not consume anything
            game.observation()
            game.apply_action(game.policy_action())
        mine_seats, mine_games = game.result_frames()
        want_seats = seats[seats["game"] == index].reset_index(drop=True)
        want_games = games[games["game"] == index].reset_index(drop=True)
        pd.testing.assert_frame_equal(mine_seats, want_seats, check_categorical=False)
        pd.testing.assert_frame_equal(mine_games, want_games, check_categorical=False)
        assert game.result() == mine_seats.to_dict("records")
        assert game.result(as_frame=True).equals(mine_seats)


def test_game_zero_equals_what_bnb_simulate_writes(tmp_path, capsys):
    """Game 0 (and 3) of ``bnb simulate --game hotv`` with the same seed, players, policies
    and pets: the rows on disk equal the step API's."""
    from bnb_sim.cli import main
    from bnb_sim.runner.storage import RUN_COLUMNS, load_run

    out = tmp_path / "run"
    args = [
        "simulate",
        "--game",
        "hotv",
        "--games",
        "4",
        "--players",
        "3",
        "--seed",
        "9",
        "--policy",
        "team",
        "--policy",
        "random",
        "--pets",
        "wolf,panda,fox",
        "-o",
        str(out),
    ]
    assert _main(main, args) == 0, capsys.readouterr()
    seats, games, _ = load_run(out)
    for index in (0, 3):
        game = bnb_sim.new_game(
            game="hotv",
            seed=9,
            game_index=index,
            players=3,
            policies=["team", "random"],
            pets=["wolf", "panda", "fox"],
        ).play()
        mine_seats, mine_games = game.result_frames()
        for want, mine in ((seats, mine_seats), (games, mine_games)):
            want = want[want["game"] == index].reset_index(drop=True)
            assert list(want.columns) == list(mine.columns) + list(RUN_COLUMNS)
            assert (want["seed"] == 9).all()
            want = want[list(mine.columns)]
            for column in want.columns:
                assert want[column].astype(str).tolist() == mine[column].astype(str).tolist(), (
                    index,
                    column,
                )


def test_events_are_the_lines_of_bnb_play(capsys):
    from bnb_sim.cli import main

    _main(
        main,
        [
            "play",
            "--game",
            "hotv",
            "--players",
            "4",
            "--seed",
            "5",
            "--game-index",
            "2",
            "--pets",
            "horse,fox,cat,llama",
        ],
    )
    printed = capsys.readouterr().out.splitlines()
    game = bnb_sim.new_game(
        game="hotv", seed=5, game_index=2, players=4, pets="horse,fox,cat,llama"
    ).play()
    assert printed[1:-1] == game.events()
    assert game.events()[0].startswith("Building 1:")
    assert game.events()[-1].startswith("The players")


def test_random_legal_play_keeps_the_invariants_and_ends():
    """Any legal decisions (not only the bots') keep the state valid (check=True tests the
    invariants after every decision) and end the game: won or lost (R-HV-1)."""
    rng = random.Random(3)
    outcomes = set()
    for index in range(12):
        game = bnb_sim.new_game(
            game="hotv", seed=2, game_index=index, players=2 + index % 3, pets=None, check=True
        )
        while not game.is_over():
            legal = game.legal_actions()
            assert legal and all(game.action_to_string(a) for a in legal)
            assert len({game.action_to_string(a) for a in legal}) == len(legal)
            mask = game.legal_action_mask()
            assert mask.dtype == np.bool_ and mask.shape == (L.N_ACTIONS,)
            assert np.flatnonzero(mask).tolist() == legal
            game.apply_action(rng.choice(legal))
        assert game.legal_actions() == [] and not game.legal_action_mask().any()
        outcomes.add(bool(game.result()[0]["won"]))
    assert outcomes == {True, False}


def test_clone_goes_on_exactly_alike():
    game = bnb_sim.new_game(game="hotv", seed=8, players=3, policies=["team", "random"])
    for _ in range(15):
        game.apply_action(game.policy_action())
    copy = game.clone()
    first = game.play()
    second = copy.play()
    assert first.history == second.history and first.events() == second.events()
    assert first.result() == second.result()
    before = game.clone()
    assert before.history == game.history  # a finished game clones too


def test_str_and_repr_say_who_decides_what():
    game = bnb_sim.new_game(game="hotv", seed=3, players=2, pets="wolf,cat")
    text = str(game)
    assert "seat 0 to choose an action" in text and "legal actions: 0: explore" in text
    assert "Illager on space 9" in text and "pouch:" in text
    assert repr(game).startswith("<HotvGame 0 of seed 3: 2 players (team, team; pets wolf, cat)")
    game.play()
    assert "game over: the players" in str(game) and "over>" in repr(game)


def test_phases_of_an_action_s_optional_rest():
    """A fight waits for roll-again-or-stop (R-HV-6): the step API shows that phase with
    its two decisions and their words."""
    for index in range(40):
        game = bnb_sim.new_game(game="hotv", seed=1, game_index=index, players=2)
        while not game.is_over() and game.phase != "fight":
            game.apply_action(game.policy_action())
        if game.phase == "fight":
            break
    assert game.phase == "fight", "no game of 40 had a fight with a roll left"
    words = [game.action_to_string(a) for a in game.legal_actions()]
    assert len(words) == 2 and words[0].startswith("roll the Fight die again")
    assert words[1] == "stop the fight (the mob stays)"
    events = game.apply_action(L.A_STOP)
    assert events[0]["event"] == "fight_stop" and "stops the fight" in events[0]["text"]


def test_errors_are_one_clear_line():
    game = bnb_sim.new_game(game="hotv", seed=1, players=2)
    with pytest.raises(BnbError, match=r"action 50 is not legal in phase 'action' \(legal"):
        game.apply_action(50)
    with pytest.raises(BnbError, match="an action is an integer"):
        game.apply_action("explore")
    with pytest.raises(BnbError, match="not over yet"):
        game.result()
    with pytest.raises(ArgumentTypeError, match="as_frame"):
        game.play().result(as_frame="yes")
    with pytest.raises(BnbError, match="the game is over"):
        game.apply_action(0)
    with pytest.raises(BnbError, match="the game is over"):
        game.policy_action()
    with pytest.raises(SpecError, match="one pet team"):
        bnb_sim.new_game(game="hotv", pets="all")
    with pytest.raises(SpecError, match="2 pets for 3 players"):
        bnb_sim.new_game(game="hotv", players=3, pets=["wolf", "cat"])
    with pytest.raises(ArgumentTypeError, match="pets must be pet names"):
        bnb_sim.new_game(game="hotv", pets=[1, 2])
    with pytest.raises(SpecError, match="takes 2 to 4 players"):
        bnb_sim.new_game(game="hotv", players=1)
    with pytest.raises(BnbError, match="players"):
        bnb_sim.new_game(game="hotv", players=9)
    with pytest.raises(ArgumentTypeError, match="readings must be a dict"):
        bnb_sim.new_game(game="hotv", readings=["cat=first-draw"])
    with pytest.raises(BnbError, match="reading"):
        bnb_sim.new_game(game="hotv", readings={"nonsense": "x"})
    with pytest.raises(BnbError, match="unknown policy"):
        bnb_sim.new_game(game="hotv", policies=["nobody"])
    with pytest.raises(BnbError, match="seed"):
        bnb_sim.new_game(game="hotv", seed=-1)
    with pytest.raises(BnbError, match="no event log"):
        bnb_sim.new_game(game="hotv", log=False).events()
    with pytest.raises(ArgumentTypeError, match="HotvConfig"):
        HotvGame("config", 0)


def test_options_reach_the_game():
    """Readings, difficulty and buildings change the set-up as on the command line."""
    easy = bnb_sim.new_game(game="hotv", seed=1, players=2, difficulty="easy")
    assert "Illager on space 11" in str(easy)
    hard = bnb_sim.new_game(game="hotv", seed=1, players=2, buildings="level:3,3,3")
    assert sum("level 3" in line for line in hard.events()[:3]) == 3
    read = bnb_sim.new_game(game="hotv", seed=1, players=2, readings={"cat": "first-draw"})
    assert read.config.components.readings["cat"] == "first-draw"
    quiet = bnb_sim.new_game(game="hotv", seed=1, players=2, log=False).play()
    loud = bnb_sim.new_game(game="hotv", seed=1, players=2).play()
    assert quiet.result() == loud.result() and quiet.log == []


def test_a_plugin_plays_step_by_step_as_in_the_batch(entry_points):  # noqa: F811
    seats, _ = play_block(_config(7, 3, ["village", "team"], "wolf,cat,fox"), 0, 3)
    for index in range(3):
        game = bnb_sim.new_game(
            game="hotv",
            seed=7,
            game_index=index,
            players=3,
            policies=["village", "team"],
            pets="wolf,cat,fox",
        ).play()
        want = seats[seats["game"] == index].reset_index(drop=True)
        pd.testing.assert_frame_equal(game.result(as_frame=True), want, check_categorical=False)
    game = bnb_sim.new_game(game="hotv", seed=7, players=3, policies=["team", "raises"])
    with pytest.raises(PolicyError, match="'raises' .* in game 0 raised ValueError: the pouch"):
        game.play()


def test_the_python_example_of_the_hotv_page_runs():
    """docs/heroes-of-the-village.md's step-by-step example, as written."""
    import contextlib
    import io

    from doc_commands import ROOT, python_blocks

    blocks = [
        b
        for b in python_blocks((ROOT / "docs/heroes-of-the-village.md").read_text())
        if 'new_game(game="hotv"' in b
    ]
    assert len(blocks) == 1
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "heroes-of-the-village.md", "exec"), {})
    text = out.getvalue()
    assert "legal actions:" in text and "Building 1:" in text and "explore" in text
