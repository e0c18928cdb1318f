"""Third-party policies as entry points, shared by every game (pure Python: no numba).

A plugin package registers a :class:`~bnb_sim.plugins.Plugin` under the entry-point group
``bnb_sim.policies``; the plugin's ``game`` says which game it plays. Each game's policy parser
asks here for the names on offer (minus its own built-in names) and for the object behind a
name, and parses a plugin's parameters (``k=v,...`` or a small TOML file) with
:func:`parse_assignments`. Compiling a plugin (numba) lives in :mod:`bnb_sim.plugins`.
"""

from __future__ import annotations

import math
import stat
import warnings
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path

from bnb_sim.errors import PolicyError

ENTRY_POINT_GROUP = "bnb_sim.policies"
MAX_WEIGHT_FILE_BYTES = 64 * 1024

_SHADOW_WARNED: set[str] = set()


def entry_point_names(reserved: Iterable[str] = ()) -> list[str]:
    """Names registered under the ``bnb_sim.policies`` entry-point group (not imported).

    A plugin registered under a ``reserved`` (built-in) name can never be chosen: it is left
    out, with a warning that says so.
    """
    reserved = set(reserved)
    names = {ep.name for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    for name in sorted(names & reserved):
        if name not in _SHADOW_WARNED:
            _SHADOW_WARNED.add(name)
            warnings.warn(
                f"policy plugin '{name}' is shadowed by the built-in policy of that name and "
                "cannot be used; rename its entry point",
                stacklevel=3,
            )
    return sorted(names - reserved)


def load_entry_point(name: str, known: Callable[[], list[str]]):
    """Import the :class:`~bnb_sim.plugins.Plugin` the entry point ``name`` names;
    ``known()`` lists the choices for the error message when there is none."""
    from bnb_sim.plugins import Plugin

    matches = [ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not matches:
        raise PolicyError(f"unknown policy '{name}' (known: {', '.join(known())})")
    try:
        obj = matches[0].load()
    except Exception as exc:  # a broken third-party package must not give a traceback
        raise PolicyError(f"policy plugin '{name}' failed to import: {exc}") from None
    if not isinstance(obj, Plugin):
        raise PolicyError(
            f"policy plugin '{name}' must point to a bnb_sim.plugins.Plugin, "
            f"got {type(obj).__name__}"
        )
    return obj


def parse_number(text: str, where: str) -> float:
    """A finite float, or a :class:`PolicyError` that says where the bad text was."""
    try:
        value = float(text)
    except ValueError:
        raise PolicyError(f"{where}: '{text}' is not a number") from None
    if not math.isfinite(value):
        raise PolicyError(f"{where}: '{text}' is not a finite number")
    return value


def read_small_toml(path: Path, where: str, weights_table: bool = True) -> dict:
    """A policy's parameter file: a regular UTF-8 TOML file of at most 64 KiB (its
    ``[weights]`` table when it has one and ``weights_table``)."""
    from bnb_sim.toml_files import tomllib

    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO or a device would hang or never end
            raise PolicyError(f"{where}: {path} is not a regular file")
        if path.stat().st_size > MAX_WEIGHT_FILE_BYTES:
            raise PolicyError(f"{where}: file {path} is larger than 64 KiB")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PolicyError(f"{where}: cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise PolicyError(f"{where}: {path} is not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise PolicyError(f"{where}: {path}: {exc}") from None
    if weights_table and "weights" in data and isinstance(data["weights"], dict):
        data = data["weights"]
    return data


def parse_assignments(arg: str, names: list[str], where: str) -> dict[str, float]:
    """``a=1,b=2`` or a TOML file (``*.toml``) into a name -> value mapping, names checked."""
    if arg.endswith(".toml"):
        raw = read_small_toml(Path(arg), where)
        values = {}
        for key, value in raw.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise PolicyError(f"{where}: weight '{key}' must be a number")
            values[key] = parse_number(str(value), f"{where}: weight '{key}'")
    else:
        values = {}
        for part in arg.split(","):
            if not part.strip():
                raise PolicyError(f"{where}: empty assignment in '{arg}'")
            if "=" not in part:
                raise PolicyError(f"{where}: '{part}' is not NAME=VALUE (or a .toml file)")
            key, text = (s.strip() for s in part.split("=", 1))
            if key in values:
                raise PolicyError(f"{where}: weight '{key}' is given twice")
            values[key] = parse_number(text, f"{where}: weight '{key}'")
    unknown = [key for key in values if key not in names]
    if unknown:
        raise PolicyError(f"{where}: unknown weight '{unknown[0]}' (known: {', '.join(names)})")
    return values
