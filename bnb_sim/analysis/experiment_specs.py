"""What an experiment file becomes: the specs of its items and the limits it is held to.

:class:`Experiment` (the file: its items, in order) and one spec per shared kind of item
(:class:`SimulationSpec`, :class:`TournamentSpec`, :class:`SweepSpec`, :class:`CompareSpec`;
the other kinds bring their own, e.g. :mod:`bnb_sim.analysis.ladder_item`), the
kinds (:data:`KINDS`) and the file's limits (a played item, its ``ItemOutcome``, is
recorded by :mod:`bnb_sim.runner.experiments`, which plays it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_FILE_BYTES = 1024 * 1024
MAX_GAMES = 10_000_000
MAX_ITEMS = 100
KINDS = (
    "simulation",
    "tournament",
    "sweep",
    "compare",
    "tune",
    "robustness",
    "sensitivity",
    "value",
    "ladder",
    "luck",
)
SEATINGS = ("rotate", "fixed", "random")
VARIANTS = ("standard", "beginner")


# --------------------------------------------------------------------------------------
# specs


@dataclass
class _Common:
    name: str
    seed: int
    variant: str
    components: Any  # its game's components (files and `set` applied)
    component_files: list[str]
    overrides: dict[str, Any]
    readings: dict[str, str] = field(default_factory=dict)  # the readings the file sets
    game: str | None = None  # the registry name of its game (None: the default game)


@dataclass
class SimulationSpec(_Common):
    games: int = 1000
    players: int = 2
    policies: list[str] = field(default_factory=list)
    seating: str = "rotate"
    run_dir: str | None = None
    kind: str = "simulation"


@dataclass
class TournamentSpec(_Common):
    games: int = 100
    players: int = 2
    policies: list[str] = field(default_factory=list)
    anchor: str | None = "auto"
    bootstrap: int = 200
    kind: str = "tournament"


@dataclass
class SweepSpec(_Common):
    games: int = 1000
    players: int = 2
    policies: list[str] = field(default_factory=list)
    sets: list[tuple[str, list[Any]]] = field(default_factory=list)
    mode: str = "grid"
    variants: list = field(default_factory=list)  # analysis.sweep.Variant, built on load
    kind: str = "sweep"


@dataclass
class CompareSpec(_Common):
    a: str = ""
    b: str = ""
    opponents: list[str] = field(default_factory=list)
    players: int = 2
    sprt: tuple[float, float] | None = None
    precision: float | None = None
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 200_000
    kind: str = "compare"


@dataclass
class Experiment:
    title: str
    description: str
    seed: int
    threads: int | None
    bootstrap: int
    items: list[Any]
    source: str
    text: str = ""
