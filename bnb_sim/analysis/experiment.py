"""Experiment files (``bnb run EXPERIMENT.toml``): parsing, validation and the combined report.

One TOML file declares simulations, tournaments, sweeps, comparisons, tuning runs and
ladders (the format, key by key, is ``docs/experiments.md``). :func:`load_experiment` reads
and checks the whole file before anything is played (an unknown key, a wrong type, a bad
policy or component path is one :class:`~bnb_sim.errors.BnbError` line naming the file and
the key);
:mod:`bnb_sim.runner.experiments` plays the items; :func:`build_experiment_report` puts all
their sections into one report.

Nothing here imports numba.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import re
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import pandas as pd

from bnb_sim.analysis.ladder_item import LADDER_KEYS
from bnb_sim.analysis.luck_item import LUCK_KEYS
from bnb_sim.analysis.value_item import VALUE_KEYS
from bnb_sim.errors import BnbError
from bnb_sim.runner.robustness_item import ROBUSTNESS_KEYS
from bnb_sim.tune.experiment_item import TUNE_KEYS

__all__ = [
    "KINDS",
    "CompareSpec",
    "Experiment",
    "ItemOutcome",
    "SimulationSpec",
    "SweepSpec",
    "TournamentSpec",
    "build_experiment_report",
    "builtin_names",
    "builtin_path",
    "load_experiment",
    "parse_experiment",
]

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
    components: (
        Any  # a bnb_sim.games.builders_biomes.components.Components (files and `set` applied)
    )
    component_files: list[str]
    overrides: dict[str, Any]
    readings: dict[str, str] = field(default_factory=dict)  # the readings the file sets


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


@dataclass
class ItemOutcome:
    """One played item: its spec, its result and how long it took."""

    spec: Any
    result: Any  # (seats, games, meta) for simulations; a *Result otherwise
    seconds: float


# --------------------------------------------------------------------------------------
# reading and validation


def builtin_dir():
    return resources.files("bnb_sim").joinpath("data/experiments")


def builtin_names() -> list[str]:
    try:
        return sorted(p.name[:-5] for p in builtin_dir().iterdir() if p.name.endswith(".toml"))
    except (FileNotFoundError, NotADirectoryError):
        return []


def builtin_path(name: str) -> Path:
    """The bundled experiment ``NAME`` (``bnb run --builtin NAME``)."""
    names = builtin_names()
    if name not in names:
        known = ", ".join(names) or "none"
        raise BnbError(f"unknown built-in experiment '{name}' (known: {known})")
    return Path(str(builtin_dir().joinpath(f"{name}.toml")))


class _Reader:
    """Typed access to one table of the file; every problem names the file and the key."""

    def __init__(self, source: str, where: str, table: Any, allowed: Sequence[str]):
        self.source = source
        self.where = where
        if not isinstance(table, Mapping):
            self.fail("", "must be a table")
        self.table = dict(table)
        unknown = [k for k in self.table if k not in allowed]
        if unknown:
            raise BnbError(
                f"{source}: unknown key '{self.key(unknown[0])}' (known keys: {', '.join(allowed)})"
            )

    def key(self, key: str) -> str:
        return f"{self.where}.{key}" if key else self.where

    def fail(self, key: str, problem: str):
        raise BnbError(f"{self.source}: {self.key(key)}: {problem}")

    def has(self, key: str) -> bool:
        return key in self.table

    def int(self, key: str, default=None, low: int | None = None, high: int | None = None):
        if key not in self.table:
            if default is _REQUIRED:
                self.fail(key, "is required")
            return default
        value = self.table[key]
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"must be an integer, got {value!r}")
        if low is not None and value < low:
            self.fail(key, f"must be at least {low}, got {value}")
        if high is not None and value > high:
            self.fail(key, f"must be at most {high:,}, got {value:,}")
        return int(value)

    def float(self, key: str, default=None):
        if key not in self.table:
            return default
        value = self.table[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(key, f"must be a number, got {value!r}")
        return float(value)

    def str(self, key: str, default=None, choices: Sequence[str] | None = None):
        if key not in self.table:
            if default is _REQUIRED:
                self.fail(key, "is required")
            return default
        value = self.table[key]
        if not isinstance(value, str) or not value.strip():
            self.fail(key, f"must be a non-empty string, got {value!r}")
        if choices is not None and value not in choices:
            self.fail(key, f"must be one of {', '.join(choices)}, got '{value}'")
        return value

    def str_list(self, key: str, default=None):
        if key not in self.table:
            if default is _REQUIRED:
                self.fail(key, "is required")
            return default
        value = self.table[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.fail(key, f"must be a list of strings, got {value!r}")
        return list(value)

    def mapping(self, key: str) -> dict:
        if key not in self.table:
            return {}
        value = self.table[key]
        if not isinstance(value, Mapping):
            self.fail(
                key,
                'must be a table of dotted component paths, e.g. { "mobs.enderman.hearts" = 5 }',
            )
        return _flatten(dict(value))


_REQUIRED = object()


def _flatten(table: dict, prefix: str = "") -> dict:
    """``{"mobs": {"enderman": {"hearts": 5}}}`` and ``{"mobs.enderman.hearts": 5}`` alike."""
    out = {}
    for key, value in table.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            out.update(_flatten(dict(value), path))
        else:
            out[path] = value
    return out


_COMMON_KEYS = ("name", "seed", "variant", "readings", "components", "expansion", "set")
ALLOWED = {
    "experiment": (
        "title",
        "description",
        "seed",
        "threads",
        "bootstrap",
        "variant",
        "readings",
        "components",
        "expansion",
    ),
    "simulation": (*_COMMON_KEYS, "games", "players", "policies", "seating", "run_dir"),
    "tournament": (*_COMMON_KEYS, "games", "players", "policies", "anchor", "bootstrap"),
    "sweep": (
        "name",
        "seed",
        "variant",
        "readings",
        "components",
        "expansion",
        "set",
        "mode",
        "games",
        "players",
        "policies",
    ),
    "compare": (
        *_COMMON_KEYS,
        "a",
        "b",
        "opponents",
        "players",
        "sprt",
        "precision",
        "alpha",
        "beta",
        "max_games",
    ),
    "tune": TUNE_KEYS,
    "robustness": ROBUSTNESS_KEYS,
    "value": VALUE_KEYS,
    "ladder": (*_COMMON_KEYS, *LADDER_KEYS),
    "luck": (*_COMMON_KEYS, *LUCK_KEYS),
}


def _slug_ok(name: str) -> bool:
    return bool(re.fullmatch(r"[\w .,:+()=-]{1,80}", name))


def _components(
    source: str,
    where: str,
    base_dir: Path,
    files: list[str],
    overrides: dict,
    expansion: str | None = None,
):
    from bnb_sim.errors import ComponentError
    from bnb_sim.games.builders_biomes.components import load_components

    resolved = []
    for f in files:
        path = Path(f)
        if not path.is_absolute():
            path = base_dir / path
        resolved.append(str(path))
    try:
        comps = load_components(resolved, expansion=expansion)
    except ComponentError as exc:  # it names the component file and key; add ours
        raise BnbError(f"{source}: {where}.components: {exc}") from None
    if overrides:
        comps = comps.with_values(overrides, origin=f"{source}: {where}.set")
    return comps, resolved


def _policies(source: str, where: str, specs: list[str], players: int | None) -> list[str]:
    """Policy labels (parsed, so a bad spec fails now); at most ``players`` of them."""
    from bnb_sim.analysis.tournament import split_policy_list
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy

    out = []
    for spec in split_policy_list(specs):
        try:
            out.append(parse_policy(spec).label)
        except BnbError as exc:
            raise BnbError(f"{source}: {where}.policies: {exc}") from None
    if not out:
        raise BnbError(f"{source}: {where}.policies: at least one policy is needed")
    if players is not None and len(out) > players:
        raise BnbError(f"{source}: {where}.policies: {len(out)} policies for {players} players")
    return out


def _reading_table(reader: _Reader) -> dict[str, str]:
    """``readings = { hunger = "one-by-one", ... }`` of a table, validated."""
    from bnb_sim.games.builders_biomes import readings as R

    table = reader.table.get("readings", {})
    if not isinstance(table, Mapping):
        reader.fail("readings", 'must be a table, e.g. readings = { hunger = "one-by-one" }')
    out = {}
    for name, value in table.items():
        try:
            out[str(name)] = R.check_value(str(name), value)
        except BnbError as exc:
            reader.fail("readings", str(exc))
    return out


def _item_readings(r: _Reader, kind: str, head: dict, head_variant: str | None, players):
    """``(explicit readings, resolved readings)`` of an item: the [experiment] readings, the
    item's own, and the ``variant``/``seating`` keys (aliases; a contradiction is an error)."""
    from bnb_sim.games.builders_biomes import readings as R
    from bnb_sim.runner.experiments import design_readings

    own = _reading_table(r)
    given = {**head, **own}
    variant = r.str("variant", None)
    if variant is None and "variant" not in own:
        variant = head_variant
    seating = r.str("seating", None, SEATINGS) if kind == "simulation" else None
    try:
        resolved = R.resolve(given, aliases={"variant": variant, "seating": seating},
                             players=players)  # fmt: skip
        if kind not in ("simulation", "luck"):  # luck: the seating is a reading like any other
            design = "fixed" if kind in ("tournament", "ladder") else "rotate"
            if kind == "compare" and not r.table.get("opponents"):
                design = "fixed"
            if kind == "tune":
                from bnb_sim.tune.experiment_item import design_seating

                design = design_seating(r.table.get("what", "policy"))
            design_readings(given, variant, seating=design, what=kind)
    except BnbError as exc:
        r.fail("readings", str(exc))
    explicit = dict(given)
    if variant is not None:
        explicit["variant"] = resolved["variant"]
    if seating is not None:
        explicit["seating"] = resolved["seating"]
    return explicit, resolved


