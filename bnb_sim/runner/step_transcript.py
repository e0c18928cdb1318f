"""``bnb play`` of a game that tells no transcript of its own: one game through the step
protocol, as any registered game offers it (``new_game(config, game_index)``).

The game is game ``game_index`` of the run ``bnb simulate`` plays with the same seed, players,
policies, components and options (the protocol's ``make_config``), played to its end by its
policies (``play()``); the text is its event log (``events()``) and its result rows, the JSON
the same as data. Only what every step-by-step game has is used, so a new game gets ``bnb
play`` from its ``new_game`` alone; a game with a richer telling declares the
``play_transcript`` hook instead (the built-in games).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bnb_sim.core.protocol import CommandOutput
from bnb_sim.errors import BnbError


def _plain(value: Any) -> Any:
    """numpy scalars as Python ones (JSON and text)."""
    return value.item() if hasattr(value, "item") else value


def _row_text(row: Mapping[str, Any]) -> str:
    return "  ".join(f"{key}={_plain(value)}" for key, value in row.items())


def step_transcript(game: Any, components: Any, options: Mapping[str, Any]) -> CommandOutput:
    """One game of ``game`` (a protocol object) told from its event log; ``options``: those of
    ``bnb play`` (seed, players, policies, game_index, readings, picture, the game's own)."""
    if options.get("picture") is not None:
        raise BnbError(f"--svg: {game.title} draws no table (bnb play tells its game as text)")
    comps = game.load_components([]) if components is None else components
    readings = options.get("readings") or {}
    if readings:  # parsed by the game's parse_readings; set where the game takes them
        with_readings = getattr(game, "with_readings", None)
        if not callable(with_readings):
            raise BnbError(f"--reading: {game.title} has no rule readings to set")
        comps = with_readings(comps, [f"{k}={v}" for k, v in readings.items()])
    own = {o.name: options.get(o.name) for o in game.options}
    config = game.make_config(comps, players=options.get("players"),
                              policies=list(options.get("policies") or ()),
                              seed=int(options.get("seed", 0)), options=own)  # fmt: skip
    index = int(options.get("game_index", 0))
    played = game.new_game(config, index).play()
    events, rows = list(played.events()), [dict(r) for r in played.result()]
    head = (f"{game.title}: game {index} of seed {options.get('seed', 0)}, "
            f"{len(rows)} seats")  # fmt: skip
    text = "\n".join([head, "", *events, "", "result:", *(f"  {_row_text(r)}" for r in rows)])
    payload = {
        "game": game.name,
        "seed": int(options.get("seed", 0)),
        "game_index": index,
        "options": {k: v for k, v in own.items() if v is not None},
        "events": events,
        "result": [{k: _plain(v) for k, v in r.items()} for r in rows],
    }
    return CommandOutput(text=text, payload=payload)
