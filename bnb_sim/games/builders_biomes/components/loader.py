"""Reading component files: TOML parsing, size limits, and the override merge.

A file that has every data section (rules, characteristics, blocks, weapons, mobs, buildings,
scoring, boards) is a *complete* file and replaces the defaults; any other file is a *partial
override* merged over the defaults (docs/components.md): tables merge key by key, arrays and
plain values replace, and ``provenance``/``source``/``reason`` and a building's ``cost``
replace as a whole. When an override restates a table's ``provenance``, the old ``source``
and ``reason`` are dropped with it, so a stale citation never survives a changed value.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable
from pathlib import Path

from bnb_sim.errors import ArgumentTypeError
from bnb_sim.estimates import parse_ranges
from bnb_sim.games.builders_biomes.components.checker import NOTE_KEYS
from bnb_sim.games.builders_biomes.components.origins import Origins
from bnb_sim.games.builders_biomes.components.validate import is_complete, validate
from bnb_sim.toml_files import (  # noqa: F401 (re-exported: MAX_BYTES, parse_assignment, tomllib)
    MAX_BYTES,
    check_depth,
    clean,
    file_error,
    parse_assignment,
    parse_toml,
    read_toml,
    tomllib,
)

# bnb_sim/data holds every game's default component file
DEFAULT_COMPONENTS_PATH = Path(__file__).resolve().parents[3] / "data" / "builders_biomes.toml"
DEFAULT_LABEL = "builders_biomes.toml (default)"
REPLACE_WHOLE = (*NOTE_KEYS, "cost")

PathArg = str | os.PathLike


def merge_into(base: dict, override: dict, file_idx: int, origins: Origins, path: str = "") -> None:
    """Merge ``override`` into ``base`` in place, recording where each change came from."""
    restated = "provenance" in override
    if restated:  # the notes go with the provenance: a missing one is this override's fault
        for note in ("source", "reason"):
            base.pop(note, None)
            origins.paths[f"{path}.{note}" if path else note] = file_idx
    changed = []
    for key, value in override.items():
        sub = f"{path}.{key}" if path else str(key)
        old = base.get(key)
        if isinstance(old, dict) and isinstance(value, dict) and key not in REPLACE_WHOLE:
            merge_into(old, value, file_idx, origins, sub)
            continue
        if not (old == value and type(old) is type(value)):
            origins.changed[sub] = file_idx
        base[key] = copy.deepcopy(value)
        origins.paths[sub] = file_idx
        if key not in NOTE_KEYS:
            changed.append(str(key))
    if restated:
        origins.unrestated.pop(path, None)
    elif changed and "provenance" in base:
        origins.unrestated[path] = (file_idx, changed)


def _as_paths(paths: PathArg | Iterable[PathArg] | None) -> list[PathArg]:
    if paths is None:
        return []
    if isinstance(paths, (str, os.PathLike)):
        return [paths]
    if not isinstance(paths, (list, tuple)):  # a dict or a number is no list of files
        raise ArgumentTypeError(
            "components must be a path, a list of paths or None, got "
            f"{type(paths).__name__} (in-memory data: components_from_dict)"
        )
    out = list(paths)
    for p in out:
        if not isinstance(p, (str, os.PathLike)):
            raise ArgumentTypeError(f"component file paths must be str or PathLike, got {p!r}")
    return out


def load_default_data() -> dict:
    """The default file's data, without its ``[[ranges]]`` (they are not game data)."""
    data = read_toml(DEFAULT_COMPONENTS_PATH)
    data.pop("ranges", None)
    return data


def take_ranges(layer: dict, label: str, origins: Origins) -> dict:
    """Move a file's ``[[ranges]]`` (bnb_sim.estimates) into ``origins``; the file it came
    from is the last one of ``origins.files``. Returns the layer without them."""
    if "ranges" in layer:
        layer = dict(layer)
        origins.ranges += parse_ranges(layer.pop("ranges"), label, len(origins.files) - 1)
    return layer


def _default_layer(origins: Origins) -> dict:
    return take_ranges(read_toml(DEFAULT_COMPONENTS_PATH), DEFAULT_LABEL, origins)


def merge_files(
    paths: PathArg | Iterable[PathArg] | None, expansion: str | None = None
) -> tuple[dict, Origins, list[str]]:
    """Read the defaults (and the expansion's file over them) and the given files in order;
    return merged data and its origins."""
    given = _as_paths(paths)
    origins = Origins(files=[DEFAULT_LABEL])
    data = _default_layer(origins)
    if expansion is not None:
        from bnb_sim.games.builders_biomes.components.expansion import (
            EXPANSION_LABELS,
            expansion_path,
        )

        label = EXPANSION_LABELS[expansion] if expansion in EXPANSION_LABELS else ""
        layer = read_toml(expansion_path(expansion))
        origins.files.append(label)
        merge_into(data, take_ranges(layer, label, origins), 1, origins)
    for p in given:
        label = os.fspath(p)
        layer = read_toml(p)
        if is_complete(layer):  # replaces everything before it, ranges included
            origins = Origins(files=[label])
            data = take_ranges(layer, label, origins)
        else:
            origins.files.append(label)
            merge_into(data, take_ranges(layer, label, origins), len(origins.files) - 1, origins)
    return data, origins, [os.fspath(p) for p in given]


def load_components(
    paths: PathArg | Iterable[PathArg] | None = None, *, expansion: str | None = None
):
    """Load component data: the defaults, or files (complete or partial overrides) over them.

    ``paths`` is one path or a sequence of paths applied in order. ``expansion``
    (``"farmers-market"``) merges the expansion's file over the defaults first, so the given
    files can override its estimates too. Every problem raises
    :class:`~bnb_sim.errors.ComponentError` naming the file, the dotted key and the problem.
    """
    from bnb_sim.games.builders_biomes.components.model import Components

    data, origins, given = merge_files(paths, expansion)
    normalised, rows = validate(data, origins)
    source = ", ".join(given) if given else "default"
    if expansion is not None:
        source = f"{source} + {expansion}"
    comps = Components(normalised, rows, source=source, origins=origins)
    comps.estimate_ranges()  # checks every range now: a bad one is refused at load
    return comps


def components_from_dict(data: dict, *, name: str = "<dict>", over_defaults: bool = False):
    """Validate an in-memory component dict (a complete one, or an override of the defaults)."""
    from bnb_sim.games.builders_biomes.components.model import Components

    if not isinstance(data, dict):
        raise file_error(name, "", f"component data must be a table, got {type(data).__name__}")
    check_depth(data, name)
    if over_defaults:
        origins = Origins(files=[DEFAULT_LABEL])
        merged = _default_layer(origins)
        origins.files.append(name)
        merge_into(merged, take_ranges(data, name, origins), 1, origins)
    else:
        origins = Origins(files=[name])
        merged = take_ranges(copy.deepcopy(data), name, origins)
    normalised, rows = validate(merged, origins)
    comps = Components(normalised, rows, source=name, origins=origins)
    comps.estimate_ranges()  # checks every range now: a bad one is refused at load
    return comps


def components_from_text(text: bytes | str, *, name: str = "<text>", over_defaults: bool = False):
    """Like :func:`components_from_dict` for TOML text (used by tests and tools)."""
    data = parse_toml(text, name)
    return components_from_dict(
        data, name=name, over_defaults=over_defaults and not is_complete(data)
    )
