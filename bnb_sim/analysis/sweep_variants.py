"""The variants a balance sweep plays: reading ``--set PATH=V1,V2,...`` (:func:`parse_set_option`),
looking a dotted key up in the component file, and the grid or zip of values as
:class:`Variant` components beside the baseline (:func:`build_variants`, at most
:data:`MAX_VARIANTS`). Any game's components serve: data with a ``with_values`` method (a
Components) sets and checks values itself; other data is nested mappings whose keys are set
here (:func:`set_value`), its values checked by the game when it makes a config; a game with
its own ``sweep_variants`` hook labels and builds its variants itself (:func:`game_variants`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bnb_sim.errors import BnbError, ComponentError
from bnb_sim.safe_io import digits

MAX_VARIANTS = 50


def split_values(text: str) -> list[str]:
    """Split ``5,6,7`` on commas that are not inside ``[...]``, ``{...}`` or quotes."""
    parts, depth, quote, current = [], 0, "", []
    for ch in text:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    parts.append("".join(current).strip())
    return parts


def parse_set_option(text: str, origin: str = "--set") -> tuple[str, list[Any]]:
    """``"mobs.enderman.hearts=5,6,7"`` -> ``("mobs.enderman.hearts", [5, 6, 7])``."""
    from bnb_sim.toml_files import parse_assignment

    path, eq, values = str(text).partition("=")
    path = path.strip()
    if not eq or not path or not values.strip():
        raise ComponentError(
            origin, str(text), "expected PATH=V1,V2,..., e.g. mobs.enderman.hearts=5,6,7"
        )
    out = []
    for raw in split_values(values):
        if not raw:
            raise ComponentError(origin, path, f"empty value in '{values.strip()}'")
        out.append(parse_assignment(f"{path}={raw}", origin=origin)[1])
    if len({repr(v) for v in out}) != len(out):
        raise ComponentError(origin, path, "a value is listed twice")
    return path, out


def _lookup(data: Any, path: str) -> Any:
    node = data
    for part in path.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and (i := digits(part)) is not None and i < len(node):
            node = node[i]
        else:
            return None
    return node


def set_value(data: Any, path: str, value: Any) -> Any:
    """A copy of nested mappings ``data`` with ``path`` (dotted) set to ``value``;
    KeyError naming the path if it is not there."""
    import copy

    out = copy.deepcopy(data)
    node = out
    parts = path.split(".")
    for part in parts[:-1]:
        if not isinstance(node, dict) or part not in node:
            raise KeyError(path)
        node = node[part]
    if not isinstance(node, dict) or parts[-1] not in node:
        raise KeyError(path)
    node[parts[-1]] = value
    return out


def _with_values(base: Any, changes: Mapping[str, Any], origin: str) -> Any:
    """``base`` with ``changes`` (dotted path -> value): its own ``with_values`` (which
    checks every path and value), else set in its nested mappings; ComponentError naming a
    path the data does not have."""
    if callable(getattr(base, "with_values", None)):
        return base.with_values(changes, origin=origin)
    data = base
    for path, value in changes.items():
        try:
            data = set_value(data, path, value)
        except (KeyError, TypeError):
            raise ComponentError(origin, path, "no such key") from None
    return data


def _data(base: Any) -> Any:
    """The nested data of components: a Components' ``data``, else the data itself."""
    return base.data if hasattr(base, "with_values") else base


def _fmt_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).replace("'", '"')


@dataclass
class Variant:
    """One set of component values: ``changes`` maps dotted paths to values."""

    name: str
    changes: dict[str, Any]
    components: Any  # the game's component data (its load_components)
    baseline: bool = False


