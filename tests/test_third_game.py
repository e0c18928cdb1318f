"""Proof that a third game is cheap (issue 24 item 6): the dice race of tests/dice_race.py,
registered by one line in tests/conftest.py, is served by the shared commands with no
handler of its own and no mention in bnb_sim."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import bnb_sim
from bnb_sim.cli import main
from bnb_sim.errors import BnbError
from bnb_sim.runner.storage import part_name


@pytest.fixture
def bnb(capsys):
    """``bnb(*args, code=0)``: run ``bnb ARGS`` in this process (as the shell does: errors
    are one line on stderr with exit code 2); its stdout and stderr together."""

    def run(*args: str, code: int = 0) -> str:
        got = 0
        try:
            main([str(a) for a in args])
        except SystemExit as exc:
            got = exc.code if isinstance(exc.code, int) else 1
        out, err = capsys.readouterr()
        assert got == code, out + err
        return out + err

    return run


def test_bnb_sim_does_not_know_the_dice_race():
    package = Path(bnb_sim.__file__).parent
    for file in package.rglob("*.py"):
        text = file.read_text(encoding="utf-8").lower()
        assert "dice_race" not in text and "dice race" not in text, file


def test_simulate_writes_a_run_with_the_declared_columns_and_report_reads_it(bnb, tmp_path):
    run, rep = tmp_path / "run", tmp_path / "rep"
    out = bnb(
        "simulate",
        "--game",
        "dice",
        "--games",
        "250",
        "--chunk-size",
        "100",
        "--policy",
        "steady",
        "--policy",
        "bold",
        "--seed",
        "3",
        "--out",
        str(run),
    )
    assert "250 games" in out
    meta = json.loads((run / "run.json").read_text())
    assert meta["game"] == "dice_race" and meta["status"] == "complete" and meta["parts"] == 3
    seats = pq.read_table(run / "seats" / part_name(0))
    assert {"game", "seat", "player", "policy", "won", "points", "turns"} <= set(seats.schema.names)
    bnb("report", str(run), "--out", str(rep), "--quiet")
    summary = json.loads((rep / "summary.json").read_text())
    text = json.dumps(summary)
    assert "win_rate_by_policy" in text and "mean_turns" in text  # shared + the game's own
    md = (rep / "report.md").read_text()
    assert "Win rate by seat" in md and "Race length" in md
    # every competitive game's seat rates as a figure against the fair share (before: none)
    assert (rep / "win-rate-by-seat.png").read_bytes()[:4] == b"\x89PNG"
    assert "the dashed line is 1/2" in md


def test_simulate_resumes_and_refuses_a_foreign_option(bnb, tmp_path):
    run = tmp_path / "run"
    args = ["simulate", "--game", "dice", "--games", "40", "--out", str(run)]
    bnb(*args)
    bnb(*args, "--resume")  # nothing left to play; identity matches
    out = bnb(*args[:-2], "--out", str(tmp_path / "r2"), "--pets", "wolf,cat", code=2)
    assert "--pets is an option of" in out


def test_the_game_option_from_data_reaches_the_config(bnb, tmp_path):
    short = bnb(
        "simulate",
        "--game",
        "dice",
        "--games",
        "30",
        "--goal",
        "5",
        "--json",
        "--quiet",  # the progress line on stderr (from 0, as every game's) would mix in
        "--out",
        str(tmp_path / "a"),
    )
    assert json.loads(short)["games"] == 30
    meta = json.loads((tmp_path / "a" / "run.json").read_text())
    assert meta["params"]["goal"] == 5


def test_compare_finds_the_bold_policy_better(bnb):
    """The competitive path of every game (runner/compare_play): seat-swapped pairs of games
    on the same seeds; a target it cannot reach stops at --max-games."""
    out = bnb("compare", "--game", "dice", "bold", "steady", "--precision", "0.001",
              "--max-games", "800", "--json")  # fmt: skip
    result = json.loads(out)
    assert result["mode"] == "head-to-head" and result["players"] == 2
    assert result["n_pairs"] == 400 and result["n_games"] == 800
    assert result["reason"] == "max games reached" and result["decision"] == "A"
    assert result["difference"]["lo"] > 0  # bold - steady, paired over seeds
    assert result["rates"]["a"]["rate"] + result["rates"]["b"]["rate"] == pytest.approx(1.0)


def test_compare_against_a_field_of_opponents(bnb, tmp_path):
    """``--opponent`` serves every competitive game: A and B in turn in the same seat against
    the same opponents, winners counted from the seats' ``won`` (the race has no winners
    column), and the report of the first game's compare."""
    out = bnb("compare", "--game", "dice", "bold", "steady", "--opponent", "random",
              "--players", "3", "--precision", "0.08", "--out", tmp_path / "c")  # fmt: skip
    assert "bold is better than steady" in out and "3 players" in out
    assert "against random, random on the same seeds" in out
    summary = json.loads((tmp_path / "c" / "summary.json").read_text())
    assert summary["mode"] == "field" and summary["players"] == 3
    assert summary["opponents"] == ["random", "random"] and summary["decision"] == "A"
    assert (tmp_path / "c" / "report.html").is_file()


