"""Typed, checked access to one table of an experiment file.

:class:`_Reader` reads a key as an int, float, string (or choice), list of strings or table
and fails with one :class:`~bnb_sim.errors.BnbError` line naming the file, the key and the
problem; every kind of item (here and in the games' own item modules) reads its table
through it.
:func:`_slug_ok` checks an item name; :data:`_REQUIRED` marks a key without a default.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from bnb_sim.errors import BnbError


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

    def folder(self, key: str, base_dir):
        """The path under ``key`` (None if absent), relative paths against the experiment
        file's folder ``base_dir``, normalised (``..`` resolved without following links)."""
        import os
        from pathlib import Path

        text = self.str(key, None)
        if text is None:
            return None
        path = Path(text).expanduser()
        if not path.is_absolute():
            path = Path(base_dir) / path
        return Path(os.path.normpath(path))

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


def _slug_ok(name: str) -> bool:
    return bool(re.fullmatch(r"[\w .,:+()=-]{1,80}", name))
