"""Strict JSON for everything bnb-sim writes (``--json``, summary.json, run.json, tune.json).

Python's ``json`` writes ``NaN`` and ``Infinity`` by default, which no strict parser (nor
the JSON standard) accepts. A figure without a value or an interval is ``null`` instead:
:func:`plain` turns NaN and ±inf into ``None`` (and numpy scalars and arrays into Python
values, tuples into lists, objects with a ``to_dict()`` into their dict), and :func:`dumps`
writes with ``allow_nan=False``, so a non-finite number that slipped through is an error
here rather than invalid JSON in a user's file. Imports nothing heavy.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["dumps", "plain"]


def plain(value: Any) -> Any:
    """``value`` as plain JSON data: NaN/inf -> None, numpy -> Python, tuples -> lists."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    tolist = getattr(value, "tolist", None)  # numpy scalars and arrays
    if callable(tolist) and type(value).__module__.startswith("numpy"):
        return plain(tolist())
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return plain(to_dict())
    if hasattr(value, "__float__"):  # Fraction, Decimal
        return plain(float(value))
    return str(value)


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` of :func:`plain` ``(value)``; never writes NaN or Infinity."""
    kwargs.pop("default", None)
    return json.dumps(plain(value), allow_nan=False, **kwargs)