def test_compare_takes_the_games_own_option():
    """The Python API serves every game (``game=``, its own ``options``), as the command."""
    near = bnb_sim.compare("bold", "steady", game="dice", precision=0.001, max_games=400,
                           options={"goal": 6})  # fmt: skip
    far = bnb_sim.compare("bold", "steady", game="dice", precision=0.001, max_games=400)
    assert near.n_games == far.n_games == 400 and near.difference != far.difference
    assert near.difference["mean_diff"] < far.difference["mean_diff"]  # a short race: luck


def test_compare_gives_a_reading_to_the_race_as_one_line(bnb):
    out = bnb("compare", "--game", "dice", "bold", "steady", "--precision", "0.1",
              "--reading", "hunger=together", code=2)  # fmt: skip
    assert len(out.strip().splitlines()) == 1 and "Traceback" not in out
    with pytest.raises(BnbError, match="Dice race has no rule readings"):
        bnb_sim.compare("bold", "steady", game="dice", precision=0.1,
                        readings={"hunger": "together"})  # fmt: skip


def test_compare_refuses_a_policy_the_race_does_not_know_before_any_folder(bnb, tmp_path):
    out = bnb("compare", "--game", "dice", "bold", "bogus", "--precision", "0.1",
              "--out", tmp_path / "c", code=2)  # fmt: skip
    assert "unknown policy 'bogus'" in out and not (tmp_path / "c").exists()


def test_ladder_puts_the_race_policies_on_one_scale(bnb, tmp_path):
    """bnb ladder of a competitive game (runner/ladder_play with the game): adjacent rungs
    in both seatings on the same seeds, each step's score with its interval, a Bradley-Terry
    scale and the skill depth; the game names no default rungs, so --rungs is asked for."""
    out = bnb("ladder", "--game", "dice", "--games", "200", code=2)
    assert out.strip() == "bnb: error: Dice race does not offer default rungs: give --rungs A,B,..."
    args = ["ladder", "--game", "dice", "--rungs", "random,steady,bold", "--games", "200",
            "--goal", "12", "--quiet", "--out", tmp_path / "l"]  # fmt: skip
    lines = bnb(*args).splitlines()
    assert lines[0] == "ladder: 3 rungs, 2 players, 200 seeds per seating, 800 games"
    assert lines[2].split()[:3] == ["steady", "vs", "random"]
    assert "separated" in lines[3] and lines[3].split()[:3] == ["bold", "vs", "steady"]
    summary = json.loads((tmp_path / "l" / "summary.json").read_text())
    assert summary["params"]["game"] == "dice_race"
    assert summary["params"]["options"] == {"goal": 12}  # the race's own option reached it


def test_tournament_ranks_every_entrant(bnb, tmp_path):
    """The competitive round robin of every game (bnb_sim.runner.tournament_play): every
    pair in both seatings on the same seeds, Bradley-Terry Elo with bootstrap intervals."""
    out = bnb(
        "tournament",
        "--game",
        "dice",
        "--policy",
        "steady",
        "--policy",
        "bold",
        "--policy",
        "random",
        "--games",
        "200",
        "--json",
        "--quiet",
        "--out",
        str(tmp_path / "t"),
    )
    result = json.loads(out)["summary"]
    assert [r["policy"] for r in result["ratings"]][0] == "bold"
    assert result["tables"] == [["steady", "bold"], ["steady", "random"], ["bold", "random"]]
    assert result["n_games"] == 1200 and result["seeds"] == 200  # 3 pairs, both seatings
    assert result["anchor"] == "random" and result["xp"] == []  # no XP column: no XP table
    bold = result["head_to_head"]["bold"]["steady"]
    assert bold["n"] == 400 and bold["lo"] > 0.5  # bold beats steady, paired over seeds
    assert (tmp_path / "t" / "report.html").is_file()