def _players(reader: _Reader, default: int) -> int:
    return reader.int("players", default, low=2, high=4)


def parse_experiment(data: Mapping, source: str, base_dir: Path | None = None) -> Experiment:
    """Validate a parsed TOML document (see ``docs/experiments.md``)."""
    base_dir = Path(base_dir or ".")
    if not isinstance(data, Mapping):
        raise BnbError(f"{source}: not a TOML table")
    for key in data:
        if key not in ("experiment", *KINDS):
            raise BnbError(
                f"{source}: unknown key '{key}' (known: experiment, "
                "[[simulation]], [[tournament]], [[sweep]], [[compare]], [[tune]], "
                "[[robustness]], [[sensitivity]], [[value]], [[ladder]], [[luck]])"
            )
    head = _Reader(source, "experiment", data.get("experiment", {}), ALLOWED["experiment"])
    seed = head.int("seed", 0, low=0, high=2**63 - 1)
    threads = head.int("threads", None, low=1, high=1024)
    bootstrap = head.int("bootstrap", 200, low=0, high=100_000)
    default_variant = head.str("variant", None)
    head_readings = _reading_table(head)
    if default_variant is not None:
        from bnb_sim.games.builders_biomes import readings as R

        try:
            R.resolve(head_readings, aliases={"variant": default_variant})
        except BnbError as exc:
            head.fail("variant", str(exc))
    default_files = head.str_list("components", [])
    default_expansion = head.str("expansion", None)
    title = head.str("title", Path(source).stem)
    description = head.str("description", "") if head.has("description") else ""
    items: list[Any] = []
    names: set[str] = set()
    for kind in [k for k in data if k in KINDS]:  # file order of the first table of a kind
        tables = data[kind]
        if isinstance(tables, Mapping):
            tables = [tables]
        if not isinstance(tables, list):
            raise BnbError(f"{source}: {kind}: must be an array of tables ([[{kind}]])")
        for i, table in enumerate(tables):
            where = f"{kind}[{i + 1}]"
            if kind == "sensitivity":  # either game's; the item describes itself
                from bnb_sim.analysis.sensitivity_item import parse_sensitivity_item

                item = parse_sensitivity_item(
                    table, source=source, where=where, seed=seed, base_dir=base_dir,
                    component_files=default_files, expansion=default_expansion,
                )  # fmt: skip
                if item.name in names:
                    raise BnbError(f"{source}: {where}.name: '{item.name}' is used twice")
                names.add(item.name)
                items.append(item)
                continue
            table, other_game = _item_game(source, where, table, kind)
            if other_game is not None and kind == "luck":  # either game's (luck_item.py)
                from bnb_sim.analysis.luck_item import parse_other_game

                item = parse_other_game(table, other_game, source=source, where=where,
                                        seed=seed, base_dir=base_dir,
                                        bootstrap=bootstrap)  # fmt: skip
            elif other_game is not None:  # an item of another game: the game parses it
                item = other_game.entry("experiment_item")(
                    kind, table, source=source, where=where, seed=seed, base_dir=base_dir,
                    component_files=[],  # [experiment] components are Builders & Biomes files
                )  # fmt: skip
            if other_game is not None:
                if item.name in names:
                    raise BnbError(f"{source}: {where}.name: '{item.name}' is used twice")
                names.add(item.name)
                items.append(item)
                continue
            r = _Reader(source, where, table, ALLOWED[kind])
            name = r.str("name", f"{kind} {i + 1}")
            if not _slug_ok(name):
                r.fail("name", "use letters, digits, spaces and -_.,:+()= (at most 80)")
            if name in names:
                r.fail("name", f"'{name}' is used twice")
            names.add(name)
            where = f"{kind} '{name}'" if r.has("name") else where
            r.where = where
            players = r.table.get("players", 2)  # the default of simulations (checked below)
            players = (
                players if isinstance(players, int) and not isinstance(players, bool) else None
            )
            explicit, resolved = _item_readings(r, kind, head_readings, default_variant, players)
            common = {
                "name": name,
                "seed": r.int("seed", seed, low=0, high=2**63 - 1),
                "variant": resolved["variant"],
                "readings": explicit,
            }
            files = default_files + r.str_list("components", [])
            overrides = r.mapping("set") if kind != "sweep" else {}
            expansion = r.str("expansion", default_expansion)
            if expansion not in (None, "farmers-market"):
                r.fail("expansion", f"unknown expansion '{expansion}' (known: farmers-market)")
            comps, resolved = _components(source, where, base_dir, files, overrides, expansion)
            common.update(components=comps, component_files=resolved, overrides=overrides)
            items.append(_item(kind, r, common, comps, bootstrap, base_dir, expansion))
    if not items:
        raise BnbError(
            f"{source}: declares nothing to run (add [[simulation]], [[tournament]], "
            "[[sweep]], [[compare]], [[tune]], [[value]], [[ladder]] or [[luck]])"
        )
    if len(items) > MAX_ITEMS:
        raise BnbError(f"{source}: {len(items)} items; the limit is {MAX_ITEMS}")
    _refuse_shared_folders(source, items)
    return Experiment(title, description, seed, threads, bootstrap, items, source)


