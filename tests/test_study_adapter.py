"""The designed studies' building blocks serve a game without a ``studies`` module through
its protocol methods (bnb_sim.runner.study_adapter; issue 24 item 2): the dice race of
tests/dice_race.py, registered only in the suite."""

from __future__ import annotations

import pandas as pd
import pytest
from dice_race import GAME

from bnb_sim.errors import BnbError
from bnb_sim.runner import design_play as D
from bnb_sim.runner.study_adapter import ProtocolStudies
from bnb_sim.runner.study_hooks import study_hooks


def test_a_protocol_game_gets_the_adapter_and_the_built_in_game_its_own_module():
    assert isinstance(study_hooks("dice_race"), ProtocolStudies)
    assert not isinstance(study_hooks(), ProtocolStudies)  # B&B's studies module


def test_a_design_plays_the_same_games_as_the_protocol():
    config = D._config(2, D._specs(["bold", "steady"], "dice"), game="dice", seed=7)
    seats, games = D.play_games(config, 30, start=5, chunk=12)  # three chunks
    direct = GAME.make_config(
        GAME.load_components([]), players=2, policies=["bold", "steady"], seed=7, options={}
    )
    want_seats, want_games = GAME.play_block(direct, 5, 30)
    pd.testing.assert_frame_equal(seats, want_seats)
    pd.testing.assert_frame_equal(games, want_games)


def test_labels_options_and_components_reach_the_game(tmp_path):
    assert D._labels(["bold", "mix:bold=0.25"], "dice") == ["bold", "mix:bold=0.25"]
    config = D._config(3, ["steady"], game="dice", seed=1, options={"goal": 9})
    assert config.goal == 9 and config.n_players == 3
    file = tmp_path / "dice.toml"
    file.write_text("sides = 4\n")
    assert D._config(2, ["bold"], game="dice", components=str(file)).sides == 4
    assert D._estimates(None, game="dice")["estimated_values"] == 0


@pytest.mark.parametrize(
    "call",
    [
        lambda: D.design_readings({"seating": "fixed"}, None, what="compare", game="dice"),
        lambda: D.design_readings(None, "fm", what="compare", game="dice"),
        lambda: D._config(2, ["bold"], game="dice", expansion="farmers-market"),
        lambda: study_hooks("dice").check_distinct(["bold", "bold"], "tournament"),
    ],
)
def test_what_a_protocol_game_lacks_is_one_error_line(call):
    with pytest.raises(BnbError) as info:
        call()
    assert "\n" not in str(info.value)


def test_a_design_without_readings_fixes_none():
    assert D.design_readings(None, None, seating="fixed", what="compare", game="dice") == {}


def test_a_cooperative_game_gets_no_competitive_design():
    """The designed studies rank seats against each other; the dice team (cooperative) is
    served by the team studies of the commands instead, and told so in one line."""
    with pytest.raises(BnbError, match="Dice team declares no designed studies"):
        study_hooks("dice_team")
