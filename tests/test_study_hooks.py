"""The experiment files' default items and the Python studies reach their game through the
registry (issue 24): the ``studies`` entry (a module of the game) and the protocol's
``policy_labels`` hook, never an import of the game package (tests/test_layering.py)."""

from __future__ import annotations

import inspect

import pytest

from bnb_sim.analysis.study_hooks import game_protocol, policy_labels, study_hooks
from bnb_sim.errors import BnbError

#: What a game's study module declares (bnb_sim/games/builders_biomes/study_hooks.py).
DECLARED = (
    "check_reading",
    "resolve_readings",
    "load_component_files",
    "components_arg",
    "restricted_spec",
    "search_budget",
)


def test_the_default_game_declares_every_study_hook():
    hooks = study_hooks()
    assert hooks.__name__ == "bnb_sim.games.builders_biomes.study_hooks"
    missing = [name for name in DECLARED if not callable(getattr(hooks, name, None))]
    assert not missing, missing
    documented = inspect.getdoc(hooks)
    assert all(f"``{name}(" in documented for name in DECLARED)


def test_a_game_without_study_hooks_is_one_clear_error():
    with pytest.raises(BnbError, match="Heroes of the Village declares no designed studies"):
        study_hooks("hotv")


def test_readings_through_the_hooks_are_the_game_readings():
    from bnb_sim.games.builders_biomes import readings as R

    hooks = study_hooks()
    assert hooks.resolve_readings() == R.DEFAULT.to_dict()
    assert hooks.resolve_readings({"hunger": "one-by-one"})["hunger"] == "one-by-one"
    assert hooks.check_reading("hunger", " one-by-one") == "one-by-one"
    with pytest.raises(BnbError, match="conflicts with reading variant"):
        hooks.resolve_readings({"variant": "standard"}, aliases={"variant": "beginner"})
    with pytest.raises(BnbError, match="unknown reading 'nope'"):
        hooks.check_reading("nope", "x")


def test_policy_labels_go_through_the_protocol_hook():
    assert game_protocol().name == "builders_biomes"
    assert policy_labels(["random", "heuristic"]) == ["random", "heuristic"]
    with pytest.raises(BnbError, match="tournament"):
        policy_labels(["random", "random"], distinct="tournament")
    with pytest.raises(BnbError):
        policy_labels(["no-such-bot"])


def test_search_budget_reads_search_specs_and_ignores_the_rest():
    hooks = study_hooks()
    bot, key, budget, _others = hooks.search_budget("mc:rollouts=8")
    assert (bot, key, budget) == ("mc", "rollouts", 8)
    assert hooks.search_budget("ismcts")[:2] == ("ismcts", "iterations")
    assert hooks.search_budget("heuristic") is None
    assert hooks.search_budget("mc:nonsense=1") is None  # not this game's spec: no family


def test_restricted_spec_is_the_policy_with_its_restriction():
    hooks = study_hooks()
    assert hooks.restricted_spec("heuristic", "fight", "never") == "heuristic+never=fight"
    assert hooks.restricted_spec("greedy", "buy:x", "always") == "greedy+always=buy:x"
