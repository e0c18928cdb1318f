"""Third-party policies through the ``bnb_sim.policies`` entry-point group (monkeypatched here):
the example plugin plays, and every way a plugin can be wrong gives a clear one-line error."""

from __future__ import annotations

import pathlib
import textwrap
import types
from importlib import metadata

import engine_helpers as H
import pytest

from bnb_sim import entry_points as entry_point_module
from bnb_sim.errors import PolicyError
from bnb_sim.games.builders_biomes.batch import play_block
from bnb_sim.games.builders_biomes.policies import registry
from bnb_sim.plugins import PLUGIN_SIGNATURE

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "bnb_plugin_example"

BAD_PLUGINS = textwrap.dedent(
    '''
    """Plugins that go wrong, for tests."""
    from bnb_sim.plugins import Plugin


    def _illegal(obs, legal, static, rng, params, mem):
        return 63  # a cube position, never legal at the start of a turn


    def _float(obs, legal, static, rng, params, mem):
        return 1.5


    def _object(obs, legal, static, rng, params, mem):
        return len({"a": object()})


    ILLEGAL = Plugin(_illegal)
    FLOAT = Plugin(_float)
    OBJECT = Plugin(_object)
    NOT_A_PLUGIN = 42
    '''
)


@pytest.fixture
def entry_points(monkeypatch, tmp_path):
    """Register plugins: ``entry_points({"name": "module:attr"})``."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    (tmp_path / "bnb_test_bad_plugins.py").write_text(BAD_PLUGINS)
    (tmp_path / "bnb_test_broken_plugin.py").write_text(
        "raise ImportError(\"No module named 'tensorflow'\")\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))

    def register(mapping):
        eps = [
            metadata.EntryPoint(name=n, value=v, group=entry_point_module.ENTRY_POINT_GROUP)
            for n, v in mapping.items()
        ]

        def fake(group=None, **_):
            return [ep for ep in eps if group in (None, ep.group)]

        monkeypatch.setattr(
            entry_point_module, "metadata", types.SimpleNamespace(entry_points=fake)
        )

    return register


CAUTIOUS = {"cautious": "bnb_plugin_example.cautious:CAUTIOUS"}


def test_example_plugin_plays_games_through_the_entry_point(entry_points):
    entry_points(CAUTIOUS)
    assert "cautious" in registry.known_policies()
    spec = registry.parse_policy("cautious")
    assert spec.params == (0.75, 64.0) and spec.plugin == "cautious"
    config = H.config(2, ["cautious", "heuristic"], seed=1)
    seats, games = play_block(config, 0, 200)
    mine = seats[seats.policy == "cautious"]
    assert len(mine) == 200 and mine.xp.mean() > 10
    again, _ = play_block(config, 0, 200)  # reproducible: it draws from its own stream
    assert again.xp.tolist() == seats.xp.tolist()


def test_example_plugin_parameters_change_its_play(entry_points):
    entry_points(CAUTIOUS)
    bold = H.config(2, ["cautious:min_win=0", "random"], seed=2)
    timid = H.config(2, ["cautious:min_win=1.01", "random"], seed=2)
    bold_seats, _ = play_block(bold, 0, 200)
    timid_seats, _ = play_block(timid, 0, 200)
    fights_bold = bold_seats[bold_seats.policy == "cautious:min_win=0"].fights.sum()
    fights_timid = timid_seats[timid_seats.policy == "cautious:min_win=1.01"].fights.sum()
    assert fights_timid < 0.1 * fights_bold
    with pytest.raises(PolicyError, match="unknown weight 'bravery'"):
        registry.parse_policy("cautious:bravery=1")


def test_example_plugin_in_the_game_api(entry_points):
    entry_points(CAUTIOUS)
    game = H.new_game(2, ["cautious", "greedy"], seed=3, game_index=1).play()
    seats, _ = play_block(H.config(2, ["cautious", "greedy"], seed=3), 1, 1)
    assert game.xp() == seats.xp.tolist()


def test_illegal_decision_names_policy_game_and_decision(entry_points):
    entry_points({"bnb-test-illegal": "bnb_test_bad_plugins:ILLEGAL"})
    config = H.config(2, ["bnb-test-illegal", "random"], seed=4)
    pattern = r"policy 'bnb-test-illegal' \(seat \d\) made an illegal decision 63 in game 5"
    with pytest.raises(PolicyError, match=pattern):
        play_block(config, 5, 3)
    game = H.new_game(2, ["bnb-test-illegal", "random"], seed=4, game_index=6)
    while game.policy_of_seat(game.current_seat).label != "bnb-test-illegal":
        game.apply_action(game.policy_action())
    with pytest.raises(PolicyError, match=r"illegal decision 63 in game 6 \(phase turn\)"):
        game.policy_action()


def test_plugin_returning_a_float_is_refused_at_load(entry_points):
    entry_points({"bnb-test-float": "bnb_test_bad_plugins:FLOAT"})
    config = H.config(2, ["bnb-test-float", "random"], seed=5)
    with pytest.raises(PolicyError, match="'bnb-test-float' returns float64, not an integer"):
        play_block(config, 0, 1)
    assert str(PLUGIN_SIGNATURE.return_type) == "int64"


def test_plugin_that_does_not_compile(entry_points):
    entry_points({"bnb-test-object": "bnb_test_bad_plugins:OBJECT"})
    config = H.config(2, ["bnb-test-object", "random"], seed=5)
    with pytest.raises(PolicyError, match="'bnb-test-object' does not compile") as info:
        config.kernel_inputs  # noqa: B018 (compiles the plugins)
    assert "\n" not in str(info.value)


def test_plugin_that_fails_to_import_gives_one_clean_line(entry_points):
    entry_points({"bnb-test-broken": "bnb_test_broken_plugin:PLUGIN"})
    with pytest.raises(PolicyError) as info:
        registry.parse_policy("bnb-test-broken")
    message = str(info.value)
    assert message == (
        "policy plugin 'bnb-test-broken' failed to import: No module named 'tensorflow'"
    )


def test_entry_point_must_name_a_plugin(entry_points):
    entry_points({"bnb-test-int": "bnb_test_bad_plugins:NOT_A_PLUGIN"})
    with pytest.raises(PolicyError, match="must point to a bnb_sim.plugins.Plugin"):
        registry.parse_policy("bnb-test-int")


def test_unknown_policy_lists_the_known_ones(entry_points):
    entry_points(CAUTIOUS)
    with pytest.raises(PolicyError, match="unknown policy 'nope' .*cautious"):
        registry.parse_policy("nope")


def test_bnb_play_with_plugins(entry_points, capsys):
    from bnb_sim.cli import main

    entry_points({**CAUTIOUS, "bnb-test-broken": "bnb_test_broken_plugin:PLUGIN"})
    main(["play", "--seed", "6", "--policy", "cautious:min_win=0.5", "--policy", "random"])
    out, _ = capsys.readouterr()
    assert "seat 0: player 0, cautious:min_win=0.5" in out and "Final table" in out
    with pytest.raises(SystemExit) as info:
        main(["play", "--policy", "bnb-test-broken"])
    _, err = capsys.readouterr()
    assert info.value.code == 2
    assert err == (
        "bnb: error: policy plugin 'bnb-test-broken' failed to import: "
        "No module named 'tensorflow'\n"
    )
