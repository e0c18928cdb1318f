"""Playthroughs: one seeded game told as text, decision by decision (OpenSpiel's
``integration_tests/playthroughs`` in spirit).

A playthrough shows what row hashes cannot: *how* a game changed. It lists every decision
(the seat, the action as an int and in words) with the events it caused, the full state
(``str(game)``: the table and the legal actions) at the start and every ``every``
decisions, and the result rows at the end. It works for any game through the step
protocol (:class:`bnb_sim.core.game_api.Game`); the suite keeps one file per game and
setting in ``tests/playthroughs/`` and diffs the current text against it
(``python scripts/regen_playthroughs.py`` writes them again after a deliberate change).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bnb_sim.core.game_api import Game


def _value(value: Any) -> str:
    if hasattr(value, "item"):  # numpy scalars print as Python ones
        value = value.item()
    return str(value)


def render(game: Game, header: Mapping[str, Any], *, every: int = 20, limit: int = 5000) -> str:
    """Play ``game`` to its end with its policies and tell it; ``header``: the lines that say
    how the game was made (name: value), printed first."""
    lines = ["# bnb-sim playthrough (regenerate: python scripts/regen_playthroughs.py)"]
    lines += [f"{key}: {value}" for key, value in header.items()]
    decision = 0
    while not game.is_over():
        if decision >= limit:
            raise RuntimeError(f"the game did not end within {limit} decisions")
        if decision % every == 0:
            lines += ["", f"== state before decision {decision} ==", str(game), ""]
        seat = game.current_seat
        action = game.policy_action()
        text = game.action_to_string(action)
        events = game.apply_action(action)
        lines.append(f"{decision:4d}  seat {seat}: {action} = {text}")
        lines += [f"        {e['text']}" for e in events if e.get("text")]
        decision += 1
    lines += ["", f"== game over after {decision} decisions ==", str(game), "", "== result =="]
    for row in game.result():
        lines.append("  ".join(f"{key}={_value(value)}" for key, value in row.items()))
    _, games = game.result_frames()
    for row in games.to_dict("records"):
        lines.append("game: " + "  ".join(f"{k}={_value(v)}" for k, v in row.items()))
    return "\n".join(lines) + "\n"
