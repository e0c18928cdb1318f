"""The registry of games that implement :class:`bnb_sim.core.protocol.GameProtocol`.

Games are found three ways, each imported only when first asked for (``bnb --help`` stays
cheap and a game's kernels compile only when it plays):

* the built-in games: a name and the dotted path of its ``spec`` module, which exposes the
  game object as ``GAME`` (its aliases, title, options and outcome are the object's: the one
  place they are written; ``bnb_sim.games.GAMES`` reads them there);
* installed packages: entry points in the group ``bnb_sim.games`` (``name = "pkg.mod:GAME"``);
* :func:`register_game` called at run time (a test suite, a notebook).

Shared code calls :func:`get_game`; it never imports a game package itself.
"""

from __future__ import annotations

import importlib
from typing import Any

from bnb_sim.core.protocol import check_game
from bnb_sim.errors import SpecError

ENTRY_POINT_GROUP = "bnb_sim.games"

#: built-in games: name -> the spec module exposing GAME (cheap to import: no numba, pandas)
BUILTIN: dict[str, str] = {
    "builders_biomes": "bnb_sim.games.builders_biomes.spec",
    "heroes_village": "bnb_sim.games.heroes_village.spec",
}

_REGISTERED: dict[str, Any] = {}  # games given to register_game, by name
_LOADED: dict[str, Any] = {}  # built-in and entry-point games, once imported


def norm(name: str) -> str:
    """A game name as compared: lower case, ``-`` and spaces as ``_``."""
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def register_game(game: Any) -> Any:
    """Add ``game`` (an object implementing the protocol); its name and aliases must be new.

    Returns the game, so a module can end with ``GAME = register_game(DiceRace())``.
    """
    check_game(game)
    for name in (game.name, *game.aliases):
        if _find_name(name) is not None:
            raise ValueError(f"game name {name!r} is already registered")
    _REGISTERED[game.name] = game
    return game


def unregister_game(name: str) -> None:
    """Remove a game given to :func:`register_game` (tests clean up with it)."""
    _REGISTERED.pop(name, None)


def registered() -> dict[str, Any]:
    """The games given to :func:`register_game` (not the built-in ones), by name."""
    return dict(_REGISTERED)


def installed() -> dict[str, Any]:
    """The games installed as packages: entry points of :data:`ENTRY_POINT_GROUP` by name
    (not loaded)."""
    return _entry_points()


def _entry_points() -> dict[str, Any]:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _find_name(name: str) -> str | None:
    """The canonical name of the game called ``name`` (name or alias), or None."""
    key = norm(name)
    for game in _REGISTERED.values():
        if key in (norm(n) for n in (game.name, *game.aliases)):
            return game.name
    for canonical in BUILTIN:
        if key in (norm(n) for n in (canonical, *_builtin(canonical).aliases)):
            return canonical
    return None


def _builtin(name: str) -> Any:
    """The built-in game ``name``'s object (its spec module imported once, and checked)."""
    if name not in _LOADED:
        game = importlib.import_module(BUILTIN[name]).GAME
        check_game(game)
        _LOADED[name] = game
    return _LOADED[name]


def names() -> list[str]:
    """Every game's name (built-in, registered, installed), without importing any."""
    out = [*BUILTIN, *_REGISTERED]
    out += [n for n in _entry_points() if n not in out]
    return out


def get_game(name: str) -> Any:
    """The game object called ``name`` (a name or an alias); SpecError if none is."""
    if not isinstance(name, str):
        raise SpecError(f"a game is named by a string, got {name!r}")
    canonical = _find_name(name)
    if canonical in _REGISTERED:
        return _REGISTERED[canonical]
    if canonical is not None:
        return _builtin(canonical)
    installed = {norm(n): ep for n, ep in _entry_points().items()}
    ep = installed.get(norm(name))
    if ep is not None:
        game = ep.load()
        check_game(game)
        _LOADED[game.name] = game
        return game
    raise SpecError(f"unknown game {name!r} (known: {', '.join(names())})")


def all_games() -> list[Any]:
    """Every game object (imports each game's spec module)."""
    return [get_game(n) for n in names()]
