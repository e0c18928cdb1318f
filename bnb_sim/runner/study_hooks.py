"""The game a designed study plays (``bnb compare``, ``tournament``, ``sweep``, ``ladder``,
``value``), reached through the game registry: the runner's study modules import no game
package. A game declares a ``studies`` run hook (a module; see
:mod:`bnb_sim.games.builders_biomes.study_hooks` for what it holds); a game without one is
served by its protocol methods through :class:`bnb_sim.runner.study_adapter.ProtocolStudies`.
"""

from __future__ import annotations

from types import ModuleType

from bnb_sim.errors import BnbError
from bnb_sim.runner.study_adapter import ProtocolStudies


def study_hooks(game: str | None = None) -> ModuleType | ProtocolStudies:
    """The ``studies`` module ``game`` declares (None: the default game), else its protocol
    methods under the same names; BnbError naming the game when it has neither."""
    from bnb_sim.games import get_game

    spec = get_game(game)
    module = spec.hook("studies")
    if module is not None:
        return module
    # the designed studies rank seats against each other: a cooperative game's are the
    # team studies of its command bodies (compare_team, tournament_team, sweep_team)
    playable = all(callable(getattr(spec.game, m, None)) for m in ("make_config", "play_block"))
    if playable and spec.outcome != "cooperative":
        return ProtocolStudies(spec.game)
    raise BnbError(f"{spec.title} declares no designed studies of the shared runner")


def game_name(game: str | None = None) -> str:
    """The registry name of ``game`` (None: the default game)."""
    from bnb_sim.games import get_game

    return get_game(game).name
