"""A game installed as a package (an entry point of the group ``bnb_sim.games``) is served by
the shared commands like a built-in or a registered one (issue 24: a third game is cheap
whether it lives in a test suite, a notebook or its own package), and a broken one is left
out with a warning instead of breaking every command."""

from __future__ import annotations

import json

import pytest
from dice_race import DiceRace
from test_cli_simulate import run_cli

from bnb_sim import games
from bnb_sim.core import registry
from bnb_sim.errors import SpecError
from bnb_sim.games import all_specs, get_game


class InstalledDice(DiceRace):
    name = "dice_installed"
    title = "Installed dice race"
    aliases = ("dicei",)


class _EntryPoint:
    def __init__(self, name: str, value: str, load):
        self.name, self.value, self.load = name, value, load


def _broken():
    raise ImportError("No module named 'not_installed'")


@pytest.fixture
def installed(monkeypatch):
    """Two installed games: the dice race under another name, and one that cannot load."""
    game = InstalledDice()
    points = {
        "dice_installed": _EntryPoint("dice_installed", "my_dice.spec:GAME", lambda: game),
        "broken": _EntryPoint("broken", "not_installed.spec:GAME", _broken),
    }
    monkeypatch.setattr(registry, "_entry_points", lambda: points)
    monkeypatch.delitem(registry._LOADED, "dice_installed", raising=False)
    monkeypatch.setattr(games, "_BROKEN_WARNED", set())
    return game


def test_an_installed_game_is_found_by_name_and_alias(installed):
    with pytest.warns(UserWarning, match="installed game 'broken'.*left out"):
        names = [spec.name for spec in all_specs()]
    assert "dice_installed" in names and "broken" not in names
    assert get_game("dicei").game is installed and get_game("dice-installed").protocol_only


def test_a_built_in_game_is_found_without_reading_the_installed_packages(monkeypatch):
    """Looking a built-in or registered game up reads no entry points (a tuning asks for its
    game hundreds of times, and each scan of the packages' metadata costs milliseconds); a
    name no such game has still finds the installed ones."""
    scans = []
    monkeypatch.setattr(registry, "_entry_points", lambda: scans.append(1) or {})
    for name in ("bnb", "builders-biomes", "hotv", None):
        get_game(name)
    assert scans == []
    with pytest.raises(SpecError, match="unknown game"):
        get_game("not-a-game")
    assert scans


def test_the_shared_commands_serve_an_installed_game(installed, capsys, tmp_path):
    run = tmp_path / "run"
    code, out, err = run_cli(capsys, ["simulate", "--game", "dicei", "--games", "40", "--seed", "2",
                          "--policy", "steady", "--policy", "bold", "--json", "--quiet",
                          "--out", run])  # fmt: skip
    assert code == 0, err
    assert json.loads(out[out.index("{") :])["games"] == 40
    meta = json.loads((run / "run.json").read_text())
    assert meta["game"] == "dice_installed"
    code, out, err = run_cli(capsys, ["report", run, "--out", tmp_path / "rep"])
    assert code == 0, err
    assert "Installed dice race" in (tmp_path / "rep" / "report.md").read_text()


def test_a_broken_installed_game_is_one_line_not_a_traceback(installed, capsys, tmp_path):
    with pytest.warns(UserWarning, match="'broken'"):
        code, out, err = run_cli(capsys, ["simulate", "--game", "broken", "--games", "10",
                              "--out", tmp_path / "r"])  # fmt: skip
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("bnb: error: unknown game 'broken'")
