"""The ``[[luck]]`` item of experiment files: ``bnb luck`` inside ``bnb run``, either game::

    [[luck]]
    name = "luck, two players"
    rungs = ["random", "greedy", "heuristic"]   # weakest first (default: bnb luck's rungs)
    players = 2
    groups = 200           # groups per source and rung (a group shares that source's draws)
    per_group = 25         # games per group
    pair_games = 5000      # head to head per adjacent pair (0: skip; default groups x per_group)
    bootstrap = 1000       # optional: [experiment] bootstrap
    outcome = "win"        # or "margin" (Builders & Biomes)

    [[luck]]
    game = "hotv"          # Heroes of the Village: pets, difficulty, buildings, readings
    pets = "wolf,cat,fox"

The item plans the study when the file is read (:func:`bnb_sim.runner.luck_play.plan_luck`:
rungs, sizes, outcome and the game's options are checked before anything plays; every
problem is one line naming the file, the item and the key), plays it with
:func:`~bnb_sim.runner.luck_play.run_luck` and reports the luck sections and findings of
:mod:`bnb_sim.analysis.luck_report` under its name. It describes itself to the shared
experiment code (``budget``, ``games_text``, ``what``, ``readings_text``, ``played``,
``warmup``, ``run``, ``report``), so that code names no luck beyond handing it the table.
Nothing here imports numba.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bnb_sim.errors import BnbError

__all__ = ["LUCK_KEYS", "OTHER_GAME_KEYS", "LuckItem", "parse_luck_item", "parse_other_game"]

#: the study's own keys (as ``bnb luck``'s options)
LUCK_KEYS = ("rungs", "players", "groups", "per_group", "pair_games", "bootstrap", "outcome")
#: an item of another game (``game = "hotv"``): these keys and the game's own options of
#: ``bnb luck`` (its OptionSpec data, e.g. Heroes of the Village's pets), not the first game's
OTHER_GAME_KEYS = ("game", "name", "seed", "components", "readings", *LUCK_KEYS)


@dataclass
class LuckItem:
    name: str
    seed: int
    components: Any
    component_files: list[str]
    overrides: dict
    plan: Any  # a checked bnb_sim.runner.luck_play.LuckPlan
    readings: dict = field(default_factory=dict)
    variant: str = "standard"
    options: dict = field(default_factory=dict)  # another game's own: pets, difficulty, ...
    shown_readings: str = ""  # the rule readings it plays under, for the report
    kind: str = "luck"

    @property
    def game(self):
        return self.plan.game

    @property
    def players(self) -> int:
        return int(self.plan.setup.players)

    # -- what the shared experiment code asks ----------------------------------------------
    def budget(self) -> int:
        return int(self.plan.total_games)

    def games_text(self) -> str:
        p = self.plan
        pairs = max(len(p.rungs) - 1, 0)
        head = f", {p.pair_games:,} head to head x {pairs}" if pairs and p.pair_games else ""
        return (f"{p.groups} groups of {p.per_group} x {p.designs} designs x {len(p.rungs)} "
                f"rungs{head}")  # fmt: skip

    def what(self) -> str:
        return f"luck and skill: {self.plan.module.describe(self.plan.setup)}; " + " < ".join(
            self.plan.rungs
        )

    def played(self, result) -> int:
        return int(result.total_games)

    def readings_text(self) -> str:
        return self.shown_readings or "the defaults"

    def warmup(self):
        """``(key, step)``: the engine the item plays, warmed once by ``bnb run``."""
        from bnb_sim import feedback

        return feedback.warmup_step(self.game.name, self.players)

    def run(self, *, threads=None, progress=None, yes: bool = False):
        from bnb_sim.runner.luck_play import run_luck

        plan = dataclasses.replace(self.plan, threads=threads)
        return run_luck(plan, progress=progress if callable(progress) else None)

    def report(self, result):
        """``(sections, summary, findings)``: ``bnb luck``'s sections titled with the item's
        name (figure files prefixed by it), its summary and its findings."""
        from bnb_sim.analysis.luck_report import luck_findings, luck_sections, luck_summary
        from bnb_sim.analysis.report_builder import name_item_findings, name_item_sections

        sections = luck_sections(result)
        name_item_sections(sections, self.name)
        findings = name_item_findings(luck_findings(result), self.name)
        return sections, luck_summary(result), findings


def _study(r, game, bootstrap: int, options: dict, common: dict) -> LuckItem:
    """Read the study's keys (``LUCK_KEYS``) and plan it: each problem names its key."""
    from bnb_sim.runner.luck_play import luck_module, plan_luck

    try:
        module = luck_module(game)
    except BnbError as exc:
        r.fail("", str(exc).removeprefix("luck: "))
    outcome = r.str("outcome", "win")
    if outcome not in module.OUTCOMES:
        r.fail("outcome", f"must be one of {', '.join(module.OUTCOMES)}, got '{outcome}'")
    players = r.int("players", None, low=2, high=4)
    given = r.str_list("rungs", None)
    try:
        rungs = module.check_rungs(given if given else list(module.DEFAULT_RUNGS))
    except BnbError as exc:
        r.fail("rungs", str(exc).removeprefix("luck: "))
    groups = r.int("groups", 200, low=10, high=100_000)
    per_group = r.int("per_group", 25, low=2, high=10_000)
    pair_games = r.int("pair_games", None, low=0, high=10_000_000)
    if pair_games is not None and len(rungs) > 1 and 0 < pair_games < 10:
        r.fail("pair_games", f"must be 0 or at least 10, got {pair_games}")
    n_boot = r.int("bootstrap", bootstrap, low=0, high=100_000)
    setup = {"seed": common["seed"], "components": common["components"], "outcome": outcome}
    # the players alone, then each option with them, so a bad one is named; then all together
    for key in ("players", *options):
        value = players if key == "players" else options[key]
        if value is None:
            continue
        try:
            module.make_setup(**{**setup, **{k: None for k in options}, "players": players,
                                 key: value})  # fmt: skip
        except BnbError as exc:
            r.fail(key, _problem(exc))
    setup.update(options)
    try:
        plan = plan_luck(game, rungs=rungs, groups=groups, per_group=per_group,
                         pair_games=pair_games, n_boot=n_boot, yes=True, players=players,
                         **setup)  # fmt: skip
    except BnbError as exc:
        r.fail("", str(exc).removeprefix("luck: "))
    return LuckItem(plan=plan, **common)


