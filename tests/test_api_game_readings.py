"""Every study of the Python API takes a game's rule readings as its command does (issue 24
item 2): Heroes of the Village sets them on its components, so a bad name is one line and a
good one is played and named. Before, ``bnb_sim.compare``, ``sensitivity`` and
``robustness`` with ``game="hotv"`` ignored ``readings`` (even ``{"dog": "x"}``), ``ladder``
refused them, and ``bnb_sim.sweep`` refused the game."""

from __future__ import annotations

import json

import pytest

import bnb_sim
from bnb_sim.errors import BnbError
from tests.test_protocol_simulate import bnb

STUDIES = {
    "compare": lambda r: bnb_sim.compare("team", "random", game="hotv", precision=0.2,
                                         max_games=10, seed=1, readings=r),
    "tournament": lambda r: bnb_sim.tournament(["team", "random"], game="hotv", games=10,
                                               readings=r),
    "sweep": lambda r: bnb_sim.sweep({"path.start_normal": [8, 9]}, game="hotv", games=10,
                                     readings=r, options={"pets": "wolf,cat,fox"}),
    "ladder": lambda r: bnb_sim.ladder(["random", "team"], game="hotv", games=10, readings=r),
    "sensitivity": lambda r: bnb_sim.sensitivity("team_win_rate", game="hotv", screen_games=4,
                                                 games=4, top=1, readings=r,
                                                 estimates=["mobs.spider.value"]),
    "robustness": lambda r: bnb_sim.robustness(game="hotv", games=10, rungs=["random", "team"],
                                               readings=r),
}  # fmt: skip


def _text(result) -> str:
    data = result if isinstance(result, dict) else getattr(result, "to_dict", lambda: None)()
    return json.dumps(data if data is not None else vars(result), default=str)


@pytest.mark.parametrize("study", sorted(STUDIES))
def test_a_study_of_hotv_plays_and_names_its_readings(study):
    with pytest.raises(BnbError) as info:
        STUDIES[study]({"dog": "x"})
    assert "unknown reading 'dog'" in str(info.value) and "\n" not in str(info.value)
    assert "first-draw" in _text(STUDIES[study]({"cat": "first-draw"}))
    assert "first-draw" not in _text(STUDIES[study](None))


def test_the_api_sweeps_a_cooperative_game_as_bnb_sweep_game_does(capsys, tmp_path):
    result = bnb_sim.sweep({"path.start_easy": [10, 11]}, game="hotv", games=30, players=2,
                           seed=9, options={"pets": "wolf,cat", "difficulty": "easy"},
                           out=tmp_path / "api")  # fmt: skip
    out, _ = bnb(capsys, "sweep", "--game", "hotv", "--set", "path.start_easy=10,11",
                 "--games", "30", "--players", "2", "--pets", "wolf,cat", "--difficulty",
                 "easy", "--seed", "9", "--json", "--quiet", "-o", tmp_path / "cli")  # fmt: skip
    assert result["variants"] == json.loads(out)["variants"]  # the same games and numbers
    assert (tmp_path / "api" / "report.md").read_text().count("path.start_easy=10") >= 1
    with pytest.raises(BnbError, match="has no option 'hearts'"):
        bnb_sim.sweep({"path.start_easy": [10]}, game="hotv", games=4, options={"hearts": 1})


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: bnb_sim.sensitivity("team_win_rate", game="hotv", hearts=3),
         "sensitivity: Minecraft: Heroes of the Village has no option 'hearts' here"),
        (lambda: bnb_sim.luck(game="hotv", hearts=3), "luck: Minecraft: Heroes of the Village"),
        (lambda: bnb_sim.robustness(game="hotv", hearts=3), "robustness: Minecraft: Heroes"),
        (lambda: bnb_sim.robustness(pets="all"), "Builders & Biomes has no option 'pets'"),
        (lambda: bnb_sim.compare("random", "greedy", precision=0.1, options={"pets": "all"}),
         "Builders & Biomes has no option 'pets'"),
        (lambda: bnb_sim.ladder(game="hotv", games=10, hearts=3), "ladder: Minecraft: Heroes"),
    ],
)  # fmt: skip
def test_an_option_a_game_lacks_is_one_line_before_any_game(call, message):
    """Before: sensitivity and luck of Heroes of the Village ignored an option it does not
    have, robustness raised a TypeError, compare(options=...) of the first game a TypeError."""
    with pytest.raises(BnbError) as info:
        call()
    assert message in str(info.value) and "\n" not in str(info.value), info.value


@pytest.mark.parametrize("study", sorted(STUDIES))
@pytest.mark.parametrize(
    "bad", [{"components": 5}, {"components": [1]}, {"components": 2.5}, {"readings": 5}]
)
def test_hostile_arguments_to_a_study_of_another_game_are_one_line(study, bad):
    """Before: AttributeError or TypeError from inside the game's loader."""
    call = {  # the study's readings argument replaced by the bad value's own
        "readings": lambda: STUDIES[study](bad["readings"]),
        "components": lambda: _with(study, components=bad["components"]),
    }[next(iter(bad))]
    with pytest.raises(BnbError):
        call()


def _with(study, **kwargs):
    calls = {
        "compare": lambda: bnb_sim.compare("team", "random", game="hotv", precision=0.2,
                                           max_games=10, **kwargs),
        "tournament": lambda: bnb_sim.tournament(["team", "random"], game="hotv", games=10,
                                                 **kwargs),
        "sweep": lambda: bnb_sim.sweep({"path.start_normal": [8]}, game="hotv", games=10,
                                       **kwargs),
        "ladder": lambda: bnb_sim.ladder(["random", "team"], game="hotv", games=10, **kwargs),
        "sensitivity": lambda: bnb_sim.sensitivity("team_win_rate", game="hotv", **kwargs),
        "robustness": lambda: bnb_sim.robustness(game="hotv", games=10, **kwargs),
    }  # fmt: skip
    return calls[study]()


def test_a_team_option_of_the_wrong_kind_is_one_line():
    with pytest.raises(BnbError, match="pets must be a text, got 5"):
        bnb_sim.tournament(["team", "random"], game="hotv", games=4, options={"pets": 5})
