"""Third-party policies as entry points, shared by every game (pure Python: no numba).

A plugin package registers a :class:`~bnb_sim.plugins.Plugin` under the entry-point group
``bnb_sim.policies``; the plugin's ``game`` says which game it plays. Each game's policy parser
asks here for the names on offer (minus its own built-in names) and for the object behind a
name, and parses a plugin's parameters (``k=v,...`` or a small TOML file) with
:func:`parse_assignments`. Compiling a plugin (numba) lives in :mod:`bnb_sim.plugins`.
"""

from __future__ import annotations

import math
import numbers
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
    obj = _import(matches[0], name)
    if not isinstance(obj, Plugin):
        raise PolicyError(
            f"policy plugin '{name}' must point to a bnb_sim.plugins.Plugin, "
            f"got {type(obj).__name__}"
        )
    check_default_params(obj.params, name)
    return obj


def _import(entry_point, name: str):
    """Import the object of ``entry_point``. Whatever the third-party module does on import
    is one PolicyError: an exception, ``sys.exit()`` (which must not end bnb-sim with
    success and no output) and a ``KeyboardInterrupt`` it raises itself; only a real Ctrl-C
    (a SIGINT that arrives during the import) stays an interruption."""
    sigint_seen: list[int] = []
    restore = _watch_sigint(sigint_seen)
    try:
        return entry_point.load()
    except KeyboardInterrupt:
        if sigint_seen:
            raise
        problem = "raised KeyboardInterrupt while it was imported (not a Ctrl-C)"
    except SystemExit as exc:
        problem = f"called sys.exit({exc.code!r}) while it was imported"
    except BaseException as exc:  # a broken third-party package must not give a traceback
        problem = f"failed to import: {first_line(exc) or type(exc).__name__}"
    finally:
        restore()
    raise PolicyError(f"policy plugin '{name}' {problem}")


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else ""


def _watch_sigint(seen: list[int]) -> Callable[[], None]:
    """Record SIGINTs (then handle them as before) until the returned ``restore()``."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    old = signal.getsignal(signal.SIGINT)

    def record(signum, frame):
        seen.append(signum)
        if callable(old):
            return old(signum, frame)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, record)
    return lambda: signal.signal(signal.SIGINT, old)


#: The most default parameters a plugin may declare (each becomes one float of its row).
MAX_PLUGIN_PARAMS = 64


def check_default_params(params, name: str) -> None:
    """A plugin's declared defaults are a mapping of names to finite numbers."""
    from collections.abc import Mapping

    where = f"policy plugin '{name}'"
    if not isinstance(params, Mapping):
        raise PolicyError(f"{where}: params must be a mapping of names to numbers")
    if len(params) > MAX_PLUGIN_PARAMS:
        raise PolicyError(f"{where}: {len(params)} params; at most {MAX_PLUGIN_PARAMS}")
    for key, value in params.items():
        if not isinstance(key, str) or not key.strip() or any(c in key for c in ",="):
            raise PolicyError(f"{where}: parameter name {key!r} is not a plain name")
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if not ok or not math.isfinite(value):
            raise PolicyError(
                f"{where}: default of parameter '{key}' must be a finite number, got {value!r:.40}"
            )


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
