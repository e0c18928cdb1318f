"""The ``[experiment]`` head's ``game``: the game of the items without one, whose
``components`` and ``readings`` are that game's (so every item of it starts from them and an
item of another game from its own defaults); a bad head is one line naming its key."""

from __future__ import annotations

import pytest

from bnb_sim.analysis.experiment import load_experiment
from bnb_sim.errors import BnbError

DICE = '[dice.fight]\nfaces = [4, 5, 6, "blank", "arrow", "illager"]\nprovenance = "known"\n' \
    'source = "my box"\n'  # fmt: skip
HEAD = (
    '[experiment]\ngame = "hotv"\ncomponents = ["dice.toml"]\nreadings = { cat = "first-draw" }\n'
)
KINDS = {
    "simulation": "games = 10",
    "compare": 'a = "team"\nb = "random"\nmax_games = 10',
    "tournament": 'games = 10\npolicies = ["team", "random"]',
    "sweep": 'games = 10\nset = { "path.start_normal" = [8, 9] }',
    "robustness": "games = 10",
    "sensitivity": 'finding = "team_win_rate"',
    "ladder": "games = 20",
    "luck": "per_group = 20\ngroups = 10",
    "value": 'options = ["all-pets"]\ngames = 20',
    "tune": 'what = "policy"\npolicy = "team"\nparams = ["complete=0..8"]\nbudget = 720',
}


def load(tmp_path, text):
    (tmp_path / "dice.toml").write_text(DICE)
    path = tmp_path / "exp.toml"
    path.write_text(text)
    return load_experiment(path)


def components_of(item):
    """The item's loaded components (each kind keeps them under its own name)."""
    plan = getattr(item, "plan", None)  # a tune item: the plan plays them
    for comps in (getattr(item, "game_components", None), getattr(plan, "components", None),
                  getattr(item, "components", None)):  # fmt: skip
        if comps is not None and hasattr(comps, "data"):
            return comps
    raise AssertionError(f"no components on {item!r}")


def readings_of(item):
    readings = getattr(getattr(item, "plan", None), "readings", None)  # a tune item's plan
    return readings if readings is not None else components_of(item).readings


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_item_of_the_heads_game_starts_from_its_components_and_readings(tmp_path, kind):
    """Before: ``[experiment]`` had no ``game`` key (an unknown key), so a Heroes of the
    Village file repeated ``game``, ``components`` and ``readings`` in every item."""
    (item,) = load(tmp_path, f"{HEAD}\n[[{kind}]]\n{KINDS[kind]}\n").items
    assert components_of(item).data["dice"]["fight"]["faces"][3] == "blank"
    assert readings_of(item)["cat"] == "first-draw"


def test_the_head_is_what_each_item_would_list_and_an_item_overrides_its_readings(tmp_path):
    spelled = load(
        tmp_path,
        '[[simulation]]\ngame = "hotv"\ngames = 10\ncomponents = '
        '["dice.toml"]\nreadings = { cat = "first-draw", build = "one" }\n',
    ).items[0]
    (headed,) = load(tmp_path, f'{HEAD}\n[[simulation]]\ngames = 10\nreadings = {{ build = '
                     '"one" }\n').items  # fmt: skip
    assert headed.components.data == spelled.components.data
    assert headed.components.readings == spelled.components.readings
    (own,) = load(tmp_path, f'{HEAD}\n[[simulation]]\ngames = 10\nreadings = {{ cat = '
                  '"first-block" }\n').items  # fmt: skip
    assert own.components.readings["cat"] == "first-block"


def test_an_item_of_another_game_starts_from_that_games_defaults(tmp_path):
    """The head's files and readings are its game's: a Builders & Biomes item in a Heroes of
    the Village file reads none of them (its readings would be unknown names), and a Heroes
    item in a default file none of the default game's."""
    bnb = load(tmp_path, f'{HEAD}\n[[simulation]]\ngame = "bnb"\ngames = 10\npolicies = '
               '["random"]\n').items[0]  # fmt: skip
    assert bnb.component_files == [] and "cat" not in bnb.readings
    hotv = load(tmp_path, '[experiment]\nreadings = { hunger = "one-by-one" }\n\n[[simulation]]'
                '\ngame = "hotv"\ngames = 10\n').items[0]  # fmt: skip
    assert hotv.components.data["dice"]["fight"]["faces"][3] != "blank"


@pytest.mark.parametrize(
    ("head", "message"),
    [
        ('game = "chess"', "experiment.game: unknown game 'chess'"),
        ("game = 3", "experiment.game: must be a game name, got 3"),
        ('game = "hotv"\nvariant = "beginner"', "unknown key 'experiment.variant'"),
        ('game = "hotv"\nexpansion = "farmers-market"', "unknown key 'experiment.expansion'"),
        ('game = "hotv"\nreadings = { dog = "x" }', "experiment.readings: unknown reading 'dog'"),
        ('game = "hotv"\nreadings = { cat = "sometimes" }', "experiment.readings: reading cat="),
        ('game = "hotv"\nreadings = "cat=first-draw"', "experiment.readings: must be a table"),
        (
            'expansion = "farmers"',
            "experiment.expansion: unknown expansion 'farmers' (known: farmers-market)",
        ),  # fmt: skip
    ],
)
def test_a_bad_head_is_one_line_naming_its_key(tmp_path, head, message):
    from experiment_helpers import refused

    assert message in refused(tmp_path, f"[experiment]\n{head}\n\n[[simulation]]\ngames = 10\n")


def test_an_items_unknown_expansion_names_the_games_expansions(tmp_path):
    """Before: the shared reader listed the default game's expansion as fixed text."""
    with pytest.raises(BnbError, match=r"simulation\[1\]\.expansion: unknown expansion 'farm' "
                       r"\(known: farmers-market\)"):  # fmt: skip
        load(tmp_path, '[[simulation]]\ngames = 10\npolicies = ["random"]\nexpansion = "farm"\n')


def test_the_guides_headed_file_loads_as_written(tmp_path):
    """docs/heroes-of-the-village.md's file with a headed game, as printed."""
    from pathlib import Path

    page = (Path(__file__).parents[1] / "docs" / "heroes-of-the-village.md").read_text()
    blocks = [b.split("```", 1)[0] for b in page.split("```toml\n")[1:]]
    (text,) = [b for b in blocks if b.startswith('[experiment]\ngame = "hotv"')]
    (tmp_path / "my_dice.toml").write_text(DICE)
    (item,) = load(tmp_path, text).items
    assert item.components.readings["cat"] == "first-draw" and item.kind == "simulation"