def test_sweep_plays_each_component_value_on_the_same_games(bnb, tmp_path):
    """The competitive sweep of any game: the component file's value is the baseline, and
    each policy's win-rate change against it is paired on the same game indices."""
    out = bnb(
        "sweep",
        "--game",
        "dice",
        "--set",
        "goal=10,40",
        "--games",
        "150",
        "--players",
        "2",
        "--policy",
        "steady",
        "--policy",
        "bold",
        "--json",
        "-q",  # progress goes to stderr, which the fixture joins to stdout
        "--out",
        str(tmp_path / "s"),
    )
    summary = json.loads(out)["summary"]
    names = [v["name"] for v in summary["variants"]]
    assert names == ["goal=20 (baseline)", "goal=10", "goal=40"]
    assert [v["changes"] for v in summary["variants"]][1:] == [{"goal": 10}, {"goal": 40}]
    rates = {(r["variant"], r["policy"]): r for r in summary["win_rate"]}
    # the same games as the cooperative/protocol study played: steady wins 39 of 150 at 10
    assert (rates["goal=10", "steady"]["k"], rates["goal=10", "steady"]["n"]) == (39, 150)
    effects = {(r["variant"], r["policy"]): r for r in summary["win_rate_effect"]}
    assert set(effects) == {(v, p) for v in names[1:] for p in ("steady", "bold")}
    for row in effects.values():  # paired, on every game index, with a 95% interval
        assert row["n"] == 150 and row["lo"] < row["mean_diff"] < row["hi"]
    assert effects["goal=40", "steady"]["hi"] < 0 < effects["goal=10", "steady"]["lo"]
    assert summary["xp"] == [] and summary["fights"] == []  # the dice race has neither
    assert [r["variant"] for r in summary["turns"]] == names
    assert summary["params"]["readings"] == {} and summary["players"] == 2
    md = (tmp_path / "s" / "report.md").read_text()
    assert "## Effect on win rates" in md and "## Game length" in md and "XP" not in md


def test_sweep_prints_paired_win_rate_effects_with_intervals(bnb, tmp_path):
    """The terminal table of the competitive path: fairness and each policy's change."""
    out = bnb("sweep", "--game", "dice", "--set", "goal=10,30", "--games", "200", "--policy",
              "steady", "--policy", "bold", "-q", "--out", str(tmp_path / "s"))  # fmt: skip
    lines = out.splitlines()
    assert lines[0] == "sweep of goal: 200 games per variant, 2 players, seed 0"
    assert "  per policy (win rate [95% CI] n=seats, change vs baseline):" in lines
    steady = [line for line in lines if line.strip().startswith("steady")]
    assert len(steady) == 3 and "change" not in steady[0]
    assert all("change " in line and " pp [" in line for line in steady[1:])
    assert "first-player advantage" in out and "XP" not in out


def test_sweep_names_an_unknown_component_value(bnb, tmp_path):
    out = bnb(
        "sweep",
        "--game",
        "dice",
        "--set",
        "nothing=1,2",
        "--games",
        "10",
        "--out",
        str(tmp_path / "s"),
        code=2,
    )
    assert "key 'nothing': no such key" in out and len(out.strip().splitlines()) == 1
    assert not (tmp_path / "s").exists()  # refused before any game


def test_sweep_refuses_a_value_the_game_refuses_before_any_game(bnb, tmp_path):
    out = bnb("sweep", "--game", "dice", "--set", "goal=10,0", "--games", "50",
              "--out", str(tmp_path / "s"), code=2)  # fmt: skip
    assert out.strip() == "bnb: error: dice race: goal must be a whole number of at least 1"


