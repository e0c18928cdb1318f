"""Validated Python façade over the small kernels (numba-stats style), and the one
``new_game`` for every game.

``collectable`` works on the cube bitboard kernel (R-CUBE-1); ``largest_group`` and
``count_matching`` read the 512-entry group table (R-SCORE-2, R-SCORE-4, R-END-1).
``new_game(game=...)`` makes a step-by-step game of any registered game through the game's
``new_game`` entry point (:mod:`bnb_sim.games`); every such game has the methods of
:class:`bnb_sim.core.game_api.Game`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from bnb_sim import _args
from bnb_sim.errors import ArgumentTypeError, BnbError, SpecError


def _array(value, name: str) -> np.ndarray:
    try:
        return np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged nesting, objects numpy cannot hold
        raise BnbError(f"{name} is not an array ({exc})") from None


def _as_cube(occupancy) -> np.ndarray:
    cube = _array(occupancy, "occupancy")
    if cube.shape != (4, 4, 4):
        raise BnbError(f"occupancy must have shape (4, 4, 4) [layer, row, col], got {cube.shape}")
    if cube.dtype != np.bool_:
        if not np.issubdtype(cube.dtype, np.number) or not np.isin(cube, (0, 1)).all():
            raise BnbError("occupancy must be boolean (or 0/1)")
        cube = cube.astype(np.bool_)
    return cube


def collectable(occupancy, min_exposed_sides: int = 2) -> np.ndarray:
    """Blocks that may be taken under R-CUBE-1.

    ``occupancy`` is a boolean array ``[layer, row, col]`` of shape (4, 4, 4), layer 0 the top.
    A block is collectable when nothing lies directly above it and at least
    ``min_exposed_sides`` of its four side faces are exposed (on the outside of the cube or
    next to an empty position of the same layer). Returns a bool array of the same shape.
    """
    from bnb_sim.games.builders_biomes.engine.cube import collectable_array

    cube = _as_cube(occupancy)
    sides = _args.integer(min_exposed_sides, "min_exposed_sides", 0, 4)
    flat = np.ascontiguousarray(cube.reshape(64))
    return collectable_array(flat, sides).reshape(4, 4, 4)


@lru_cache(maxsize=1)
def _table() -> np.ndarray:
    from bnb_sim.games.builders_biomes.components.arrays import group_table

    return group_table()


def _mask(board, value) -> int:
    grid = _array(board, "board")
    if grid.shape != (3, 3):
        raise BnbError(f"board must have shape (3, 3), got {grid.shape}")
    if np.ndim(value) != 0:
        raise BnbError(f"value must be one value (a scalar), got {_args.show(value)}")
    bits = np.broadcast_to(np.asarray(grid == value, dtype=bool), (3, 3)).reshape(9)
    return int(np.dot(bits.astype(np.int64), 1 << np.arange(9)))


def largest_group(board, value) -> int:
    """Size of the largest orthogonally connected group of ``value`` on a 3x3 board (R-SCORE-2).

    Diagonal spaces are not connected; a single space is a group of one; no space is 0.
    """
    return int(_table()[_mask(board, value)])


def count_matching(board, value) -> int:
    """Spaces showing ``value``, connected or not (R-SCORE-4 beginner variant, R-END-1)."""
    return int(bin(_mask(board, value)).count("1"))


def new_game(*args, game: str | None = None, **kwargs):
    """A new game to play step by step (legal actions, apply, result; OpenSpiel style).

    ``game``: the game's name or alias (``"hotv"`` for Heroes of the Village; None: the
    base game, Builders & Biomes). The other arguments are that game's: for the base game
    :func:`bnb_sim.games.builders_biomes.game.new_game` (``seed, game_index, players,
    policies``, readings...), for Heroes of the Village
    :func:`bnb_sim.games.heroes_village.game.new_game` (the same four, ``pets``,
    ``difficulty``...). The same arguments always give the same game, identical to that game
    index of a batch run with the same seed and options.
    """
    from bnb_sim.games import get_game

    spec = get_game(game)
    factory = spec.entry("new_game")
    if factory is None:
        raise SpecError(f"{spec.title} cannot be played step by step (no new_game)")
    return factory(*args, **kwargs)


def load_components(paths=None, *, expansion: str | None = None, game: str | None = None):
    """A game's validated component data: its defaults, or files (complete or partial
    overrides) over them, as ``--components`` loads them.

    ``paths``: one path or a list of paths, applied in order. ``game``: the game's name or
    alias (``"hotv"``; None: Builders & Biomes, whose ``expansion="farmers-market"`` merges
    the expansion's data first). A game without expansions refuses one; every problem is
    one line (:class:`~bnb_sim.errors.BnbError`) naming the file, the key and the problem.
    """
    import inspect
    import os

    from bnb_sim.games import get_game

    spec = get_game(None if game is None else _args.text(game, "game"))
    if paths is None:
        files = []
    elif isinstance(paths, str | os.PathLike):
        files = [os.fspath(paths)]
    elif isinstance(paths, list | tuple) and all(isinstance(p, str | os.PathLike) for p in paths):
        files = [os.fspath(p) for p in paths]
    else:
        raise ArgumentTypeError(f"paths must be a path or a list of paths, got {_args.show(paths)}")
    load = spec.game.load_components  # the game's protocol: its defaults and files
    if expansion is None:
        return load(files)
    if "expansion" not in inspect.signature(load).parameters:
        raise BnbError(f"expansion {expansion!r}: {spec.title} has no expansions")
    return load(files, expansion=_args.text(expansion, "expansion"))
