"""``bnb value``: the restricted-play estimator, its calibration, the ranking and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bnb_sim.analysis.value import ValueResult, format_value, option_value
from bnb_sim.cli import main


def run_cli(capsys, args):
    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def _paired_games(rng, n, p_free, p_restricted, rho=0.6):
    """Win shares of one player in n paired games: a shared game effect makes the free and
    restricted outcomes correlated, as common random numbers do; the truth is
    p_free - p_restricted exactly."""
    shared = rng.random(n)
    own_a, own_b = rng.random(n), rng.random(n)
    u_free = np.where(rng.random(n) < rho, shared, own_a)
    u_res = np.where(rng.random(n) < rho, shared, own_b)
    return (u_free < p_free).astype(float), (u_res < p_restricted).astype(float)


def test_signs_never_is_allowed_minus_forbidden_and_always_is_forced_minus_free():
    free = np.array([1, 0, 1, 1, 0, 0, 1, 0.5])
    worse = np.array([0, 0, 1, 0, 0, 0, 1, 0])
    seats = np.arange(8) % 2
    never = option_value("buy:x", "never", free, worse, seats)
    assert never.effect["mean_diff"] == pytest.approx((free - worse).mean())
    assert never.changed == 3
    always = option_value("fight", "always", free, worse, seats)
    assert always.effect["mean_diff"] == pytest.approx(-(free - worse).mean())
    assert set(never.by_seat) == {0, 1}


def test_no_changed_game_gives_a_bound_not_a_zero_width_interval():
    free = np.array([1.0, 0, 0, 1] * 50)
    o = option_value("buy:bell", "never", free, free.copy(), np.zeros(200, int))
    assert o.changed == 0 and o.effect["mean_diff"] == 0
    assert o.effect["lo"] < 0 < o.effect["hi"]  # the rule-of-three style bound


def test_calibration_of_the_value_interval():
    """Coverage of the 95% interval on synthetic paired data with a known value: 93-97%
    over 2,000 replications of 300 games (a t interval on the per-game differences)."""
    rng = np.random.default_rng(20271)
    truth = 0.55 - 0.40
    hits = 0
    reps = 2000
    for _ in range(reps):
        free, restricted = _paired_games(rng, 300, 0.55, 0.40)
        o = option_value("x", "never", free, restricted, np.zeros(300, int))
        hits += o.effect["lo"] <= truth <= o.effect["hi"]
    assert 0.93 <= hits / reps <= 0.97


def _result(values):
    rng = np.random.default_rng(3)
    options = []
    for name, p in values.items():
        free, restricted = _paired_games(rng, 2000, 0.5, 0.5 - p, rho=0.9)
        options.append(option_value(name, "never", free, restricted, np.zeros(2000, int)))
    return ValueResult("builders_biomes", 3, "heuristic", 0, 2000, {}, options)


def test_best_is_named_only_when_separated_and_p_values_are_holm_adjusted():
    clear = _result({"buy:a": 0.30, "buy:b": 0.02, "buy:c": 0.0})
    assert clear.options[0].option == "buy:a" and clear.best == "buy:a"
    ps = [o.effect["p_value"] for o in clear.options]
    assert all(o.p_holm >= p for o, p in zip(clear.options, ps, strict=True))
    tied = _result({"buy:a": 0.01, "buy:b": 0.01})
    assert tied.best is None
    assert "tied" in format_value(tied)


def test_cli_value_of_one_item_in_json(capsys):
    code, out, err = run_cli(
        capsys,
        ["value", "--option", "buy:crafting_table", "--players", "3", "--expansion",
         "farmers-market", "--games", "40", "--seed", "2", "--json", "--threads", "1"],
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    (row,) = data["options"]
    assert row["option"] == "buy:crafting_table" and row["mode"] == "never"
    assert row["n"] == 40 and row["lo"] <= row["value"] <= row["hi"]
    assert data["players"] == 3 and data["setup"]["expansion"] == "farmers-market"


def test_cli_value_text_and_report(capsys, tmp_path):
    code, out, err = run_cli(
        capsys,
        ["value", "--option", "fight", "--option", "weapon", "--games", "30", "--seed", "1",
         "--threads", "1", "--quiet", "-o", tmp_path / "rep"],
    )  # fmt: skip
    assert code == 0, err
    assert "never fight" in out and "never weapon" in out
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert len(summary["value"]["options"]) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--option", "buy:crafting_tabel", "--expansion", "farmers-market"], "did you mean"),
        (["--option", "all-items"], "no items"),
        ([], "give at least one --option"),
    ],
)
def test_cli_value_bad_input_is_one_line_exit_2(capsys, args, message):
    code, out, err = run_cli(capsys, ["value", "--games", "10", *args])
    assert code == 2
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_cli_value_hotv_pets(capsys):
    code, out, err = run_cli(
        capsys,
        ["value", "--game", "hotv", "--option", "all-pets", "--players", "2", "--games", "40",
         "--json", "--threads", "1"],
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert {o["option"] for o in data["options"]} == {
        "pet:wolf", "pet:cat", "pet:fox", "pet:panda", "pet:horse", "pet:llama"
    }  # fmt: skip
    assert data["outcome"] == "team win rate" and data["options"][0]["n"] == 40
    assert data["setup"]["readings"]["cat"] == "first-block"  # recorded, as B&B's study does


def test_cli_value_hotv_plays_under_a_reading(capsys):
    """--reading reaches the game's value study (it was parsed as a first-game reading and
    refused) and the result records it."""
    code, out, err = run_cli(
        capsys,
        ["value", "--game", "hotv", "--option", "all-pets", "--players", "2", "--games", "40",
         "--json", "--threads", "1", "--reading", "cat=first-draw"],
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["setup"]["readings"]["cat"] == "first-draw"


def test_attached_values_lead_the_items_section_of_a_run_report(tmp_path):
    """The FM items section shows the causal values saved with the run (bnb value --attach),
    before the buyer comparison, which stays as context."""
    from bnb_sim.analysis.value_report import attach_value, load_value
    from bnb_sim.games.builders_biomes.fm_report import items_section
    from bnb_sim.runner.simulate import simulate

    run = tmp_path / "run"
    simulate(30, 3, ["heuristic"], 1, expansion="farmers-market", out=run, threads=1)
    seats = simulate(30, 3, ["heuristic"], 1, expansion="farmers-market", threads=1)
    result = _result({"buy:crafting_table": 0.2, "buy:bell": 0.0})
    result.players = 3
    attach_value(result, run)
    assert load_value(run)["options"][0]["option"] == "buy:crafting_table"
    section = items_section(seats, ["heuristic"], run)
    text = section.to_markdown()
    assert "Causal value" in text and "never buy:crafting_table" in text
    assert text.index("Causal value") < text.index("Purchase rate per item")
    assert "causal_value" in section.summary
    plain = items_section(seats, ["heuristic"], None).to_markdown()
    assert "Causal value" not in plain


def test_attach_refuses_a_run_of_another_set_up(tmp_path):
    from bnb_sim.analysis.value_report import attach_value
    from bnb_sim.errors import BnbError
    from bnb_sim.runner.simulate import simulate

    run = tmp_path / "run"
    simulate(10, 2, ["random"], 1, out=run, threads=1)
    result = _result({"buy:a": 0.1})
    result.players = 3
    with pytest.raises(BnbError, match="2 players"):
        attach_value(result, run)


def test_attached_pet_values_lead_the_hotv_pet_section(tmp_path):
    from bnb_sim.analysis.protocol_report import to_section
    from bnb_sim.analysis.value_report import save_value
    from bnb_sim.games.heroes_village.components_arg import components_arg
    from bnb_sim.games.heroes_village.report import pet_team_section
    from bnb_sim.games.heroes_village.runner import make_config, play_block

    config = make_config(components_arg(None), 2, ["team"], "all", seed=1)
    _seats, games = play_block(config, 0, 20, 1)
    result = _result({"pet:fox": 0.1, "pet:wolf": 0.0})
    result.game = "heroes_village"
    save_value(result, tmp_path)
    text = to_section(pet_team_section(games, tmp_path)).to_markdown()
    assert "Causal value" in text and "pet:fox" in text
    assert text.index("Causal value") < text.index("Pet teams ranked by win rate")


def test_a_value_item_in_an_experiment_file(capsys, tmp_path):
    exp = tmp_path / "exp.toml"
    exp.write_text(
        '[experiment]\ntitle = "values"\nseed = 4\n\n'
        '[[value]]\nname = "no fights"\noptions = ["fight", "weapon"]\ngames = 20\n'
    )
    code, out, err = run_cli(capsys, ["run", exp, "--out", tmp_path / "rep", "-q", "--threads", 1])
    assert code == 0, err
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    (item,) = summary["items"]
    assert item["kind"] == "value" and len(item["value"]["options"]) == 2
    assert "no fights: Value of options" in (tmp_path / "rep" / "report.md").read_text()


def test_a_bad_value_item_is_one_line_naming_the_file_and_key(capsys, tmp_path):
    exp = tmp_path / "exp.toml"
    exp.write_text('[[value]]\noptions = ["fight:endermen"]\ngames = 20\n')
    code, out, err = run_cli(capsys, ["run", exp, "--out", tmp_path / "rep"])
    assert code == 2
    assert "exp.toml: value[1].options:" in err and "did you mean 'enderman'" in err


def test_value_on_a_local_dask_cluster_gives_the_same_numbers():
    from bnb_sim.runner.value_study import run_value

    kw = dict(policy="heuristic", players=2, games=30, seed=6, threads=2)
    local = run_value(["fight"], **kw)
    dask = run_value(["fight"], dask="local", **kw)
    assert local.to_dict()["options"] == dask.to_dict()["options"]


def test_bnb_value_serves_hotv_through_its_value_study_entry():
    """Issue 24: the shared command plays a game's ``value_study`` entry (checks, report
    folder and output are the command's own); the game declares no ``value`` handler."""
    from bnb_sim.games import get_game

    spec = get_game("hotv")
    assert spec.entry("value") is None and spec.entry("value_study") is not None


