"""``ismcts:root=N``: the root holds one child per N iterations, and nodes add their children
in the rollout policy's order of preference (its prior), so that a small budget compares the
rollout policy's first choices (issue 26, search that uses ``strong``)."""

from __future__ import annotations

import pandas as pd
import pytest
from test_search import _decide, _search_inputs, decision_points

from bnb_sim.errors import PolicyError
from bnb_sim.games.builders_biomes.policies.kinds import SEARCH_ROOT
from bnb_sim.games.builders_biomes.policies.registry import parse_policy
from bnb_sim.games.builders_biomes.policies.search_spec import search_settings


def test_root_is_a_parameter_of_ismcts():
    spec = parse_policy("ismcts:iterations=32,root=8,rollout=strong")
    assert spec.params[SEARCH_ROOT] == 8.0
    assert search_settings(spec.kind, spec.params)["root"] == 8.0
    plain = parse_policy("ismcts:iterations=32")
    assert plain.params[SEARCH_ROOT] == 0.0 and "root" not in search_settings(
        plain.kind, plain.params
    )  # the metadata of runs without it stays as it was
    with pytest.raises(PolicyError, match="root must be >= 0"):
        parse_policy("ismcts:root=-1")
    with pytest.raises(PolicyError, match="unknown parameter 'root'"):
        parse_policy("mc:root=4")


def test_a_root_of_one_child_decides_as_the_rollout_policys_first_choice():
    """With root = iterations the root never holds a second child: every decision is the one
    a single iteration takes (the rollout policy's choice on the first sample)."""
    one = _search_inputs("ismcts:iterations=1,rollout=heuristic")
    held = _search_inputs("ismcts:iterations=24,root=24,rollout=heuristic")
    free = _search_inputs("ismcts:iterations=24,rollout=heuristic")
    points = differ = 0
    for game in decision_points(players=2, games=1, every=3):
        pub, hid, rng = game._pub, game._hid, game._rng
        first = _decide(one, pub, hid, rng)[0]
        assert _decide(held, pub, hid, rng)[0] == first
        differ += _decide(free, pub, hid, rng)[0] != first
        points += 1
    assert points > 10 and differ > 0  # without root the search does overrule it


def test_root_games_do_not_depend_on_the_thread_count():
    from bnb_sim import simulate

    policies = ["ismcts:iterations=8,root=4,rollout=strong", "heuristic"]
    one = simulate(4, 2, policies, seed=3, threads=1)
    two = simulate(4, 2, policies, seed=3, threads=2)
    pd.testing.assert_frame_equal(one, two)
