"""``bnb tune`` and ``[[tune]]`` items serve the tiny third game (tests/dice_race.py) through
the protocol alone (issue 24 item 6): the dice race declares no ``tune`` entry, only the
protocol's ``policy_params`` and ``policy_spec`` hooks for its ``mix:bold=P`` policy, and
the shared hooks of :mod:`bnb_sim.tune.protocol_hooks` do the rest. Each test checks a real
result: the tuned share moves the right way, the tuned goal meets its target."""

from __future__ import annotations

import json

import pytest
from test_third_game import bnb  # noqa: F401  (the fixture: bnb ARGS in this process)


def _json(out: str) -> dict:
    return json.loads(out[out.index("{") :])


def test_tune_policy_raises_the_two_dice_share_against_a_steady_field(bnb, tmp_path):  # noqa: F811
    """Two dice score 5.6 points a turn against one die's 3.3: from a share of 0.2 the
    tuned share goes up, and the final comparison on fresh seeds says it is better."""
    out = tmp_path / "p"
    result = _json(bnb("tune", "policy", "mix:bold=0.2", "--game", "dice", "--against", "steady",
                       "--budget", "3000", "--out", str(out), "--json", "-q"))  # fmt: skip
    assert result["game"] == "dice_race" and result["start"] == {"bold": 0.2}
    assert result["tuned"]["bold"] > 0.4
    assert result["comparison"]["difference"]["lo"] > 0  # tuned minus start, paired by seed
    spec = (out / "tuned-spec.txt").read_text().splitlines()[-1]
    assert spec == result["spec"] == f"mix:bold={result['tuned']['bold']!r}"
    compared = _json(bnb("compare", "--game", "dice", spec, "mix:bold=0.2", "--precision",
                         "0.001", "--max-games", "400", "--json"))  # fmt: skip
    assert compared["n_games"] == 400  # the target is out of reach: all 400 games
    assert compared["difference"]["mean_diff"] > 0  # the answer plays as it is written


def test_tune_policy_of_the_cooperative_variant_plays_the_team(bnb, tmp_path):  # noqa: F811
    """The dice team has no field: the candidate is every seat, scored on the team's result;
    two dice reach 20 points in 4 turns far more often, so the share rises."""
    result = _json(bnb("tune", "policy", "mix:bold=0.2", "--game", "dice_team", "--players",
                       "2", "--budget", "3000", "--out", str(tmp_path / "p"), "--json",
                       "-q"))  # fmt: skip
    assert result["outcome"] == "team" and result["lineups"] == []
    assert result["tuned"]["bold"] > 0.4
    assert result["comparison"]["difference"]["lo"] > 0  # team win rates, paired by game


def test_tune_game_finds_the_goal_that_evens_steady_against_bold(bnb, tmp_path):  # noqa: F811
    """Bold wins most races to 20; near the start one die is as good (a 1 on either of two
    dice scores nothing): the tuned goal brings steady's win rate to about a half."""
    out = tmp_path / "g"
    result = _json(bnb("tune", "game", "--game", "dice", "--param", "goal=2..12", "--target",
                       "win_rate:steady=0.5", "--players", "2", "--policy", "steady",
                       "--policy", "bold", "--budget", "6000", "--out", str(out), "--json",
                       "-q"))  # fmt: skip
    final = result["final"]
    assert result["baseline"] == {"goal": 20}
    assert final["baseline"]["targets"]["win_rate:steady"]["hi"] < 0.25
    assert abs(final["answer"]["targets"]["win_rate:steady"]["value"] - 0.5) < 0.1
    override = out / "tuned-components.toml"
    assert f"goal = {result['best']['goal']}" in override.read_text()
    ran = _json(bnb("simulate", "--game", "dice", "--components", str(override), "--games",
                    "20", "--json", "--quiet", "--out", str(tmp_path / "run")))  # fmt: skip
    assert ran["games"] == 20
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["components"]["data"]["goal"] == result["best"]["goal"]


def test_tune_game_of_the_cooperative_variant_meets_a_half_team_win_rate(bnb, tmp_path):  # noqa: F811
    """The dice team (cooperative): the team's win rate is the target, and the answer's
    win rate on fresh games is about a half (the baseline goal of 20 is rarely reached in
    4 turns of one die)."""
    result = _json(bnb("tune", "game", "--game", "dice_team", "--param", "goal=5..30",
                       "--target", "win_rate=0.5", "--players", "2", "--policy", "steady",
                       "--budget", "4000", "--out", str(tmp_path / "t"), "--json",
                       "-q"))  # fmt: skip
    assert result["outcome"] == "team"
    answer = result["final"]["answer"]["targets"]["win_rate"]
    assert abs(answer["value"] - 0.5) < 0.1  # a goal step moves the rate about 5 pp
    assert result["final"]["baseline"]["targets"]["win_rate"]["hi"] < 0.1
    assert 5 <= result["best"]["goal"] < 20