def test_python_sweep_serves_the_dice_race():
    """``bnb_sim.sweep(..., game=NAME)``: the same study as ``bnb sweep --game NAME``."""
    result = bnb_sim.sweep({"goal": [10, 30]}, game="dice", games=100,
                           policies=["steady", "bold"])  # fmt: skip
    assert [v.name for v in result.variants] == ["goal=20 (baseline)", "goal=10", "goal=30"]
    assert result.players == 2 and result.policies == ["steady", "bold"]
    effects = result.win_effects
    assert list(effects["variant"].unique()) == ["goal=10", "goal=30"]
    assert (effects["n"] == 100).all() and (effects["lo"] <= effects["hi"]).all()
    assert result.xp.empty and len(result.length) == 3


def test_python_sweep_of_a_cooperative_game_is_its_commands(bnb, tmp_path):
    """``bnb_sim.sweep`` of the dice team plays what ``bnb sweep --game dice_team`` plays
    (it refused a cooperative game before): the team win rate per variant, paired."""
    result = bnb_sim.sweep({"goal": [10, 30]}, game="dice_team", games=40, seed=2)
    cli = json.loads(bnb("sweep", "--game", "dice_team", "--set", "goal=10,30", "--games", "40",
                         "--seed", "2", "--json", "--quiet", "-o", tmp_path / "cli"))  # fmt: skip
    assert result["variants"] == cli["variants"]


@pytest.mark.parametrize("command", ["simulate", "compare", "tournament", "sweep"])
def test_help_lists_the_game_option(bnb, command):
    assert "--goal" in bnb(command, "--help")


EXPERIMENT = """
[experiment]
title = "dice"
seed = 2

[[simulation]]
game = "dice"
name = "race"
games = 120
policies = ["steady", "bold"]

[[compare]]
game = "dice"
name = "bold vs steady"
a = "bold"
b = "steady"
precision = 0.05
max_games = 400

[[tournament]]
game = "dice"
name = "all"
games = 60
policies = ["steady", "bold", "random"]

[[sweep]]
game = "dice"
name = "goal"
games = 60
policies = ["steady", "bold"]
set = { "goal" = [10, 30] }

[[ladder]]
game = "dice"
name = "skill"
rungs = ["steady", "random", "bold"]
games = 60
goal = 12
"""


def test_run_plays_every_kind_of_item_of_an_experiment_file(bnb, tmp_path):
    file = tmp_path / "dice.toml"
    file.write_text(EXPERIMENT, encoding="utf-8")
    bnb("run", str(file), "--out", str(tmp_path / "rep"), "--quiet")
    md = (tmp_path / "rep" / "report.md").read_text()
    for title in ("race: Win rate by policy", "race: Race length", "bold vs steady: comparison",
                  "all: Tournament design", "all: Ratings", "all: Head-to-head",
                  "goal: Fairness per variant", "goal: Sweep design",
                  "goal: Effect on win rates", "goal: Game length", "skill: ladder design",
                  "skill: steps", "skill: scale"):  # fmt: skip
        assert f"## {title}" in md
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    # the [[compare]] item is bnb compare's: seat-swapped pairs until the precision or the cap
    compare = next(i for i in summary["items"] if i["kind"] == "compare")
    assert (compare["game"], compare["mode"], compare["players"]) == (
        "dice_race",
        "head-to-head",
        2,
    )
    assert compare["n_games"] == 400 and compare["n_pairs"] == 200
    assert compare["reason"] == "max games reached" and compare["decision"] == "A"
    d = compare["difference"]
    assert d["lo"] > 0 and d["lo"] <= d["mean_diff"] <= d["hi"]
    assert any(f["text"].startswith("bold vs steady: **bold is better than steady")
               and "(n = 400 games on 200 paired seeds)" in f["text"]
               for f in summary["key_findings"])  # fmt: skip
    # the tournament item is bnb tournament's round robin: Bradley-Terry ratings of all three
    assert any(f["text"].startswith("all: **bold** rates highest")
               for f in summary["key_findings"])  # fmt: skip
    item = next(i for i in summary["items"] if i["name"] == "all")
    assert [r["policy"] for r in item["ratings"]][0] == "bold" and item["n_games"] == 360
    # the [[sweep]] item is bnb sweep's: paired win-rate effects against the baseline
    sweep = next(i for i in summary["items"] if i["kind"] == "sweep")
    assert [v["name"] for v in sweep["variants"]] == ["goal=20 (baseline)", "goal=10", "goal=30"]
    effects = sweep["win_rate_effect"]
    assert {(e["variant"], e["policy"]) for e in effects} == {
        (v, p) for v in ("goal=10", "goal=30") for p in ("steady", "bold")
    }
    assert all(e["n"] == 60 and e["lo"] <= e["mean_diff"] <= e["hi"] for e in effects)
    assert any(f["text"].startswith("goal: Win rate:") for f in summary["key_findings"])
    # the [[ladder]] item is bnb ladder's: adjacent rungs on the same seeds, the game's option
    ladder = next(i for i in summary["items"] if i["kind"] == "ladder")
    assert ladder["game"] == "dice_race" and ladder["params"]["options"] == {"goal": 12}
    assert [s["upper"] for s in ladder["steps"]] == ["random", "bold"]


