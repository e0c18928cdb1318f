"""Every estimate of the component data carries a plausible range with its reason (issue 27,
item 2): the shipped data of both games, the [[ranges]] form and its checks, the accessor
(``estimate_ranges``, ``with_estimate``) that a sensitivity analysis uses, and user files."""

from __future__ import annotations

import json
import textwrap

import pytest

from bnb_sim.errors import ComponentError
from bnb_sim.estimates import Estimate
from bnb_sim.games.builders_biomes.components import load_components
from bnb_sim.games.builders_biomes.components.loader import load_default_data
from bnb_sim.games.heroes_village.components import load_components as load_hotv

FM = "farmers-market"


@pytest.fixture(scope="module")
def base():
    return load_components()


@pytest.fixture(scope="module")
def fm():
    return load_components(expansion=FM)


@pytest.fixture(scope="module")
def hotv():
    return load_hotv()


def _write(tmp_path, text: str, name: str = "box.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


# ------------------------------------------------------------------------ the shipped data


@pytest.mark.parametrize("which", ["base", "fm", "hotv"])
def test_every_estimate_of_the_shipped_data_has_a_range_and_a_reason(which, request):
    """Fails when someone adds an estimate to a data file without a [[ranges]] entry."""
    comps = request.getfixturevalue(which)
    ranges = comps.estimate_ranges()
    assert len(ranges) == comps.n_estimates > 0
    assert [e.key for e in ranges] == [r["key"] for r in comps.estimates()]
    for est in ranges:
        assert isinstance(est, Estimate)
        assert est.has_range, f"{est.key}: no plausible range in the shipped data"
        assert est.reason.strip() and est.contains(est.value), est
        assert (est.low is None) != (est.choices is None), est


def test_the_counts_of_estimates(base, fm, hotv):
    assert (base.n_estimates, fm.n_estimates, hotv.n_estimates) == (206, 295, 93)


def test_builders_biomes_range_reasons_cite_an_estimate_rule(fm):
    from bnb_sim.sources import SOURCES, cited_keys

    for est in fm.estimate_ranges():
        keys = cited_keys(est.reason)
        assert any(k.startswith("EST-") for k in keys), est
        assert all(k in SOURCES for k in keys), est


@pytest.mark.parametrize("which", ["fm", "hotv"])
def test_each_estimate_moved_to_each_end_gives_valid_components(which, request):
    """Every low, high and choice of every estimate (Farmer's Market holds every base
    estimate too) validates: a sensitivity analysis can visit each one."""
    comps = request.getfixturevalue(which)
    moved = 0
    for est in comps.estimate_ranges():
        for value in est.alternatives():
            other = comps.with_estimate(est.key, value)
            data = other.data
            assert _value_at(data, est.key) == value
            moved += 1
    assert moved > 100


def _value_at(data, key):
    from bnb_sim.games.heroes_village.ranges import locate

    container, last = locate(data, key)
    return container[last]


def test_the_crafting_table_letter_and_the_starting_farmland_are_estimates(fm):
    """The +42 pp first-player edge of three-player Farmer's Market games comes from these
    (issue 27): a sensitivity analysis must be able to move them."""
    letter = fm.estimate("farmers_market.items.crafting_table.letter")
    assert letter.value == "X" and letter.choices == ("X", "A", "B")
    assert letter.alternatives() == ["A", "B"] and "EST-FM-3" in letter.reason
    spaces = fm.estimate("farmers_market.farmland.side_3_4.spaces")
    per_space = fm.estimate("farmers_market.farmland.side_3_4.vegetables_per_space")
    assert (spaces.value, spaces.low, spaces.high) == (2, 1, 3)
    assert (per_space.value, per_space.low, per_space.high) == (1, 1, 2)
    later = fm.with_estimate(letter.key, "A")
    assert later.data["farmers_market"]["items"]["crafting_table"]["letter"] == "A"
    side = fm.with_estimate(spaces.key, 1).data["farmers_market"]["farmland"]["side_3_4"]
    assert (side["spaces"], side["vegetables_per_space"]) == (1, 1)


def test_a_balanced_estimate_keeps_the_total(base, hotv):
    bow = base.estimate("weapons.bow.table_count")
    assert (bow.low, bow.high, bow.balance) == (2, 4, "weapons.iron_sword.table_count")
    assert bow.changes(4) == {bow.key: 4, bow.balance: 2}
    more = base.with_estimate(bow.key, 4)
    counts = {n: w["table_count"] for n, w in more.data["weapons"].items()}
    assert counts["bow"] == 4 and counts["iron_sword"] == 2 and sum(counts.values()) == 16
    zombie = hotv.with_estimate("mobs.zombie.count", 3)
    tokens = {m["name"]: m["count"] for m in zombie.data["mobs"]}
    assert tokens["zombie"] == 3 and tokens["silverfish"] == 1 and sum(tokens.values()) == 12


def test_a_value_outside_the_range_is_refused_by_with_estimate(base):
    with pytest.raises(ComponentError, match=r"outside its range 1\.\.3"):
        base.with_estimate("weapons.stone_sword.hearts", 5)
    with pytest.raises(ComponentError, match="did you mean"):
        base.with_estimate("weapons.stone_sword.heart", 2)
    with pytest.raises(ComponentError, match="not an estimate"):
        base.with_estimate("mobs.enderman.hearts", 6)


def test_both_games_share_the_accessor(base, hotv):
    for comps, key in ((base, "weapons.wooden_sword.hearts"), (hotv, "dice.fight.faces")):
        est = next(e for e in comps.estimate_ranges() if e.key == key)
        assert set(est.to_dict()) >= {"key", "value", "reason"}
    faces = next(e for e in hotv.estimate_ranges() if e.key == "dice.fight.faces")
    assert faces.kind == "category" and len(faces.choices) == 7
    moved = hotv.with_estimate("dice.fight.faces", faces.alternatives()[0])
    assert moved.data["dice"]["fight"]["faces"] == [3, 4, 5, 6, "arrow", "illager"]
    assert moved.fight_faces[0] == 3


def test_ranges_are_metadata_not_game_data(base, hotv):
    """The content hash (what a run records and the pinned rows rest on) ignores ranges."""
    from bnb_sim.games.builders_biomes.components import components_from_dict
    from bnb_sim.games.heroes_village.components import components_from_dict as hotv_from_dict

    assert components_from_dict(load_default_data()).content_hash == base.content_hash
    raw = {k: v for k, v in hotv.data.items() if not k.startswith("_")}
    assert hotv_from_dict(raw).content_hash == hotv.content_hash


# ------------------------------------------------------------------------ bad ranges


IRON = "weapons.iron_sword.table_count"
BAD = [
    (
        'keys = "weapons.stone_sword.hearts"\nrange = [3, 4]',
        "weapons.stone_sword.hearts",
        "range 3..4 does not contain the value 2",
    ),
    (
        'keys = "weapons.stone_sword.hearts"\nrange = [3, 1]',
        "ranges.0.range",
        "low 3 is more than high 1",
    ),
    ('keys = "weapons.stone_sword.hearts"\nrange = ["1", 3]', "ranges.0.range", "two integers"),
    (
        'keys = "weapons.bow.hearts"\nrange = [0, 65]',
        "weapons.bow.hearts",
        "what the file accepts here (0..64)",
    ),
    ('keys = "weapons.*.hearts"\naround = -1', "ranges.0.around", "an integer >= 0"),
    (
        'keys = "mobs.spider.tiles.1.bonus"\nchoices = ["type.decoration", "type.barn"]',
        "mobs.spider.tiles.1.bonus",
        'choice "type.barn"',
    ),
    (
        'keys = "mobs.spider.tiles.1.bonus"\nchoices = ["type.bridge"]',
        "mobs.spider.tiles.1.bonus",
        "do not include the value",
    ),
    (
        'keys = "mobs.spider.tiles.1.bonus"\nrange = [1, 2]',
        "mobs.spider.tiles.1.bonus",
        "give choices instead",
    ),
    ('keys = "weapons.bow.hearts"\nchoices = "any"', "weapons.bow.hearts", "fixed set of names"),
    ('keys = "mobs.enderman.hearts"\nrange = [5, 7]', "mobs.enderman.hearts", "is a known value"),
    ('keys = "weapons.laser.hearts"\nrange = [1, 2]', "ranges.0.keys", "names no value"),
    ('keys = "weapons..hearts"\nrange = [1, 2]', "ranges.0.keys", "not a dotted key"),
    ('keys = "weapons.bow.hearts"\nrnage = [1, 2]', "ranges.0.rnage", "unknown key"),
    ('keys = "weapons.bow.hearts"\nrange = [0, 2]\naround = 1', "ranges.0", "exactly one of"),
    (
        'keys = "weapons.bow.hearts"\nrange = [0, 2]\nwithin = [0, 2]',
        "ranges.0.within",
        "around = N only",
    ),
    (
        'keys = "weapons.bow.table_count"\nrange = [0, 6]\nbalance = "' + IRON + '"',
        "weapons.bow.table_count",
        "moves it to 6: 6 is outside its own range 2..4",
    ),
    (
        'keys = "weapons.bow.table_count"\nrange = [2, 8]\nbalance = "' + IRON + '"',
        "weapons.bow.table_count",
        "moves it to -2: -2 is outside what the file accepts",
    ),
    (
        'keys = "weapons.bow.table_count"\nrange = [2, 4]\nbalance = "weapons.bow.table_count"',
        "weapons.bow.table_count",
        "names no other value",
    ),
    (
        'keys = "boards.red.spaces"\nchoices = [[["forest"]]]',
        "boards.red.spaces",
        "3 rows of 3 biomes",
    ),
]


@pytest.mark.parametrize("entry, key, problem", BAD)
def test_a_bad_range_is_refused_naming_the_file_the_key_and_the_problem(
    tmp_path, entry, key, problem
):
    reason = "" if "reason" in entry else '\nreason = "EST-2: a test"'
    path = _write(tmp_path, f"[[ranges]]\n{entry}{reason}\n")
    with pytest.raises(ComponentError) as info:
        load_components(path)
    err = info.value
    assert err.file == str(path) and err.key == key, str(err)
    assert problem in err.problem, str(err)
    assert "\n" not in str(err)


def test_a_range_entry_needs_a_reason(tmp_path):
    path = _write(tmp_path, '[[ranges]]\nkeys = "weapons.bow.hearts"\nrange = [0, 2]\n')
    with pytest.raises(ComponentError, match=r"key 'ranges.0.reason': missing"):
        load_components(path)


def test_a_bad_farmers_market_letter_choice_is_refused(tmp_path):
    path = _write(
        tmp_path,
        '[[ranges]]\nkeys = "farmers_market.items.minecart.letter"\nchoices = ["X", "Q"]\n'
        'reason = "EST-FM-3: a test"\n',
    )
    with pytest.raises(ComponentError, match=r"minecart.letter': choice \"Q\""):
        load_components(path, expansion=FM)


def test_a_bad_hotv_range_is_refused(tmp_path):
    path = _write(
        tmp_path,
        '[[ranges]]\nkeys = "dice.fight.faces"\nchoices = [[4, 5, 6, 6, "arrow", "illager"], '
        '[4, 5, 6, "sword", "arrow", "illager"]]\nreason = "a test"\n',
    )
    with pytest.raises(ComponentError) as info:
        load_hotv(path)
    assert info.value.key == "dice.fight.faces" and "'sword' is not a face" in info.value.problem


def test_the_cli_refuses_a_bad_range_in_one_line(tmp_path, capsys):
    from bnb_sim.cli import main

    path = _write(tmp_path, '[[ranges]]\nkeys = "weapons.bow.hearts"\nrange = [2, 3]\n'
                  'reason = "EST-2: a test"\n')  # fmt: skip
    with pytest.raises(SystemExit) as info:
        main(["components", "validate", str(path)])
    err = capsys.readouterr().err
    assert info.value.code == 2 and len(err.strip().splitlines()) == 1
    assert f"{path}: key 'weapons.bow.hearts': range 2..3 does not contain the value 1" in err


# ------------------------------------------------------------------------ user files


def test_a_user_range_replaces_the_default_one(tmp_path):
    path = _write(tmp_path, '[[ranges]]\nkeys = "weapons.*.hearts"\naround = 2\n'
                  'reason = "EST-2: my wider guess"\n')  # fmt: skip
    comps = load_components(path)
    est = comps.estimate("weapons.iron_sword.hearts")
    assert (est.low, est.high, est.reason, est.file) == (1, 5, "EST-2: my wider guess", str(path))
    wooden = comps.estimate("weapons.wooden_sword.hearts")
    assert (wooden.low, wooden.high) == (0, 3)  # the later entry wins, clipped at 0


_OTHERS = (
    'extra_reveals = "known", xp_on_reveal = "known", blocks_on_reveal = "known", '
    'detonate_hearts = "known", start_count = "known", table_count = "estimate"'
)
KNOWN_BUT_TABLE = f'provenance = {{ hearts = "known", {_OTHERS} }}'
GUESS_HEARTS_AND_TABLE = f'provenance = {{ hearts = "estimate", {_OTHERS} }}'


def test_a_known_value_needs_no_range_and_a_new_guess_drops_the_old_one(tmp_path):
    path = _write(
        tmp_path,
        f"""
        [weapons.stone_sword]
        hearts = 2
        extra_reveals = 0
        xp_on_reveal = 0
        blocks_on_reveal = 0
        detonate_hearts = 0
        start_count = 1
        table_count = 2
        {KNOWN_BUT_TABLE}
        source = "printed on my token"
        reason = "EST-2: mix unknown"

        [weapons.iron_sword]
        hearts = 6
        extra_reveals = 0
        xp_on_reveal = 0
        blocks_on_reveal = 0
        detonate_hearts = 0
        start_count = 0
        table_count = 3
        {GUESS_HEARTS_AND_TABLE}
        source = "the rules"
        reason = "EST-2: my guess"
        """,
    )
    comps = load_components(path)
    keys = {e.key for e in comps.estimate_ranges()}
    assert "weapons.stone_sword.hearts" not in keys  # now known: no range, no error
    iron = comps.estimate("weapons.iron_sword.hearts")
    assert iron.value == 6 and not iron.has_range  # the default 2..4 was for the old 3
    table = comps.estimate("weapons.iron_sword.table_count")
    assert table.has_range and (table.low, table.high) == (2, 4)  # restated, not changed
    assert iron.to_dict()["reason"] == "no range given"


def test_a_sweep_may_leave_the_range(base):
    """A swept value is chosen on purpose: it may lie outside the plausible range."""
    other = base.with_values({"weapons.iron_sword.hearts": 9})
    assert other.data["weapons"]["iron_sword"]["hearts"] == 9
    assert not other.estimate("weapons.iron_sword.hearts").has_range
    assert other.estimate("weapons.diamond_sword.hearts").has_range


def test_components_show_gives_every_range(capsys):
    from bnb_sim.cli import main

    main(["components", "show", "--expansion", FM])
    out = capsys.readouterr().out
    section = out.split("Plausible ranges of the 295 estimates", 1)[1]
    assert "weapons.wooden_sword.hearts 1 (1..2)" in section
    assert "range: X, A, B" in section and "farmers_market.items.crafting_table.letter X" in section
    assert "balanced by weapons.iron_sword.table_count" in section
    comps = load_components(expansion=FM)
    for est in comps.estimate_ranges():
        assert est.key in section, est.key
    main(["components", "show", "--json", "--expansion", FM])
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)["provenance"]}
    assert rows["farmers_market.items.crafting_table.letter"]["choices"] == ["X", "A", "B"]
    bow = rows["weapons.bow.hearts"]
    assert (bow["low"], bow["high"]) == (0, 2) and bow["range_reason"].startswith("EST-2")
    assert bow["note"].startswith("EST-2: the rulebook says")  # why the value was chosen
    assert "low" not in rows["mobs.enderman.hearts"]  # known


