"""Heroes of the Village: the plausible ranges of the estimates (docs/components.md, "Ranges").

The data file's ``[[ranges]]`` entries (parsed by :mod:`bnb_sim.estimates`, the same form as
Builders & Biomes) give every estimated value a range or a set of choices and a reason;
:func:`estimate_ranges` resolves them against loaded components and :func:`with_estimate`
moves one estimate. Keys are the dotted paths ``bnb sweep --game hotv --set`` takes: a list
item by its index (``tiles.list.3.back.wood``) or, in ``[[mobs]]``, by its name
(``mobs.zombie.count``). Pure Python.
"""

from __future__ import annotations

import copy
from functools import partial

from bnb_sim.errors import ComponentError
from bnb_sim.estimates import Domain, Estimate, parse_ranges, resolve
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.safe_io import digits

ESTIMATE_LABEL = "estimate"  # the origin of a value moved by with_estimate


def _index(node: list, part: str) -> int:
    """A list item by index, or a table of the list by its ``name``."""
    # digits(), not str.isdigit: '²'.isdigit() is true and int('²') fails (review T1).
    if (i := digits(part)) is not None and i < len(node):
        return i
    named = [
        i for i, item in enumerate(node) if isinstance(item, dict) and item.get("name") == part
    ]
    if len(named) != 1:
        raise KeyError(part)
    return named[0]


def locate(data: dict, key: str) -> tuple[object, object]:
    """The container holding the value at dotted ``key`` and its index or name in it
    (KeyError when there is no such value)."""
    node: object = data
    parts = key.split(".")
    for part in parts[:-1]:
        if isinstance(node, list):
            node = node[_index(node, part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise KeyError(part)
    last: object = parts[-1]
    if isinstance(node, list):
        last = _index(node, parts[-1])
    elif not isinstance(node, dict) or last not in node:
        raise KeyError(key)
    return node, last


def set_value(data: dict, key: str, value: object) -> None:
    """Set the value at dotted ``key`` (KeyError when there is none)."""
    container, last = locate(data, key)
    container[last] = value  # type: ignore[index]


def take_ranges(layer: dict, label: str, index: int, into: list) -> dict:
    """Move a file's ``[[ranges]]`` into ``into``; return the layer without them."""
    if "ranges" not in layer:
        return layer
    layer = dict(layer)
    into += parse_ranges(layer.pop("ranges"), label, index)
    return layer


def faces_domain(numbers: bool) -> Domain:
    """The faces the validator accepts on a die (R-HV-11): 1 to MAX_FACES faces, each a
    symbol (arrow, illager, blank) or, on the Fight die, a number. (A module-level check
    with ``partial``, so components and a run config pickle for Dask.)"""
    return Domain(check=partial(_check_faces, numbers))


def _check_faces(numbers: bool, faces: object) -> str | None:
    if not isinstance(faces, list) or not 1 <= len(faces) <= L.MAX_FACES:
        return f"a die has 1 to {L.MAX_FACES} faces"
    for face in faces:
        if numbers and isinstance(face, int) and not isinstance(face, bool):
            if not 0 <= face < L.MAX_VALUE:
                return f"{face} is out of range (0 to {L.MAX_VALUE - 1})"
        elif face not in L.FACE_CODES:
            return f"{face!r} is not a face ({', '.join(L.FACE_CODES)})"
    return None


def estimate_ranges(comps) -> list[Estimate]:
    """Every estimated value of ``comps`` with its plausible range and reason."""
    values = {r["key"]: (r["value"], r["provenance"]) for r in comps.rows}
    return resolve(values, comps.ranges, origins=comps.origins, domain_of=comps.domains.get)


def with_estimate(comps, key: str, value: object, validate):
    """A copy of ``comps`` with the estimate at ``key`` moved to ``value`` (inside its
    range) and its balancing value moved the other way; validated again by ``validate(data,
    label)`` (the components module's own, which imports this one)."""
    est = next((e for e in comps.estimate_ranges() if e.key == key), None)
    if est is None:
        raise ComponentError("estimate", key, "no estimated value has this key")
    changes = est.changes(value)
    data = {k: copy.deepcopy(v) for k, v in comps.data.items() if not k.startswith("_")}
    for path, new in changes.items():
        set_value(data, path, copy.deepcopy(new))
    out = validate(data, f"{ESTIMATE_LABEL} {key}")
    out.source = f"{comps.source} + {ESTIMATE_LABEL} {key}={value}"
    later = 1 + max([0, *comps.origins.values(), *(r.file_index for r in comps.ranges)])
    out.ranges = list(comps.ranges)
    out.origins = {**comps.origins, **dict.fromkeys(changes, later)}
    return out
