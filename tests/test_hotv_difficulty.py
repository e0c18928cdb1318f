"""Heroes of the Village difficulty named as the box offers it (issue 25, item 9; R-HV-10):
two Illager start spaces, ``standard`` (9) and ``easy`` (11), ``normal`` kept as the old name
of ``standard``, and the building levels as the box's second lever."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from bnb_sim.cli import cli
from bnb_sim.errors import SpecError
from bnb_sim.games.heroes_village.components import load_components
from bnb_sim.games.heroes_village.difficulty import canonical
from bnb_sim.games.heroes_village.runner import make_config

COMPS = load_components()
DOCS = Path(__file__).resolve().parent.parent / "docs"


def _config(difficulty, buildings=None):
    return make_config(COMPS, 3, ["team"], "wolf,cat,fox", difficulty, buildings)


def test_r_hv_10_the_two_start_spaces_of_the_box():
    assert (_config("standard").difficulty, _config("standard").start_space) == ("standard", 9)
    assert (_config("easy").difficulty, _config("easy").start_space) == ("easy", 11)
    assert _config(None).difficulty == "standard"  # the default


def test_normal_is_still_accepted_as_the_old_name_of_standard():
    cfg = _config("normal")
    assert (cfg.difficulty, cfg.start_space) == ("standard", 9)
    assert canonical(" Normal ") == "standard"


def test_an_unknown_difficulty_names_the_choices():
    with pytest.raises(SpecError, match=r"choose standard .*space 9.* or easy .*on 11"):
        _config("hard")


def test_r_hv_10_the_hardest_and_easiest_sets_of_buildings():
    hardest = _config("standard", "level:3,3,3")
    assert hardest.chosen == [-4, -4, -4]
    easiest = _config("easy", "level:1,1,1")
    assert easiest.chosen == [-2, -2, -2] and easiest.start_space == 11


def test_the_option_offers_the_box_names():
    help_text = CliRunner().invoke(cli, ["simulate", "--help"]).output
    assert "[standard|easy|normal]" in help_text
    assert "space 9 (standard" in " ".join(help_text.split())


def test_an_experiment_file_may_say_normal(tmp_path):
    from bnb_sim.analysis.experiment import load_experiment

    path = tmp_path / "exp.toml"
    path.write_text(textwrap.dedent("""
        [[simulation]]
        game = "hotv"
        name = "old"
        games = 10
        difficulty = "normal"

        [[simulation]]
        game = "hotv"
        name = "new"
        games = 10
        difficulty = "easy"
    """))  # fmt: skip
    old, new = load_experiment(path).items
    # the shared item plays the game's config, where normal is standard
    difficulty = [item.config.identity()["difficulty"] for item in (old, new)]
    assert difficulty == ["standard", "easy"]


def test_the_docs_say_which_levels_the_box_has():
    text = (DOCS / "heroes-of-the-village.md").read_text()
    section = text.split("## Difficulty: what the box offers", 1)[1].split("\n## ", 1)[0]
    for needed in ("9 and 11", "--difficulty standard", "--difficulty easy", "level:3,3,3",
                   "three levels", "not published", "`normal`"):  # fmt: skip
        assert needed in section, needed
