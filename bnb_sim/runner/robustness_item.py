"""The ``[[robustness]]`` item of experiment files (``bnb run``; docs/experiments.md)::

    [[robustness]]
    name = "first player, 4 players"
    players = 4
    games = 20000                           # game indices per rung (default: 50,000)
    rungs = ["greedy", "heuristic", "strong"]   # the default
    policy = "random"                       # optional: its win rate against each rung's bot
    expansion = "farmers-market"            # optional; components, set, readings as usual

The item plays itself and reports itself (the protocol of
:func:`bnb_sim.runner.experiments.run_item` and
:func:`bnb_sim.analysis.experiment.build_experiment_report`): its sections are the
"How far these findings hold" verdicts, plot and differences, under the item's name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bnb_sim.errors import BnbError

__all__ = ["ROBUSTNESS_KEYS", "RobustnessItem", "parse_robustness_item"]

ROBUSTNESS_KEYS = ("name", "seed", "variant", "readings", "components", "expansion", "set",
                   "players", "games", "rungs", "policy")  # fmt: skip


@dataclass
class RobustnessItem:
    name: str
    seed: int
    variant: str
    components: Any
    component_files: list[str]
    overrides: dict
    players: int = 4
    games: int = 50_000
    rungs: list[str] = field(default_factory=list)
    expansion: str | None = None
    readings: dict = field(default_factory=dict)
    game: str | None = None  # the registry name of its game (None: the default game)
    #: whether its game's ``studies`` hooks resolve its readings (the items of
    #: experiment_items); a protocol game's item (bnb_sim.analysis.robustness_item_parse)
    #: shows its options and the readings it sets
    studied: bool = False
    options: dict = field(default_factory=dict)  # the game's own: pets, difficulty, ...
    policy: str | None = None  # also its win rate against each rung's bot
    kind: str = "robustness"

    @property
    def policies(self) -> list[str]:
        return list(self.rungs)

    def budget(self) -> int:
        from bnb_sim.runner.robustness_play import game_play

        tables = getattr(game_play(self.game), "tables", lambda o: 1)
        tables = tables({**self.options, "players": self.players})
        return len(self.rungs) * self.games * tables * (2 if self.policy else 1)

    def run(self, *, threads=None, progress=None, yes: bool = False):
        from bnb_sim.runner.robustness_play import run_robustness

        return run_robustness(
            self.rungs, self.players, self.games, seed=self.seed, components=self.components,
            readings=self.readings, expansion=self.expansion, threads=threads,
            progress=progress, yes=yes, game=self.game, policy=self.policy, **self.options,
        )  # fmt: skip

    def report(self, result):
        from bnb_sim.analysis.robustness_report import (
            robustness_findings,
            robustness_sections,
            robustness_summary,
        )

        prefix = f"{self.name}: "
        return (robustness_sections(result, self.name), robustness_summary(result),
                robustness_findings(result, prefix))  # fmt: skip

    def games_text(self) -> str:
        return f"{self.games:,} games x {len(self.rungs)} rungs"

    def what(self) -> str:
        return f"{self.players} players, every seat at each of {', '.join(self.rungs)}"

    def warmup(self):
        """``(key, step)`` for ``bnb run``: the engine this item plays, warmed once (the
        shared warm-up of its game: :func:`bnb_sim.feedback.warmup_step`)."""
        from bnb_sim import feedback

        return feedback.warmup_step(self.game, self.players)

    def played(self, result) -> int:
        return result.games * len(result.rungs)

    def readings_text(self) -> str:
        if not self.studied:  # its options, then the readings it sets on its components
            shown = {**self.options, **self.readings}
            return ", ".join(f"{k}={v}" for k, v in shown.items()) or "the defaults"
        from bnb_sim.runner.study_hooks import study_hooks

        readings = study_hooks(self.game).resolved_readings(self.readings)
        return ", ".join(f"{k}={v}" for k, v in readings.items())


def parse_robustness_item(r, common: dict, game: str | None = None) -> RobustnessItem:
    """A :class:`RobustnessItem` of ``game`` (a game with a ``studies`` hook; None: the
    default game) from an experiment reader ``r``; every problem names the file and the
    key, before anything plays."""
    from bnb_sim.runner.robustness_play import MAX_GAMES, game_play

    play = game_play(game)
    players = r.int("players", 4, low=2, high=4)
    games = r.int("games", play.default_games[players], low=2, high=MAX_GAMES)
    rungs = r.str_list("rungs", list(play.default_rungs))
    try:
        rungs = play.check_rungs(rungs, players)
    except BnbError as exc:
        r.fail("rungs", str(exc).removeprefix("robustness: "))
    policy = r.str("policy", None)
    if policy is not None:
        try:
            policy = play.check_policy(policy)
        except BnbError as exc:
            r.fail("policy", str(exc))
    expansion = getattr(common["components"], "expansion", None)
    known = {"name", "seed", "variant", "components", "component_files", "overrides", "readings"}
    return RobustnessItem(**{k: v for k, v in common.items() if k in known}, players=players,
                          games=games, rungs=rungs, expansion=expansion,
                          policy=policy, game=game, studied=True)  # fmt: skip