def test_a_compare_item_plays_bnb_compare_against_a_field_of_opponents(bnb, tmp_path):
    """A competitive game's [[compare]] item takes bnb compare's opponents and SPRT, and
    reports its section, summary and verdict, named by the item."""
    file = tmp_path / "field.toml"
    file.write_text('[[compare]]\ngame = "dice"\nname = "f"\na = "bold"\nb = "steady"\n'
                    'opponents = ["random"]\nplayers = 3\nsprt = [0, 60]\nmax_games = 2000\n'
                    "goal = 12\n")  # fmt: skip
    bnb("run", str(file), "--out", str(tmp_path / "rep"), "--quiet")
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    item = summary["items"][0]
    assert (item["mode"], item["opponents"], item["players"]) == ("field", ["random"] * 2, 3)
    assert item["params"]["sprt"] == [0, 60] and item["test"]["decision"] == "H1"
    assert item["n_games"] < 2000 and item["game"] == "dice_race"
    assert "## f: comparison" in (tmp_path / "rep" / "report.md").read_text()
    assert summary["key_findings"][0]["text"].startswith("f: **")


@pytest.mark.parametrize(
    ("keys", "key"),
    [
        ("max_games = 400", "compare 'c'.precision: give precision = H or sprt"),
        ("precision = 0.1\nplayers = 3", "compare 'c'.players: a head-to-head comparison"),
        ('precision = 0.1\nopponents = ["random", "bold"]\nplayers = 2',
         "compare 'c'.opponents: 2 opponents do not fit 2 players"),
        ('precision = 0.1\nopponents = ["bogus"]', "compare 'c'.opponents: dice race: unknown"),
    ],
)  # fmt: skip
def test_a_competitive_compare_item_refuses_a_bad_combination_before_any_game(
    bnb, tmp_path, keys, key
):
    """The first game's rule for every competitive game: a comparison stops by precision or
    SPRT (max_games only caps it); each refusal is one line naming the file, item and key."""
    file = tmp_path / "bad.toml"
    file.write_text(f'[[compare]]\ngame = "dice"\nname = "c"\na = "bold"\nb = "steady"\n{keys}\n')
    out = bnb("run", str(file), "--out", str(tmp_path / "rep"), code=2)
    assert f"bad.toml: {key}" in out and len(out.strip().splitlines()) == 1, out
    assert not (tmp_path / "rep").exists()


def test_run_names_the_file_and_key_of_a_bad_item(bnb, tmp_path):
    file = tmp_path / "bad.toml"
    file.write_text('[[compare]]\ngame = "dice"\na = "bold"\nb = "steady"\npets = "all"\n')
    out = bnb("run", str(file), "--out", str(tmp_path / "rep"), code=2)
    assert "bad.toml" in out and "unknown key 'compare[1].pets'" in out


def test_run_json_records_the_command_that_replays_the_run(bnb, tmp_path):
    run = tmp_path / "run"
    bnb("simulate", "--game", "dice", "--games", "20", "--goal", "8", "--out", str(run), "-q")
    command = json.loads((run / "run.json").read_text())["command"]
    assert "--game dice_race" in command and "--goal 8" in command


# --------------------------------------------------------------------------------------
# the cooperative branch of the shared code (the dice team: one team against the goal)


