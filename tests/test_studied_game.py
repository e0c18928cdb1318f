"""Experiment items reach the hooks of THEIR game (issue 24: one item implementation chosen by
what a game offers, never by its name).

The items that :mod:`bnb_sim.analysis.experiment_items` reads (simulation, tournament, sweep,
compare, ladder, value, luck, robustness, tune) serve any game with a ``studies`` hook. To
prove that the item's game is threaded through parsing and playing, a second such game is
registered here: Builders & Biomes under another name ("twin"), whose ``studies`` hooks
log their calls; the built-in game's hooks log theirs too. An experiment of the twin must
ask only the twin's hooks, and play exactly the rows the built-in game plays.
"""

from __future__ import annotations

import textwrap

import pytest

from bnb_sim.analysis.experiment import load_experiment, parse_experiment
from bnb_sim.core import registry
from bnb_sim.errors import BnbError
from bnb_sim.games.builders_biomes import study_hooks as bnb_study_hooks
from bnb_sim.games.builders_biomes.spec import BuildersBiomes
from bnb_sim.runner.experiments import run_item


class _LoggedHooks:
    """A ``studies`` module whose every function call is logged by name."""

    def __init__(self, module, log: list[str]):
        self._module, self._log = module, log

    def __getattr__(self, name: str):
        value = getattr(self._module, name)
        if not callable(value):
            return value

        def logged(*args, **kwargs):
            self._log.append(name)
            return value(*args, **kwargs)

        return logged


class Twin(BuildersBiomes):
    """The first game's rules under another name: a second game with a ``studies`` hook."""

    name = "bnb_twin"
    title = "Builders & Biomes (twin)"
    aliases = ()
    log: list[str] = []

    @property
    def studies(self):
        return _LoggedHooks(bnb_study_hooks, self.log)


@pytest.fixture
def logs(monkeypatch):
    """``{"twin": calls of the twin's studies hooks, "default": the built-in game's}``."""
    default: list[str] = []
    twin: list[str] = []
    monkeypatch.setattr(Twin, "log", twin)
    monkeypatch.setattr(BuildersBiomes, "studies",
                        property(lambda self: _LoggedHooks(bnb_study_hooks, default)))  # fmt: skip
    registry.register_game(Twin())
    yield {"twin": twin, "default": default}
    registry.unregister_game(Twin.name)


ITEMS = """
[[simulation]]
name = "sim"
games = 12
players = 2
policies = ["greedy", "random"]
readings = { hunger = "one-by-one" }

[[tournament]]
name = "bots"
policies = ["greedy", "random"]
games = 4

[[sweep]]
name = "hearts"
games = 4
policies = ["greedy"]
set = { "mobs.enderman.hearts" = [5, 6] }

[[compare]]
name = "ab"
a = "greedy"
b = "random"
max_games = 8
precision = 0.5

[[ladder]]
name = "ladder"
rungs = ["random", "greedy"]
games = 4
bootstrap = 20

[[value]]
name = "value"
options = ["fight"]
policy = "greedy"
games = 6
"""


def _experiment(head: str, items: str = ITEMS):
    from bnb_sim.toml_files import tomllib

    return parse_experiment(tomllib.loads(textwrap.dedent(head) + items), "exp.toml")


def test_a_head_naming_the_twin_makes_every_item_the_twins(logs):
    experiment = _experiment('[experiment]\ngame = "bnb_twin"\nvariant = "beginner"\n')
    assert [item.game for item in experiment.items] == ["bnb_twin"] * 6
    assert {item.variant for item in experiment.items} == {"beginner"}  # the head's, its game
    assert {"load_component_files", "check_reading", "resolve_readings",
            "design_readings"} <= set(logs["twin"])  # fmt: skip
    assert logs["default"] == []


def test_the_twins_items_play_the_rows_of_the_first_game_through_the_twins_hooks(logs):
    twin = _experiment('[experiment]\ngame = "bnb_twin"\nseed = 3\n')
    first = _experiment("[experiment]\nseed = 3\n")
    for mine, theirs in zip(twin.items[:4], first.items[:4], strict=True):
        logs["twin"].clear()
        logs["default"].clear()
        played = run_item(mine, threads=1)
        assert logs["default"] == [], mine.kind
        assert {"make_config", "play_block"} <= set(logs["twin"]), mine.kind
        reference = run_item(theirs, threads=1)
        if mine.kind == "simulation":  # (seats, games, meta): the very same rows
            assert played[0].equals(reference[0]) and played[1].equals(reference[1])
        elif mine.kind == "tournament":
            assert played.win_rates.equals(reference.win_rates)
        elif mine.kind == "sweep":
            assert played.win_rates.equals(reference.win_rates)
        else:  # compare: the same games, the same verdict and estimates
            assert (played.n_games, played.verdict, played.score) == (
                reference.n_games, reference.verdict, reference.score)  # fmt: skip


