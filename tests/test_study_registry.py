"""Issue 24: the runner's designed studies (compare, tournament, sweep, ladder, value,
sensitivity, robustness) reach a game only through the game registry. Builders & Biomes
declares what they need of it (its ``studies``, ``sensitivity_setup`` and ``robustness``
entries); a game that declares none is told so in one line, never served the first game's
code with its own data."""

from __future__ import annotations

import pytest

from bnb_sim.errors import BnbError
from bnb_sim.games import GameSpec, get_game

BARE = GameSpec(name="bare_game", title="A Bare Game")  # not registered: no hooks at all


def test_the_default_game_declares_its_study_entries():
    from bnb_sim.runner.robustness_play import game_play
    from bnb_sim.runner.study_hooks import game_name, study_hooks

    spec = get_game(None)
    hooks = study_hooks()
    assert hooks is spec.hook("studies") is study_hooks(spec.name)
    assert game_name() == spec.name == "builders_biomes"
    for name in ("load_components", "make_config", "play_block", "parse_policy",
                 "check_distinct", "design_readings", "resolved_readings", "value_actions",
                 "restricted_spec"):  # fmt: skip
        assert callable(getattr(hooks, name)), name
    assert spec.entry("sensitivity_setup") is not None
    play = game_play(None)
    assert play is spec.entry("robustness") and play.name == spec.name


def test_a_game_without_studies_is_told_so_in_one_line():
    from bnb_sim.runner.study_hooks import study_hooks

    with pytest.raises(BnbError, match="Heroes of the Village declares no designed studies"):
        study_hooks("hotv")


def test_sensitivity_and_robustness_never_fall_back_to_the_first_game():
    from bnb_sim.runner.robustness_play import game_play
    from bnb_sim.runner.sensitivity import make_setup

    with pytest.raises(BnbError, match="A Bare Game declares no sensitivity set-up"):
        make_setup(BARE, players=2)
    with pytest.raises(BnbError, match="A Bare Game declares no robustness study"):
        game_play(BARE)


def test_both_games_rebuild_a_run_folders_setup_themselves():
    from bnb_sim.runner.robustness_play import game_play

    for game in ("bnb", "hotv"):
        assert callable(game_play(game).run_setup)


def test_the_games_study_hooks_answer_as_the_studies_did():
    from bnb_sim.runner.design_play import _labels, design_readings
    from bnb_sim.runner.study_hooks import study_hooks

    hooks = study_hooks()
    comps = hooks.load_components(None)
    assert hooks.load_components(comps) is comps
    assert hooks.restricted_spec("greedy", "fight", "never") == "greedy+never=fight"
    assert hooks.restricted_spec("greedy", "fight", "always") == "greedy+always=fight"
    assert "buy" not in hooks.value_actions(comps)
    assert _labels(["greedy", "random"]) == ["greedy", "random"]
    chosen = design_readings({}, None, seating="rotate", what="sweep")
    assert chosen["seating"] == "rotate" and chosen == {**hooks.resolved_readings({}),
                                                        "seating": "rotate"}  # fmt: skip
    with pytest.raises(BnbError, match="sweep: the seating is part of the design"):
        design_readings({"seating": "fixed"}, None, seating="rotate", what="sweep")
    with pytest.raises(BnbError, match="tournament"):
        hooks.check_distinct([hooks.parse_policy("greedy")] * 2, "tournament")
