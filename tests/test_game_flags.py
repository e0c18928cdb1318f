"""A game's own flags are the game's data, not options of the shared commands (issue 24):
those that set a rule reading (``--variant``, ``--seating``, ``--fixed-seats``, ``--pickaxe``
of Builders & Biomes: ``reading_flags``, read through its ``parse_readings`` hook), its
expansions (``--expansion``) and its options of one command (``--pile`` and ``--hearts`` of
``bnb odds``, as Heroes of the Village's ``--pet``). Each command shows them under the game's
name and refuses them for another game in one line; the Python studies refuse an option of
another command."""

from __future__ import annotations

import click
import pytest
from test_cli_simulate import run_cli

from bnb_sim.cli import cli
from bnb_sim.cli.protocol_cmds import protocol_of, reading_aliases, without_reading_flags
from bnb_sim.core.protocol import OptionSpec
from bnb_sim.errors import BnbError
from bnb_sim.games import all_specs, get_game

BNB = protocol_of(get_game("builders_biomes"))
HOTV = protocol_of(get_game("hotv"))


def _command(path: str) -> click.Command:
    command = cli
    ctx = click.Context(cli)
    for name in path.split():
        command = command.get_command(ctx, name)
    return command


def _flag_rows():
    """``(game, flag, command path)`` for every reading flag of every registered game."""
    for spec in all_specs():
        for option in getattr(protocol_of(spec), "reading_flags", ()):
            for command in option.commands:
                yield spec, option, "tune policy" if command == "tune" else command


@pytest.mark.parametrize("spec, option, path", list(_flag_rows()),
                         ids=lambda v: getattr(v, "name", v))  # fmt: skip
def test_every_reading_flag_is_offered_under_its_games_name(spec, option, path):
    """The flag is on the command it names, once, with the game's name first in its help."""
    params = [p for p in _command(path).params if p.name == option.name]
    assert len(params) == 1, f"bnb {path}: {option.flags[0]} offered {len(params)} times"
    label = params[0].help.split(":")[0]
    assert label and label in spec.title, f"bnb {path} {option.flags[0]}: help {params[0].help!r}"


def test_a_command_that_no_flag_names_does_not_show_it():
    names = {p.name for p in _command("luck").params}
    assert not names & {o.name for o in BNB.reading_flags}


def test_the_flags_become_the_aliases_of_the_games_hook():
    params = {"variant": "beginner", "seating": None, "fixed_seats": False, "pickaxe": None}
    assert reading_aliases(BNB, params) == {
        "--variant": "beginner", "--seating": None, "--fixed-seats": None, "--pickaxe": None
    }  # fmt: skip
    assert reading_aliases(BNB, {"fixed_seats": True})["--fixed-seats"] == "fixed"
    assert BNB.parse_readings((), reading_aliases(BNB, {"fixed_seats": True})) == {
        "seating": "fixed"
    }
    assert reading_aliases(HOTV, params) == {}  # a game without reading flags
    assert without_reading_flags({**params, "pets": "wolf"}) == {"pets": "wolf"}


def test_two_flags_that_set_one_reading_differently_are_one_line():
    with pytest.raises(BnbError, match="--fixed-seats contradicts --seating rotate"):
        reading_aliases(BNB, {"seating": "rotate", "fixed_seats": True})
    assert reading_aliases(BNB, {"seating": "fixed", "fixed_seats": True})["--seating"] == "fixed"


def test_a_flag_alias_names_the_value_it_sets():
    with pytest.raises(ValueError, match="sets="):
        OptionSpec("fixed", "a flag", kind="flag", reading="seating")
    with pytest.raises(ValueError, match="sets="):
        OptionSpec("seat", "a choice", kind="choice", choices=("a",), reading="s", sets="a")


