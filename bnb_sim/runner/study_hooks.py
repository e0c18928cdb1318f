"""The game a designed study plays (``bnb compare``, ``tournament``, ``sweep``, ``ladder``,
``value``), reached through the game registry: the runner's study modules import no game
package. A game declares a ``studies`` run hook (a module; see
:mod:`bnb_sim.games.builders_biomes.study_hooks` for what it holds). A game without one is
served by the protocol's own commands (:mod:`bnb_sim.cli.protocol_cmds`) or its own entries.
"""

from __future__ import annotations

from types import ModuleType

from bnb_sim.errors import BnbError


def study_hooks(game: str | None = None) -> ModuleType:
    """The ``studies`` module ``game`` declares (None: the default game); BnbError naming
    the game when it declares none."""
    from bnb_sim.games import get_game

    spec = get_game(game)
    module = spec.hook("studies")
    if module is None:
        raise BnbError(f"{spec.title} declares no designed studies of the shared runner")
    return module


def game_name(game: str | None = None) -> str:
    """The registry name of ``game`` (None: the default game)."""
    from bnb_sim.games import get_game

    return get_game(game).name
