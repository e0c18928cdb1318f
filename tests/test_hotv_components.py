"""Heroes of the Village component data: defaults, provenance, overrides, clear errors."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bnb_sim.errors import ComponentError, SpecError
from bnb_sim.games.heroes_village.components import load_components, parse_buildings


def test_the_defaults_hold_the_known_box_contents():
    comps = load_components()
    d = comps.data
    assert d["_totals"] == [6, 6, 6, 3, 4] and sum(d["_totals"]) == 25
    assert d["_pouch"] == [1, 1, 1, 0, 1]
    assert len(d["tiles"]["list"]) == 18 and len(comps.mob_tokens) == 12
    assert len(comps.buildings) == 9 and sorted({b["level"] for b in comps.buildings}) == [1, 2, 3]
    assert d["path"]["darkness_spaces"] == [7, 6, 5]
    assert (d["path"]["start_normal"], d["path"]["start_easy"]) == (9, 11)
    assert set(comps.pet_strength) == {"wolf", "cat", "fox", "panda", "horse", "llama"}


def test_every_value_has_a_provenance_and_estimates_a_reason():
    rows = load_components().provenance_rows()
    assert rows and all(r["provenance"] in ("known", "estimate") for r in rows)
    assert all(r["reason"] for r in rows if r["provenance"] == "estimate")
    assert all(r["source"] for r in rows if r["provenance"] == "known")
    keys = {r["key"] for r in rows}
    assert {"dice.fight.faces", "dice.illagers.faces", "readings.panda_scope"} <= keys
    # one row per value of a tile and of a building cost: the keys --set takes
    assert {
        "tiles.list.0.symbol",
        "tiles.list.0.back.wood",
        "buildings.list.6.cost.redstone",
    } <= keys


def _override(tmp_path, text):
    path = tmp_path / "box.toml"
    path.write_text(text)
    return path


def test_an_override_changes_only_what_it_names(tmp_path):
    path = _override(tmp_path, "[blocks]\nredstone = 4\n")
    comps = load_components([path])
    assert comps.data["_totals"][3] == 4 and comps.data["_totals"][0] == 6
    assert "box.toml" in comps.source


def test_the_study_hooks_load_a_component_file_given_by_path(tmp_path):
    """The Python API (``bnb_sim.robustness(game="hotv", components="box.toml")``, the luck,
    value and sensitivity studies) hands the hooks a path or a list of paths: it is loaded
    over the defaults, not silently replaced by them (it was before)."""
    from bnb_sim.games.heroes_village.components_arg import components_arg

    path = _override(tmp_path, "[blocks]\nredstone = 4\n")
    for given in (path, str(path), [path]):
        comps = components_arg(given)
        assert comps.data["_totals"][3] == 4 and "box.toml" in comps.source
    assert components_arg(None).data["_totals"][3] == 3
    loaded = load_components([path])
    assert components_arg(loaded) is loaded


@pytest.mark.parametrize(
    "text, key, problem",
    [
        ('[dice.fight]\nfaces = [4, 5, "sword"]\n', "dice.fight.faces[2]", "unknown symbol"),
        ("[dice.illagers]\nfaces = [1, 2]\n", "dice.illagers.faces[0]", "no numbers"),
        ("[rules]\nfight_rolls = 0\n", "rules.fight_rolls", "out of range"),
        ("[blocks]\nwood = 'six'\n", "blocks.wood", "must be an integer"),
        ("[blocks]\nemerald = 3\n", "blocks.emerald", "unknown block"),
        ("[path]\ndarkness_spaces = [7, 7]\n", "path.darkness_spaces", "twice"),
        ("[readings]\npanda_scope = 'game'\n", "readings.panda_scope", "not one of"),
        ("[dice.fight]\nprovenance = 'known'\n", "dice.fight.source", "needs a source"),
        ("[blocks]\ndarkness = 2\n", "blocks.darkness", "path start with"),
    ],
)
def test_errors_name_the_file_the_key_and_the_problem(tmp_path, text, key, problem):
    path = _override(tmp_path, text)
    with pytest.raises(ComponentError) as err:
        load_components([path])
    message = str(err.value)
    assert str(path) in message and key in message and problem in message


def test_buildings_by_level_or_by_number():
    comps = load_components()
    assert parse_buildings("level:1,2,3", comps) == [-2, -3, -4]
    assert parse_buildings("1,5,9", comps) == [0, 4, 8]
    for bad in ("1,5", "1,1,2", "level:4,1,2", "10,1,2"):
        with pytest.raises(SpecError):
            parse_buildings(bad, comps)


def test_components_show_game_hotv():
    from bnb_sim.cli import cli

    out = CliRunner().invoke(cli, ["components", "show", "--game", "hotv"])
    assert out.exit_code == 0, out.output
    assert "Fight die: ~[4, 5, 6, 6, 'arrow', 'illager']" in out.output
    assert "silverfish" in out.output and "town_hall" in out.output
    data = json.loads(
        CliRunner().invoke(cli, ["components", "show", "--game", "hotv", "--json"]).output
    )
    assert data["data"]["dice"]["fight"]["faces"][-1] == "illager"
    # the default game is unchanged
    base = CliRunner().invoke(cli, ["components", "show"])
    assert base.exit_code == 0 and "Builders" in base.output


def test_a_bad_hotv_component_file_is_one_line_and_exit_code_2(tmp_path, capsys):
    from bnb_sim.cli import main

    path = _override(tmp_path, "[rules]\nstacks = 9\n")
    with pytest.raises(SystemExit) as stop:
        main(["components", "show", "--game", "hotv", "--components", str(path)])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err.count("\n") == 1 and "rules.stacks" in err and "Traceback" not in err
