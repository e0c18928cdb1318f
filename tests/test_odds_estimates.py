"""``bnb odds`` says which numbers are guesses (issue 25, item 3) and never prints a zero-width
Monte Carlo interval (issue 25, item 8): estimated hearts and weapon values are marked ~, one
line names them with their plausible ranges, and ``--json`` lists them; both games."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from bnb_sim.cli import cli
from bnb_sim.games.builders_biomes import odds as odds_api
from bnb_sim.games.builders_biomes.odds_text import _interval

PILE = "stone_sword,wooden_sword,potato*3,bow,tnt"


def _run(*args: str):
    result = CliRunner().invoke(cli, ["odds", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_pile_line_marks_the_estimated_hearts_and_one_line_names_them():
    out = _run("--pile", PILE)
    pile = out.splitlines()[0]
    assert "wooden_sword x1 (~1 heart)" in pile and "stone_sword x1 (~2 hearts)" in pile
    assert "bow x1 (~1 heart)" in pile
    assert "poisonous_potato x3 (0 hearts)" in pile  # known: 0 hearts (the rules)
    assert "tnt x1 (0 hearts, 5 if detonated)" in pile  # known
    named = [line for line in out.splitlines() if line.startswith("~ rests on")]
    assert len(named) == 1
    assert named[0].startswith("~ rests on 3 estimated values")
    assert "weapons.wooden_sword.hearts = 1 (plausible 1..2)" in named[0]
    assert "weapons.bow.hearts = 1 (plausible 0..2)" in named[0]
    assert "potato" not in named[0] and "tnt" not in named[0]


def test_the_single_answer_marks_them_too():
    out = _run("--pile", "stone_sword,wooden_sword,potato*3", "--mob", "skeleton")
    assert "(~1 heart)" in out and "Against 3 hearts (skeleton):" in out  # RUST: known
    assert "~ rests on 2 estimated values" in out


def test_json_lists_the_estimates_with_their_ranges():
    single = json.loads(_run("--pile", PILE, "--hearts", "4", "--json"))
    keys = [e["key"] for e in single["estimated"]]
    # in weapon type order, each value once
    assert keys == [
        "weapons.wooden_sword.hearts",
        "weapons.stone_sword.hearts",
        "weapons.bow.hearts",
    ]
    bow = next(e for e in single["estimated"] if e["key"] == "weapons.bow.hearts")
    assert (bow["value"], bow["low"], bow["high"]) == (1, 0, 2) and "EST-2" in bow["reason"]
    table = json.loads(_run("--pile", PILE, "--json"))
    assert {e["key"] for e in table["estimated"]} == set(keys)
    assert all("estimated" in row for row in table["table"])


def test_a_box_that_knows_its_hearts_marks_nothing(tmp_path):
    box = tmp_path / "box.toml"
    prov = ", ".join(
        f'{f} = "known"'
        for f in ("hearts", "extra_reveals", "xp_on_reveal", "blocks_on_reveal")
        + ("detonate_hearts", "start_count")
    )
    text = ""
    for name, hearts, start in (("wooden_sword", 1, 1), ("stone_sword", 2, 1)):
        table = 0 if name == "wooden_sword" else 2
        text += (
            f"[weapons.{name}]\nhearts = {hearts}\nextra_reveals = 0\nxp_on_reveal = 0\n"
            f"blocks_on_reveal = 0\ndetonate_hearts = 0\nstart_count = {start}\n"
            f'table_count = {table}\nprovenance = {{ {prov}, table_count = "estimate" }}\n'
            'source = "printed on my tokens"\nreason = "EST-2: mix unknown"\n\n'
        )
    box.write_text(text)
    out = _run("--pile", "stone_sword,wooden_sword,potato*3", "--components", str(box))
    assert "~" not in out
    odds = odds_api.combat_odds("stone_sword,wooden_sword,potato*3", 3, components=str(box))
    assert odds.estimated == []


def test_the_monte_carlo_interval_is_never_zero_width():
    """0 wins in n fights: the Wilson interval [0, 3.84/n] shown with enough decimals."""
    out = _run("--pile", PILE, "--hearts", "7", "--simulate", "20000")
    assert "[0.00%, 0.00%]" not in out and "[0.000, 0.000]" not in out
    for low, high in re.findall(r"\[(-?[\d.]+)%?, (-?[\d.]+)%?\]", out):
        assert float(high) > float(low), out
    line = next(x for x in out.splitlines() if "without TNT" in x)
    assert "MC 0.000% [0.000%, 0.019%]" in line
    assert "(the same in all 20,000 fights)" in out  # no hoe in the pile: 0 XP every fight


def test_interval_formatting_keeps_two_significant_digits_of_the_width():
    sim = {"n": 200_000, "p": {"estimate": 0.0, "low": 0.0, "high": 1.92e-5}}
    assert _interval(sim, "p", True) == "MC 0.0000% [0.0000%, 0.0019%]"
    sim["p"] = {"estimate": 0.2652, "low": 0.2632, "high": 0.2671}
    assert _interval(sim, "p", True) == "MC 26.52% [26.32%, 26.71%]"
    sim["p"] = {"estimate": 0.0, "low": 0.0, "high": 0.0}
    assert _interval(sim, "p", False) == "MC 0.000 (the same in all 200,000 fights)"


# ------------------------------------------------------------------------ Heroes of the Village


def test_hotv_odds_mark_the_estimated_die_and_mob_values():
    out = _run("--game", "hotv")
    assert out.startswith("Fight die: ~4, 5, 6, 6, arrow, illager;")
    assert "Against fight value ~5 (skeleton, zombie):" in out
    named = [line for line in out.splitlines() if line.startswith("~ rests on")]
    assert len(named) == 1 and "dice.fight.faces" in named[0]
    assert "mobs.zombie.value = 5 (plausible 4..6)" in named[0]
    one = _run("--game", "hotv", "--mob", "silverfish")
    assert "Against fight value 4 (silverfish):" in one  # the rules name its value
    assert "mobs.silverfish" not in one


@pytest.mark.parametrize("mob", [None, "zombie"])
def test_hotv_odds_json_lists_the_estimates(mob):
    args = ["--game", "hotv", "--json"] + (["--mob", mob] if mob else [])
    data = json.loads(_run(*args))
    listed = data["estimated"]
    faces = next(e for e in listed if e["key"] == "dice.fight.faces")
    assert len(faces["choices"]) == 7 and faces["value"] == [4, 5, 6, 6, "arrow", "illager"]
    if mob:
        assert [e["key"] for e in listed] == ["dice.fight.faces", "mobs.zombie.value"]
    else:
        assert all("estimated" in row for row in data["table"])