def _refuse_shared_folders(source: str, items: list) -> None:
    """Two items writing one folder (``run_dir`` of simulations, ``dir`` of tunings) would
    refuse or mix each other's work; the file is refused before anything plays."""
    seen: dict[str, str] = {}
    for item in items:
        key = "dir" if getattr(item, "kind", None) == "tune" else "run_dir"
        folder = getattr(item, key, None)
        if folder is None:
            continue
        name = os.path.normcase(os.path.abspath(folder))
        if name in seen:
            raise BnbError(
                f"{source}: {item.name}: {key} '{folder}' is also the folder of "
                f"'{seen[name]}'; give each item its own folder"
            )
        seen[name] = item.name


def _item_game(source: str, where: str, table: Any, kind: str = ""):
    """``(table without 'game', the item's game)``; the game is None for Builders & Biomes
    (the default) and for tables without a ``game`` key."""
    if not isinstance(table, Mapping) or "game" not in table:
        return table, None
    from bnb_sim.games import DEFAULT_GAME, get_game

    name = table["game"]
    if not isinstance(name, str):
        raise BnbError(f"{source}: {where}.game: must be a game name, got {name!r}")
    try:
        game = get_game(name)
    except BnbError as exc:
        raise BnbError(f"{source}: {where}.game: {exc}") from None
    if game.name == DEFAULT_GAME:
        return {k: v for k, v in table.items() if k != "game"}, None
    if game.entry("experiment_item") is None and not (kind == "luck" and game.entry("luck")):
        raise BnbError(f"{source}: {where}.game: {game.title} has no experiment items")
    return table, game