def test_a_cooperative_run_reports_the_team_win_rate(bnb, tmp_path):
    run, rep = tmp_path / "run", tmp_path / "rep"
    bnb("simulate", "--game", "dice_team", "--games", "200", "--policy", "bold", "--out", str(run))
    seats = pq.read_table(run / "seats" / part_name(0)).to_pandas()
    assert (seats.groupby("game")["won"].nunique() == 1).all()  # one result for the team
    bnb("report", str(run), "--out", str(rep), "--quiet")
    summary = json.loads((rep / "summary.json").read_text())
    assert summary["outcome"] == "cooperative" and "team_win_rate" in json.dumps(summary)
    assert "## Team win rate" in (rep / "report.md").read_text()


def test_a_cooperative_compare_is_paired_with_mcnemar(bnb):
    out = bnb("compare", "--game", "dice_team", "bold", "steady", "--max-games", "600", "--json")
    result = json.loads(out)
    assert result["outcome"] == "cooperative" and result["game_indices"] == 600
    assert result["difference"]["lo"] > 0 and result["mcnemar"]["p_value"] < 0.01


def test_a_cooperative_tournament_plays_one_team_per_entrant(bnb, tmp_path):
    out = bnb("tournament", "--game", "dice_team", "--policy", "steady", "--policy", "bold",
              "--games", "300", "--json", "--out", str(tmp_path / "t"))  # fmt: skip
    result = json.loads(out)
    assert result["tables"] == 2 and result["ranking"][0]["policy"] == "bold"


def test_a_cooperative_sweep_gives_the_team_rate_per_value(bnb, tmp_path):
    out = bnb("sweep", "--game", "dice_team", "--set", "goal=10,30", "--games", "300",
              "--policy", "bold", "--json", "--out", str(tmp_path / "s"))  # fmt: skip
    rows = json.loads(out)["variants"]
    assert rows[0]["win_rates"]["team"]["rate"] > rows[1]["win_rates"]["team"]["rate"]
    assert rows[1]["vs_first_variant"]["hi"] < 0  # a far goal: fewer team wins


@pytest.mark.parametrize(
    "command",
    ["components show", "luck", "odds", "readings", "robustness",
     "sensitivity --finding win_rate", "train", "value"],  # play: told from its step API
)  # fmt: skip
def test_a_command_that_does_not_serve_the_game_says_so_in_one_line(bnb, command):
    """Never the first game's code on another game's data (its fallback when an entry is
    undeclared): one line naming the game, exit code 2."""
    out = bnb(*command.split(), "--game", "dice", code=2)
    assert "Dice race" in out and "Traceback" not in out and len(out.strip().splitlines()) == 1


def test_bench_times_the_games_of_a_protocol_game(bnb):
    """``bnb bench --game NAME``: the shared bench times ``play_block`` of its default policy
    at its default player count (no ``bench_plan`` or ``play_arrays`` hook), 1 and all
    threads, headed by the game's title."""
    lines = bnb("bench", "--game", "dice_race", "--quick").splitlines()
    assert lines[1] == "Dice race play_block (games/s, median of repeats):"
    rows = [line.split() for line in lines[2:]]
    assert rows and all(r[:3] == ["steady", "2", "players"] for r in rows)
    assert rows[0][3] == "1" and all(float(r[-1].replace(",", "")) > 0 for r in rows)


def test_bench_refuses_another_games_option_in_one_line(bnb):
    out = bnb("bench", "--game", "dice", "--quick", "--reading", "cat=first-draw", code=2)
    assert "--reading" in out and len(out.strip().splitlines()) == 1


def test_compare_stops_at_the_sprt_decision(bnb):
    result = json.loads(
        bnb("compare", "--game", "dice", "bold", "steady", "--sprt", "0", "50", "--json")
    )
    assert result["test"]["decision"] == "H1" and result["reason"].startswith("sprt")
    assert result["n_pairs"] == result["test"]["decision_n"] < 128  # within the first batch
    assert result["after_decision"]["n_pairs"] == result["test"]["n_played"] == 128


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--sprt", "10", "0"], "ELO0 < ELO1"),
     (["--alpha", "0.1", "--precision", "0.1"], "--alpha applies to --sprt"),
     (["--sprt", "0", "10", "--precision", "0.1"], "exactly one of --sprt")],
)  # fmt: skip
def test_compare_refuses_a_bad_stopping_rule_in_one_line(bnb, args, message):
    assert message in bnb("compare", "--game", "dice", "bold", "steady", *args, code=2)


