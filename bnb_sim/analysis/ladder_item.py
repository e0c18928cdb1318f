"""The ``[[ladder]]`` item of experiment files (``bnb run``; docs/experiments.md).

::

    [[ladder]]
    name = "two-player ladder"
    rungs = ["random", "greedy", "heuristic"]   # weakest first (default: bnb ladder's rungs)
    players = 2
    games = 200                                  # seeds per seating of every step
    bootstrap = 1000                             # optional: [experiment] bootstrap

It plays and reports what ``bnb ladder`` does with the same arguments
(:func:`bnb_sim.runner.ladder_play.run_ladder`, :mod:`bnb_sim.analysis.ladder`). The item
describes itself to the shared experiment code (its games, its text, its report sections),
as the items of other games do, so that code names no ladder beyond parsing the table.
Everything is checked when the file is read, before any game. Nothing here imports numba.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bnb_sim.errors import BnbError

__all__ = ["LADDER_KEYS", "LadderSpec", "ladder_item_report", "parse_ladder_item"]

LADDER_KEYS = ("rungs", "players", "games", "bootstrap")
MAX_GAMES = 10_000_000


class LadderParts:
    """What every competitive ladder item says the same way (it has ``rungs``, ``players``
    and ``games``): its games, their text, and the games it played."""

    rungs: list[str]
    players: int
    games: int

    def budget(self) -> int:
        from bnb_sim.runner.ladder_play import ladder_games

        return ladder_games(len(self.rungs), self.players, self.games)

    def games_text(self) -> str:
        return ladder_games_text(self.rungs, self.games)

    def played(self, result) -> int:
        return int(result.n_games)


@dataclass
class LadderSpec(LadderParts):
    name: str
    seed: int
    variant: str
    components: Any  # Builders & Biomes components (files, expansion and `set` applied)
    component_files: list[str]
    overrides: dict[str, Any]
    readings: dict[str, str] = field(default_factory=dict)
    rungs: list[str] = field(default_factory=list)
    players: int = 2
    games: int = 200
    bootstrap: int = 200
    expansion: str | None = None
    game: str | None = None  # the registry name of its game (None: the default game)
    kind: str = "ladder"

    # -- what the shared experiment code asks (budget, games_text, played: LadderParts) ----
    def what(self) -> str:
        return f"ladder, {self.players} players: {' < '.join(self.rungs)}"

    def readings_text(self) -> str:
        from bnb_sim.runner.design_play import design_readings

        values = design_readings(self.readings, None, seating="fixed", what="ladder",
                                 game=self.game)  # fmt: skip
        return ", ".join(f"{k}={v}" for k, v in values.items())

    def run(self, *, threads=None, progress=None, yes: bool = False):
        from bnb_sim.runner.ladder_play import run_ladder

        return run_ladder(
            self.rungs,
            self.players,
            self.games,
            seed=self.seed,
            components=self.components,
            readings=self.readings,
            threads=threads,
            n_boot=self.bootstrap,
            expansion=self.expansion,
            progress=progress,
            yes=yes,
            game=self.game,
        )

    def report(self, result):
        return ladder_item_report(self.name, result)


def ladder_games_text(rungs, games: int) -> str:
    """The games of a competitive ladder item, as the experiment table shows them."""
    steps = len(rungs) - 1
    return f"{games:,} seeds per seating x {steps} step{'s' if steps != 1 else ''}"


def ladder_item_report(name: str, result):
    """``(sections, summary, findings)`` of a played competitive ladder item: the sections of
    ``bnb ladder``'s report, titled and with figure files prefixed by the item's ``name``."""
    from bnb_sim.analysis.ladder import ladder_findings, ladder_sections, ladder_summary
    from bnb_sim.analysis.report_builder import name_item_findings, name_item_sections

    sections = ladder_sections(result)
    name_item_sections(sections, name)
    return sections, ladder_summary(result), name_item_findings(ladder_findings(result), name)


def parse_ladder_item(r, common: dict, bootstrap: int, expansion: str | None,
                      game: str | None = None) -> LadderSpec:  # fmt: skip
    """A :class:`LadderSpec` of ``game`` (its registry name; None: the default game) from an
    experiment reader ``r`` (``analysis.experiment._Reader``): every problem is one line
    naming the file, the item and the key. The default rungs are the game's
    ``ladder_rungs``."""
    from bnb_sim.analysis.study_hooks import game_protocol
    from bnb_sim.runner.ladder_play import check_rungs

    players = r.int("players", 2, low=2, high=4)
    given = r.str_list("rungs", None)
    if given is None:
        given = list(game_protocol(game).ladder_rungs())
    try:
        rungs = check_rungs(given, players, game)
    except BnbError as exc:
        r.fail("rungs", str(exc).removeprefix("ladder: "))
    games = r.int("games", None, low=2, high=MAX_GAMES)
    if games is None:
        r.fail("games", "is required (seeds per seating of every step, e.g. games = 200)")
    return LadderSpec(
        **common,
        rungs=rungs,
        players=players,
        games=games,
        bootstrap=r.int("bootstrap", bootstrap, low=0, high=100_000),
        expansion=expansion,
        game=game,
    )