def parse_luck_item(r, common: dict, bootstrap: int, game: str | None = None) -> LuckItem:
    """A ``[[luck]]`` table of ``game`` (a game with a ``studies`` hook; None: the default
    game): ``common`` holds what every item of such a game reads (name, seed, variant,
    readings, components with ``set`` applied)."""
    from bnb_sim.analysis.study_hooks import study_hooks
    from bnb_sim.games import get_game

    readings = dict(common.get("readings") or {})
    item = _study(r, get_game(game), bootstrap, {"readings": readings}, common)
    shown = study_hooks(game).resolve_readings(readings)
    item.shown_readings = ", ".join(f"{k}={v}" for k, v in shown.items())
    return item


def parse_other_game(table, game, *, source: str, where: str, seed: int, base_dir: Path,
                     bootstrap: int, name: str | None = None) -> LuckItem:  # fmt: skip
    """A ``[[luck]]`` table with ``game = NAME`` of a game other than the first: its
    components, readings (``{ NAME = VALUE }``) and its own options of ``bnb luck``."""
    from bnb_sim.analysis.experiment_reader import _Reader, _slug_ok
    from bnb_sim.analysis.item_options import read_options, run_options
    from bnb_sim.core.registry import get_game as protocol_game

    own = run_options(protocol_game(game.name), "luck")
    r = _Reader(source, where, table, (*OTHER_GAME_KEYS, *(o.name for o in own)))
    name = r.str("name", where.replace("[", " ").rstrip("]"))
    if not _slug_ok(name):
        r.fail("name", "use letters, digits, spaces and -_.,:+()= (at most 80)")
    r.where = f"luck '{name}'" if r.has("name") else where
    files = [str(f if Path(f).is_absolute() else base_dir / f)
             for f in r.str_list("components", [])]  # fmt: skip
    try:
        comps = game.entry("load_components")(files)
    except BnbError as exc:
        r.fail("components", str(exc))
    readings = r.table.get("readings", {})
    if not isinstance(readings, dict):
        r.fail("readings", 'must be a table, e.g. readings = { NAME = "VALUE" }')
    options = {k: v for k, v in read_options(r, own).items() if v is not None}
    reading = tuple(f"{k}={v}" for k, v in readings.items())
    if reading:
        try:
            comps = _with_readings(game, comps, reading)
        except BnbError as exc:
            r.fail("readings", _problem(exc))
    common = {"name": name, "seed": r.int("seed", seed, low=0, high=2**63 - 1),
              "components": comps, "component_files": files, "overrides": {},
              "readings": dict(readings)}  # fmt: skip
    item = _study(r, game, bootstrap, options, common)
    item.options = options
    shown = {**{k: v for k, v in options.items() if v is not None}, **readings}
    item.shown_readings = ", ".join(f"{k}={v}" for k, v in shown.items())
    return item


def _problem(exc: BnbError) -> str:
    """The problem of a command's error without the command's prefix (``luck --game hotv:``,
    ``--buildings '9':``): the item's key says where."""
    return re.sub(r"^(luck( --game \S+)?|--[\w-]+( '[^']*')?): ", "", str(exc))


def _with_readings(game, comps, reading: tuple[str, ...]):
    """The game's components with ``NAME=VALUE`` readings set, as ``--reading`` does (the
    game's luck set-up applies them)."""
    from bnb_sim.runner.luck_play import luck_module

    return luck_module(game).make_setup(components=comps, reading=reading).components
