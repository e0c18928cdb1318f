"""Which shared item an experiment table of another game than the first becomes (``bnb run``).

An item with ``game = NAME`` (any game but the default one) is parsed here, by kind and by
what the game offers, never by its name: a cooperative game's ``[[ladder]]`` through its
``team_play`` entry (:mod:`bnb_sim.analysis.team_ladder_item`), a competitive one's as ``bnb
ladder``'s (:mod:`bnb_sim.analysis.game_ladder_item`), a ``[[robustness]]`` through
its ``robustness`` entry (:mod:`bnb_sim.analysis.robustness_item_parse`), every other kind as
the protocol's items (:mod:`bnb_sim.analysis.protocol_item_parse`; a kind the game offers
no item of is one line).
"""

from __future__ import annotations


def parse_game_item(spec, kind: str, table: dict, *, source: str, where: str, seed: int,
                    base_dir=None):  # fmt: skip
    """An item of the game of registry entry ``spec`` (not the first game): a cooperative
    game's ``[[ladder]]`` through its ``team_play`` entry, a ``[[robustness]]`` through its
    ``robustness`` entry, every other kind through the protocol."""
    from bnb_sim.core.registry import get_game

    game = spec.protocol if spec.protocol is not None else get_game(spec.name)
    at = dict(source=source, where=where, seed=seed, base_dir=base_dir)
    if kind == "ladder" and game.outcome == "cooperative" and _offers(spec, "team_play"):
        from bnb_sim.analysis.team_ladder_item import parse_team_ladder_item

        return parse_team_ladder_item(spec, game, table, **at)
    if kind == "ladder" and game.outcome != "cooperative":  # bnb ladder's, with the game
        from bnb_sim.analysis.game_ladder_item import parse_game_ladder_item

        return parse_game_ladder_item(game, table, **at)
    if kind == "value" and _offers(spec, "value_study"):  # bnb value's, with the game
        from bnb_sim.analysis.game_value_item import parse_game_value_item

        return parse_game_value_item(spec, game, table, **at)
    if kind == "robustness" and _offers(spec, "robustness"):
        from bnb_sim.analysis.robustness_item_parse import parse_protocol_robustness_item

        return parse_protocol_robustness_item(spec, game, table, **at)
    from bnb_sim.analysis.protocol_item_parse import parse_item

    return parse_item(game, kind, table, **at)


def _offers(spec, entry: str) -> bool:
    """Whether the game's registry entry offers ``entry`` (a protocol game says no)."""
    from bnb_sim.errors import SpecError

    try:
        return spec.entry(entry) is not None
    except SpecError:
        return False
