"""Component data: the default file, overrides, sweeps, validation, CLI (docs/components.md).

Known values are checked against the rule text; the rule IDs of docs/rules-reference.md are named
in the test names or comments.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bnb_sim.errors import ComponentError, SpecError
from bnb_sim.games.builders_biomes.components import (
    DEFAULT_COMPONENTS_PATH,
    Components,
    components_from_dict,
    components_from_text,
    load_components,
    parse_assignment,
)
from bnb_sim.games.builders_biomes.components import arrays as A
from bnb_sim.games.builders_biomes.components.loader import MAX_BYTES, load_default_data

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BYTES = DEFAULT_COMPONENTS_PATH.read_bytes()
DEFAULT_TEXT = DEFAULT_BYTES.decode("utf-8")
DEFAULT_DATA = load_default_data()
ALL_WEAPON_PROV = (
    'provenance = { hearts = "known", extra_reveals = "known", xp_on_reveal = "known", '
    'blocks_on_reveal = "known", detonate_hearts = "known", start_count = "known", '
    'table_count = "known" }\nsource = "my box"'
)


@pytest.fixture(scope="module")
def comps() -> Components:
    return load_components()


def write(tmp_path: Path, text: str, name: str = "ov.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def load_error(*paths: Path) -> ComponentError:
    with pytest.raises(ComponentError) as info:
        load_components(list(paths))
    message = str(info.value)
    assert "\n" not in message
    return info.value


def row(comps: Components, key: str) -> dict:
    (found,) = [r for r in comps.provenance_rows() if r["key"] == key]
    return found


# --------------------------------------------------------------------------------------------
# The default file
# --------------------------------------------------------------------------------------------


def test_default_loads_with_expected_names(comps):
    assert comps.source == "default"
    assert comps.characteristics == ["biome", "material", "type"]
    assert comps.values == {
        "biome": ["forest", "desert", "mountains", "snowy_tundra"],
        "material": ["wood", "sand", "stone", "obsidian"],
        "type": ["decoration", "dwelling", "animal_house", "bridge"],
    }
    assert comps.block_names == ["wood", "sand", "stone", "obsidian", "emerald"]
    assert comps.weapon_names == [
        "wooden_sword",
        "stone_sword",
        "poisonous_potato",
        "iron_sword",
        "diamond_sword",
        "bow",
        "golden_hoe",
        "stone_pickaxe",
        "tnt",
    ]
    assert comps.mob_names == ["spider", "zombie", "skeleton", "creeper", "witch", "enderman"]
    assert comps.building_ids == [f"b{i:02d}" for i in range(1, 45)]
    assert comps.board_names == ["red", "blue", "yellow", "green"]
    assert re.fullmatch(r"[0-9a-f]{64}", comps.content_hash)
    assert load_components().content_hash == comps.content_hash


def test_default_totals_r_setup_2(comps):
    # R-SETUP-2: 64 tiles in 16 stacks of 4; 16 colourless weapon tokens.
    a = comps.arrays
    assert comps.n_tiles == 64 == 16 * a.rules[A.RULE_STACK_HEIGHT]
    assert int(a.tok_table.sum()) == 16
    kinds = Counter(a.tile_kind.tolist())
    # research: 44 buildings + 20 mobs (GEEKDAD), 8 hunger + 12 bonus variants (estimate)
    assert kinds == {A.TILE_BUILDING: 44, A.TILE_HUNGER_MOB: 8, A.TILE_BONUS_MOB: 12}
    per_species = Counter(a.tile_species[a.tile_species >= 0].tolist())
    assert [per_species[i] for i in range(6)] == [2, 2, 5, 5, 3, 3]  # GEEKDAD counts
    assert len(comps.board_names) >= a.rules[A.RULE_PLAYERS_MAX]


def test_default_rule_numbers(comps):
    rules = dict(zip(A.RULE_KEYS, comps.arrays.rules.tolist(), strict=True))
    assert rules == {
        "actions_per_turn": 2,  # R-TURN-1
        "blocks_per_collect": 2,  # R-CUBE-2
        "explore_max_steps": 2,  # R-EXPLORE-1
        "fight_reveal": 3,  # R-FIGHT-2
        "min_exposed_sides": 2,  # R-CUBE-1
        "xp_track": 50,  # R-END-3
        "players_min": 2,  # R-SETUP-1
        "players_max": 4,  # R-SETUP-1
        "stack_height": 4,  # R-SETUP-2
    }
    assert all(row(comps, f"rules.{k}")["provenance"] == "known" for k in rules)
    assert comps.rule("fight_reveal") == 3


def test_default_blocks_r_setup_3_r_cube_3(comps):
    # R-SETUP-3: 16 wood, 14 sand, 12 stone, 10 obsidian, 12 emerald; R-CUBE-3: emerald is wild.
    assert comps.arrays.block_count.tolist() == [16, 14, 12, 10, 12]
    assert comps.data["blocks"]["emerald"]["wild"] is True
    for name in comps.block_names:
        assert row(comps, f"blocks.{name}.count")["provenance"] == "known"


def test_default_start_pile_r_setup_1(comps):
    # R-SETUP-1: 1 stone sword, 1 wooden sword, 3 poisonous potatoes (0 hearts).
    a = comps.arrays
    start = dict(zip(comps.weapon_names, a.tok_start.tolist(), strict=True))
    assert {k: v for k, v in start.items() if v} == {
        "wooden_sword": 1,
        "stone_sword": 1,
        "poisonous_potato": 3,
    }
    potato = comps.resolve_weapon("potato")
    assert a.tok_hearts[potato] == 0
    assert row(comps, "weapons.poisonous_potato.hearts")["provenance"] == "known"
    assert row(comps, "weapons.poisonous_potato.start_count")["provenance"] == "known"


def test_default_weapon_effects_r_fight_2_3_4(comps):
    a = comps.arrays
    w = comps.resolve_weapon
    assert a.tok_extra_reveals[w("bow")] == 1  # R-FIGHT-2
    assert a.tok_xp[w("hoe")] == 2  # R-FIGHT-3
    assert a.tok_blocks[w("pickaxe")] == 1  # R-FIGHT-3
    assert a.tok_hearts[w("tnt")] == 0  # R-FIGHT-4: 0 unless detonated
    assert a.tok_detonate[w("tnt")] == 5  # R-FIGHT-4
    # only those four have an effect
    effects = a.tok_extra_reveals + a.tok_xp + a.tok_blocks + a.tok_detonate
    assert [comps.weapon_names[i] for i in np.flatnonzero(effects)] == [
        "bow",
        "golden_hoe",
        "stone_pickaxe",
        "tnt",
    ]
    for key in (
        "weapons.bow.extra_reveals",
        "weapons.golden_hoe.xp_on_reveal",
        "weapons.stone_pickaxe.blocks_on_reveal",
        "weapons.tnt.hearts",
        "weapons.tnt.detonate_hearts",
    ):
        assert row(comps, key)["provenance"] == "known"
        assert "RULES R-FIGHT" in row(comps, key)["note"]
    # unknown heart values are estimates (EST-1, EST-2)
    assert row(comps, "weapons.iron_sword.hearts")["provenance"] == "estimate"


def test_default_scoring_cards_e1_to_e4(comps):
    card = comps.arrays.score_card
    b, m, t = (comps.values[c] for c in comps.characteristics)
    assert 4 * card[A.CHAR_BIOME, b.index("desert")] == 16  # E1: 4 desert spaces at 4
    assert 5 * card[A.CHAR_MATERIAL, m.index("wood")] == 15  # E2: 5 wood buildings at 3
    assert 3 * card[A.CHAR_TYPE, t.index("bridge")] == 18  # E3: 3 bridges at 6
    assert 2 * card[A.CHAR_TYPE, t.index("animal_house")] == 10  # E3: 2 animal houses at 5
    assert card[A.CHAR_BIOME, b.index("snowy_tundra")] == 6  # E4
    known = {
        "scoring.a.values.desert",
        "scoring.a.values.snowy_tundra",
        "scoring.b.values.wood",
        "scoring.c.values.animal_house",
        "scoring.c.values.bridge",
    }
    for r in comps.provenance_rows():
        if r["key"].startswith("scoring."):
            assert r["provenance"] == ("known" if r["key"] in known else "estimate"), r["key"]
    assert card.tolist() == [[3, 4, 5, 6]] * 3  # EST-5


def test_default_bonus_mobs_e5_r_end_1(comps):
    # E5: 2 XP per forest, 3 XP per obsidian building, 3 XP per animal house, 2 XP per sand
    # building exist as bonus mobs; R-END-1: each counts one characteristic value.
    a = comps.arrays
    bonus = a.tile_kind == A.TILE_BONUS_MOB
    targets = Counter(
        (int(c), int(v), int(x))
        for c, v, x in zip(
            a.tile_bonus_char[bonus], a.tile_bonus_value[bonus], a.tile_bonus_xp[bonus], strict=True
        )
    )
    vals = comps.values
    for char, value, xp in (
        ("biome", "forest", 2),
        ("material", "obsidian", 3),
        ("type", "animal_house", 3),
        ("material", "sand", 2),
    ):
        assert targets[(comps.characteristics.index(char), vals[char].index(value), xp)] == 1
    # one bonus tile per characteristic value, 1..3 XP per space
    assert sorted((c, v) for c, v, _ in targets) == [(c, v) for c in range(3) for v in range(4)]
    assert {x for _, _, x in targets} == {1, 2, 3}
    # E5 worked example: 2 forests x 2 + 1 obsidian x 3 + 2 animal houses x 3 + 0 sand = 13
    assert 2 * 2 + 1 * 3 + 2 * 3 + 0 * 2 == 13


def test_default_mobs_r_fight_5_r_fight_6(comps):
    # Mob hearts (RUST, Medium confidence) and XP when defeated (R-FIGHT-5); every mob tile is
    # a hunger or a bonus variant (R-FIGHT-6).
    assert comps.mob_hearts == {
        "spider": 1,
        "zombie": 2,
        "skeleton": 3,
        "creeper": 4,
        "witch": 5,
        "enderman": 6,
    }
    assert "Medium confidence" in row(comps, "mobs.enderman.hearts")["note"]
    a = comps.arrays
    mobs = a.tile_species >= 0
    assert set(a.tile_kind[mobs].tolist()) == {A.TILE_HUNGER_MOB, A.TILE_BONUS_MOB}
    hearts = [comps.mob_hearts[comps.mob_names[s]] for s in a.tile_species[mobs]]
    assert a.tile_hearts[mobs].tolist() == hearts
    assert (a.tile_source[mobs] == a.tile_species[mobs]).all()
    xp = {
        (comps.mob_names[s], int(k), int(x))
        for s, k, x in zip(a.tile_species[mobs], a.tile_kind[mobs], a.tile_xp[mobs], strict=True)
    }
    assert ("skeleton", A.TILE_HUNGER_MOB, 4) in xp  # RUST: hunger skeleton 4 XP
    assert ("skeleton", A.TILE_BONUS_MOB, 3) in xp


def test_default_buildings_r_build_3(comps):
    # EST-4: 11 per biome and type, materials 12/11/11/10, costs in the tile's
    # own material 1x6 2x10 3x12 4x8 5x5 6x3, immediate XP (R-BUILD-3) = cost - 3 from cost 4.
    a = comps.arrays
    bld = a.tile_kind == A.TILE_BUILDING
    assert bld[:44].all() and not bld[44:].any()  # buildings first
    assert a.tile_source[bld].tolist() == list(range(44))
    assert Counter(a.tile_biome[bld].tolist()) == dict.fromkeys(range(4), 11)
    assert Counter(a.tile_type[bld].tolist()) == dict.fromkeys(range(4), 11)
    assert Counter(a.tile_material[bld].tolist()) == {0: 12, 1: 11, 2: 11, 3: 10}
    cost = a.tile_cost[bld]
    assert (cost[:, A.WILD_BLOCK] == 0).all()
    total = cost.sum(axis=1)
    assert (cost[np.arange(44), a.tile_material[bld]] == total).all()  # own material only
    assert Counter(total.tolist()) == {1: 6, 2: 10, 3: 12, 4: 8, 5: 5, 6: 3}
    assert (a.tile_xp[bld] == np.where(total >= 4, total - 3, 0)).all()
    pairs = Counter(zip(a.tile_biome[bld].tolist(), a.tile_type[bld].tolist(), strict=True))
    assert len(pairs) == 16 and set(pairs.values()) == {2, 3}
    assert (a.tile_hearts[bld] == 0).all() and (a.tile_species[bld] == -1).all()
    assert comps.tile_label(6) == "b07 forest/sand/animal_house cost 3 sand"
    assert comps.tile_label(0) == "b01 forest/wood/decoration cost 4 wood, 1 XP"


def test_default_buildings_match_the_generator():
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts/gen_default_buildings.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    generated = tomllib.loads(gen.to_toml(gen.generate()))["buildings"]
    assert generated == DEFAULT_DATA["buildings"]


def test_default_boards_r_setup_1(comps):
    # R-SETUP-1: a 3x3 board with a printed biome on each space (layouts: placeholders)
    boards = comps.arrays.boards
    assert boards.shape == (4, 9)
    for b in boards:
        assert Counter(b.tolist()) == {0: 3, 1: 2, 2: 2, 3: 2}
        grid = b.reshape(3, 3)
        assert (grid[1:] != grid[:-1]).all() and (grid[:, 1:] != grid[:, :-1]).all()
    assert boards[0].tolist() == [0, 1, 2, 3, 0, 1, 2, 3, 0]  # red: F D M / S F D / M S F
    assert row(comps, "boards.red.spaces")["provenance"] == "estimate"


def test_arrays_contract(comps):
    a = comps.arrays
    assert a is comps.arrays  # built once
    nt, nw, nb = comps.n_tiles, len(comps.weapon_names), len(comps.board_names)
    ref = A.empty_like_sizes(nw, nt, nb)
    for name, arr in a._asdict().items():
        assert arr.dtype == np.int64, name
        assert arr.flags.c_contiguous, name
        assert arr.shape == getattr(ref, name).shape, name
    assert (a.group_table == A.group_table()).all()
    mobs = a.tile_kind != A.TILE_BUILDING
    assert (a.tile_biome[mobs] == -1).all() and (a.tile_cost[mobs] == 0).all()
    hunger = a.tile_kind == A.TILE_HUNGER_MOB
    assert (a.tile_bonus_char[hunger] == -1).all() and (a.tile_bonus_xp[hunger] == 0).all()


def _count_values(obj) -> int:
    """Integers in the data (not schema), plus bonus targets and board layouts."""
    if isinstance(obj, dict):
        n = 0
        for k, v in obj.items():
            if k in ("schema", "provenance", "source", "reason", "characteristics", "aliases"):
                continue
            if k in ("bonus", "spaces"):
                n += 1
            else:
                n += _count_values(v)
        return n
    if isinstance(obj, list):
        return sum(_count_values(v) for v in obj)
    return int(isinstance(obj, int) and not isinstance(obj, bool))


def test_every_value_has_provenance(comps):
    rows = comps.provenance_rows()
    assert len(rows) == _count_values(comps.data) == 291
    assert len({r["key"] for r in rows}) == len(rows)
    for r in rows:
        assert set(r) == {"key", "value", "provenance", "note"}
        assert r["provenance"] in ("known", "estimate")
        assert r["note"].strip() and "\n" not in r["note"]
    estimates = comps.estimates()
    assert estimates == [r for r in rows if r["provenance"] == "estimate"]
    assert comps.n_estimates == len(estimates) > 0


def test_known_sources_use_the_research_keys(comps):
    keys = ("RB", "WIKI-BB", "GEEKDAD", "RUST", "RULES")
    for r in comps.provenance_rows():
        if r["provenance"] == "known":
            assert any(k in r["note"] for k in keys), r


def test_data_and_lists_are_copies(comps):
    data = comps.data
    data["mobs"]["enderman"]["hearts"] = 99
    comps.weapon_names.append("x")
    assert comps.mob_hearts["enderman"] == 6
    assert "x" not in comps.weapon_names


def test_resolve_weapon(comps):
    assert comps.resolve_weapon("stone_pickaxe") == comps.resolve_weapon("Pickaxe") == 7
    assert comps.resolve_weapon(" golden-hoe ") == 6
    assert comps.weapon_aliases["potato"] == "poisonous_potato"
    assert comps.weapon_aliases["tnt"] == "tnt"
    with pytest.raises(SpecError, match=r"unknown weapon token 'axe'.*tnt") as info:
        comps.resolve_weapon("axe")
    assert "potato" in str(info.value)


def test_tile_labels(comps):
    labels = [comps.tile_label(i) for i in range(comps.n_tiles)]
    assert labels[44] == "spider (hunger)"
    assert "enderman (bonus: 3 XP per type.bridge)" in labels
    with pytest.raises(IndexError):
        comps.tile_label(64)


def test_to_json_dict(comps):
    d = json.loads(json.dumps(comps.to_json_dict()))
    assert d["content_hash"] == comps.content_hash
    assert d["data"] == comps.data
    assert d["estimated_values"] == comps.n_estimates == len(d["estimated_keys"])
    assert d["estimated_keys"] == [r["key"] for r in comps.estimates()]
    assert len(d["provenance"]) == d["n_values"]


# --------------------------------------------------------------------------------------------
# Overrides
# --------------------------------------------------------------------------------------------


def test_override_changes_one_value(tmp_path, comps):
    path = write(
        tmp_path,
        """
        [mobs.enderman]
        hearts = 7
        provenance = "known"
        source = "printed on my tile"
        """,
    )
    c = load_components(path)
    assert c.source == str(path)
    assert c.files == ["builders_biomes.toml (default)", str(path)]
    assert c.mob_hearts["enderman"] == 7
    assert row(c, "mobs.enderman.hearts")["note"] == "printed on my tile"
    assert c.content_hash != comps.content_hash
    # everything else is the default
    rest = {r["key"]: r for r in comps.provenance_rows() if r["key"] != "mobs.enderman.hearts"}
    assert all(rest[r["key"]] == r for r in c.provenance_rows() if r["key"] in rest)
    assert (c.arrays.tile_hearts[c.arrays.tile_species == 5] == 7).all()


def test_docs_example_override_is_valid(tmp_path):
    doc = (ROOT / "docs/components.md").read_text(encoding="utf-8")
    example = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    c = load_components(write(tmp_path, example))
    assert c.mob_hearts["enderman"] == 7
    assert c.arrays.tok_hearts[c.resolve_weapon("iron_sword")] == 2


def test_override_adds_a_weapon_type(tmp_path):
    path = write(
        tmp_path,
        f"""
        [weapons.netherite_sword]
        hearts = 5
        extra_reveals = 0
        xp_on_reveal = 0
        blocks_on_reveal = 0
        detonate_hearts = 0
        start_count = 0
        table_count = 1
        aliases = ["netherite"]
        provenance = "estimate"
        reason = "house rule"

        [weapons.diamond_sword]
        table_count = 1
        {ALL_WEAPON_PROV}
        """,
    )
    c = load_components(path)
    assert c.weapon_names[-1] == "netherite_sword"
    assert c.resolve_weapon("netherite") == 9
    assert c.arrays.tok_hearts.shape == (10,)
    assert c.arrays.tok_table[[4, 9]].tolist() == [1, 1]


def test_override_replaces_arrays_and_cost_whole(tmp_path):
    path = write(
        tmp_path,
        """
        [[mobs.spider.tiles]]
        kind = "hunger"
        xp = 2
        copies = 2
        provenance = "known"
        source = "my box"

        [buildings.b01]
        cost = { sand = 2 }
        provenance = "known"
        source = "my box"
        """,
    )
    c = load_components(path)
    spider = c.data["mobs"]["spider"]
    assert len(spider["tiles"]) == 1 and spider["hearts"] == 1
    assert c.data["buildings"]["b01"]["cost"] == {"sand": 2}
    assert c.tile_label(0) == "b01 forest/wood/decoration cost 2 sand, 1 XP"


def test_override_must_restate_provenance(tmp_path):
    path = write(tmp_path, "[mobs.enderman]\nhearts = 7\n")
    err = load_error(path)
    assert err.file == str(path)
    assert err.key == "mobs.enderman.provenance"
    assert "does not restate provenance" in err.problem


def test_restated_provenance_drops_the_old_source(tmp_path):
    path = write(tmp_path, '[mobs.enderman]\nhearts = 7\nprovenance = "known"\n')
    err = load_error(path)
    assert (err.file, err.key) == (str(path), "mobs.enderman.source")
    assert "missing" in err.problem


def test_new_row_needs_provenance(tmp_path):
    path = write(
        tmp_path,
        """
        [mobs.ghast]
        hearts = 5
        [[mobs.ghast.tiles]]
        kind = "hunger"
        xp = 5
        copies = 0
        provenance = "estimate"
        reason = "test"
        """,
    )
    err = load_error(path)
    assert (err.file, err.key) == (str(path), "mobs.ghast.provenance")


def test_complete_file_replaces_the_defaults(tmp_path):
    text = DEFAULT_TEXT.replace("b44 = {", "tower = {").replace('title = "', 'title = "My ')
    path = write(tmp_path, text, "full.toml")
    c = load_components(path)
    assert c.files == [str(path)]
    assert c.building_ids[-1] == "tower" and len(c.building_ids) == 44
    assert c.data["title"].startswith("My ")


def test_stacked_overrides_and_error_attribution(tmp_path):
    one = write(
        tmp_path, '[mobs.enderman]\nhearts = 7\nprovenance = "known"\nsource = "a"\n', "1.toml"
    )
    two = write(
        tmp_path, '[blocks.wood]\ncount = 17\nprovenance = "known"\nsource = "b"\n', "2.toml"
    )
    three = write(
        tmp_path, '[mobs.enderman]\nhearts = 8\nprovenance = "known"\nsource = "c"\n', "3.toml"
    )
    assert load_components([one, three]).mob_hearts["enderman"] == 8
    assert load_error(one, two).file == str(two)
    assert load_error(two, one).file == str(two)
    assert load_error(two, one).key == "blocks"


def test_parse_assignment():
    assert parse_assignment("mobs.enderman.hearts=5") == ("mobs.enderman.hearts", 5)
    assert parse_assignment(" a.b = type.bridge ") == ("a.b", "type.bridge")
    assert parse_assignment('x="forest"') == ("x", "forest")
    with pytest.raises(ComponentError, match="expected PATH=VALUE"):
        parse_assignment("mobs.enderman.hearts")


# --------------------------------------------------------------------------------------------
# with_values (sweeps)
# --------------------------------------------------------------------------------------------


def test_with_values_sets_and_marks_estimates(comps):
    c = comps.with_values(
        {
            "mobs.enderman.hearts": 5,
            "scoring.a.values.desert": 5,
            "buildings.b07.cost.sand": 2,
            "mobs.witch.tiles.1.bonus": "biome.desert",
        }
    )
    assert comps.mob_hearts["enderman"] == 6  # the original is untouched
    assert c.mob_hearts["enderman"] == 5
    assert c.arrays.score_card[A.CHAR_BIOME, 1] == 5
    assert c.arrays.tile_cost[6, 1] == 2
    for key in ("mobs.enderman.hearts", "scoring.a.values.desert", "buildings.b07.cost.sand"):
        assert row(c, key)["provenance"] == "estimate"
        assert row(c, key)["note"] == "set by sweep"
    # the other values of the same tables keep their labels and notes
    assert row(c, "scoring.a.values.snowy_tundra") == row(comps, "scoring.a.values.snowy_tundra")
    assert row(c, "scoring.a.values.forest") == row(comps, "scoring.a.values.forest")
    assert row(c, "mobs.witch.tiles.1.xp") == row(comps, "mobs.witch.tiles.1.xp")
    assert c.sets["mobs.enderman.hearts"] == 5
    assert c.content_hash != comps.content_hash
    assert c.n_estimates == comps.n_estimates + 2  # hearts and desert were known


def test_with_values_unchanged_value_keeps_provenance(comps):
    c = comps.with_values({"mobs.enderman.hearts": 6})
    assert c.content_hash == comps.content_hash
    assert row(c, "mobs.enderman.hearts")["provenance"] == "known"


@pytest.mark.parametrize(
    ("changes", "key", "problem"),
    [
        ({"mobs.ender.hearts": 5}, "mobs.ender.hearts", "did you mean 'mobs.enderman.hearts'"),
        ({"mobs.enderman.tiles.9.xp": 1}, "mobs.enderman.tiles.9.xp", "no such key"),
        ({"weapons.bow.aliases": ["b"]}, "weapons.bow.aliases", "not a value that can be set"),
        ({"mobs.enderman": 5}, "mobs.enderman", "not a value"),
        ({"mobs.enderman.hearts": 0}, "mobs.enderman.hearts", "between 1 and 64"),
        ({"mobs.enderman.hearts": True}, "mobs.enderman.hearts", "must be an integer"),
        ({"blocks.wood.count": 17}, "blocks", "sum to 65"),
    ],
)
def test_with_values_bad_paths(comps, changes, key, problem):
    with pytest.raises(ComponentError) as info:
        comps.with_values(changes)
    assert (info.value.file, info.value.key) == ("--set", key)
    assert problem in info.value.problem


# --------------------------------------------------------------------------------------------
# Validation: one case per class of problem; every message names the file and the key
# --------------------------------------------------------------------------------------------

PROV = 'provenance = "estimate"\nreason = "test"'
KNOWN = 'provenance = "known"\nsource = "test"'
BONUS_TILE = '[[mobs.spider.tiles]]\nkind = "bonus"\nxp = 2\ncopies = 2\n'


def _weapons_override(field: str, counts: dict[str, int]) -> str:
    return "\n".join(
        f"[weapons.{name}]\n{field} = {n}\n{ALL_WEAPON_PROV}\n" for name, n in counts.items()
    )


NO_MOB_TILES = (
    "\n".join(
        f'[[mobs.{m}.tiles]]\nkind = "hunger"\nxp = 1\ncopies = 0\n{PROV}\n'
        for m in ("spider", "zombie", "skeleton", "creeper", "witch", "enderman")
    )
    + f"[buildings.b01]\ncopies = 21\n{PROV}\n"
)
NO_BUILDINGS = "\n".join(f"[buildings.b{i:02d}]\ncopies = 0\n{PROV}\n" for i in range(1, 45)) + (
    f'[[mobs.spider.tiles]]\nkind = "hunger"\nxp = 1\ncopies = 46\n{PROV}\n'
)

OVERRIDE_CASES = [
    # syntax
    ("syntax", "[rules\nfight_reveal = 3\n", "", "TOML syntax error: "),
    # unknown keys (typos must not be ignored)
    ("unknown_key", "[mobs.enderman]\nheart = 7\n", "mobs.enderman.heart", "unknown key"),
    ("unknown_section", "[rule]\nfight_reveal = 3\n", "rule", "unknown key"),
    # types
    ("bool_is_not_int", f"[rules]\nfight_reveal = true\n{KNOWN}", "rules.fight_reveal", "boolean"),
    ("string_not_int", f'[blocks.wood]\ncount = "16"\n{KNOWN}', "blocks.wood.count", "integer"),
    ("float_not_int", f"[mobs.spider]\nhearts = 1.0\n{KNOWN}", "mobs.spider.hearts", "float"),
    ("not_a_table", "mobs = [1]\n", "mobs", "must be a table"),
    ("not_an_array", '[characteristics]\nbiome = "forest"\n', "characteristics.biome", "array"),
    ("schema", "schema = 2\n", "schema", "unsupported format version 2"),
    ("game", 'game = "heroes"\n', "game", "builders_biomes"),
    # ranges
    (
        "weapon_hearts",
        f"[weapons.iron_sword]\nhearts = 65\n{ALL_WEAPON_PROV}",
        "weapons.iron_sword.hearts",
        "between 0 and 64",
    ),
    ("mob_hearts", f"[mobs.spider]\nhearts = 0\n{KNOWN}", "mobs.spider.hearts", "between 1 and 64"),
    (
        "negative_count",
        f"[blocks.wood]\ncount = -1\n{KNOWN}",
        "blocks.wood.count",
        "between 0 and 64",
    ),
    (
        "xp",
        f'[[mobs.spider.tiles]]\nkind = "hunger"\nxp = 101\ncopies = 2\n{PROV}',
        "mobs.spider.tiles.0.xp",
        "between 0 and 100",
    ),
    ("copies", f"[buildings.b01]\ncopies = -1\n{PROV}", "buildings.b01.copies", "between 0 and 64"),
    (
        "cost_zero",
        f"[buildings.b01]\ncost = {{ wood = 0 }}\n{PROV}",
        "buildings.b01.cost.wood",
        "between 1 and 64",
    ),
    ("cost_empty", f"[buildings.b01]\ncost = {{}}\n{PROV}", "buildings.b01.cost", "empty"),
    (
        "cost_not_material",
        f"[buildings.b01]\ncost = {{ emerald = 2 }}\n{PROV}",
        "buildings.b01.cost.emerald",
        "not a material",
    ),
    (
        "stack_height",
        f"[rules]\nstack_height = 17\n{KNOWN}",
        "rules.stack_height",
        "between 1 and 16",
    ),
    (
        "exposed_sides",
        f"[rules]\nmin_exposed_sides = 5\n{KNOWN}",
        "rules.min_exposed_sides",
        "between 0 and 4",
    ),
    (
        "fight_reveal",
        f"[rules]\nfight_reveal = 0\n{KNOWN}",
        "rules.fight_reveal",
        "between 1 and 64",
    ),
    ("players_max", f"[rules]\nplayers_max = 5\n{KNOWN}", "rules.players_max", "between 2 and 4"),
    ("players_min", f"[rules]\nplayers_min = 1\n{KNOWN}", "rules.players_min", "between 2 and 4"),
    (
        "score_value",
        f"[scoring.a]\nvalues = {{ desert = 101 }}\n{PROV}",
        "scoring.a.values.desert",
        "between 0 and 100",
    ),
    # names
    (
        "duplicate_value",
        '[characteristics]\nbiome = ["forest", "forest", "mountains", "snowy_tundra"]\n',
        "characteristics.biome.1",
        "appears twice",
    ),
    (
        "three_values",
        '[characteristics]\ntype = ["a", "b", "c"]\n',
        "characteristics.type",
        "exactly 4",
    ),
    (
        "bad_value_name",
        '[characteristics]\ntype = ["Big House", "b", "c", "d"]\n',
        "characteristics.type.0",
        "invalid name",
    ),
    ("wild_material", "[blocks.wood]\nwild = true\n", "blocks.wood.wild", "cannot be wild"),
    (
        "second_wild",
        f"[blocks.diamond]\ncount = 0\nwild = true\n{PROV}",
        "blocks.diamond.wild",
        "second wild",
    ),
    ("stray_block", f"[blocks.diamond]\ncount = 0\n{PROV}", "blocks.diamond", "not a material"),
    (
        "bad_table_name",
        f'[blocks."Dirt Block"]\ncount = 0\n{PROV}',
        "blocks.Dirt Block",
        "invalid name",
    ),
    (
        "building_biome",
        f'[buildings.b01]\nbiome = "jungle"\n{PROV}',
        "buildings.b01.biome",
        "unknown biome 'jungle'",
    ),
    (
        "scoring_characteristic",  # R-SCORE-1: round A counts biomes, B materials, C types
        f'[scoring.a]\ncharacteristic = "type"\n{PROV}',
        "scoring.a.characteristic",
        "round A scores 'biome'",
    ),
    (
        "scoring_missing_value",
        f"[scoring.a]\nvalues = {{ jungle = 3 }}\n{PROV}",
        "scoring.a.values.jungle",
        "unknown key",
    ),
    (
        "board_biome",
        '[boards.red]\nspaces = [["forest", "desert", "jungle"]'
        + ', ["forest", "desert", "forest"]' * 2
        + f"]\n{PROV}",
        "boards.red.spaces.0.2",
        "unknown biome",
    ),
    (
        "board_shape",
        f'[boards.red]\nspaces = [["forest"]]\n{PROV}',
        "boards.red.spaces",
        "3 rows of 3",
    ),
    (
        "board_row",
        f'[boards.red]\nspaces = [["forest"], [], []]\n{PROV}',
        "boards.red.spaces.0",
        "3 rows of 3",
    ),
    (
        "bonus_target",
        f'{BONUS_TILE}bonus = "biome.jungle"\nbonus_xp = 1\n{PROV}',
        "mobs.spider.tiles.0.bonus",
        "unknown biome",
    ),
    (
        "bonus_no_dot",
        f'{BONUS_TILE}bonus = "forest"\nbonus_xp = 1\n{PROV}',
        "mobs.spider.tiles.0.bonus",
        "characteristic.value",
    ),
    (
        "kind",
        f'[[mobs.spider.tiles]]\nkind = "boss"\nxp = 2\ncopies = 2\n{PROV}',
        "mobs.spider.tiles.0.kind",
        "unknown kind 'boss'",
    ),
    (
        "bonus_on_hunger",
        f'[[mobs.spider.tiles]]\nkind = "hunger"\nxp = 2\ncopies = 2\nbonus_xp = 1\n{PROV}',
        "mobs.spider.tiles.0.bonus_xp",
        "only bonus tiles",
    ),
    (
        "bonus_missing",
        f'[[mobs.spider.tiles]]\nkind = "bonus"\nxp = 2\ncopies = 2\nbonus_xp = 1\n{PROV}',
        "mobs.spider.tiles.0.bonus",
        "missing",
    ),
    ("no_tiles", f"[mobs.spider]\ntiles = []\n{KNOWN}", "mobs.spider.tiles", "at least one"),
    # aliases
    (
        "alias_clash",
        '[weapons.bow]\naliases = ["potato"]\n',
        "weapons.bow.aliases.0",
        "alias of 'poisonous_potato'",
    ),
    (
        "alias_is_name",
        '[weapons.bow]\naliases = ["tnt"]\n',
        "weapons.bow.aliases.0",
        "already the weapon type",
    ),
    (
        "alias_name",
        '[weapons.bow]\naliases = ["Long Bow"]\n',
        "weapons.bow.aliases.0",
        "invalid name",
    ),
    # totals
    ("blocks_total", f"[blocks.wood]\ncount = 17\n{KNOWN}", "blocks", "sum to 65, must be 64"),
    (
        "colourless_total",
        _weapons_override("table_count", {"iron_sword": 2}),
        "weapons",
        "sums to 15, must be 16",
    ),
    ("tiles_total", f"[buildings.b01]\ncopies = 2\n{PROV}", "buildings", "= 65, must be 16 stacks"),
    ("stack_height_total", f"[rules]\nstack_height = 5\n{KNOWN}", "buildings", "= 80"),
    (
        "players",
        f"[rules]\nplayers_min = 4\nplayers_max = 3\n{KNOWN}",
        "rules.players_min",
        "more than rules.players_max",
    ),
    ("no_mob_tiles", NO_MOB_TILES, "mobs", "no mob tile"),
    ("no_buildings", NO_BUILDINGS, "buildings", "no building tile"),
    (
        "empty_start_pile",
        _weapons_override(
            "start_count", {"wooden_sword": 0, "stone_sword": 0, "poisonous_potato": 0}
        ),
        "weapons",
        "starting pile",
    ),
    (
        "pile_too_big",
        _weapons_override("start_count", {"poisonous_potato": 49}),
        "weapons",
        "more than the 64",
    ),
    # provenance
    (
        "provenance_missing_new_row",
        "[weapons.axe]\nhearts = 2\nextra_reveals = 0\nxp_on_reveal = 0\nblocks_on_reveal = 0\n"
        "detonate_hearts = 0\nstart_count = 0\ntable_count = 0\n",
        "weapons.axe.provenance",
        "missing",
    ),
    (
        "provenance_not_restated",
        "[rules]\nfight_reveal = 4\n",
        "rules.provenance",
        "does not restate",
    ),
    (
        "provenance_value",
        '[mobs.enderman]\nprovenance = "guess"\nsource = "x"\n',
        "mobs.enderman.provenance",
        'must be "known" or "estimate"',
    ),
    (
        "provenance_type",
        "[mobs.enderman]\nprovenance = 1\n",
        "mobs.enderman.provenance",
        "got an integer",
    ),
    (
        "provenance_label_missing",
        '[weapons.bow]\nprovenance = { hearts = "known" }\nsource = "x"\n',
        "weapons.bow.provenance",
        "does not label 'extra_reveals'",
    ),
    (
        "provenance_label_unknown",
        '[mobs.enderman]\nprovenance = { hearts = "known", speed = "known" }\nsource = "x"\n',
        "mobs.enderman.provenance.speed",
        "does not have",
    ),
    (
        "provenance_label_value",
        '[mobs.enderman]\nprovenance = { hearts = "sure" }\nsource = "x"\n',
        "mobs.enderman.provenance.hearts",
        'must be "known" or "estimate"',
    ),
    (
        "source_missing",
        '[mobs.enderman]\nhearts = 7\nprovenance = "known"\n',
        "mobs.enderman.source",
        "missing",
    ),
    (
        "reason_missing",
        '[mobs.enderman]\nhearts = 7\nprovenance = "estimate"\n',
        "mobs.enderman.reason",
        "missing",
    ),
    (
        "stale_source",
        '[mobs.enderman]\nprovenance = "estimate"\nreason = "x"\nsource = "y"\n',
        "mobs.enderman.source",
        'no value of this table is "known"',
    ),
    (
        "note_two_lines",
        '[mobs.enderman]\nprovenance = "estimate"\nreason = """a\nb"""\n',
        "mobs.enderman.reason",
        "one line",
    ),
    (
        "note_empty",
        '[mobs.enderman]\nprovenance = "estimate"\nreason = " "\n',
        "mobs.enderman.reason",
        "must not be empty",
    ),
    (
        "note_table_entry",
        '[weapons.bow]\nprovenance = "estimate"\nreason = { hearts = "x" }\n',
        "weapons.bow.reason",
        "no entry for 'extra_reveals'",
    ),
    (
        "note_table_label",
        '[mobs.enderman]\nprovenance = "estimate"\nreason = { xp = "x" }\n',
        "mobs.enderman.reason.xp",
        'not a "estimate" value',
    ),
]


@pytest.mark.parametrize(
    ("text", "key", "problem"), [c[1:] for c in OVERRIDE_CASES], ids=[c[0] for c in OVERRIDE_CASES]
)
def test_validation_names_override_file_and_key(tmp_path, text, key, problem):
    path = write(tmp_path, text)
    err = load_error(path)
    assert err.file == str(path)
    assert err.key == key
    assert problem in err.problem
    prefix = f"components: {path}: " + (f"key '{key}': " if key else "")
    assert str(err).startswith(prefix)


def test_syntax_error_gives_the_line(tmp_path):
    err = load_error(write(tmp_path, "[rules]\nfight_reveal = 3\nplayers_max = = 4\n"))
    assert "line 3" in err.problem


FULL_FILE_CASES = [
    (
        "missing_key",
        ("fight_reveal = 3          # R-FIGHT-2\n", ""),
        "rules.fight_reveal",
        "missing",
    ),
    (
        "missing_material",
        ("[blocks.obsidian]\ncount = 10\n", "[blocks.x_obsidian]\ncount = 10\n"),
        "blocks.x_obsidian",
        "not a material",
    ),
    ("no_wild_block", ("count = 12\nwild = true\n", "count = 12\n"), "blocks.emerald", "not wild"),
]


@pytest.mark.parametrize(
    ("edit", "key", "problem"),
    [c[1:] for c in FULL_FILE_CASES],
    ids=[c[0] for c in FULL_FILE_CASES],
)
def test_validation_of_complete_files(tmp_path, edit, key, problem):
    old, new = edit
    assert old in DEFAULT_TEXT
    path = write(tmp_path, DEFAULT_TEXT.replace(old, new, 1), "full.toml")
    err = load_error(path)
    assert (err.file, err.key) == (str(path), key)
    assert problem in err.problem


def test_missing_material_block_and_wild_block():
    data = copy.deepcopy(DEFAULT_DATA)
    del data["blocks"]["obsidian"]
    with pytest.raises(ComponentError, match=r"key 'blocks.obsidian': missing"):
        components_from_dict(data, name="box")
    data = copy.deepcopy(DEFAULT_DATA)
    del data["blocks"]["emerald"]
    with pytest.raises(ComponentError, match=r"key 'blocks': no wild block"):
        components_from_dict(data, name="box")
    data = copy.deepcopy(DEFAULT_DATA)
    del data["boards"]["green"]
    with pytest.raises(ComponentError, match=r"key 'boards': 3 boards for up to"):
        components_from_dict(data, name="box")


def test_file_problems(tmp_path):
    assert "file not found" in load_error(tmp_path / "nope.toml").problem
    assert "directory" in load_error(tmp_path).problem
    assert "not a regular file" in load_error(Path("/dev/null")).problem
    big = tmp_path / "big.toml"
    big.write_bytes(b"# " + b"x" * MAX_BYTES + b"\n")
    assert "larger than 1 MB" in load_error(big).problem
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"title = '\xff\xfe'\n")
    assert "not UTF-8" in load_error(binary).problem
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert "nested" in load_error(deep).problem
    dotted = tmp_path / "dotted.toml"
    dotted.write_text(".".join(["a"] * 40) + " = 1\n")
    assert "nested more than" in load_error(dotted).problem


def test_error_messages_are_one_printable_line(tmp_path):
    path = write(tmp_path, '[mobs.enderman]\n"he\\nart" = 7\n')
    err = load_error(path)
    assert "\n" not in str(err) and "he\\nart" in err.key
    path = write(tmp_path, f'[mobs.enderman]\n"{"h" * 5000}" = 7\n')
    assert len(str(load_error(path))) < 1000


# --------------------------------------------------------------------------------------------
# Property tests: any corruption gives a Components or a ComponentError, nothing else
# --------------------------------------------------------------------------------------------

NUMBERS = [m.span() for m in re.finditer(rb"(?<![\w.\"])\d+(?![\w.\"])", DEFAULT_BYTES)]
LINE_STARTS = [0] + [m.end() for m in re.finditer(rb"\n", DEFAULT_BYTES)][:-1]
REPLACEMENTS = st.one_of(
    st.integers(-(10**20), 10**20).map(lambda n: str(n).encode()),
    st.sampled_from([b"true", b"1.5", b'"x"', b"[]", b"{}", b"nan", b"-0", b"0", b"65", b"101"]),
)


@st.composite
def corrupted_text(draw) -> bytes:
    raw = DEFAULT_BYTES
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["number", "number", "delete", "truncate", "garbage", "dup"]))
        if op == "number":
            start, end = draw(st.sampled_from(NUMBERS))
            if end <= len(raw):
                raw = raw[:start] + draw(REPLACEMENTS) + raw[end:]
        elif op in ("delete", "dup"):
            lines = raw.split(b"\n")
            i = draw(st.integers(0, len(lines) - 1))
            lines[i : i + 1] = [] if op == "delete" else [lines[i], lines[i]]
            raw = b"\n".join(lines)
        elif op == "truncate":
            raw = raw[: draw(st.integers(0, len(raw)))]
        else:
            at = draw(st.integers(0, len(raw)))
            raw = raw[:at] + draw(st.binary(min_size=1, max_size=12)) + raw[at:]
    return raw


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


DEFAULT_PATHS = [p for p in _paths(DEFAULT_DATA) if p]
VALUES = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([-1, 0, 1, 2, 4, 16, 64, 65, 100, 101]),
    st.booleans(),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.sampled_from(["forest", "biome.forest", "known", "estimate", "bonus", "hunger", "wood"]),
    st.lists(st.integers(-2, 70), max_size=4),
    st.dictionaries(st.text(max_size=6), st.integers(-2, 70), max_size=3),
    st.none(),
)


@st.composite
def corrupted_dict(draw) -> dict:
    data = copy.deepcopy(DEFAULT_DATA)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(DEFAULT_PATHS))
        try:
            parent = data
            for part in path[:-1]:
                parent = parent[part]
            if draw(st.booleans()):
                del parent[path[-1]]
            else:
                parent[path[-1]] = draw(VALUES)
        except (KeyError, IndexError, TypeError):
            pass  # an earlier corruption removed or replaced this path
    return data


WEAPON_KEYS = ["hearts", "extra_reveals", "xp_on_reveal", "detonate_hearts", "table_count"]
TABLE_FIELDS = {
    "rules": ["fight_reveal", "stack_height", "players_max", "players_min", "min_exposed_sides"],
    "mobs.enderman": ["hearts", "tiles"],
    "mobs.ghast": ["hearts", "tiles"],
    "weapons.bow": WEAPON_KEYS + ["aliases"],
    "weapons.axe": WEAPON_KEYS + ["start_count"],
    "blocks.wood": ["count", "wild"],
    "blocks.diamond": ["count", "wild"],
    "buildings.b03": ["biome", "material", "cost", "xp", "copies"],
    "buildings.b99": ["biome", "type", "cost", "xp", "copies"],
    "scoring.a": ["characteristic", "values"],
    "boards.red": ["spaces"],
    "boards.x": ["spaces"],
}
NOTES = st.fixed_dictionaries(
    {"provenance": st.sampled_from(["estimate", "known", "bad"]), "reason": st.just("fuzz")}
)
OVERRIDE_VALUES = st.one_of(st.integers(-2, 70), VALUES)


@st.composite
def random_override(draw) -> dict:
    override: dict = {}
    for _ in range(draw(st.integers(1, 3))):
        table = draw(st.sampled_from(sorted(TABLE_FIELDS)))
        node = override
        for part in table.split("."):
            node = node.setdefault(part, {})
        fields = TABLE_FIELDS[table] + ["typo", "source"]
        for field in draw(st.lists(st.sampled_from(fields), min_size=1, max_size=4)):
            node[field] = draw(OVERRIDE_VALUES)
        if draw(st.booleans()):
            node.update(draw(NOTES))
    return override


def _check(make) -> None:
    try:
        c = make()
    except ComponentError as exc:
        assert "\n" not in str(exc)
        return
    a = c.arrays
    assert a.tile_kind.shape == (c.n_tiles,)
    for i in range(c.n_tiles):
        c.tile_label(i)
    json.dumps(c.to_json_dict())


FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(corrupted_text())
def test_fuzz_text_corruptions(raw):
    _check(lambda: components_from_text(raw, name="fuzz.toml"))


@FUZZ
@given(corrupted_dict())
def test_fuzz_dict_corruptions(data):
    _check(lambda: components_from_dict(data, name="fuzz"))


@FUZZ
@given(random_override())
def test_fuzz_overrides(override):
    _check(lambda: components_from_dict(override, name="fuzz", over_defaults=True))


@FUZZ
@given(st.sampled_from([r["key"] for r in load_components().provenance_rows()]), VALUES)
def test_fuzz_with_values(path, value):
    _check(lambda: load_components().with_values({path: value}))


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    from bnb_sim.cli import main

    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_show(capsys, comps):
    code, out, err = run_cli(capsys, "components", "show")
    assert code == 0 and not err
    assert f"estimated: {comps.n_estimates} (marked ~)" in out
    assert "  iron_sword" in out and "~3" in out  # an estimate is marked
    assert "Estimated values (~), by reason" in out
    assert "placeholder layout" in out


def test_cli_show_json_with_override(capsys, tmp_path):
    path = write(tmp_path, '[mobs.enderman]\nhearts = 7\nprovenance = "known"\nsource = "box"\n')
    code, out, err = run_cli(capsys, "components", "show", "--components", str(path), "--json")
    assert code == 0 and not err
    d = json.loads(out)
    assert d["data"]["mobs"]["enderman"]["hearts"] == 7
    assert d["content_hash"] == load_components(path).content_hash
    assert d["source"] == str(path)


def test_cli_validate(capsys, tmp_path, comps):
    code, out, err = run_cli(capsys, "components", "validate", str(DEFAULT_COMPONENTS_PATH))
    assert code == 0
    assert out == f"{DEFAULT_COMPONENTS_PATH}: valid ({comps.n_estimates} estimated values)\n"
    bad = write(tmp_path, "[mobs.enderman]\nhearts = 0\n", "bad.toml")
    code, out, err = run_cli(capsys, "components", "validate", str(bad))
    assert code == 2 and not out
    assert err == (
        f"bnb: error: components: {bad}: key 'mobs.enderman.hearts': must be between 1 and 64, "
        "got 0\n"
    )
    code, out, err = run_cli(capsys, "components", "show", "--components", str(bad))
    assert code == 2 and err.count("\n") == 1


def test_cli_subprocess_one_line_no_traceback_and_no_numba(tmp_path):
    bad = write(tmp_path, "[rules\n", "bad.toml")
    code = (
        "import sys\n"
        "from bnb_sim.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "finally:\n"
        "    assert 'numba' not in sys.modules, 'numba was imported'\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "components", "validate", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"bnb: error: components: {bad}: TOML syntax error")
