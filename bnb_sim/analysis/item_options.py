"""A game's own options as the keys of an experiment item (its ``OptionSpec`` data).

:func:`run_options` lists the options of a game that an item of a command takes, and
:func:`read_options` reads their values from the item's table, each by its kind, so a bad
value is one line naming the file, the item and the key. Every item parser that takes a
game's options uses these two (the protocol items, ladder, luck, sensitivity, robustness),
and nothing here imports another item module.
"""

from __future__ import annotations

from typing import Any

from bnb_sim.analysis.experiment_reader import _Reader

__all__ = ["read_options", "run_options"]


def run_options(game: Any, command: str = "run") -> tuple:
    """The game's options an item of ``command`` takes (its OptionSpec data)."""
    return tuple(o for o in game.options if o.applies_to(command))


def read_options(r: _Reader, options) -> dict[str, Any]:
    """The item's values of the game's options, each read by its kind (None: not given)."""
    out: dict[str, Any] = {}
    for o in options:
        if o.kind == "flag":
            value = r.table.get(o.name)
            if value is not None and not isinstance(value, bool):
                r.fail(o.name, f"must be true or false, got {value!r}")
            out[o.name] = value
        elif o.kind == "int":
            out[o.name] = r.int(o.name, None, low=o.low, high=o.high)
        elif o.kind == "float":
            out[o.name] = r.float(o.name, None)
        else:
            out[o.name] = r.str(o.name, None, o.choices if o.kind == "choice" else None)
    return out
