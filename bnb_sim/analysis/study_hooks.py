"""The game an experiment item or a Python study plays, reached through the game registry:
the experiment files (:mod:`bnb_sim.analysis.experiment`), their items and report, and
:mod:`bnb_sim.studies` import no game package.

A game declares a ``studies`` entry (a module, found by
:func:`bnb_sim.runner.study_hooks.study_hooks`; :mod:`bnb_sim.games.builders_biomes.study_hooks`
says what it holds: its readings, its component files, its policy specs), and its protocol
object (:mod:`bnb_sim.core.registry`) offers the ``policy_labels`` hook. Every function
here takes the item's game (None: the registry's default game, the game of items without
``game = NAME`` in a file whose head names none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bnb_sim.errors import BnbError
from bnb_sim.runner.study_hooks import study_hooks  # noqa: F401 (the items look it up here)


def game_protocol(game: str | None = None) -> Any:
    """The protocol object of ``game`` (None: the default game)."""
    from bnb_sim.core.registry import get_game as protocol
    from bnb_sim.games import get_game

    return protocol(get_game(game).name)


def policy_labels(
    specs: Sequence[str], *, distinct: str | None = None, game: str | None = None
) -> list[str]:
    """The label of each policy spec of ``game`` (BnbError on a bad one; ``distinct``, the
    command's name: also on one spec listed twice however written)."""
    labels = getattr(game_protocol(game), "policy_labels", None)
    if labels is None:
        raise BnbError(f"{game or 'the default game'}: no policy specs to check")
    return labels(list(specs), distinct=distinct)