def test_an_item_of_the_twin_in_a_file_of_the_first_game_takes_none_of_the_heads_values(logs):
    experiment = _experiment(
        '[experiment]\nvariant = "beginner"\nreadings = { hunger = "one-by-one" }\n',
        '[[simulation]]\ngame = "bnb_twin"\ngames = 5\npolicies = ["greedy"]\n'
        '[[simulation]]\nname = "mine"\ngames = 5\npolicies = ["greedy"]\n',
    )
    twin, mine = experiment.items
    assert twin.game == "bnb_twin" and twin.variant == "standard" and twin.readings == {}
    assert mine.game == "builders_biomes" and mine.variant == "beginner"
    assert mine.readings == {"hunger": "one-by-one", "variant": "beginner"}


def test_a_bad_policy_of_the_twins_item_is_refused_by_the_twins_hooks(logs, tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text('[[tournament]]\ngame = "bnb_twin"\npolicies = ["greedy", "nope"]\n'
                    "games = 4\n")  # fmt: skip
    with pytest.raises(BnbError, match=r"exp.toml: tournament\[1\].policies: .*nope"):
        load_experiment(path)
    assert logs["default"] == []


def test_the_items_that_describe_themselves_carry_the_twin(logs):
    experiment = _experiment('[experiment]\ngame = "bnb_twin"\n')
    ladder, value = experiment.items[4:]
    assert ladder.game == value.game == "bnb_twin"
    assert "bnb_twin" not in ladder.readings_text()  # the readings, not the game
    logs["default"].clear()
    ladder.readings_text()
    value.readings_text()
    assert logs["default"] == []


def test_the_twins_ladder_and_value_play_through_the_twins_hooks(logs):
    experiment = _experiment('[experiment]\ngame = "bnb_twin"\nseed = 2\n')
    first = _experiment("[experiment]\nseed = 2\n")
    for mine, theirs in zip(experiment.items[4:], first.items[4:], strict=True):
        logs["default"].clear()
        played = mine.run(threads=1)
        assert logs["default"] == [], mine.kind
        reference = theirs.run(threads=1)
        if mine.kind == "ladder":
            steps = [r.steps.drop(columns="seconds") for r in (played, reference)]
            assert steps[0].equals(steps[1])
        else:  # value: the same option values, measured in the twin
            assert played.game == "bnb_twin" and reference.game == "builders_biomes"
            assert [o.effect for o in played.options] == [o.effect for o in reference.options]


OTHER_KINDS = """
[[luck]]
name = "luck"
rungs = ["random", "greedy"]
groups = 10
per_group = 2
pair_games = 0

[[robustness]]
name = "robust"
players = 2
games = 10
rungs = ["random", "greedy"]

[[tune]]
name = "tuned"
what = "game"
params = ["mobs.enderman.hearts=5..7"]
targets = ["first_player_advantage=0"]
policies = ["greedy", "greedy"]
budget = 2000
method = "grid"
games_per_eval = 10
players = 2
"""


def test_the_twins_luck_robustness_and_tune_items_are_the_twins(logs):
    experiment = _experiment('[experiment]\ngame = "bnb_twin"\n', OTHER_KINDS)
    luck, robustness, tune = experiment.items
    assert luck.game.name == robustness.game == tune.plan.game == "bnb_twin"
    assert logs["default"] == []


def test_bnb_run_warms_the_engine_of_each_items_own_game(logs):
    """Before: every item that named no engine of its own warmed ("builders_biomes", n)."""
    from bnb_sim.cli.run_cmd import experiment_warmups

    twin = _experiment('[experiment]\ngame = "bnb_twin"\n', ITEMS + OTHER_KINDS)
    assert {key[0] for key in experiment_warmups(twin.items)} == {"bnb_twin"}
    first = _experiment("", ITEMS)
    assert {key[0] for key in experiment_warmups(first.items)} == {"builders_biomes"}