def _run_dir(r: _Reader, base_dir: Path) -> str | None:
    """``run_dir``, resolved against the experiment file's folder and checked now (before
    anything plays): it may be new, an empty folder, or a run folder (then it is resumed)."""
    from bnb_sim.runner.storage import META_NAME

    text = r.str("run_dir", None)
    if text is None:
        return None
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = base_dir / path
    path = Path(os.path.normpath(path))
    if path.exists() and not path.is_dir():
        r.fail("run_dir", f"{path} exists and is not a folder")
    if path.is_dir() and not (path / META_NAME).is_file() and any(path.iterdir()):
        r.fail(
            "run_dir",
            f"{path} is a non-empty folder that is not a run; give a new or empty folder "
            "(an existing run folder is resumed)",
        )
    return str(path)


def _item(kind: str, r: _Reader, common: dict, comps, bootstrap: int, base_dir: Path,
          expansion: str | None = None):  # fmt: skip
    where, source = r.where, r.source
    if kind == "ladder":
        from bnb_sim.analysis.ladder_item import parse_ladder_item

        return parse_ladder_item(r, common, bootstrap, expansion)
    if kind == "tune":
        from bnb_sim.tune.experiment_item import parse_tune_item

        return parse_tune_item(r, common, base_dir)
    if kind == "robustness":
        from bnb_sim.runner.robustness_item import parse_robustness_item

        return parse_robustness_item(r, common)
    if kind == "luck":  # bnb luck: the item plays and reports itself (analysis/luck_item.py)
        from bnb_sim.analysis.luck_item import parse_luck_item

        return parse_luck_item(r, common, bootstrap)
    if kind == "value":  # bnb value: the item plays and reports itself (analysis/value_item.py)
        from bnb_sim.analysis.value_item import parse_value_item

        return parse_value_item(r, common)
    if kind == "simulation":
        players = _players(r, 2)
        return SimulationSpec(
            **common,
            games=r.int("games", _REQUIRED, low=1, high=MAX_GAMES),
            players=players,
            policies=_policies(source, where, r.str_list("policies", _REQUIRED), players),
            seating=common["readings"].get("seating", "rotate"),
            run_dir=_run_dir(r, base_dir),
        )
    if kind == "tournament":
        players = _players(r, 2)
        policies = _policies(source, where, r.str_list("policies", _REQUIRED), None)
        from bnb_sim.analysis.tournament import schedule
        from bnb_sim.games.builders_biomes.policies.registry import check_distinct, parse_policy

        try:
            schedule(policies, players)
            check_distinct([parse_policy(p) for p in policies], "tournament")
        except BnbError as exc:
            raise BnbError(f"{source}: {where}: {exc}") from None
        anchor = r.str("anchor", "auto")
        if anchor not in ("auto", "none") and anchor not in policies:
            r.fail("anchor", f"'{anchor}' is not one of the policies")
        return TournamentSpec(
            **common,
            games=r.int("games", _REQUIRED, low=2, high=MAX_GAMES),
            players=players,
            policies=policies,
            anchor=None if anchor == "none" else anchor,
            bootstrap=r.int("bootstrap", bootstrap, low=0, high=100_000),
        )
    if kind == "sweep":
        from bnb_sim.analysis.sweep import build_variants

        players = _players(r, 2)
        raw = r.mapping("set")
        if not raw:
            r.fail("set", 'is required, e.g. set = { "mobs.enderman.hearts" = [5, 6, 7] }')
        sets = [(p, list(v) if isinstance(v, list) else [v]) for p, v in raw.items()]
        mode = r.str("mode", "grid", ("grid", "zip"))
        try:
            variants = build_variants(comps, sets, mode, origin=f"{source}: {where}.set")
        except BnbError as exc:
            msg = str(exc)
            raise BnbError(msg if source in msg else f"{source}: {where}: {msg}") from None
        return SweepSpec(
            **common,
            games=r.int("games", _REQUIRED, low=2, high=MAX_GAMES),
            players=players,
            policies=_policies(source, where, r.str_list("policies", _REQUIRED), players),
            sets=sets,
            mode=mode,
            variants=variants,
        )
    # compare
    from bnb_sim.analysis.compare import make_rule

    a = _policies(source, where, [r.str("a", _REQUIRED)], 2)
    b = _policies(source, where, [r.str("b", _REQUIRED)], 2)
    if len(a) != 1 or len(b) != 1:
        r.fail("a", "a and b must be one policy each")
    opponents = r.str_list("opponents", [])
    opponents = _policies(source, where, opponents, 3) if opponents else []
    players = _players(r, 1 + len(opponents) if opponents else 2)
    if not opponents and players != 2:
        r.fail("players", "a head-to-head comparison (no opponents) has 2 players")
    if opponents and len(opponents) > players - 1:
        r.fail("opponents", f"{len(opponents)} opponents do not fit {players} players")
    sprt = None
    if r.has("sprt"):
        value = r.table["sprt"]
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        ):
            r.fail("sprt", f"must be [ELO0, ELO1], got {value!r}")
        sprt = (float(value[0]), float(value[1]))
    precision = r.float("precision", None)
    alpha = r.float("alpha", 0.05)
    beta = r.float("beta", 0.05)
    try:
        make_rule(sprt, precision, alpha, beta)
    except BnbError as exc:
        raise BnbError(f"{source}: {where}: {exc}") from None
    return CompareSpec(
        **common,
        a=a[0],
        b=b[0],
        opponents=opponents,
        players=players,
        sprt=sprt,
        precision=precision,
        alpha=alpha,
        beta=beta,
        max_games=r.int("max_games", 200_000, low=4, high=MAX_GAMES),
    )


