"""The ``[[ladder]]`` item of a competitive game served through the protocol (``game = NAME``;
``bnb ladder --game NAME``)::

    [[ladder]]
    game = "NAME"
    name = "skill"
    rungs = ["random", "..."]   # weakest first (default: the game's ladder_rungs hook)
    games = 200                 # seeds per seating of every step (required)
    players = 2                 # and the game's options of a ladder
    bootstrap = 1000            # optional (default 1000)

It plays and reports what ``bnb ladder --game NAME`` does with the same arguments: the
first game's ladder (:func:`bnb_sim.runner.ladder_play.run_ladder` with the game and its
options; the sections of :func:`bnb_sim.analysis.ladder_item.ladder_item_report`). Its keys
are the shared ones and the game's options that apply to ``ladder`` (OptionSpec data);
everything is checked when the file is read, before any game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bnb_sim.analysis.ladder_item import LadderParts
from bnb_sim.analysis.protocol_item import GameItemParts
from bnb_sim.errors import BnbError

LADDER_KEYS = ("games", "rungs", "bootstrap")  # after the common keys and the game's options


@dataclass
class GameLadderItem(GameItemParts, LadderParts):
    """A ``[[ladder]]`` item of a competitive protocol game: its rungs, and how to show it."""

    game_object: Any
    name: str
    seed: int
    game_components: Any
    rungs: list[str]
    players: int
    games: int
    bootstrap: int
    options: dict[str, Any] = field(default_factory=dict)
    component_files: list[str] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)
    kind: str = "ladder"

    def what(self) -> str:
        title = self.game_object.title
        return f"{title} ladder, {self.players} players: {' < '.join(self.rungs)}"

    def warmup(self):
        """``(key, step)``: the game's shared warm-up (:func:`bnb_sim.feedback.warmup_step`)."""
        from bnb_sim import feedback

        return feedback.warmup_step(self.game, self.players)

    def run(self, *, threads=None, progress=None, yes: bool = False):
        from bnb_sim.runner.ladder_play import run_ladder

        own = {k: v for k, v in self.options.items() if v is not None}
        return run_ladder(self.rungs, self.players, self.games, seed=self.seed,
                          components=self.game_components, threads=threads,
                          n_boot=self.bootstrap, progress=progress, yes=yes, game=self.game,
                          options=own)  # fmt: skip

    def report(self, result):
        from bnb_sim.analysis.ladder_item import ladder_item_report

        sections, summary, findings = ladder_item_report(self.name, result)
        return sections, {**summary, "game": self.game}, findings


def parse_game_ladder_item(game: Any, table: dict, *, source: str, where: str, seed: int,
                           base_dir=None, bootstrap: int = 1000) -> GameLadderItem:  # fmt: skip
    """A ``[[ladder]]`` table of a competitive protocol ``game``, checked now: one line
    naming the file, the item and the key."""
    from bnb_sim.analysis import protocol_item_parse as P
    from bnb_sim.analysis.experiment_reader import _REQUIRED
    from bnb_sim.core.protocol import hook
    from bnb_sim.runner.ladder_play import check_rungs

    options = P.run_options(game, "ladder")
    keys = (*P.COMMON, *(o.name for o in options), *LADDER_KEYS)
    r = P.reader("ladder", table, source, where, keys)
    players = r.int("players", 2, low=2, high=4)
    values = P.read_options(r, options)
    overrides = r.mapping("set")
    comps, files = P.item_components(game, r, base_dir, overrides)
    item_seed = r.int("seed", seed, low=0, high=2**63 - 1)
    games = r.int("games", _REQUIRED, low=2, high=10_000_000)
    default = hook(game, "ladder_rungs")
    rungs = r.str_list("rungs", list(default()) if default is not None else _REQUIRED)
    try:
        labels = check_rungs(rungs, players, game.name)
    except BnbError as exc:
        r.fail("rungs", str(exc).removeprefix("ladder: "))
    given = {k: v for k, v in values.items() if v is not None}
    for rung in labels:  # every rung's config: a bad option or player count fails now
        P.make(game, r, "rungs", comps, [rung] * players, players=players, seed=item_seed,
               options=given)  # fmt: skip
    item = GameLadderItem(game, r.name, item_seed, comps, labels, players, games,
                          r.int("bootstrap", bootstrap, low=0, high=100_000), values, files,
                          overrides)  # fmt: skip
    item.reading_items = P.reading_items(r)
    return item
