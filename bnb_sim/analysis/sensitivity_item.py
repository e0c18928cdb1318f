"""The ``[[sensitivity]]`` item of an experiment file (docs/experiments.md): ``bnb
sensitivity`` as one item of a report, for either game (``game = "hotv"``).

The item describes itself to the shared experiment code (``budget``, ``games_text``,
``what``, ``readings_text``, ``played``, ``warmup``, ``run``, ``report``), as an item of
another game does, so :mod:`bnb_sim.analysis.experiment` needs only to hand it the table.
Its key findings (the estimate that moves the finding most, and every estimate the finding
hinges on) go into the experiment report's key findings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# the shared keys; a game's own options for sensitivity (its OptionSpec data) come on top
ALLOWED = ("name", "game", "finding", "players", "policies", "estimates", "screen_games",
           "games", "top", "seed", "components", "expansion")  # fmt: skip


@dataclass
class SensitivityItem:
    kind: str
    name: str
    finding: str
    game: Any  # a GameSpec
    components: Any
    players: int | None
    policies: list[str] | None
    estimates: list[str]
    screen_games: int
    games: int
    top: int
    seed: int
    options: dict = field(default_factory=dict)  # the game's own: pets, difficulty, ...
    overrides: dict = field(default_factory=dict)  # none: the estimates are what it moves
    reading_items: tuple[str, ...] = ()  # readings set on the components (--reading items)

    def _setup(self, threads=None):
        from bnb_sim.runner.sensitivity import make_setup

        return make_setup(self.game, components=self.components, players=self.players,
                          policies=self.policies, seed=self.seed, threads=threads,
                          **self.options)  # fmt: skip

    def _counts(self) -> tuple[int, int]:
        """(values to screen, values of the ``top`` widest estimates): the budget's parts."""
        from bnb_sim.analysis.sensitivity import pick

        chosen = [e for e in pick(self.components.estimate_ranges(), self.estimates)
                  if e.has_range and not e.fixed]  # fmt: skip
        widths = sorted((len(e.alternatives()) for e in chosen), reverse=True)
        return sum(widths), sum(widths[: self.top])

    def budget(self) -> int:
        from bnb_sim.runner.sensitivity import planned_games

        n_alt, widest = self._counts()
        return planned_games(n_alt, self.screen_games, self.games, widest)

    def games_text(self) -> str:
        return (f"{self.screen_games:,} screening games per value, {self.games:,} fresh games "
                f"for the top {self.top}")  # fmt: skip

    def what(self) -> str:
        return f"{self.game.title}: sensitivity of {self.finding} to the estimates"

    def readings_text(self) -> str:
        shown = [f"{k}={v}" for k, v in self.options.items() if v is not None]
        return ", ".join([*shown, *self.reading_items]) or "-"

    def played(self, result) -> int:
        return result.games_played

    def warmup(self):
        """``(key, step)``: the engine the item plays, warmed once by ``bnb run``."""
        from bnb_sim import feedback

        return feedback.warmup_step(self.game.name, self.players or 4)

    def run(self, *, threads=None, progress=None, yes=False):
        from bnb_sim.runner.sensitivity import run_sensitivity

        return run_sensitivity(self.finding, self._setup(threads), screen_games=self.screen_games,
                               games=self.games, top=self.top, estimates=self.estimates,
                               progress=progress, yes=yes)  # fmt: skip

    def report(self, result):
        """``(sections, summary, findings)`` for the experiment report."""
        from bnb_sim.analysis.sensitivity_report import (
            sensitivity_findings,
            sensitivity_sections,
            sensitivity_summary,
        )

        sections = sensitivity_sections(result, f"{self.name}: sensitivity of {self.finding}")
        for section in sections:
            section.summary = {}
        sections[1].title = f"{self.name}: {sections[1].title}"
        sections[1].anchor = f"{sections[0].anchor}-screening"
        for fig in sections[0].figures:
            fig.name = f"{self.name}-{fig.name}".replace(" ", "-")
        return sections, sensitivity_summary(result), sensitivity_findings(result, f"{self.name}: ")


def parse_sensitivity_item(table, *, source: str, where: str, seed: int, base_dir: Path,
                           component_files: list[str], expansion: str | None,
                           head_game: str | None = None):  # fmt: skip
    """A ``[[sensitivity]]`` table, checked now (one line naming the file and the key);
    ``component_files`` and ``expansion`` are the ``[experiment]`` head's, which go to an item
    of the head's game (``head_game``; None: the default game)."""
    from bnb_sim.analysis.experiment_reader import _REQUIRED, _Reader, _slug_ok
    from bnb_sim.analysis.item_options import read_options, run_options
    from bnb_sim.analysis.protocol_item_parse import reading_items, with_item_readings
    from bnb_sim.analysis.sensitivity import parse_finding
    from bnb_sim.core.registry import get_game as protocol_game
    from bnb_sim.errors import BnbError
    from bnb_sim.games import get_game

    raw = dict(table) if isinstance(table, Mapping) else {}
    try:
        game = get_game(None if raw.get("game") is None else str(raw["game"]))
    except BnbError as exc:  # named as the item's other keys are
        named = f"sensitivity '{raw['name']}'" if isinstance(raw.get("name"), str) else where
        raise BnbError(f"{source}: {named}.game: {exc}") from None
    rules = protocol_game(game.name)
    own = run_options(rules, "sensitivity")  # e.g. a game's pets
    # readings set on the components, as --reading sets them, where the game takes them so
    readings = ("readings",) if callable(getattr(rules, "with_readings", None)) else ()
    r = _Reader(source, where, table, (*ALLOWED, *readings, *(o.name for o in own)))
    name = r.str("name", where.replace("[", " ").rstrip("]"))
    if not _slug_ok(name):
        r.fail("name", "use letters, digits, spaces and -_.,:+()= (at most 80)")
    r.where = f"sensitivity '{name}'" if r.has("name") else where
    finding = r.str("finding", _REQUIRED)
    try:
        parse_finding(finding)
    except BnbError as exc:
        r.fail("finding", str(exc).split(": ", 1)[-1])
    first = game.name == get_game(head_game).name  # the head's game: its files apply
    given = (component_files if first else []) + r.str_list("components", [])
    files = [str(f if Path(f).is_absolute() else base_dir / f) for f in given]
    load = game.entry("load_components")
    exp = r.str("expansion", expansion if first else None)
    try:
        comps = load(files, expansion=exp) if exp else load(files)
    except BnbError as exc:
        r.fail("components", str(exc))
    comps = with_item_readings(rules, r, comps)
    options = {k: v for k, v in read_options(r, own).items() if v is not None}
    item = SensitivityItem(
        kind="sensitivity", name=name, finding=finding, game=game, components=comps,
        players=r.int("players", None, low=2, high=4),
        policies=r.str_list("policies", []) or None,
        estimates=r.str_list("estimates", []),
        screen_games=r.int("screen_games", 500, low=2, high=10_000_000),
        games=r.int("games", 10_000, low=2, high=10_000_000),
        top=r.int("top", 8, low=1, high=500),
        seed=r.int("seed", seed, low=0, high=2**63 - 1), options=options,
        reading_items=reading_items(r),
    )  # fmt: skip
    try:
        item.budget()  # estimates that name nothing fail now, before anything plays
    except BnbError as exc:
        r.fail("estimates", str(exc).split(": ", 1)[-1])
    return item