@pytest.mark.parametrize("command", ["simulate", "play", "compare", "robustness"])
def test_another_games_reading_flag_is_refused_in_one_line(capsys, tmp_path, command):
    args = {"simulate": ["-n", "5", "-o", str(tmp_path / "r")],
            "compare": ["team", "team", "--max-games", "10"]}.get(command, [])  # fmt: skip
    own = command in ("simulate", "play")  # --pickaxe names them; --variant every command
    flag = ["--pickaxe", "mandatory"] if own else ["--variant", "beginner"]
    code, out, err = run_cli(capsys, [command, "--game", "hotv", *args, *flag])
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "of Minecraft: Builders & Biomes, not of Minecraft: Heroes of the Village" in err
    assert not (tmp_path / "r").exists()


def test_the_expansion_choices_are_the_games_data():
    """``--expansion`` offers the registered games' ``expansions``: for the base game, the
    expansions whose data it ships (components.expansion.EXPANSIONS)."""
    from bnb_sim.games.builders_biomes.components.expansion import EXPANSIONS

    assert set(BNB.expansions) == set(EXPANSIONS)
    (param,) = [p for p in _command("simulate").params if p.name == "expansion"]
    assert list(param.type.choices) == list(BNB.expansions)
    assert all(text.split(":")[0] in BNB.title for text in BNB.expansions.values())


@pytest.mark.parametrize("command, names", [("odds", ("pile", "hearts")),
                                            ("train", ("field", "self_every"))])  # fmt: skip
def test_the_base_games_own_options_are_on_their_command_only(command, names):
    for name in names:
        (param,) = [p for p in _command(command).params if p.name == name]
        assert param.help.startswith("Builders & Biomes:")
        assert name not in {p.name for p in _command("simulate").params}


def test_an_empty_training_field_is_one_line(capsys, tmp_path):
    code, _, err = run_cli(capsys, ["train", "--games", "8", "--field", " , ",
                                    "--out", tmp_path / "m.toml"])  # fmt: skip
    assert code == 2 and "at least one opponent" in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--pile", "bow", "--hearts", "0"], "0 is not in the range 1<=x<=1000000"),
        (["--pile", "bow", "--hearts", "3", "--mob", "spider"], "not both"),
        (["--hearts", "3"], "Missing option '--pile'"),
        (["--game", "hotv", "--mob", "5", "--pile", "bow"], "--pile is an option of Minecraft"),
    ],
)
def test_bad_odds_options_are_one_line(capsys, args, fragment):
    code, _, err = run_cli(capsys, ["odds", *args])
    assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err, err


def test_a_python_study_refuses_an_option_of_another_command():
    import bnb_sim

    with pytest.raises(BnbError, match="has no option 'pet' here"):
        bnb_sim.compare("team", "team", game="hotv", max_games=10, options={"pet": "wolf"})


def test_a_file_option_is_checked_before_anything_plays(tmp_path, capsys):
    """A game's "file" option (``--svg`` of ``bnb play``): its suffixes and a target that
    can be written, one line each; only a file option has suffixes."""
    with pytest.raises(ValueError, match="only a file option has suffixes"):
        OptionSpec("out", "a text", suffixes=(".svg",))
    (tmp_path / "folder.svg").mkdir()
    for name, fragment in [("t.jpg", "must end in .svg or .png"),
                           ("folder.svg", "is a directory")]:  # fmt: skip
        code, out, err = run_cli(capsys, ["play", "--svg", tmp_path / name])
        assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1, err
        assert out == ""


def test_reading_flags_need_the_hook_that_reads_them():
    """Registration refuses reading flags that no ``parse_readings`` hook would read (a game
    with ``with_readings`` takes ``--reading`` items only), and flags that name no reading."""
    from dice_race import DiceRace

    from bnb_sim.core.protocol import check_game

    flag = OptionSpec("fast", "a flag", kind="flag", reading="speed", sets="fast")

    class Flagged(DiceRace):
        reading_flags = (flag,)

    with pytest.raises(ValueError, match="need the parse_readings hook"):
        check_game(Flagged())

    class Unnamed(DiceRace):
        reading_flags = (OptionSpec("fast", "a flag", kind="flag"),)

    with pytest.raises(ValueError, match="with reading=NAME"):
        check_game(Unnamed())
    check_game(BNB)  # the base game's flags pass
