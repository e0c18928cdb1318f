"""The game a tuning run plays, reached through the game registry: the tuning layer imports
no game package. A game declares a ``tune`` entry (a module, see
:mod:`bnb_sim.games.builders_biomes.tune_hooks` for what it holds); whether its outcome is
ranked (competitive) or a team result (cooperative) comes from the registry too, and the
drivers branch on that, never on a game's name."""

from __future__ import annotations

import importlib
from types import ModuleType

from bnb_sim.errors import BnbError

DEFAULT = "builders_biomes"


def game_spec(game: str | None):
    """The registry entry of ``game`` (a name or an alias; None: the default game)."""
    from bnb_sim.games import get_game

    return get_game(game)


def tune_hooks(game: str | None) -> ModuleType:
    """The ``tune`` module ``game`` declares (BnbError for a game that cannot be tuned)."""
    spec = game_spec(game)
    target = spec.entries.get("tune")
    if target is None:
        raise BnbError(f"tune: {spec.title} declares no tuning support")
    return importlib.import_module(target)


def is_team(game: str | None) -> bool:
    """True for a cooperative game (the players are one team: a team win rate)."""
    return game_spec(game).outcome == "cooperative"


def game_name(game: str | None) -> str:
    """The registry name of ``game`` (None: the default game)."""
    return game_spec(game).name


def game_keys(game: str) -> dict:
    """``{"game": NAME}`` for a game other than the default, else ``{}``: the spec and the
    result of a default-game tuning stay as they were before tuning knew other games."""
    return {} if game == DEFAULT else {"game": game}