def variant_combinations(
    sets: Sequence[tuple[str, Sequence[Any]]],
    mode: str = "grid",
    origin: str = "--set",
    max_variants: int = MAX_VARIANTS,
) -> list[tuple]:
    """The value combinations of ``sets`` = ``[(path, [values...]), ...]``: every combination
    (``"grid"``) or the i-th values together (``"zip"``), in order. Any game's sweep checks its
    ``--set`` lists here: :class:`BnbError` for an empty sweep, a path set twice, a zip of
    unequal lengths or too many variants, :class:`ComponentError` for a path without values.
    """
    sets = [(str(p), list(v)) for p, v in sets]
    if not sets:
        raise BnbError("sweep: nothing to sweep; give --set PATH=V1,V2,...")
    paths = [p for p, _ in sets]
    if len(set(paths)) != len(paths):
        dup = next(p for p in paths if paths.count(p) > 1)
        raise BnbError(f"sweep: path '{dup}' is set twice")
    for path, values in sets:
        if not values:
            raise ComponentError(origin, path, "no values to sweep")
    if mode == "zip":
        lengths = {len(v) for _, v in sets}
        if len(lengths) != 1:
            raise BnbError(
                "sweep: --zip needs the same number of values for every --set, got "
                + ", ".join(f"{p}: {len(v)}" for p, v in sets)
            )
        combos = list(zip(*[v for _, v in sets], strict=True))
    elif mode == "grid":
        total = math.prod(len(v) for _, v in sets)
        if total > max_variants:
            raise BnbError(
                f"sweep: {' x '.join(str(len(v)) for _, v in sets)} = {total} variants; "
                f"the limit is {max_variants} besides the baseline (use fewer values, or --zip)"
            )
        combos = list(itertools.product(*[v for _, v in sets]))
    else:
        raise BnbError(f"sweep: mode must be 'grid' or 'zip', got '{mode}'")
    if len(combos) > max_variants:
        raise BnbError(
            f"sweep: {len(combos)} variants; the limit is {max_variants} besides the baseline"
        )
    return combos


def build_variants(
    base,
    sets: Sequence[tuple[str, Sequence[Any]]],
    mode: str = "grid",
    origin: str = "--set",
    max_variants: int = MAX_VARIANTS,
) -> list[Variant]:
    """Variants of ``base`` (a Components) for ``sets`` = ``[(path, [values...]), ...]``.

    Variants come in grid (or zip) order; the baseline keeps its place when the file's values
    are among the swept ones and comes first otherwise. Raises :class:`ComponentError` for a
    bad path or value and :class:`BnbError` for an empty sweep, a zip of unequal lengths or
    too many variants.
    """
    sets = [(str(p), list(v)) for p, v in sets]
    combos = variant_combinations(sets, mode, origin, max_variants)
    paths = [p for p, _ in sets]
    base_values = {p: _lookup(_data(base), p) for p in paths}
    variants: list[Variant] = []
    baseline: Variant | None = None
    for combo in combos:
        changes = dict(zip(paths, combo, strict=True))
        comps = _with_values(base, changes, origin)  # validates every path (and value)
        name = ", ".join(f"{p}={_fmt_value(v)}" for p, v in changes.items())
        is_base = all(
            base_values[p] == v and type(base_values[p]) is type(v) for p, v in changes.items()
        )
        if is_base and baseline is None:
            baseline = Variant(f"{name} (baseline)", changes, base, baseline=True)
            variants.append(baseline)
        else:
            variants.append(Variant(name, changes, comps))
    if baseline is None:  # the file's values are not among the swept ones: play them first
        shown = ", ".join(f"{p}={_fmt_value(base_values[p])}" for p in paths)
        variants.insert(0, Variant(f"{shown} (baseline)", dict(base_values), base, baseline=True))
    return variants


def game_variants(
    game: Any, base: Any, sets: Sequence[tuple[str, Sequence[Any]]], mode: str = "grid"
) -> list[Variant]:
    """The variants of ``game`` (a protocol object) for ``sets``: its own ``sweep_variants``
    hook (``[(label, components)]``, the first the baseline: the others are paired against
    it), else :func:`build_variants`."""
    own = getattr(game, "sweep_variants", None)
    if not callable(own):
        return build_variants(base, sets, mode)
    pairs = list(own(base, sets, mode))
    combos = variant_combinations(sets, mode)
    paths = [str(p) for p, _ in sets]
    # the values of each variant when the hook lists the baseline and then every combination
    changes = [{}, *(dict(zip(paths, c, strict=True)) for c in combos)]
    if len(changes) != len(pairs):  # it merged the baseline with a combination: by label
        changes = [{} for _ in pairs]
    return [
        Variant(label, values, comps, baseline=i == 0)
        for i, ((label, comps), values) in enumerate(zip(pairs, changes, strict=True))
    ]