HOTV_VALUE = (
    '[experiment]\nseed = 8\n\n[[value]]\ngame = "hotv"\nname = "pets"\noptions = ["all-pets"]\n'
    'games = 40\ndifficulty = "easy"\nreadings = { cat = "first-draw" }\n\n'
    '[[value]]\nname = "fights"\noptions = ["fight"]\ngames = 20\n'
)


def test_a_hotv_value_item_gives_the_numbers_of_bnb_value_game_hotv(capsys, tmp_path):
    """A ``[[value]]`` item of another game plays its ``value_study`` entry as the command
    does (before: "has no [[value]] items"); two items' figures are two files."""
    from bnb_sim.analysis.experiment import load_experiment
    from bnb_sim.runner.budget import experiment_games

    exp = tmp_path / "exp.toml"
    exp.write_text(HOTV_VALUE)
    assert experiment_games(load_experiment(exp)) == 40 * 15 + 20 * 2  # 15 pet teams of 2
    code, out, err = run_cli(capsys, ["run", exp, "--out", tmp_path / "rep", "-q", "--threads", 1])
    assert code == 0, err
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    pets = summary["items"][0]
    assert pets["kind"] == "value" and pets["value"]["setup"]["teams"] == 15
    code, out, err = run_cli(capsys, [
        "value", "--game", "hotv", "--option", "all-pets", "--players", "2", "--games", "40",
        "--seed", "8", "--difficulty", "easy", "--reading", "cat=first-draw", "--json",
    ])  # fmt: skip
    assert code == 0, err
    assert pets["value"]["options"] == json.loads(out)["options"]  # the same games and numbers
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "| pets | difficulty=easy, cat=first-draw |" in text
    assert "pets-value-forest.png" in text and "fights-value-forest.png" in text


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ('options = ["dragon"]', "value[1].options: --option 'dragon': not a pet"),
        ('options = ["fox"]\nmode = "always"', "value[1].mode: a pet is valued against"),
        ('options = ["fox"]\nopponents = ["team"]', "value[1].opponents: the players are a team"),
        ('options = ["fox"]\nhearts = 3', "unknown key 'value[1].hearts'"),
        ("games = 20", "value[1].options: is required"),
    ],
)
def test_a_bad_hotv_value_item_is_one_line_naming_the_key(tmp_path, keys, message):
    from experiment_helpers import refused

    got = refused(tmp_path, f'[[value]]\ngame = "hotv"\n{keys}\n')
    assert message in got, got