def test_components_show_gives_every_hotv_range(capsys):
    from bnb_sim.cli import main

    main(["components", "show", "--game", "hotv"])
    out = capsys.readouterr().out
    section = out.split("Plausible ranges of the 93 estimates", 1)[1]
    for est in load_hotv().estimate_ranges():
        assert est.key in section, est.key
    assert "mobs.spider.value 4" in section and "range: 4..6" in section
    main(["components", "show", "--game", "hotv", "--json"])
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)["provenance"]}
    assert len(rows["dice.fight.faces"]["choices"]) == 7
    assert rows["mobs.zombie.count"]["balance"] == "mobs.silverfish.count"
    zombie = rows["mobs.zombie.value"]  # the value's own reason, and the range's
    assert zombie["reason"].startswith("12 tokens") and "4 to 6" in zombie["range_reason"]


def test_hotv_sweeps_take_the_estimate_keys():
    """``--set`` takes the keys ``components show`` prints: a mob by its name."""
    from bnb_sim.analysis.sweep import parse_set_option
    from bnb_sim.games.heroes_village.variants import sweep_variants

    comps = load_hotv()
    variants = sweep_variants(comps, [parse_set_option("mobs.zombie.value=4,6")])
    values = [
        next(m["value"] for m in c.data["mobs"] if m["name"] == "zombie") for _, c in variants
    ]
    assert values == [5, 4, 6]


def test_the_templates_commented_estimate_with_its_range_is_valid(tmp_path):
    """`bnb components template` shows how to give a range; uncommented, it loads."""
    from importlib import resources

    text = resources.files("bnb_sim").joinpath("data/templates/components.toml").read_text()
    block = text.split("# [weapons.diamond_sword]", 1)[1]
    lines = ["[weapons.diamond_sword]"] + [
        ln[2:] for ln in block.splitlines() if ln.startswith("# ")
    ]
    est = load_components(_write(tmp_path, "\n".join(lines) + "\n")).estimate(
        "weapons.diamond_sword.hearts"
    )
    assert (est.value, est.low, est.high) == (5, 4, 6)
