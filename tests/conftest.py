"""Shared test settings (kept small). Helpers for rule tests live in ``engine_helpers.py``."""

from __future__ import annotations


def pytest_configure(config):
    # numba warns on every first-class function type (the plugin path); it is expected here
    config.addinivalue_line(
        "filterwarnings", "ignore:First-class function type feature is experimental"
    )


# The tiny third game (tests/dice_race.py) is registered here and only here: this one line
# is all a game needs to be served by the shared commands (docs/design.md "Adding a game").
# Its cooperative variant (the dice team) covers the shared code's cooperative branch.
from dice_race import GAME as DICE_RACE  # noqa: E402
from dice_race import TEAM_GAME as DICE_TEAM  # noqa: E402

from bnb_sim.core.registry import register_game  # noqa: E402

register_game(DICE_RACE)
register_game(DICE_TEAM)