@pytest.mark.parametrize(("extra", "labels"), [
    ([], ["goal=10, sides=6", "goal=10, sides=8", "goal=30, sides=6", "goal=30, sides=8"]),
    (["--zip"], ["goal=10, sides=6", "goal=30, sides=8"]),
])  # fmt: skip
def test_sweep_grid_and_zip_of_several_values(bnb, tmp_path, extra, labels):
    out = bnb("sweep", "--game", "dice", "--set", "goal=10,30", "--set", "sides=6,8", *extra,
              "--games", "40", "--json", "-q", "--out", str(tmp_path / "s"))  # fmt: skip
    variants = json.loads(out)["summary"]["variants"]
    assert [v["name"] for v in variants] == ["goal=20, sides=6 (baseline)", *labels]
    assert variants[0]["baseline"] and not any(v["baseline"] for v in variants[1:])


def test_the_registry_offers_the_step_game_as_new_game_does_for_the_first_two():
    from bnb_sim.games import get_game

    new_game = get_game("dice").entry("new_game")
    game = new_game(seed=3, game_index=7, policies=["steady", "bold"]).play()
    seats, _ = get_game("dice").protocol.play_block(
        get_game("dice").protocol.make_config(
            {"goal": 20, "sides": 6}, players=None, policies=["steady", "bold"], seed=3, options={}
        ),
        7,
        1,
    )
    assert [r["won"] for r in game.result()] == seats["won"].tolist()


def test_an_experiment_head_names_the_game_once(tmp_path):
    """``[experiment] game = "dice"``: the same items as writing ``game`` in each."""
    from bnb_sim.analysis.experiment import load_experiment

    spelled, headed = tmp_path / "spelled.toml", tmp_path / "headed.toml"
    spelled.write_text(EXPERIMENT, encoding="utf-8")
    headed.write_text(
        EXPERIMENT.replace("seed = 2\n", 'seed = 2\ngame = "dice"\n', 1).replace(
            'game = "dice"\nname', "name"
        ),
        encoding="utf-8",
    )
    assert 'game = "dice"\nname' not in headed.read_text()
    items = [load_experiment(f).items for f in (spelled, headed)]
    assert [(type(i).__name__, i.name, i.kind) for i in items[0]] == [
        (type(i).__name__, i.name, i.kind) for i in items[1]
    ]
    assert {i.game_object.name for i in items[1] if hasattr(i, "game_object")} == {"dice_race"}


def test_play_tells_one_game_from_its_step_api(bnb):
    """``bnb play --game dice``: the game's ``new_game`` alone gives it (before: "Dice race
    does not offer bnb play"); the game told is that game index of ``bnb simulate``'s run."""
    told = json.loads(bnb("play", "--game", "dice", "--seed", "3", "--game-index", "2",
                          "--players", "3", "--policy", "bold", "--policy", "steady",
                          "--json"))  # fmt: skip
    seats = bnb_sim.simulate(3, 3, ["bold", "steady"], seed=3, game="dice")
    batch = seats[seats["game"] == 2]
    assert {r["seat"]: r["won"] for r in told["result"]} == dict(
        zip(batch["seat"].tolist(), batch["won"].tolist(), strict=True)
    )
    assert told["events"] and all("rolls" in line for line in told["events"])
    text = bnb("play", "--game", "dice", "--seed", "3", "--game-index", "2", "--players", "3",
               "--policy", "bold", "--policy", "steady")  # fmt: skip
    assert text.splitlines()[0] == "Dice race: game 2 of seed 3, 3 seats"
    assert all(line in text for line in told["events"]) and "\nresult:\n" in text
    short = json.loads(bnb("play", "--game", "dice", "--goal", "5", "--json"))
    assert short["options"] == {"goal": 5} and max(r["points"] for r in short["result"]) >= 5
    out = bnb("play", "--game", "dice", "--svg", "x.svg", code=2)
    assert (
        out.strip() == "bnb: error: --svg is an option of Minecraft: Builders & Biomes, not "
        "of Dice race"
    )  # fmt: skip (before: --picture, a name the user never typed)
