"""One check for a weight read from a model file, shared by every game's model reader.

A weight is a finite TOML number within ±MAX_WEIGHT (as for the heuristic's weights): a
bool, a string, NaN or 1e308 would reach a kernel as a nonsense float, so each is refused
with a problem that names the key. Imports nothing heavy and no game.
"""

from __future__ import annotations

import math
from collections.abc import Callable

MAX_WEIGHT = 1e6


def read_weight(value: object, key: str, fail: Callable[[str], Exception]) -> float:
    """``value`` as a float, or ``fail(problem)`` raised, the problem naming ``key``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(f"key '{key}': must be a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or abs(number) > MAX_WEIGHT:
        raise fail(f"key '{key}': {value!r} is not a finite number within ±{MAX_WEIGHT:g}")
    return number


def other_game(head: dict, here: str) -> str | None:
    """The problem of a model file made for another registered game than ``here`` (a game
    name or alias), or None: a Builders & Biomes model given to Heroes of the Village (or the
    reverse) is named as such, with the option that plays it, instead of as a bad format."""
    from bnb_sim.errors import SpecError
    from bnb_sim.games import get_game

    named = head.get("game")
    if not isinstance(named, str):
        return None
    try:
        theirs, ours = get_game(named), get_game(here)
    except SpecError:
        return None
    if theirs is ours:
        return None
    return (
        f"is a model for {theirs.title}, not for {ours.title} (play it with --game "
        f"{theirs.name.replace('_', '-')}; bnb train --game {ours.name.replace('_', '-')} "
        "makes one for this game)"
    )
