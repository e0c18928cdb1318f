"""Builders & Biomes as an entry of the game registry.

Its modules stay where they are (``bnb_sim/engine``, ``components``, ``policies``,
``runner``); this module only gives the registry what it cannot point at directly.
"""

from __future__ import annotations


def columns():
    """``(seat_columns, game_columns)``: the fixed columns of its run files."""
    from bnb_sim.runner.storage import GAME_COLUMNS, SEAT_COLUMNS

    return SEAT_COLUMNS, GAME_COLUMNS