def load_experiment(path: str | os.PathLike) -> Experiment:
    """Read and validate an experiment file (raises :class:`BnbError` with one line)."""
    from bnb_sim.toml_files import tomllib

    path = Path(path)
    source = path.name
    try:
        if path.is_dir():
            raise BnbError(f"{path}: is a folder, not an experiment file")
        if path.exists() and not stat.S_ISREG(path.stat().st_mode):  # a FIFO would hang
            raise BnbError(f"{path}: not a regular file")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise BnbError(f"{path}: larger than 1 MiB; not an experiment file")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BnbError(f"{path}: no such experiment file") from None
    except UnicodeDecodeError:
        raise BnbError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise BnbError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise BnbError(f"{source}: not valid TOML: {str(exc).splitlines()[0]}") from None
    experiment = parse_experiment(data, source, path.parent)
    experiment.text = text
    return experiment


# --------------------------------------------------------------------------------------
# report


def _games_text(spec) -> str:
    if callable(getattr(spec, "games_text", None)):  # an item of another game describes itself
        return spec.games_text()
    if spec.kind == "tune":
        from bnb_sim.tune.experiment_item import games_text

        return games_text(spec)
    if spec.kind == "simulation":
        return f"{spec.games:,} games"
    if spec.kind == "tournament":
        return f"{spec.games:,} seeds per seating"
    if spec.kind == "sweep":
        return f"{spec.games:,} games x {len(spec.variants)} variants"
    rule = (
        f"SPRT [{spec.sprt[0]:g}, {spec.sprt[1]:g}]"
        if spec.sprt
        else f"precision ±{100 * spec.precision:g} pp"
    )
    return f"{rule}, at most {spec.max_games:,} games"


