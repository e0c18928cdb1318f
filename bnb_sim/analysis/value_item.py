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
            yes=yes,
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

        values = design_readings(self.readings, None, seating="rotate", what="value")
        return ", ".join(f"{k}={v}" for k, v in values.items())

    def report(self, result):
        from bnb_sim.analysis.report_builder import _slug
        from bnb_sim.analysis.value_report import value_findings, value_sections

        sections = value_sections(result)
        for section in sections:
            section.title = f"{self.name}: {section.title}"
            section.anchor = _slug(section.title)
        findings = value_findings(result)
        for finding in findings:
            finding.text = f"{self.name}: {finding.text}"
        return sections, {"value": result.to_dict()}, findings


def parse_value_item(r, common: dict) -> ValueSpec:
    """A ``[[value]]`` table (``r``: the experiment's reader) -> :class:`ValueSpec`; every
    option, policy and name is checked now (before anything plays)."""
    from bnb_sim.errors import BnbError
    from bnb_sim.games.builders_biomes.policies.restrictions import spec_suffix
    from bnb_sim.games.builders_biomes.run_config import GameConfig
    from bnb_sim.runner.value_study import expand_options

    players = r.int("players", 2, low=2, high=4)
    options = r.str_list("options", None)
    if not options:
        r.fail("options", 'is required, e.g. options = ["buy:crafting_table"] or ["all-items"]')
    mode = r.str("mode", "never", ("never", "always"))
    policy = r.str("policy", "heuristic")
    opponents = r.str_list("opponents", [])
    comps = common["components"]
    try:
        words = expand_options(options, comps)
        rivals = opponents or [policy]
        field_ = [rivals[i % len(rivals)] for i in range(players - 1)]
        for word in words:
            suffix = spec_suffix((word,), ()) if mode == "never" else spec_suffix((), (word,))
            GameConfig.create(players, [f"{policy}{suffix}", *field_], components=comps)
    except BnbError as exc:
        r.fail("options", str(exc))
    return ValueSpec(
        **common, options=options, words=words, mode=mode, policy=policy,
        opponents=opponents, players=players,
        games=r.int("games", 2000, low=2, high=100_000_000),
    )  # fmt: skip
