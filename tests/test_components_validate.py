"""``bnb components validate`` accepts what ``--components FILE`` accepts (issue 25, item 6):
``--expansion farmers-market`` checks a Farmer's Market override over the expansion's data,
and ``--game hotv`` checks a Heroes of the Village file."""

from __future__ import annotations

import textwrap

import pytest

from bnb_sim.cli import main
from bnb_sim.games.builders_biomes.components import load_components

CRAFTING_TABLE_LATE = """
    [farmers_market.items.crafting_table]
    cost = 2
    letter = "A"
    ability = "wild_blocks"
    amount = 0
    provenance = { cost = "known", ability = "known", amount = "known", letter = "estimate" }
    source = "WIKI-BB item table"
    reason = "EST-FM-3: what if it came out after round A"

    [[ranges]]
    keys = "farmers_market.items.crafting_table.letter"
    choices = ["A", "B"]
    reason = "EST-FM-3: not in the first market"
"""


def _cli(capsys, *args):
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def ct_late(tmp_path):
    path = tmp_path / "ct_late.toml"
    path.write_text(textwrap.dedent(CRAFTING_TABLE_LATE))
    return path


def test_a_partial_farmers_market_override_validates_with_the_expansion(capsys, ct_late):
    comps = load_components(ct_late, expansion="farmers-market")  # what simulate reads
    code, out, err = _cli(capsys, "components", "validate", "--expansion", "farmers-market",
                          str(ct_late))  # fmt: skip
    assert (code, err) == (0, "")
    assert out == f"{ct_late}: valid ({comps.n_estimates} estimated values)\n"
    assert comps.estimate("farmers_market.items.crafting_table.letter").choices == ("A", "B")


def test_without_the_expansion_the_error_says_to_add_it(capsys, ct_late):
    code, out, err = _cli(capsys, "components", "validate", str(ct_late))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "farmers_market.vegetable_tokens" in err
    assert "--expansion farmers-market" in err and "Traceback" not in err


def test_validate_counts_estimates_without_a_range(capsys, tmp_path):
    path = tmp_path / "guess.toml"
    path.write_text(
        '[mobs.enderman]\nhearts = 7\nprovenance = "estimate"\nreason = "EST-3: my guess"\n'
    )
    code, out, _ = _cli(capsys, "components", "validate", str(path))
    assert (
        code == 0 and out == f"{path}: valid (207 estimated values, 1 without a plausible range)\n"
    )


def test_validate_game_hotv(capsys, tmp_path):
    from bnb_sim.games.heroes_village.components import DEFAULT_PATH

    code, out, _ = _cli(capsys, "components", "validate", "--game", "hotv", str(DEFAULT_PATH))
    assert code == 0 and out == f"{DEFAULT_PATH}: valid (93 estimated values)\n"
    bad = tmp_path / "dice.toml"
    bad.write_text('[dice.fight]\nfaces = [4, 5, "sword"]\nprovenance = "estimate"\nreason = "x"\n')
    code, out, err = _cli(capsys, "components", "validate", "--game", "hotv", str(bad))
    assert code == 2 and "dice.fight.faces[2]" in err and len(err.strip().splitlines()) == 1