def _what(spec) -> str:
    if callable(getattr(spec, "what", None)):
        return spec.what()
    if spec.kind == "tune":
        from bnb_sim.tune.experiment_item import what_text

        return what_text(spec)
    if spec.kind == "compare":
        vs = f" against {', '.join(spec.opponents)}" if spec.opponents else " head-to-head"
        return f"{spec.a} vs {spec.b}{vs}"
    text = f"{spec.players} players: {', '.join(spec.policies)}"
    if spec.kind == "sweep":
        text += "; " + ", ".join(f"{p} = {', '.join(map(str, v))}" for p, v in spec.sets)
    return text


def _played(outcome: ItemOutcome) -> int:
    spec, result = outcome.spec, outcome.result
    if callable(getattr(spec, "played", None)):
        return spec.played(result)
    if spec.kind == "tune":
        return int(result["games"])
    if spec.kind == "simulation":
        return len(result[1])
    if spec.kind == "tournament":
        return result.n_games
    if spec.kind == "sweep":
        return result.games * len(result.variants)
    return result.n_games


def _spec_readings(spec) -> str:
    """Every reading an item plays under (the design's seating for non-simulations)."""
    from bnb_sim.games.builders_biomes import readings as R
    from bnb_sim.runner.experiments import design_readings

    if callable(getattr(spec, "readings_text", None)):
        return spec.readings_text()
    if spec.kind == "simulation":
        values = R.resolve(spec.readings).to_dict()
    else:
        design = "fixed" if spec.kind == "tournament" else "rotate"
        if spec.kind == "compare" and not spec.opponents:
            design = "fixed"
        if spec.kind == "tune":
            from bnb_sim.tune.experiment_item import design_seating

            design = design_seating(spec.what)
        values = design_readings(spec.readings, None, seating=design, what=spec.kind)
    return ", ".join(f"{k}={v}" for k, v in values.items())


def _readings_text(meta: Mapping) -> str:
    from bnb_sim.analysis.report_provenance import readings_text

    return readings_text(meta.get("params", {}) or {})


