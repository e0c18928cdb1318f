"""Reading TOML input files safely, shared by every game's component and experiment files.

Every failure is one :class:`~bnb_sim.errors.ComponentError` naming the file (and the key, where
there is one): a missing file, a directory or a FIFO, a file over 1 MB, bad UTF-8, a TOML syntax
error, absurd nesting. :func:`parse_assignment` reads one ``PATH=VALUE`` of ``--set`` (any
game's sweep and overrides). Pure Python.
"""

from __future__ import annotations

import os
import stat
import sys

from bnb_sim.errors import ComponentError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MAX_BYTES = 1_000_000  # refuse bigger files: no legitimate component file comes close
MAX_DEPTH = 12  # deepest legitimate nesting: mobs.<name>.tiles[i].provenance.<label> is 6

PathArg = str | os.PathLike


def clean(text: object, limit: int = 120) -> str:
    """One printable line, at most ``limit`` characters (user keys can be anything)."""
    s = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))
    return s if len(s) <= limit else s[: limit - 3] + "..."


def file_error(file: str, key: str, problem: str) -> ComponentError:
    return ComponentError(clean(file, 300), clean(key), clean(problem, 400))


def read_toml(path: PathArg) -> dict:
    """Parse one TOML file, refusing anything that is not a regular file under 1 MB."""
    label = os.fspath(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise file_error(label, "", "file not found") from None
    except OSError as exc:
        raise file_error(label, "", f"cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise file_error(label, "", "is a directory, not a component file")
    if not stat.S_ISREG(info.st_mode):
        raise file_error(label, "", "not a regular file")
    if info.st_size > MAX_BYTES:
        raise file_error(label, "", f"larger than {MAX_BYTES // 1_000_000} MB; refusing to read it")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise file_error(label, "", f"cannot read: {exc.strerror or exc}") from None
    return parse_toml(raw, label)


def parse_toml(raw: bytes | str, label: str) -> dict:
    """Parse TOML text (bytes are decoded as UTF-8); every failure is a ComponentError."""
    if len(raw) > MAX_BYTES:
        raise file_error(label, "", f"larger than {MAX_BYTES // 1_000_000} MB; refusing to read it")
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problem = f"not UTF-8 text (bad byte at offset {exc.start})"
            raise file_error(label, "", problem) from None
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise file_error(label, "", f"TOML syntax error: {exc}") from None
    except RecursionError:
        raise file_error(label, "", "nested too deeply") from None
    check_depth(data, label)
    return data


def check_depth(data: object, label: str) -> None:
    """Refuse absurdly nested data before anything recurses into it."""
    todo = [(data, 0)]
    while todo:
        obj, depth = todo.pop()
        if depth > MAX_DEPTH:
            raise file_error(label, "", f"nested more than {MAX_DEPTH} levels deep")
        if isinstance(obj, dict):
            todo.extend((v, depth + 1) for v in obj.values())
        elif isinstance(obj, list):
            todo.extend((v, depth + 1) for v in obj)


def parse_assignment(text: str, *, origin: str = "--set") -> tuple[str, object]:
    """Split ``"mobs.enderman.hearts=5"`` into a dotted path and a TOML value.

    The value is read as a TOML value (``5``, ``"x"``, ``[1, 2]``); anything that is not valid
    TOML is taken as a bare string, so ``bonus=type.bridge`` works.
    """
    path, eq, value = text.partition("=")
    path, value = path.strip(), value.strip()
    if not eq or not path or not value:
        raise file_error(origin, text, "expected PATH=VALUE, e.g. mobs.enderman.hearts=7")
    try:
        parsed = tomllib.loads(f"v = {value}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError):
        parsed = value
    return path, parsed
