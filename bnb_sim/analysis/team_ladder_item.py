"""The ``[[ladder]]`` item of a cooperative game (``game = NAME``; ``bnb ladder --game NAME``).

::

    [[ladder]]
    game = "NAME"
    name = "team play"
    rungs = ["random", "team", "strong"]   # weakest first (default: the game's rungs)
    games = 20000                          # per rung, the same game indices (required)
    players = 3                            # and the game's options of a ladder

The game's setting comes from its ``team_play`` entry (:mod:`bnb_sim.runner.team_ladder`
says what it returns); the item plays and reports what ``bnb ladder --game NAME`` does with
the same arguments (:func:`bnb_sim.runner.team_ladder.run_team_ladder`,
:mod:`bnb_sim.analysis.team_ladder`). Its keys are the shared ones and the game's options
that apply to ``ladder`` (OptionSpec data); everything is checked when the file is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bnb_sim.analysis.protocol_item import GameItemParts
from bnb_sim.errors import BnbError

LADDER_KEYS = ("games", "rungs")  # after the common keys and the game's options of a ladder


@dataclass
class TeamLadderItem(GameItemParts):
    """A ``[[ladder]]`` item of a cooperative game: its plan, and how to show it."""

    game_object: Any
    name: str
    seed: int
    game_components: Any
    plan: Any  # bnb_sim.runner.team_ladder.TeamLadderPlan
    options: dict[str, Any] = field(default_factory=dict)
    component_files: list[str] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)
    kind: str = "ladder"

    @property
    def players(self) -> int:
        return self.plan.team.players

    def budget(self) -> int:
        return len(self.plan.rungs) * self.plan.games

    def games_text(self) -> str:
        return f"{self.plan.games:,} games x {len(self.plan.rungs)} rungs"

    def what(self) -> str:
        rungs = " < ".join(self.plan.rungs)
        return f"{self.game_object.title} ladder, {self.plan.team.setting}: {rungs}"

    def played(self, result) -> int:
        return int(result.n_games)

    def warmup(self):
        """``(key, step)``: the game's shared warm-up (:func:`bnb_sim.feedback.warmup_step`)."""
        from bnb_sim import feedback

        return feedback.warmup_step(self.game, self.players)

    def run(self, *, threads=None, progress=None, yes: bool = False):
        from bnb_sim.runner.budget import confirm_games
        from bnb_sim.runner.team_ladder import run_team_ladder

        confirm_games(self.budget(), f"ladder '{self.name}'", yes=yes)
        return run_team_ladder(self.plan, threads=threads, progress=progress)

    def report(self, result):
        """``(sections, summary, findings)``: the sections of ``bnb ladder --game NAME``,
        titled and with figure files prefixed by the item's name."""
        from bnb_sim.analysis.report_builder import name_item_findings, name_item_sections
        from bnb_sim.analysis.team_ladder import (
            team_ladder_findings,
            team_ladder_sections,
            team_ladder_summary,
        )

        sections = team_ladder_sections(result)
        name_item_sections(sections, self.name)
        findings = name_item_findings(team_ladder_findings(result), self.name)
        summary = {**team_ladder_summary(result), "game": self.game}
        return sections, summary, findings


def parse_team_ladder_item(spec, game: Any, table: dict, *, source: str, where: str,
                           seed: int, base_dir=None) -> TeamLadderItem:  # fmt: skip
    """A ``[[ladder]]`` table of a cooperative game (``spec``: its registry entry, which
    offers ``team_play``), checked now: one line naming the file, the item and the key."""
    from bnb_sim.analysis import protocol_item_parse as P
    from bnb_sim.analysis.experiment_reader import _REQUIRED
    from bnb_sim.runner.team_ladder import plan_team_ladder

    options = P.run_options(game, "ladder")
    keys = (*P.COMMON, *(o.name for o in options), *LADDER_KEYS)
    r = P.reader("ladder", table, source, where, keys)
    players = r.int("players", None, low=1, high=64)
    values = P.read_options(r, options)
    overrides = r.mapping("set")
    comps, files = P.item_components(game, r, base_dir, overrides)
    item_seed = r.int("seed", seed, low=0, high=2**63 - 1)
    games = r.int("games", _REQUIRED, low=2, high=10_000_000)
    rungs = r.str_list("rungs", None)
    given = {k: v for k, v in values.items() if v is not None}
    try:
        spec.need("team_play")(players=players, seed=item_seed, components=comps, **given)
    except BnbError as exc:  # the command's words ("ladder --game NAME: ..."), of the key
        text = str(exc).split(": ", 1)[-1] if str(exc).startswith("ladder") else str(exc)
        r.fail(P.option_key(game, text, ""), text)
    try:
        plan = plan_team_ladder(spec, rungs, players=players, games=games, seed=item_seed,
                                components=comps, yes=True, options=given)  # fmt: skip
    except BnbError as exc:
        r.fail("rungs", str(exc).removeprefix("ladder: "))
    item = TeamLadderItem(game, r.name, item_seed, comps, plan, values, files, overrides)
    item.reading_items = P.reading_items(r)
    return item
