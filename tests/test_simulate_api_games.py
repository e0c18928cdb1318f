"""``bnb_sim.simulate(..., game=NAME, options={...})``: the Python API plays every
registered game as ``bnb simulate --game NAME`` does (issue 24 item 2; before, it played only
the first game and had no ``game`` argument): the same rows, the same run folder, a resume
call in run.json that resumes it, and one line for a bad option."""

from __future__ import annotations

import json

import pytest

import bnb_sim
from bnb_sim.errors import BnbError
from bnb_sim.runner.storage import load_run
from tests.test_protocol_simulate import bnb

CASES = {  # the API's arguments and the same run's command-line flags
    "heroes_village": (
        dict(players=3, policies=["team"], options={"pets": "wolf,cat,fox"},
             readings={"cat": "first-draw"}),
        ["--players", "3", "--pets", "wolf,cat,fox", "--reading", "cat=first-draw"],
    ),
    "dice_race": (
        dict(players=2, policies=["bold", "steady"], options={"goal": 12}),
        ["--players", "2", "--policy", "bold", "--policy", "steady", "--goal", "12"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_api_plays_another_game_as_bnb_simulate_game_does(capsys, tmp_path, name):
    kwargs, flags = CASES[name]
    players, policies = kwargs["players"], kwargs["policies"]
    rest = {k: v for k, v in kwargs.items() if k not in ("players", "policies")}
    seats = bnb_sim.simulate(40, players, policies, seed=7, game=name, threads=1, **rest)
    bnb(capsys, "simulate", "--game", name, "--games", "40", "--seed", "7", *flags,
        "--threads", "1", "--quiet", "--out", tmp_path / "cli")  # fmt: skip
    cli_seats = load_run(tmp_path / "cli")[0]
    assert len(seats) == len(cli_seats) > 0
    assert seats["won"].tolist() == cli_seats["won"].tolist()
    # a run folder: the same rows; run.json's resume call resumes it (nothing played again)
    summary = bnb_sim.simulate(40, players, policies, seed=7, game=name, threads=1,
                               out=tmp_path / "api", **rest)  # fmt: skip
    assert summary.games == 40
    assert load_run(tmp_path / "api")[0].equals(load_run(tmp_path / "cli")[0])
    call = json.loads((tmp_path / "api" / "run.json").read_text())["resume_command"]
    assert call.startswith("bnb_sim.simulate(") and f"game={name!r}" in call
    again = eval(call, {"bnb_sim": bnb_sim})  # noqa: S307 (our own recorded call)
    assert again.played == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(game="hotv", options={"hearts": 3}), "has no option 'hearts' here"),
        (dict(game="hotv", options={"difficulty": "hard"}), "difficulty must be one of"),
        (dict(game="hotv", expansion="farmers-market"), "Heroes of the Village has no expansions"),
        (dict(game="hotv", readings={"dog": "x"}), "unknown reading 'dog'"),
        (dict(game="chess"), "unknown game 'chess'"),
        (dict(options={"pets": "all"}), "Builders & Biomes has no option 'pets' here"),
        (dict(game="dice_race", readings={"x": "y"}), "Dice race has no rule readings"),
    ],
)
def test_a_bad_game_argument_is_one_line(kwargs, message):
    policies = ["team"] if kwargs.get("game") == "hotv" else ["random"]
    with pytest.raises(BnbError) as info:
        bnb_sim.simulate(10, 2, policies, **kwargs)
    assert message in str(info.value) and "\n" not in str(info.value), info.value


def test_load_components_of_every_game_through_one_name(tmp_path):
    """``bnb_sim.load_components(..., game=NAME)`` loads any game's data (before, the name
    was the first game's loader only); the first game's are the same as its own loader's."""
    from bnb_sim.games.builders_biomes.components import load_components as first_loader

    assert bnb_sim.load_components().content_hash == first_loader().content_hash
    fm = bnb_sim.load_components(expansion="farmers-market")
    assert fm.content_hash == first_loader(expansion="farmers-market").content_hash
    box = tmp_path / "box.toml"
    box.write_text("[path]\nstart_normal = 8\n")
    heroes = bnb_sim.load_components(box, game="hotv")
    assert heroes.data["path"]["start_normal"] == 8
    assert bnb_sim.load_components(game="dice_race") == {"goal": 20, "sides": 6}
    with pytest.raises(BnbError, match="Heroes of the Village has no expansions"):
        bnb_sim.load_components(game="hotv", expansion="farmers-market")
    with pytest.raises(BnbError, match="paths must be a path or a list of paths"):
        bnb_sim.load_components(5)
