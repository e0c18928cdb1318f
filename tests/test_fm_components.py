"""The Farmer's Market component data (R-FM-1, R-FM-3, R-FM-5, R-FM-6, R-FM-8): the
expansion file merges over the defaults, is validated, and carries provenance per value."""

from __future__ import annotations

import pytest

from bnb_sim.cli import main
from bnb_sim.errors import ComponentError
from bnb_sim.games.builders_biomes.components import load_components

FM = "farmers-market"
# R-FM-5: the published costs (the wiki's item table); names 5..17 are ours.
PUBLISHED_COSTS = {
    "minecart": 1,
    "crafting_table": 2,
    "jukebox": 2,
    "bed": 4,
    "collect_xp": 4,
    "hunger_actions": 1,
    "unlimited_move": 2,
    "collect_three": 3,
    "cheaper_builds": 4,
    "reveal_four": 5,
    "three_actions": 6,
    "end_blocks": 2,
    "end_buildings": 3,
    "end_mobs": 4,
    "end_farmland": 5,
    "end_items": 6,
    "end_twenty": 7,
}


@pytest.fixture(scope="module")
def fm():
    return load_components(expansion=FM)


def test_r_fm_1_eighty_tiles_in_sixteen_stacks_of_five(fm):
    assert fm.n_tiles == 80
    assert fm.rule("stack_height") == 5
    farms = [b for b in fm.data["buildings"].values() if "vegetables" in b]
    assert sum(b["copies"] for b in farms) == 16
    assert load_components().n_tiles == 64  # the base game is untouched


def test_r_fm_5_costs_and_abilities_are_known_and_letters_estimated(fm):
    items = fm.data["farmers_market"]["items"]
    assert len(items) == 18
    assert {name: items[name]["cost"] for name in PUBLISHED_COSTS} == PUBLISHED_COSTS
    rows = {r["key"]: r for r in fm.provenance_rows()}
    for name in PUBLISHED_COSTS:
        assert rows[f"farmers_market.items.{name}.cost"]["provenance"] == "known"
        assert rows[f"farmers_market.items.{name}.letter"]["provenance"] == "estimate"
    assert rows["farmers_market.items.bell.cost"]["provenance"] == "estimate"
    assert "bell" in rows["farmers_market.items.bell.cost"]["note"]


def test_r_fm_8_enough_items_for_every_marketplace_space(fm):
    d = fm.data["farmers_market"]
    assert (d["market_x"], d["market_a"], d["market_b"]) == (4, 4, 4)
    for letter in "XAB":
        assert sum(it["letter"] == letter for it in d["items"].values()) >= 4


def test_r_fm_3_r_fm_6_vegetables_farmland_and_farming_xp(fm):
    d = fm.data["farmers_market"]
    assert d["vegetable_tokens"] == 32
    assert d["xp_per_farming_space"] == 2
    assert set(d["farmland"]) == {"side_2", "side_3_4"}
    per = {s: d["farmland"][s]["vegetables_per_space"] for s in d["farmland"]}
    assert sorted(per.values()) == [1, 2]


def test_too_few_items_of_a_letter_is_one_clear_error(tmp_path):
    bad = tmp_path / "box.toml"
    bad.write_text("[farmers_market]\nmarket_x = 7\nprovenance = 'estimate'\nreason = 'x'\n")
    with pytest.raises(ComponentError, match=r"box\.toml.*6 items lettered X"):
        load_components(bad, expansion=FM)
    bad.write_text("[farmers_market.items.bed]\nletter = 'Z'\n")
    with pytest.raises(ComponentError, match="unknown letter .Z."):
        load_components(bad, expansion=FM)


def test_a_box_file_overrides_the_expansion_estimates(tmp_path):
    box = tmp_path / "box.toml"
    box.write_text(
        "[farmers_market.items.bell]\ncost = 2\nletter = 'X'\nability = 'none'\namount = 0\n"
        "provenance = 'known'\nsource = 'my box'\n"
    )
    comps = load_components(box, expansion=FM)
    assert comps.data["farmers_market"]["items"]["bell"]["cost"] == 2
    rows = {r["key"]: r for r in comps.provenance_rows()}
    assert rows["farmers_market.items.bell.cost"]["note"] == "my box"


def test_sweeps_address_expansion_keys(fm):
    changed = fm.with_values({"farmers_market.items.bed.cost": 2})
    assert changed.data["farmers_market"]["items"]["bed"]["cost"] == 2
    rows = {r["key"]: r for r in changed.provenance_rows()}
    assert rows["farmers_market.items.bed.cost"]["provenance"] == "estimate"
    assert rows["farmers_market.items.minecart.cost"]["provenance"] == "known"


def test_farm_tiles_without_the_expansion_section_are_refused(tmp_path):
    box = tmp_path / "box.toml"
    box.write_text(
        "[buildings.f99]\nbiome = 'forest'\nmaterial = 'wood'\ntype = 'dwelling'\n"
        "cost = { wood = 1 }\nxp = 0\ncopies = 0\nvegetables = 1\n"
        "provenance = 'estimate'\nreason = 'x'\n"
    )
    with pytest.raises(ComponentError, match="farmers_market"):
        load_components(box)


def _show(capsys, *args) -> str:
    try:
        main(["components", "show", *args])
    except SystemExit as exc:
        assert exc.code in (0, None)
    return capsys.readouterr().out


def test_components_show_expansion_prints_items_with_provenance(capsys):
    out = _show(capsys, "--expansion", FM)
    assert "Farmer's Market" in out
    assert "minecart" in out and "~X" in out
    assert "EST-FM-3" in out
    assert "Farmer's Market" not in _show(capsys)
