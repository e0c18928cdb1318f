"""Heroes of the Village readings on the command line (``bnb readings --game hotv``,
``--reading NAME=VALUE``, run.json, the report) and misspelt component keys (one line)."""

from __future__ import annotations

import json

import pytest

from bnb_sim.errors import ComponentError
from bnb_sim.games.heroes_village.components import load_components
from bnb_sim.games.heroes_village.readings import READINGS

NEW = {"build": "several", "cat": "first-block", "free_lay": "needed"}


def run_cli(capsys, args):
    from bnb_sim.cli import main

    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err):
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


# ----------------------------------------------------------------------------- listing


def test_bnb_readings_game_hotv_lists_every_reading_with_its_default(capsys):
    code, out, err = run_cli(capsys, ["readings", "--game", "hotv"])
    assert code == 0, err
    for name, reading in READINGS.items():
        assert f"{name}  ({reading.rule})" in out
        assert f"* {reading.default}" in out
    for name, default in NEW.items():
        assert READINGS[name].default == default
    code, out, _ = run_cli(capsys, ["readings", "--game", "hotv", "cat", "--json"])
    data = json.loads(out)["readings"]
    assert [r["name"] for r in data] == ["cat"] and set(data[0]["values"]) == {
        "first-block",
        "first-draw",
    }
    code, out, err = run_cli(capsys, ["readings", "--game", "hotv", "hunger"])
    one_line_error(code, err)
    assert "cat" in err
    code, out, _ = run_cli(capsys, ["readings"])  # the first game's table stays the default
    assert code == 0 and "hunger" in out and "free_lay" not in out


def test_the_defaults_are_the_texts_readings_and_every_value_loads():
    comps = load_components()
    assert {k: comps.readings[k] for k in NEW} == NEW
    for name, reading in READINGS.items():
        for value in reading.values:
            assert load_components().with_readings({name: value}).readings[name] == value


# ----------------------------------------------------------------------------- --reading


@pytest.mark.parametrize(("name", "value"), [(n, v) for n, r in READINGS.items() for v in r.values])
def test_play_game_hotv_takes_every_reading_value(capsys, name, value):
    code, out, err = run_cli(capsys, [
        "play", "--game", "hotv", "--seed", "3", "--pets", "cat,horse", "--policy", "random",
        "--reading", f"{name}={value}", "--json",
    ])  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["readings"][name] == value


@pytest.mark.parametrize(
    ("arg", "words"),
    [("cat=first", "not a value"), ("kitten=first-draw", "unknown reading"), ("cat", "NAME=VALUE"),
     ("hunger=one-by-one", "unknown reading")],
)  # fmt: skip
def test_a_bad_reading_is_one_line(capsys, arg, words):
    code, _, err = run_cli(capsys, ["play", "--game", "hotv", "--reading", arg])
    one_line_error(code, err)
    assert words in err


def test_a_reading_changes_the_games():
    from bnb_sim.games.heroes_village.runner import make_config, play_block

    base = load_components()
    won = {}
    for value in READINGS["build"].values:
        cfg = make_config(base.with_readings({"build": value}), 3, ["team"], "wolf,cat,fox")
        seats, games = play_block(cfg, 0, 400)
        won[value] = (games["won"].to_numpy(), seats["extra_hand_ins"].sum())
    assert won["one"][1] == 0 and won["several"][1] > 0
    assert (won["one"][0] != won["several"][0]).any()


def test_simulate_records_the_readings_in_run_json_and_the_report(tmp_path, capsys):
    run = tmp_path / "run"
    code, out, err = run_cli(capsys, [
        "simulate", "--game", "hotv", "-n", "40", "--players", "2", "--seed", "1", "-o", run,
        "--reading", "cat=first-draw", "--reading", "build=one",
    ])  # fmt: skip
    assert code == 0, err
    meta = json.loads((run / "run.json").read_text())
    readings = meta["params"]["readings"]
    assert readings["cat"] == "first-draw" and readings["build"] == "one"
    assert readings["free_lay"] == "needed" and set(readings) == set(READINGS)
    assert meta["components"]["data"]["readings"]["cat"] == "first-draw"
    assert "--reading cat=first-draw" in meta["command"]
    code, out, err = run_cli(capsys, ["report", run, "-o", tmp_path / "rep"])
    assert code == 0, err
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "Rule readings: build=one, cat=first-draw, free_lay=needed" in text
    # resuming under another reading is refused (the readings decide the rows)
    code, _, err = run_cli(capsys, [
        "simulate", "--game", "hotv", "-n", "40", "--players", "2", "--seed", "1", "-o", run,
        "--resume",
    ])  # fmt: skip
    one_line_error(code, err)
    assert "readings" in err or "components" in err


