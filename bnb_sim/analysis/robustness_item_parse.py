"""The ``[[robustness]]`` item of a game served through the protocol (``game = NAME``;
``bnb robustness --game NAME``)::

    [[robustness]]
    game = "NAME"
    name = "pets"
    rungs = ["random", "team", "strong"]   # weakest first (default: the game's rungs)
    games = 20000                          # game indices per rung (default: the game's)
    players = 3                            # and the game's options of a robustness study
    policy = "..."                         # a competitive game: its win rate at each rung

The game's rungs, play and findings are its ``robustness`` entry (an object;
:mod:`bnb_sim.runner.robustness_play` says what it offers); the item is a
:class:`~bnb_sim.runner.robustness_item.RobustnessItem`, which plays and reports what
``bnb robustness --game NAME`` does with the same arguments
(:func:`bnb_sim.runner.robustness_play.run_robustness`). Its keys are the shared ones
(``components``, ``set``: :mod:`bnb_sim.analysis.protocol_item_parse`) and the game's options
that apply to ``robustness`` (OptionSpec data), kept as given, as the command keeps them.
Everything is checked when the file is read: the rungs by the entry, the options by the
game's run config of the first rung (``make_run_config``, what ``bnb simulate`` builds).
"""

from __future__ import annotations

from typing import Any

from bnb_sim.errors import BnbError

__all__ = ["ROBUSTNESS_ITEM_KEYS", "parse_protocol_robustness_item"]

#: the keys of the kind, after the common keys and the game's options of a robustness study
ROBUSTNESS_ITEM_KEYS = ("games", "rungs")


def parse_protocol_robustness_item(spec, game: Any, table: dict, *, source: str, where: str,
                                   seed: int, base_dir=None):  # fmt: skip
    """A ``[[robustness]]`` table of a game (``spec``: its registry entry, which offers
    ``robustness``; ``game``: its protocol object), checked now: one line naming the file,
    the item and the key."""
    from bnb_sim.analysis import protocol_item_parse as P
    from bnb_sim.runner.robustness_item import RobustnessItem
    from bnb_sim.runner.robustness_play import MAX_GAMES

    play = spec.entry("robustness")
    competitive = callable(getattr(play, "play_policy", None))  # a policy against each rung
    options = P.run_options(game, "robustness")
    keys = (*P.COMMON, *(o.name for o in options), *ROBUSTNESS_ITEM_KEYS,
            *(("policy",) if competitive else ()))  # fmt: skip
    r = P.reader("robustness", table, source, where, keys)
    players = r.int("players", play.default_players, low=2, high=4)  # as the command's
    try:
        rungs = play.check_rungs(r.str_list("rungs", list(play.default_rungs)), players)
    except BnbError as exc:
        r.fail("rungs", str(exc).removeprefix("robustness: "))
    policy = _policy(r, play) if competitive else None
    values = P.read_options(r, options)
    overrides = r.mapping("set")
    comps, files = P.item_components(game, r, base_dir, overrides)
    item_seed = r.int("seed", seed, low=0, high=2**63 - 1)
    given = {k: v for k, v in values.items() if v is not None}
    P.make(game, r, "rungs", comps, rungs[:1], players=players, seed=item_seed, options=given,
           run=True)  # fmt: skip
    games = r.int("games", play.default_games.get(players, 10_000), low=2, high=MAX_GAMES)
    return RobustnessItem(
        name=r.name, seed=item_seed, variant="standard", components=comps,
        component_files=files, overrides=overrides, players=players, games=games, rungs=rungs,
        game=game.name, options=given, policy=policy,
        readings=dict(item.split("=", 1) for item in P.reading_items(r)),
    )  # fmt: skip


def _policy(r, play) -> str | None:
    """The item's ``policy`` (its win rate against each rung's bot), checked by the entry."""
    policy = r.str("policy", None)
    if policy is None:
        return None
    try:
        return play.check_policy(policy)
    except BnbError as exc:
        r.fail("policy", str(exc))
