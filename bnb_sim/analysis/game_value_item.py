"""The ``[[value]]`` item of a game with its own value study (``game = NAME``): ``bnb value
--game NAME`` inside ``bnb run``.

A game that values its own options (its ``value_study`` run hook: Heroes of the Village
values each pet against its replacement) gets the item the first game has
(:mod:`bnb_sim.analysis.value_item`), through that hook, never by its name: the shared keys
(``name``, ``seed``, ``players``, ``components``, ``readings``, ``set``), what ``bnb value``
takes (``options``, ``mode``, ``policy``, ``opponents``, ``games``) and the game's own options
of ``bnb value``. The hook checks the whole item when the file is read (``plan_only``: the
games it would play, nothing played), so a mistake is one line naming the file, the item and
the key before anything plays. The report is the command's (its sections and findings, named
by the item).

    [[value]]
    game = "hotv"
    name = "pets"
    options = ["all-pets"]
    players = 2
    games = 2000
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bnb_sim.analysis.protocol_item import GameItemParts, warm_step
from bnb_sim.errors import BnbError

VALUE_KEYS = ("options", "mode", "policy", "opponents", "games")


@dataclass
class GameValueItem(GameItemParts):
    """One ``[[value]]`` item of a game with a ``value_study`` hook."""

    game_object: Any
    play: Any  # the game's value_study hook
    name: str
    seed: int
    game_components: Any
    options: dict[str, Any]  # the game's own options (e.g. difficulty)
    values: list[str]  # what to value, as given (e.g. all-pets)
    mode: str
    policy: str | None  # None: the game's default
    opponents: list[str]
    players: int
    games: int
    planned: int = 0  # the games it plays (the hook's plan)
    component_files: list[str] = field(default_factory=list)
    overrides: dict = field(default_factory=dict)
    kind: str = "value"

    def _arguments(self) -> dict[str, Any]:
        given = {k: v for k, v in self.options.items() if v is not None}
        return dict(mode=self.mode, policy=self.policy, players=self.players, games=self.games,
                    seed=self.seed, components=self.game_components,
                    opponents=list(self.opponents), **given)  # fmt: skip

    def budget(self) -> int:
        return self.planned

    def played(self, result) -> int:
        return self.planned

    def games_text(self) -> str:
        return f"{self.games:,} game indices, {self.planned:,} games in all"

    def what(self) -> str:
        who = self.policy or self.game_object.default_policy
        opp = f" against {', '.join(self.opponents)}" if self.opponents else ""
        return (f"{self.game_object.title}: value to {who}{opp}, {self.players} players: "
                f"{self.mode} {', '.join(self.values)}")  # fmt: skip

    def warmup(self):
        return warm_step(self.game_object)

    def run(self, *, threads=None, progress=None, yes=False):
        say = progress if callable(progress) else None
        return self.play(list(self.values), threads=threads, yes=yes, say=say,
                         **self._arguments())  # fmt: skip

    def report(self, result):
        from bnb_sim.analysis.value_item import value_item_report

        return value_item_report(self.name, result)


def parse_game_value_item(spec, game: Any, table: dict, *, source: str, where: str, seed: int,
                          base_dir=None) -> GameValueItem:  # fmt: skip
    """A ``[[value]]`` table of a game whose registry entry ``spec`` offers ``value_study``
    (``game``: its protocol object), checked now by the hook's plan."""
    from bnb_sim.analysis import protocol_item_parse as P

    options = P.run_options(game, "value")
    keys = (*P.COMMON, *(o.name for o in options), *VALUE_KEYS)
    r = P.reader("value", table, source, where, keys)
    players = r.int("players", 2, low=2, high=4)  # as bnb value's
    values = P.read_options(r, options)
    comps, files = P.item_components(game, r, base_dir, r.mapping("set"))
    wanted = r.str_list("options", None)
    if not wanted:
        r.fail("options", 'is required, e.g. options = ["all-pets"]')
    item = GameValueItem(
        game, spec.need("value_study"), r.name, r.int("seed", seed, low=0, high=2**63 - 1),
        comps, values, wanted, r.str("mode", "never", ("never", "always")),
        r.str("policy", None), r.str_list("opponents", []), players,
        r.int("games", 2000, low=2, high=100_000_000), component_files=files,
        overrides=r.mapping("set"),
    )  # fmt: skip
    item.reading_items = P.reading_items(r)
    try:
        item.planned = int(item.play(list(wanted), plan_only=True, **item._arguments()))
    except BnbError as exc:
        r.fail(_key(game, str(exc)), _problem(str(exc)))
    return item


def _problem(text: str) -> str:
    """The hook's words without the command's prefix (``value --game hotv: ``)."""
    head, sep, rest = text.partition(": ")
    return rest if sep and head.startswith("value") else text


def _key(game: Any, text: str) -> str:
    """The item's key an error of the hook is about."""
    for flag, key in (("--option", "options"), ("--mode", "mode"), ("--opponent", "opponents"),
                      ("option", "options")):  # fmt: skip
        if flag in text:
            return key
    from bnb_sim.analysis.protocol_item_parse import option_key

    return option_key(game, text, "policy")
