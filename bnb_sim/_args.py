"""Argument checks at the boundary of the public Python API (pure Python).

Every public function checks its arguments before any kernel sees them: a wrong type raises
``TypeError`` and a value out of range :class:`~bnb_sim.errors.BnbError`, each with a
message that names the argument. Kernels index arrays without bounds checks, so nothing
unchecked may reach them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from bnb_sim.errors import ArgumentTypeError, BnbError


def show(value: Any, limit: int = 60) -> str:
    """repr of a user value, cut to ``limit`` characters (messages stay one line)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_int(value: Any) -> bool:
    """A Python or numpy integer, not a bool."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def integer(value: Any, name: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int in ``[low, high]`` (TypeError for a non-integer, even ``1.0``)."""
    if not is_int(value):
        raise ArgumentTypeError(f"{name} must be an integer, got {show(value)}")
    number = int(value)
    if (low is not None and number < low) or (high is not None and number > high):
        low_text = "" if low is None else f"{low:,}"
        high_text = "" if high is None else f"{high:,}"
        if low is not None and high is not None:
            raise BnbError(f"{name} must be between {low_text} and {high_text}, got {number:,}")
        bound = f"at least {low_text}" if low is not None else f"at most {high_text}"
        raise BnbError(f"{name} must be {bound}, got {number:,}")
    return number


def boolean(value: Any, name: str) -> bool:
    """``value`` as a bool; only True/False (and numpy bools): ``"no"`` is not False."""
    if not isinstance(value, bool | np.bool_):
        raise ArgumentTypeError(f"{name} must be True or False, got {show(value)}")
    return bool(value)


def text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{name} must be a string, got {show(value)}")
    return value


def path(value: Any, name: str) -> str | os.PathLike:
    """A file-system path (``str`` or ``os.PathLike``), not empty."""
    if not isinstance(value, str | os.PathLike):
        raise ArgumentTypeError(f"{name} must be a path (str or os.PathLike), got {show(value)}")
    if not os.fspath(value):
        raise BnbError(f"{name} must not be empty")
    return value


def given_options(options: Any, keywords: Mapping[str, Any]) -> dict[str, Any]:
    """A game's own options given as ``options={"pets": "all"}`` and/or as keywords
    (``pets="all"``): every study takes both spellings, as one mapping; a name given both
    ways is one line (which value was meant is not for the study to guess)."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
        raise ArgumentTypeError(f"options must be a mapping of NAME: VALUE, got {show(options)}")
    both = sorted(set(options) & set(keywords))
    if both:
        raise BnbError(f"option {both[0]!r} is given twice: in options= and as a keyword")
    return {**options, **keywords}
