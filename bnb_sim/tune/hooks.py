"""The game a tuning run plays, reached through the game registry: the tuning layer imports
no game package. A game declares a ``tune`` entry (a module, see
:mod:`bnb_sim.games.builders_biomes.tune_hooks` for what it holds), or implements only the
protocol and is tuned through it (:mod:`bnb_sim.tune.protocol_hooks`); whether its outcome is
ranked (competitive) or a team result (cooperative) comes from the registry too, and the
drivers branch on that, never on a game's name."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from bnb_sim.errors import BnbError
from bnb_sim.games import DEFAULT_GAME as DEFAULT  # the registry's default game


def game_spec(game: str | None):
    """The registry entry of ``game`` (a name or an alias; None: the default game)."""
    from bnb_sim.games import get_game

    return get_game(game)


def tune_hooks(game: str | None) -> ModuleType | Any:
    """The ``tune`` module ``game`` declares, else, for a game that implements only the
    protocol, the hooks written from it (:mod:`bnb_sim.tune.protocol_hooks`); BnbError for
    a game that offers neither."""
    spec = game_spec(game)
    module = spec.hook("tune")
    if module is not None:
        return module
    if spec.protocol is not None:
        from bnb_sim.tune.protocol_hooks import hooks_for

        return hooks_for(spec.protocol)
    raise BnbError(f"tune: {spec.title} declares no tuning support")


def refuse_dask(game: str | None, dask: str | None) -> None:
    """One line for ``--dask`` with a game tuned through the protocol (before anything is
    written): a game registered at run time is not known to a Dask worker."""
    spec = game_spec(game)
    if dask is not None and spec.hook("tune") is None:
        from bnb_sim.tune.protocol_hooks import _no_dask

        raise BnbError(_no_dask(spec))


def content_hash(game: str | None, components) -> str | None:
    """The content hash of a tuning's components (a built-in game's own, else the hash
    ``bnb simulate`` records for a protocol game's)."""
    if components is None:
        return None
    own = getattr(components, "content_hash", None)
    return own if own is not None else tune_hooks(game).content_hash(components)


def estimated(components, chosen=()) -> dict | None:
    """The estimated values of ``components`` (:func:`bnb_sim.analysis.estimated.estimates_meta`),
    or None for components that flag none (a protocol game's)."""
    if not callable(getattr(components, "estimates", None)):
        return None
    from bnb_sim.analysis.estimated import estimates_meta

    return estimates_meta(components, chosen)


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
