"""``bnb tournament`` is one implementation for every game (issue 24 item 2): a competitive
game without a ``studies`` module of its own (the dice race of tests/dice_race.py) gets the
round robin, Bradley-Terry ratings and report of the first game, with its own options; a
cooperative game keeps the team ranking (tests/test_third_game.py, test_hotv_experiment.py)."""

from __future__ import annotations

import json

import pytest
from test_cli_simulate import run_cli

import bnb_sim
from bnb_sim.analysis.tournament import TournamentResult
from bnb_sim.errors import BnbError


@pytest.fixture
def bnb(capsys):
    """``bnb(*args, code=0)``: stdout and stderr of ``bnb ARGS`` run in this process."""

    def run(*args, code: int = 0) -> str:
        got, out, err = run_cli(capsys, list(args))
        assert got == code, out + err
        return out + err

    return run


def test_three_players_of_the_dice_race_get_bradley_terry_ratings(bnb, tmp_path):
    args = ["tournament", "--game", "dice", "--policy", "bold", "--policy", "steady",
            "--policy", "random", "--players", "3", "--games", "60", "--quiet"]  # fmt: skip
    text = bnb(*args, "--out", tmp_path / "t").splitlines()
    assert text[0] == "tournament: 3 policies, 3 players, 60 seeds per seating, 180 games"
    assert text[1].startswith("Bradley-Terry Elo (random = 0), 95% bootstrap CI over seeds")
    assert [line.split()[0] for line in text[2:5]] == ["bold", "random", "steady"]
    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert summary["players"] == 3 and summary["n_games"] == 180
    assert {r["seat"] for r in summary["win_rate_by_seat"]} == {0, 1, 2}
    md = (tmp_path / "t" / "report.md").read_text()
    assert "## Head-to-head" in md and "Rule readings: none." in md and "XP" not in md


def test_the_game_option_reaches_every_table(bnb, tmp_path):
    """``--goal`` (the dice race's own option, OptionSpec data) sets every table's config."""
    got = {}
    for goal in ("3", "60"):
        out = bnb("tournament", "--game", "dice", "--policy", "bold", "--policy", "steady",
                  "--games", "50", "--goal", goal, "--json", "-q", "--out",
                  tmp_path / goal)  # fmt: skip
        got[goal] = json.loads(out)["summary"]
    assert got["3"]["params"]["options"] == {"goal": 3}
    assert got["3"]["ratings"] != got["60"]["ratings"]
    assert "Game options: goal=60." in (tmp_path / "60" / "report.md").read_text()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--reading", "seating=fixed"], "--reading is an option of"),
        (["--variant", "beginner"], "--variant is an option of"),
        (["--policy", "nope"], "unknown policy 'nope'"),
        (["--policy", "bold"], "bold"),
        (["--pets", "wolf,cat"], "--pets is an option of"),
    ],
)
def test_bad_input_to_the_dice_race_is_one_line(bnb, tmp_path, extra, message):
    out = bnb("tournament", "--game", "dice", "--policy", "bold", "--policy", "steady", *extra,
              "--games", "10", "--out", tmp_path / "t", code=2)  # fmt: skip
    assert message in out and len(out.strip().splitlines()) == 1, out
    assert not (tmp_path / "t").exists()  # refused before the report folder is made


def test_the_python_api_plays_any_game(tmp_path):
    t = bnb_sim.tournament(["bold", "steady"], games=80, game="dice", options={"goal": 12},
                           bootstrap=50, out=tmp_path / "t")  # fmt: skip
    assert isinstance(t, TournamentResult) and t.game == "dice_race"
    assert t.ratings["policy"].tolist() == ["bold", "steady"] and t.n_games == 160
    assert t.params["options"] == {"goal": 12} and t.xp.empty
    assert (tmp_path / "t" / "report.html").is_file()
    with pytest.raises(BnbError, match="no rule readings"):
        bnb_sim.tournament(["bold", "steady"], games=10, game="dice", readings={"cat": "x"})
    with pytest.raises(BnbError, match="Dice race has no option 'pets'"):
        bnb_sim.tournament(["bold", "steady"], games=10, game="dice", options={"pets": "x"})


def test_the_python_api_ranks_team_policies_of_a_cooperative_game(tmp_path):
    result = bnb_sim.tournament(["steady", "bold"], games=300, game="dice_team",
                                out=tmp_path / "t")  # fmt: skip
    assert result["outcome"] == "cooperative" and result["tables"] == 2
    assert result["ranking"][0]["policy"] == "bold" and "_leader" not in result
    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert summary["ranking"] == json.loads(json.dumps(result["ranking"]))


@pytest.mark.parametrize("command", [("tournament",), ("sweep", "--set", "a.b=1,2")])
def test_a_reading_is_read_by_the_game_it_is_given_to(bnb, command):
    """``--reading`` of tournament and sweep names the readings of ``--game``, not the first
    game's (they were parsed against Builders & Biomes' readings before the body ran)."""
    text = bnb(*command, "--game", "hotv", "--reading", "hunger=together", code=2)
    assert "unknown reading 'hunger' for Heroes of the Village" in text
    text = bnb(*command, "--game", "hotv", "--variant", "beginner", code=2)
    assert "--variant is an option of Minecraft: Builders & Biomes" in text


def test_a_team_tournament_plays_under_the_reading_given(bnb, tmp_path):
    """R-HV-9 (the Cat) read two ways: the team win rates differ on the same game indices."""
    args = ["tournament", "--game", "hotv", "--policy", "team", "--policy", "random",
            "--players", "3", "--games", "200", "--json", "--quiet", "--out", tmp_path / "t",
            "--force"]  # fmt: skip
    rates, settings = {}, {}
    for value in ("first-draw", "first-block"):
        found = json.loads(bnb(*args, "--reading", f"cat={value}"))
        rates[value] = [row["score"] for row in found["ranking"]]
        settings[value] = found["setting"]
    assert rates["first-draw"] != rates["first-block"]
    # the setting names a reading that is not the default, wherever the study states it
    setting = "3 players, pets wolf,cat,fox, standard"
    assert settings == {"first-draw": f"{setting}, reading cat=first-draw", "first-block": setting}


def test_a_team_tournament_plays_the_games_own_player_count_unless_given(bnb, tmp_path):
    """As a cooperative game's compare, sweep and ladder do: without --players the game's
    own count (Heroes of the Village: 3), from the command and from Python; --players wins."""
    args = ["tournament", "--game", "hotv", "--policy", "team", "--policy", "random",
            "--games", "20", "--json", "--quiet"]  # fmt: skip
    assert json.loads(bnb(*args, "--out", tmp_path / "a"))["players"] == 3
    assert json.loads(bnb(*args, "--players", "2", "--out", tmp_path / "b"))["players"] == 2
    result = bnb_sim.tournament(["team", "random"], games=20, game="hotv")
    assert result["players"] == 3
    result = bnb_sim.tournament(["steady", "bold"], games=20, game="dice")
    assert result.players == 2  # a competitive game: two per table unless given