def _simulation_sections(outcome: ItemOutcome):
    from bnb_sim.analysis import table_format, tables
    from bnb_sim.analysis.leaders import Leader
    from bnb_sim.analysis.names import shown_run
    from bnb_sim.analysis.report_builder import Section, _slug
    from bnb_sim.analysis.report_play import (
        fights_section,
        game_length_section,
        play_style_section,
        rule_hits_section,
        xp_section,
    )
    from bnb_sim.analysis.report_wins import win_rate_section

    spec = outcome.spec
    seats, games, meta, shown = shown_run(*outcome.result, spec.policies, with_names=True)
    order = list(dict.fromkeys(shown))
    overview = Section(f"{spec.name}: simulation")
    winners = tables.win_rates(seats, "policy", order)
    overview.text(
        f"{len(games):,} games, {spec.players} players ({', '.join(shown)} in player "
        f"order), seating `{spec.seating}`, rules `{spec.variant}`, seed {spec.seed}; "
        f"readings: {_readings_text(meta)}."
    )
    best = winners.sort_values("rate", ascending=False).iloc[0]
    rates = win_rate_section(seats, games, order, {"params": {"seating": spec.seating}})
    shown = f"{table_format.fmt_rate(best.rate, best.lo, best.hi)} (n = {int(best.n):,})"
    if "win_rate_leader" in rates.summary:  # "best" only when the gap excludes 0
        claim = Leader.from_dict(rates.summary["win_rate_leader"]).claim(f"wins most, {shown}")
        overview.text(f"{claim[0].upper()}{claim[1:]}; every rate per policy and seat is in "
                      "the sections below.")  # fmt: skip
    else:
        overview.text(f"Win rate of **{best['policy']}**: {shown}; every rate per seat is in "
                      "the sections below.")  # fmt: skip
    sections = [
        overview,
        rates,
        xp_section(seats, order),
        game_length_section(games),
        fights_section(seats, order),
        play_style_section(seats, order),
    ]
    hits = rule_hits_section(seats, meta)
    if hits is not None:
        sections.append(hits)
    summary: dict[str, Any] = {"kind": "simulation", "n_games": len(games)}
    for section in sections[1:]:
        section.title = f"{spec.name}: {section.title}"
        section.anchor = _slug(section.title)
        for fig in section.figures:
            fig.name = _slug(f"{spec.name}-{fig.name}")
        summary.update(section.summary)
        section.summary = {}
    overview.anchor = _slug(overview.title)
    summary["params"] = meta.get("params", {})
    return sections, summary


def _seat_figure(section, outcomes: Sequence[ItemOutcome]) -> None:
    """Win rate per seat with 95% intervals, one series per simulation item (by player
    count, in the demo): the first-player advantage as a picture."""
    from bnb_sim.analysis import plots, tables

    series, most = {}, 0
    for outcome in outcomes:
        if outcome.spec.kind != "simulation" or hasattr(outcome.spec, "report"):
            continue  # a team game has no seat advantage to show
        seats = outcome.result[0]
        by_seat = tables.win_rates(seats, "seat").set_index("seat")
        series[outcome.spec.name] = by_seat
        most = max(most, len(by_seat))
    if not series:
        return
    groups = list(range(most))
    section.figure(
        "win-rate-by-seat",
        plots.rate_bars(
            [f"seat {s}" + (" (starts)" if s == 0 else "") for s in groups],
            {name: df.reindex(groups)[["rate", "lo", "hi"]] for name, df in series.items()},
            "Win rate per seat, per simulation",
        ),
        "Win rate of each seat (seat 0 starts) in each simulation item, 95% intervals; the fair "
        "share is 1/players (50% with 2, 25% with 4).",
    )


