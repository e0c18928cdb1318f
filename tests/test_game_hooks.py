"""Every game reaches ``bnb play``, ``odds``, ``components show`` and ``train`` the same
way: through the optional hooks of its protocol object (issue 24), never through a command
handler of its own in the registry; a game's options of these commands are data."""

from __future__ import annotations

import pytest

from bnb_sim.core.protocol import COMMANDS, HOOKS, NAMED_COMMANDS, OptionSpec, hook
from bnb_sim.core.registry import get_game as protocol_game
from bnb_sim.games import GAMES

#: The registry entries these commands used to reach a game by (its own handlers).
OLD_ENTRIES = ("play", "odds", "components_show", "train_show", "train_plan", "train_run",
               "options:play", "options:odds")  # fmt: skip
#: The hook of each command (bnb_sim.core.protocol.HOOKS).
COMMAND_HOOKS = ("play_transcript", "odds", "component_tables", "train", "show_model",
                 "compile_jobs")  # fmt: skip


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_built_in_game_adds_options_to_commands_as_data_only(name):
    """Issue 24: a command's extra options are OptionSpec data, never a game's own click
    decorator (the ``options:<command>`` entries Heroes of the Village used to declare)."""
    commands = (*COMMANDS, *NAMED_COMMANDS)
    declared = [f"options:{c}" for c in commands if GAMES[name].entry(f"options:{c}")]
    assert not declared, f"{name} declares {declared}: give OptionSpec data instead"


def test_an_option_range_is_data_and_click_refuses_a_value_outside_it(tmp_path, capsys):
    from tests.test_hotv_sim import run_cli

    with pytest.raises(ValueError, match="only an int option has a range"):
        OptionSpec("teams", "pet teams", kind="str", low=1)
    teams = next(o for o in protocol_game("hotv").options if o.name == "teams")
    assert (teams.kind, teams.low, teams.high, teams.commands) == ("int", 1, 20, ("train",))
    code, _, err = run_cli(capsys, ["train", "--game", "hotv", "--teams", "21",
                                    "--out", tmp_path / "m.json"])  # fmt: skip
    assert code == 2 and "21 is not in the range 1<=x<=20" in err and "Traceback" not in err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_no_built_in_game_declares_its_own_handler_of_the_hooked_commands(name):
    declared = [e for e in OLD_ENTRIES if GAMES[name].entry(e) is not None]
    assert not declared, f"{name} declares {declared}: offer the protocol hook instead"


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("what", COMMAND_HOOKS)
def test_every_built_in_game_offers_the_hook(name, what):
    assert what in HOOKS
    assert hook(protocol_game(name), what) is not None


def test_an_option_may_name_play_or_odds_and_attaches_only_there():
    pet = OptionSpec("pet", "A pet.", kind="choice", choices=("wolf",), commands=("odds",))
    assert pet.applies_to("odds") and not pet.applies_to("simulate")
    with pytest.raises(ValueError, match="unknown commands"):
        OptionSpec("pet", "A pet.", commands=("no_such_command",))


def test_the_odds_option_of_a_game_is_data_with_its_choices():
    from click.testing import CliRunner

    from bnb_sim.cli import cli

    out = CliRunner().invoke(cli, ["odds", "--help"]).output
    assert "--pet [wolf|cat|fox|panda|horse|llama]" in out
    spec = {o.name: o for o in protocol_game("hotv").options}["pet"]
    assert spec.commands == ("odds",)


def test_hotv_play_options_reach_the_transcript():
    """--pets and --players reach the game's hook as data: 3 players of the named pets."""
    from click.testing import CliRunner

    from bnb_sim.cli import cli

    result = CliRunner().invoke(
        cli, ["play", "--game", "hotv", "--seed", "1", "--pets", "wolf,cat,fox", "-q"]
    )
    assert result.exit_code == 0, result.output
    assert result.output.startswith(
        "Heroes of the Village, game 0 of seed 1: 3 players, pets wolf, cat, fox"
    )


def test_a_reading_of_the_other_game_is_refused_in_one_line(capsys):
    """The game's own parse_readings hook reads --reading (one line, exit code 2)."""
    from bnb_sim.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["play", "--game", "hotv", "--reading", "variant=beginner"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.strip().splitlines()) == 1
    assert "unknown reading 'variant' for Heroes of the Village" in err


class _DiceWithHooks:
    """The dice race of tests/dice_race.py with two command hooks (a registered protocol
    game): the shared commands serve it as they serve the built-in games."""

    def __init__(self):
        import dice_race

        self._game = dice_race.DiceRace()
        self.name, self.title, self.aliases = "dice_hooks", "Dice race with hooks", ()

    def __getattr__(self, name):
        return getattr(self._game, name)

    def component_tables(self, components):
        return [f"goal {components['goal']}, a die of {components['sides']} sides"]

    def odds(self, components, options):
        from bnb_sim.core.protocol import CommandOutput

        return CommandOutput(f"P(six) = 1/{components['sides']}", {"p": 1 / components["sides"]})


@pytest.fixture
def dice_with_hooks():
    from bnb_sim.core.registry import register_game, unregister_game

    game = register_game(_DiceWithHooks())
    yield game
    unregister_game(game.name)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (["components", "show"], "goal 20, a die of 6 sides\n"),
        (["odds"], "P(six) = 1/6\n"),
        (["odds", "--json"], '{\n  "p": 0.16666666666666666\n}\n'),
    ],
)
def test_a_protocol_game_with_the_hook_is_served_by_the_command(
    dice_with_hooks, capsys, command, expected
):
    from bnb_sim.cli import main

    try:
        main([*command, "--game", "dice_hooks"])
    except SystemExit as exc:
        assert exc.code == 0, capsys.readouterr()
    assert capsys.readouterr().out == expected
