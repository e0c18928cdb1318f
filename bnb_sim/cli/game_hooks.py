"""How a command reaches a game's optional hooks (:data:`bnb_sim.core.protocol.HOOKS`).

The commands take ``--game`` as a :class:`bnb_sim.games.GameSpec` (``game_option``); the
hooks live on the game's protocol object, found through :mod:`bnb_sim.core.registry`, so a
command imports no game package. A game without the hook gets one line (exit code 2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bnb_sim.errors import BnbError


def protocol_game(spec: Any = None) -> Any:
    """The protocol object of ``spec`` (a GameSpec, a name, or None: the default game)."""
    from bnb_sim.core.registry import get_game
    from bnb_sim.games import DEFAULT_GAME

    name = spec if isinstance(spec, str) else getattr(spec, "name", None)
    return get_game(name or DEFAULT_GAME)


def need_hook(game: Any, name: str, what: str) -> Callable[..., Any]:
    """The hook ``name`` of ``game`` (a protocol object), or a one-line BnbError saying that
    the game does not offer ``what``."""
    from bnb_sim.core.protocol import hook

    found = hook(game, name)
    if found is None:
        raise BnbError(f"{game.title} does not offer {what}")
    return found


def policy_labels(game: Any, specs: list[str], distinct: str | None = None) -> list[str]:
    """The label of each policy spec, parsed by the game's ``policy_labels`` hook (a one-line
    error on a bad spec, and with ``distinct``, the command's name, on one listed twice)."""
    return list(need_hook(game, "policy_labels", "policy specs")(specs, distinct=distinct))