def _components_meta(comps) -> dict:
    return {
        "source": comps.source,
        "files": list(comps.files),
        "content_hash": comps.content_hash,
        "estimated_values": comps.n_estimates,
        "estimated_keys": [r["key"] for r in comps.estimates()],
    }


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for package in ("bnb-sim", "numba", "numpy", "pandas", "pyarrow", "matplotlib", "scipy"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = None
    return out


def build_experiment_report(
    experiment: Experiment,
    outcomes: Sequence[ItemOutcome],
    *,
    command: str | None = None,
    seconds: float | None = None,
    compile_seconds: float | None = None,
):
    """One report for a whole experiment: key findings first (the headline answer of every
    item, then the caveats), an overview, every item's sections, provenance.

    ``compile_seconds`` is the time spent compiling (or loading) the kernels before the first
    item; the items' seconds are playing and analysis only."""
    from bnb_sim.analysis import compare, sweep, tournament
    from bnb_sim.analysis.key_findings import simulate_findings as run_findings
    from bnb_sim.analysis.report_builder import BOT_STRENGTH_NOTE, ReportBuilder, Section
    from bnb_sim.analysis.report_provenance import _estimated_warning

    counts = {k: sum(o.spec.kind == k for o in outcomes) for k in KINDS}
    kinds = ", ".join(f"{n} {k}{'s' if n != 1 else ''}" for k, n in counts.items() if n)
    builder = ReportBuilder(
        experiment.title,
        f"Experiment `{experiment.source}` · {kinds} · seed {experiment.seed} · generated "
        f"{_dt.datetime.now().isoformat(timespec='seconds')}",
    )
    overview = builder.add(Section("Experiment"))
    if experiment.description:
        overview.text(experiment.description)
    overview.text(
        "Every rate is shown with its n and a 95% interval (Wilson for rates, Student t for "
        "means and paired differences, bootstrap over seeds for ratings). Everything is "
        "deterministic for the seed: the same file gives the same numbers."
    )
    overview.table(
        pd.DataFrame(
            {
                "item": [o.spec.name for o in outcomes],
                "kind": [o.spec.kind for o in outcomes],
                "what": [_what(o.spec) for o in outcomes],
                "size": [_games_text(o.spec) for o in outcomes],
                "games played": [f"{_played(o):,}" for o in outcomes],
                "playing seconds": [f"{o.seconds:.1f}" for o in outcomes],
            }
        ),
        "Playing seconds: games and analysis of each item, without compiling the engine"
        + (
            f" (compiling or loading the kernels took {compile_seconds:.1f} s before the "
            "first item)."
            if compile_seconds is not None
            else "."
        ),
    )
    _seat_figure(overview, outcomes)
    items_summary = []
    for outcome in outcomes:
        spec, result = outcome.spec, outcome.result
        prefix = f"{spec.name}: "
        if callable(getattr(spec, "report", None)):  # an item of another game reports itself
            sections, summary, findings = spec.report(result)
            builder.findings += findings
        elif spec.kind == "simulation":
            sections, summary = _simulation_sections(outcome)
            builder.findings += [
                f for f in run_findings(summary, prefix) if f.numbers["kind"] != "game_length"
            ]
        elif spec.kind == "tournament":
            sections = tournament.tournament_sections(result, spec.name)
            summary = tournament.tournament_summary(result)
            builder.findings += tournament.tournament_findings(result, prefix)
        elif spec.kind == "sweep":
            sections = sweep.sweep_sections(result, spec.name)
            summary = sweep.sweep_summary(result)
            builder.findings += sweep.sweep_findings(result, prefix)
        elif spec.kind == "tune":
            from bnb_sim.tune.experiment_item import tune_sections

            sections, summary = tune_sections(result, spec.name)
        else:
            sections = compare.compare_sections(result, spec.name)
            summary = compare.compare_summary(result)
            builder.findings += compare.compare_findings(result, prefix)
        for section in sections:
            builder.add(section)
        items_summary.append(
            {
                "name": spec.name,
                **summary,
                "kind": spec.kind,
                "seconds": round(outcome.seconds, 3),
                "components": {
                    k: v
                    for k, v in _components_meta(spec.components).items()
                    if k != "estimated_keys"
                },
            }
        )

    prov = builder.add(Section("Parameters and provenance"))
    if command:
        prov.text(f"Command: `{command}`")
    prov.heading("Components per item")
    prov.table(
        pd.DataFrame(
            {
                "item": [o.spec.name for o in outcomes],
                "component files": [
                    ", ".join(o.spec.components.files) or "default" for o in outcomes
                ],
                "overrides": [
                    ", ".join(f"{k}={v}" for k, v in o.spec.overrides.items()) or "–"
                    for o in outcomes
                ],
                "content hash": [o.spec.components.content_hash[:16] for o in outcomes],
                "estimated values": [str(o.spec.components.n_estimates) for o in outcomes],
            }
        )
    )
    prov.heading("Rule readings per item")
    prov.table(
        pd.DataFrame(
            {
                "item": [o.spec.name for o in outcomes],
                "readings": [_spec_readings(o.spec) for o in outcomes],
            }
        )
    )
    worst = max(outcomes, key=lambda o: o.spec.components.n_estimates, default=None)
    if worst is not None:
        _estimated_warning(prov, {"components": _components_meta(worst.spec.components)})
    versions = _versions()
    prov.heading("Versions and machine")
    machine = {
        "platform": platform.platform(),
        "cores": os.cpu_count(),
        "threads": experiment.threads or "all",
    }
    rows = [(k, str(v)) for k, v in {**versions, **machine}.items()]
    if compile_seconds is not None:
        rows.append(("compiling/loading the kernels (s)", f"{compile_seconds:.1f}"))
    if seconds is not None:
        rows.append(("wall time (s)", f"{seconds:.1f}"))
    prov.table(pd.DataFrame(rows, columns=["", "value"]))
    prov.heading("Experiment file")
    prov.text(f"`{experiment.source}`, {len(experiment.items)} items, seed {experiment.seed}.")
    builder.summary.update(
        {
            "kind": "experiment",
            "source": experiment.source,
            "seed": experiment.seed,
            "items": items_summary,
            "versions": versions,
            "compile_seconds": None if compile_seconds is None else round(compile_seconds, 3),
        }
    )
    builder.notes.append(BOT_STRENGTH_NOTE)
    return builder


ProgressFn = Callable[[str], None]
