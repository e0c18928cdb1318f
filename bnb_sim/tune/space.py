"""Parameter spaces of a tuning run.

A :class:`Space` is an ordered list of parameters, each one of

* :class:`Continuous` ``[lo, hi]`` (a policy weight): searched by CMA-ES in the unit cube,
  ``x = (value - lo) / (hi - lo)``;
* :class:`Integer` ``lo..hi`` (a component count, a search bot's budget): a discrete
  parameter whose values are ``lo, lo+1, ..., hi``;
* :class:`Categorical` (a list of values: a bonus target, a board's spaces): discrete.

A *point* is a ``{name: value}`` dict in the space's order. Continuous spaces (at least one
continuous parameter) go to CMA-ES (integers are rounded there); purely discrete spaces go to
NTBEA or an exhaustive grid (:mod:`bnb_sim.tune.search`).

``--param`` syntax (both commands)::

    NAME=LO..HI        a range: integers for component values, reals for policy weights
    NAME=V1,V2,...     a list of values (categorical; component values only)

Pure Python.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bnb_sim.errors import BnbError

__all__ = [
    "Categorical",
    "Continuous",
    "Integer",
    "Param",
    "Space",
    "parse_range",
]

MAX_DISCRETE_VALUES = 1000


class Param:
    name: str

    @property
    def discrete(self) -> bool:
        return not isinstance(self, Continuous)

    def values(self) -> list[Any]:  # discrete parameters only
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def to_dict(self) -> dict:
        raise NotImplementedError


@dataclass(frozen=True)
class Continuous(Param):
    name: str
    lo: float
    hi: float

    def __post_init__(self):
        if not (math.isfinite(self.lo) and math.isfinite(self.hi) and self.lo < self.hi):
            raise BnbError(f"tune: --param {self.name}: need LO < HI, got {self.lo:g}..{self.hi:g}")

    def to_unit(self, value: float) -> float:
        return (float(value) - self.lo) / (self.hi - self.lo)

    def from_unit(self, x: float) -> float:
        x = min(max(float(x), 0.0), 1.0)
        return round(self.lo + x * (self.hi - self.lo), 6)

    def describe(self) -> str:
        return f"{self.name} in [{self.lo:g}, {self.hi:g}]"

    def to_dict(self) -> dict:
        return {"name": self.name, "type": "continuous", "lo": self.lo, "hi": self.hi}


@dataclass(frozen=True)
class Integer(Param):
    name: str
    lo: int
    hi: int

    def __post_init__(self):
        if not self.lo < self.hi:
            raise BnbError(f"tune: --param {self.name}: need LO < HI, got {self.lo}..{self.hi}")
        if self.hi - self.lo + 1 > MAX_DISCRETE_VALUES:
            raise BnbError(
                f"tune: --param {self.name}: {self.hi - self.lo + 1} values; "
                f"at most {MAX_DISCRETE_VALUES}"
            )

    def values(self) -> list[int]:
        return list(range(self.lo, self.hi + 1))

    def to_unit(self, value: float) -> float:
        return (float(value) - self.lo) / (self.hi - self.lo)

    def from_unit(self, x: float) -> int:
        x = min(max(float(x), 0.0), 1.0)
        return int(round(self.lo + x * (self.hi - self.lo)))

    def describe(self) -> str:
        return f"{self.name} in {self.lo}..{self.hi}"

    def to_dict(self) -> dict:
        return {"name": self.name, "type": "integer", "lo": self.lo, "hi": self.hi}


@dataclass(frozen=True)
class Categorical(Param):
    name: str
    choices: tuple

    def __post_init__(self):
        if len(self.choices) < 2:
            raise BnbError(f"tune: --param {self.name}: give at least two values")
        if len({repr(v) for v in self.choices}) != len(self.choices):
            raise BnbError(f"tune: --param {self.name}: a value is listed twice")

    def values(self) -> list[Any]:
        return list(self.choices)

    def describe(self) -> str:
        return f"{self.name} in {{{', '.join(_fmt(v) for v in self.choices)}}}"

    def to_dict(self) -> dict:
        return {"name": self.name, "type": "categorical", "choices": list(self.choices)}


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def param_from_dict(d: dict) -> Param:
    if d["type"] == "continuous":
        return Continuous(d["name"], float(d["lo"]), float(d["hi"]))
    if d["type"] == "integer":
        return Integer(d["name"], int(d["lo"]), int(d["hi"]))
    return Categorical(d["name"], tuple(d["choices"]))


@dataclass(frozen=True)
class Space:
    params: tuple[Param, ...]

    def __post_init__(self):
        if not self.params:
            raise BnbError("tune: nothing to tune; give --param NAME=LO..HI")
        names = [p.name for p in self.params]
        dup = next((n for n in names if names.count(n) > 1), None)
        if dup is not None:
            raise BnbError(f"tune: --param {dup} is given twice")

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.params]

    @property
    def discrete(self) -> bool:
        return all(p.discrete for p in self.params)

    @property
    def size(self) -> int:
        """Number of points of a discrete space (``inf`` with a continuous parameter)."""
        if not self.discrete:
            return math.inf
        return math.prod(len(p.values()) for p in self.params)

    def point_key(self, point: dict) -> str:
        return ", ".join(f"{n}={_fmt(point[n])}" for n in self.names)

    def to_dict(self) -> dict:
        return {"params": [p.to_dict() for p in self.params]}

    @classmethod
    def from_dict(cls, d: dict) -> Space:
        return cls(tuple(param_from_dict(p) for p in d["params"]))


def _number(text: str, what: str, integer: bool) -> float:
    text = text.strip()
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        kind = "an integer" if integer else "a number"
        raise BnbError(f"tune: --param {what}: '{text}' is not {kind}") from None
    if not math.isfinite(value):
        raise BnbError(f"tune: --param {what}: '{text}' is not a finite number")
    return value


def parse_range(text: str, *, integer: bool, allow_list: bool) -> tuple[str, Any]:
    """``NAME=LO..HI`` -> ``(NAME, (lo, hi))``; ``NAME=V1,V2`` -> ``(NAME, [v1, v2])``.

    Values of a list are TOML values (as for ``bnb sweep --set``): ``5``, ``"type.bridge"``,
    a bare word is a string.
    """
    name, eq, rest = str(text).partition("=")
    name, rest = name.strip(), rest.strip()
    if not eq or not name or not rest:
        raise BnbError(f"tune: --param '{text}': expected NAME=LO..HI or NAME=V1,V2,...")
    if ".." in rest and not rest.startswith(("[", '"', "'")):
        lo, _, hi = rest.partition("..")
        return name, (_number(lo, name, integer), _number(hi, name, integer))
    if not allow_list:
        raise BnbError(f"tune: --param '{text}': expected NAME=LO..HI (e.g. board=0..3)")
    from bnb_sim.analysis.sweep import parse_set_option

    return parse_set_option(f"{name}={rest}", origin="--param")


def discrete_param(name: str, spec) -> Param:
    """A component parameter from :func:`parse_range`'s value."""
    if isinstance(spec, tuple):
        lo, hi = spec
        return Integer(name, int(lo), int(hi))
    values = list(spec)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values) and values == list(
        range(min(values), max(values) + 1)
    ):
        return Integer(name, min(values), max(values))
    return Categorical(name, tuple(values))


def grid_points(space: Space) -> list[dict]:
    """Every point of a discrete space, in row-major order."""
    import itertools

    return [
        dict(zip(space.names, combo, strict=True))
        for combo in itertools.product(*[p.values() for p in space.params])
    ]


def check_names(names: Sequence[str], known: Sequence[str], what: str) -> None:
    unknown = [n for n in names if n not in known]
    if unknown:
        raise BnbError(
            f"tune: --param {unknown[0]}: not a parameter of {what} (known: {', '.join(known)})"
        )
