"""Experiment files (``bnb run EXPERIMENT.toml``): parsing, validation and the combined report.

One TOML file declares simulations, tournaments, sweeps, comparisons, tuning runs and
ladders (the format, key by key, is ``docs/experiments.md``). :func:`load_experiment` reads
and checks the whole file before anything is played (an unknown key, a wrong type, a bad
policy or component path is one :class:`~bnb_sim.errors.BnbError` line naming the file and
the key);
:mod:`bnb_sim.runner.experiments` plays the items; :func:`build_experiment_report` puts all
their sections into one report.

This module reads a file (:func:`load_experiment`, :func:`parse_experiment`) and finds the
bundled ones (:func:`builtin_path`); the pieces live beside it:

* :mod:`bnb_sim.analysis.experiment_specs` -- the specs, the kinds, the limits;
* :mod:`bnb_sim.analysis.experiment_reader` -- typed access to a table, with errors that
  name the key;
* :mod:`bnb_sim.analysis.experiment_items` -- the keys and the spec of each kind of item;
* :mod:`bnb_sim.analysis.experiment_report` -- the combined report.

The names of ``__all__`` stay importable from here.
Nothing here imports numba.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from bnb_sim.analysis.experiment_head import check_expansion, has_studies, read_head
from bnb_sim.analysis.experiment_items import (
    ALLOWED,
    _components,
    _item,
    _item_readings,
    item_game,
)
from bnb_sim.analysis.experiment_reader import _Reader, _slug_ok
from bnb_sim.analysis.experiment_report import build_experiment_report
from bnb_sim.analysis.experiment_specs import (
    KINDS,
    MAX_FILE_BYTES,
    MAX_ITEMS,
    CompareSpec,
    Experiment,
    SimulationSpec,
    SweepSpec,
    TournamentSpec,
)
from bnb_sim.errors import BnbError
from bnb_sim.runner.experiments import ItemOutcome

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
    head = read_head(data, source, ALLOWED["experiment"])
    seed, bootstrap = head.seed, head.bootstrap
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
            table = head.table_of(table)
            at = dict(source=source, where=where, seed=seed, base_dir=base_dir)
            if kind == "sensitivity":  # any game's; the item describes itself
                from bnb_sim.analysis.sensitivity_item import parse_sensitivity_item

                item = parse_sensitivity_item(
                    table, **at, component_files=head.files if head.studied else [],
                    expansion=head.expansion, head_game=head.game.name,
                )  # fmt: skip
            else:
                game = item_game(source, where, table, head.game)
                if has_studies(game):
                    item = _studied_item(kind, i, table, game, head, at)
                else:
                    item = _protocol_item(kind, table, game, at, bootstrap)
            if item.name in names:
                raise BnbError(f"{source}: {where}.name: '{item.name}' is used twice")
            names.add(item.name)
            items.append(item)
    if not items:
        raise BnbError(
            f"{source}: declares nothing to run (add [[simulation]], [[tournament]], "
            "[[sweep]], [[compare]], [[tune]], [[value]], [[ladder]] or [[luck]])"
        )
    if len(items) > MAX_ITEMS:
        raise BnbError(f"{source}: {len(items)} items; the limit is {MAX_ITEMS}")
    _refuse_shared_folders(source, items)
    return Experiment(head.title, head.description, seed, head.threads, bootstrap, items, source)


def _protocol_item(kind: str, table: Any, game: Any, at: dict, bootstrap: int) -> Any:
    """An item of a game without a ``studies`` hook (``game``: its registry entry): the
    protocol's items, and the luck and tune items that read any game."""
    if kind == "luck":
        from bnb_sim.analysis.luck_item import parse_other_game

        return parse_other_game(table, game, **at, bootstrap=bootstrap)
    if kind == "tune":
        from bnb_sim.tune.experiment_item import parse_other_game as other_tune

        return other_tune(table, game, **at)
    from bnb_sim.analysis.game_items import parse_game_item

    return parse_game_item(game, kind, table, **at)


def _studied_item(kind: str, index: int, table: Any, game: Any, head: Any, at: dict) -> Any:
    """An item of a game with a ``studies`` hook (``game``: its registry entry), read by
    :mod:`bnb_sim.analysis.experiment_items`; the head's components, readings, variant and
    expansion are its own when the head names its game."""
    source, base_dir = at["source"], at["base_dir"]
    table = {k: v for k, v in table.items() if k != "game"} if isinstance(table, Mapping) else table
    mine = head.studied and game.name == head.game.name
    r = _Reader(source, at["where"], table, ALLOWED[kind])
    name = r.str("name", f"{kind} {index + 1}")
    if not _slug_ok(name):
        r.fail("name", "use letters, digits, spaces and -_.,:+()= (at most 80)")
    if r.has("name"):
        r.where = f"{kind} '{name}'"
    players = r.table.get("players", 2)  # the default of simulations (checked below)
    players = players if isinstance(players, int) and not isinstance(players, bool) else None
    explicit, resolved = _item_readings(r, kind, head.readings if mine else {},
                                        head.variant if mine else None, players,
                                        game.name)  # fmt: skip
    common = {
        "name": name,
        "seed": r.int("seed", at["seed"], low=0, high=2**63 - 1),
        "variant": resolved["variant"],
        "readings": explicit,
    }
    files = (head.files if mine else []) + r.str_list("components", [])
    overrides = r.mapping("set") if kind != "sweep" else {}
    expansion = r.str("expansion", head.expansion if mine else None)
    if expansion is not None and r.has("expansion"):
        check_expansion(r, expansion, game.name)
    comps, paths = _components(source, r.where, base_dir, files, overrides, expansion,
                               game.name)  # fmt: skip
    common.update(components=comps, component_files=paths, overrides=overrides)
    return _item(kind, r, common, comps, head.bootstrap, base_dir, expansion, game.name)


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


ProgressFn = Callable[[str], None]