EXPERIMENT = """
[experiment]
title = "dice tuning"
seed = 5

[[tune]]
game = "dice"
name = "share"
what = "policy"
policy = "mix:bold=0.2"
against = ["steady"]
players = 2
budget = 3000

[[tune]]
game = "dice_team"
name = "team goal"
what = "game"
params = ["goal=5..30"]
targets = ["win_rate=0.5"]
policies = ["steady"]
players = 2
budget = 4000
dir = "tunes/team"
"""


def test_run_plays_tune_items_of_the_third_game(bnb, tmp_path):  # noqa: F811
    file = tmp_path / "dice.toml"
    file.write_text(EXPERIMENT, encoding="utf-8")
    bnb("run", str(file), "--out", str(tmp_path / "rep"), "--quiet")
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## share: tuning, answer" in md and "## team goal: tuning, answer" in md
    assert "| share | none |" in md and "Rule readings: none." in md  # a game without readings
    items = {i["name"]: i for i in json.loads((tmp_path / "rep" / "summary.json").read_text())
             ["items"]}  # fmt: skip
    share = items["share"]
    assert share["game"] == "dice_race" and share["tuned"]["bold"] > 0.4
    assert share["comparison"]["difference"]["lo"] > 0
    team = items["team goal"]["final"]
    assert abs(team["answer"]["targets"]["win_rate"]["value"] - 0.5) < 0.1
    assert team["baseline"]["targets"]["win_rate"]["hi"] < 0.1
    assert "goal = " in (tmp_path / "tunes" / "team" / "tuned-components.toml").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["policy", "mix", "--against", "steady", "--param", "luck=0..1"],
         "--param luck: not a parameter of the policy (known: bold)"),
        (["policy", "mix", "--against", "steady", "--param", "bold=0..2"],
         "--param bold: 0..2 leaves the range the policy allows, [0, 1]"),
        (["policy", "steady", "--against", "bold"], "'steady' has no parameters to tune"),
        (["policy", "mix", "--against", "wild"], "unknown policy 'wild'"),
        (["policy", "mix", "--against", "steady", "--dask", "local"], "--dask is not offered"),
        (["game", "--param", "nothing=1..3", "--target", "game_length=5"],
         "--param nothing=1: Dice race has no such component value"),
        (["game", "--param", "goal=0..5", "--target", "game_length=5"],
         "goal must be a whole number of at least 1"),
        (["game", "--param", "goal=5..9", "--target", "xp_share:mobs=0.3"],
         "seat rows have no 'xp' and 'xp_mobs' columns"),
        (["game", "--param", "goal=5..9", "--target", "game_length=5", "--reading", "a=b"],
         "--reading is not offered for Dice race"),
    ],
)  # fmt: skip
def test_a_bad_tuning_of_the_third_game_is_one_line(bnb, tmp_path, args, message):  # noqa: F811
    out = bnb("tune", *args, "--game", "dice", "--budget", "3000", "--out",
              str(tmp_path / "x"), code=2)  # fmt: skip
    assert message in out and len(out.strip().splitlines()) == 1 and "Traceback" not in out
    assert not (tmp_path / "x").exists()  # nothing written


def test_a_bad_tune_item_of_the_third_game_names_the_file_and_key(bnb, tmp_path):  # noqa: F811
    file = tmp_path / "bad.toml"
    file.write_text('[[tune]]\ngame = "dice"\npolicy = "mix"\nagainst = ["steady"]\n'
                    'budget = 3000\nparams = ["bold=0..3"]\n')  # fmt: skip
    out = bnb("run", str(file), "--out", str(tmp_path / "rep"), code=2)
    assert "bad.toml" in out and "leaves the range the policy allows" in out
    assert len(out.strip().splitlines()) == 1


@pytest.mark.parametrize("players", [2, 3])
def test_a_candidate_plays_every_seating_of_the_same_game_index(players):
    """A candidate equal to its field wins each game index in exactly one of the P
    seatings (the same dice, the candidate as each player in turn): every per-seed score is
    exactly 1/P, which only holds if the seatings really rotate."""
    from bnb_sim.tune.policy_play import field_scores
    from bnb_sim.tune.policy_tune import plan_policy_tune

    plan = plan_policy_tune("mix:bold=0.5", against=["mix:bold=0.5"], players=players,
                            budget=5000, game="dice")  # fmt: skip
    scores = field_scores(plan, plan.spec_for(plan.start, "candidate"), 7, 0, 40)
    assert scores["games"] == 40 * players and scores["wins"] == 40
    assert (scores["per_seed"] == 1 / players).all()
