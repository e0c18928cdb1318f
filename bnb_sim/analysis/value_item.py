"""The ``[[value]]`` item of experiment files: ``bnb value`` inside ``bnb run``.

The item describes itself through the protocol :mod:`bnb_sim.analysis.experiment` and
:mod:`bnb_sim.runner.experiments` use for items they do not know by kind (``budget``, ``run``,
``games_text``, ``what``, ``played``, ``readings_text``, ``report``), so the experiment code
only parses it here (:func:`parse_value_item`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

VALUE_KEYS = (
    "name", "seed", "variant", "readings", "components", "expansion", "set",
    "options", "mode", "policy", "opponents", "players", "games",
)  # fmt: skip


@dataclass
class ValueSpec:
    name: str
    seed: int
    variant: str
    components: Any
    component_files: list[str]
    overrides: dict[str, Any]
    readings: dict[str, str] = field(default_factory=dict)
    game: str | None = None  # the registry name of its game (None: the default game)
    options: list[str] = field(default_factory=list)  # as given (groups not expanded)
    words: list[str] = field(default_factory=list)  # expanded: one restricted run each
    mode: str = "never"
    policy: str = "heuristic"
    opponents: list[str] = field(default_factory=list)
    players: int = 2
    games: int = 2000
    kind: str = "value"

    def budget(self) -> int:
        return int(self.games) * (len(self.words) + 1)

    def run(self, *, threads=None, progress=None, yes=False):
        from bnb_sim.runner.value_study import run_value

        say = progress if callable(progress) else None
        return run_value(
            self.options, policy=self.policy, players=self.players, games=self.games,
            seed=self.seed, mode=self.mode, opponents=self.opponents,
            components=self.components, readings=self.readings, threads=threads, say=say,
            yes=yes, game=self.game,
        )  # fmt: skip

    def games_text(self) -> str:
        return f"{self.games:,} games x {len(self.words) + 1} runs (free + one per option)"

    def what(self) -> str:
        opp = f" against {', '.join(self.opponents)}" if self.opponents else ""
        return f"value to {self.policy}{opp}, {self.players} players: {self.mode} " + ", ".join(
            self.options
        )

    def played(self, result) -> int:
        return self.budget()

    def readings_text(self) -> str:
        from bnb_sim.runner.design_play import design_readings

        values = design_readings(self.readings, None, seating="rotate", what="value",
                                 game=self.game)  # fmt: skip
        return ", ".join(f"{k}={v}" for k, v in values.items())

    def report(self, result):
        return value_item_report(self.name, result)


def value_item_report(name: str, result) -> tuple:
    """``(sections, summary, findings)`` of a played ``[[value]]`` item (any game's): the
    sections and findings of ``bnb value``, named by the item."""
    from bnb_sim.analysis.report_builder import name_item_findings, name_item_sections
    from bnb_sim.analysis.value_report import value_findings, value_sections

    sections = value_sections(result)
    name_item_sections(sections, name, lower=False)
    return sections, {"value": result.to_dict()}, name_item_findings(value_findings(result), name)


def parse_value_item(r, common: dict, game: str | None = None) -> ValueSpec:
    """A ``[[value]]`` table of ``game`` (a game with a ``studies`` hook; None: the default
    game; ``r``: the experiment's reader) -> :class:`ValueSpec`; every option, policy and
    name is checked now (before anything plays)."""
    from bnb_sim.analysis.study_hooks import game_protocol, study_hooks
    from bnb_sim.errors import BnbError
    from bnb_sim.runner.value_study import expand_options

    players = r.int("players", 2, low=2, high=4)
    options = r.str_list("options", None)
    if not options:
        r.fail("options", 'is required, e.g. options = ["buy:crafting_table"] or ["all-items"]')
    mode = r.str("mode", "never", ("never", "always"))
    policy = r.str("policy", "heuristic")
    opponents = r.str_list("opponents", [])
    comps = common["components"]
    rules, hooks = game_protocol(game), study_hooks(game)
    try:
        words = expand_options(options, comps, game)
        rivals = opponents or [policy]
        field_ = [rivals[i % len(rivals)] for i in range(players - 1)]
        for word in words:
            seats = [hooks.restricted_spec(policy, word, mode), *field_]
            rules.make_config(comps, players=players, policies=seats, seed=0, options={})
    except BnbError as exc:
        r.fail("options", str(exc))
    return ValueSpec(
        **common, game=game, options=options, words=words, mode=mode, policy=policy,
        opponents=opponents, players=players,
        games=r.int("games", 2000, low=2, high=100_000_000),
    )  # fmt: skip