# ----------------------------------------------------------------------------- misspelt keys

TYPOS = {
    "dice-unknown-die": ('[dice.fights]\nfaces = ["illager", "illager", "illager", '
                         '"illager", "illager", "illager"]\nprovenance = "known"\n'
                         'source = "my box"\n', "dice.fights"),
    "dice-faces-key": ('[dice.fight]\nfacez = [4, 5, 6, 6, "arrow", "illager"]\n',
                       "dice.fight.facez"),
    "rules-key": ("[rules]\nfight_rollz = 2\n", "rules.fight_rollz"),
    "path-key": ("[path]\nstart_norml = 8\n", "path.start_norml"),
    "pets-unknown-pet": ("[pets]\ndragon = { fire = 1 }\n", "pets.dragon"),
    "pet-ability-key": ("[pets.wolf]\nfight_bonuz = 2\n", "pets.wolf.fight_bonuz"),
    "readings-key": ('[readings]\npanda_scop = "turn"\n', "readings.panda_scop"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(TYPOS))
def test_a_misspelt_component_key_is_refused_naming_the_file_and_key(tmp_path, case):
    text, key = TYPOS[case]
    path = tmp_path / "box.toml"
    path.write_text(text)
    with pytest.raises(ComponentError) as info:
        load_components(path)
    assert info.value.key == key and info.value.file == str(path)
    assert "unknown key" in str(info.value)


@pytest.mark.parametrize("case", ["dice-unknown-die", "pet-ability-key"])
def test_a_misspelt_component_key_is_one_line_from_the_cli(tmp_path, capsys, case):
    text, key = TYPOS[case]
    path = tmp_path / "box.toml"
    path.write_text(text)
    code, out, err = run_cli(capsys, ["odds", "--game", "hotv", "--mob", "6", "--components", path])
    one_line_error(code, err)
    assert str(path) in err and f"'{key}'" in err and not out


def test_keys_inside_lists_and_provenance_tables_are_checked(tmp_path):
    path = tmp_path / "box.toml"
    path.write_text('[[mobs]]\nname = "zombie"\nvalue = 5\ncount = 12\nprovenance = "known"\n'
                    'source = "box"\ncolour = "green"\n')  # fmt: skip
    with pytest.raises(ComponentError, match=r"mobs\[0\]\.colour"):
        load_components(path)
    path.write_text('[path]\nprovenance = { start_norml = "known" }\n')
    with pytest.raises(ComponentError, match=r"path\.provenance\.start_norml"):
        load_components(path)
    path.write_text("[buildings]\nlist = [{ number = 1, level = 1, cost = { wod = 2 } }]\n")
    with pytest.raises(ComponentError, match=r"buildings\.list\[0\]\.cost\.wod"):
        load_components(path)


def test_the_team_ladder_plays_under_the_reading_and_says_so(tmp_path, capsys):
    """R-HV-9 (the Cat) read as first-draw: the ladder's rungs play under it (their win
    rates differ on the same game indices) and its setting line names it; before, the
    ladder refused --reading (parsed as a Builders & Biomes reading)."""
    first = {}
    for value in ("first-draw", "first-block"):
        args = ["ladder", "--game", "hotv", "--rungs", "random,team", "--games", "300",
                "--reading", f"cat={value}", "--out", tmp_path / value, "--quiet"]  # fmt: skip
        code, out, err = run_cli(capsys, args)
        assert code == 0, err
        first[value] = out.splitlines()[:4]
    assert "reading cat=first-draw" in first["first-draw"][0]
    assert "reading" not in first["first-block"][0]  # the default is not named
    assert first["first-draw"][3] != first["first-block"][3]  # the team rung's win rate


def test_luck_names_a_reading_that_is_not_the_default(tmp_path, capsys):
    args = ["luck", "--game", "hotv", "--reading", "cat=first-draw", "--groups", "10",
            "--pair-games", "20", "--out", tmp_path / "luck", "--quiet"]  # fmt: skip
    code, out, err = run_cli(capsys, args)
    assert code == 0, err
    assert "standard, reading cat=first-draw, seed 0" in out.splitlines()[0]
