"""Reading and writing files that come from users, safely (pure Python, standard library only).

Every loader of untrusted files and every writer into folders a user may have received from
someone else goes through here, so the same hostile inputs are refused the same way:

* :func:`digits` reads a whole number from text the way a user means it: ASCII digits only
  (``'²'.isdigit()`` is true, but ``int('²')`` fails) and at most 18 of them.
* :func:`read_bytes` reads a regular file of bounded size: a FIFO, a device (``/dev/zero``),
  a folder or a file over the limit is refused before anything blocks or fills memory.
  :func:`load_json` and :func:`load_toml` parse such a file and refuse absurd nesting (which
  would otherwise end in ``RecursionError`` in the parser or in the code that walks it).
  Each failure is an :class:`UnreadableFile` whose ``reason`` the caller puts in its own
  one-line error, naming the file (and the key) its own way.
* :func:`write_atomic` writes a file whole or not at all: into a new temporary file of a
  unique name, created exclusively and never through a link, fsynced, then renamed over the
  target (a rename replaces a link planted at the target instead of writing through it). A
  failure removes the temporary file.
* :func:`check_text` refuses text (a path, a title) that cannot be written as UTF-8: bytes
  of another encoding in a command-line argument arrive as lone surrogates.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
import sys
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: The most digits :func:`digits` reads (beyond this no index or count of ours can reach).
MAX_DIGITS = 18
#: Nesting deeper than this is refused in JSON and TOML documents (ours nest about 8 deep).
MAX_DEPTH = 64

PathArg = str | os.PathLike


class UnreadableFile(Exception):
    """A file that cannot be used; ``reason`` says why in a few words (no file name)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def digits(text: object) -> int | None:
    """``text`` as a non-negative integer when it is 1 to 18 ASCII digits, else None."""
    if not isinstance(text, str) or not 0 < len(text) <= MAX_DIGITS:
        return None
    if not (text.isascii() and text.isdigit()):
        return None
    return int(text)


def size_text(limit: int) -> str:
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if limit >= size:
            return f"{limit / size:g} {unit}"
    return f"{limit} bytes"


def read_bytes(path: PathArg, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (links followed), at most ``limit`` of them.

    Opened without blocking, so a FIFO never hangs the caller; refused with
    :class:`UnreadableFile` when it is missing, a folder, not a regular file or too large.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise UnreadableFile("file not found") from None
    except OSError as exc:
        raise UnreadableFile(f"cannot read it ({_reason(exc)})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise UnreadableFile("is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile("is not a regular file (a pipe, a device or a socket)")
        if info.st_size > limit:
            raise UnreadableFile(f"is larger than {size_text(limit)}; refusing to read it")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew while we read it
                raise UnreadableFile(f"is larger than {size_text(limit)}; refusing to read it")
        return b"".join(chunks)
    except OSError as exc:
        raise UnreadableFile(f"cannot read it ({_reason(exc)})") from None
    finally:
        os.close(fd)


def check_depth(data: Any, limit: int = MAX_DEPTH) -> None:
    """UnreadableFile if lists and tables in ``data`` nest more than ``limit`` deep (walked
    without recursion)."""
    todo = [(data, 0)]
    while todo:
        obj, depth = todo.pop()
        if isinstance(obj, dict):
            items = obj.values()
        elif isinstance(obj, list):
            items = obj
        else:
            continue
        if depth >= limit:
            raise UnreadableFile(f"nested more than {limit} levels deep")
        todo.extend((item, depth + 1) for item in items)


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(f"not UTF-8 text (bad byte at offset {exc.start})") from None


def parse_json(raw: bytes | str, depth: int = MAX_DEPTH) -> Any:
    """JSON text (bytes as UTF-8) -> Python; UnreadableFile for bad text or deep nesting."""
    text = _text(raw) if isinstance(raw, bytes) else raw
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableFile(
            f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except RecursionError:
        raise UnreadableFile(f"nested more than {depth} levels deep") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise UnreadableFile(f"not valid JSON ({str(exc).splitlines()[0]})") from None
    check_depth(data, depth)
    return data


def parse_toml(raw: bytes | str, depth: int = MAX_DEPTH) -> dict:
    """TOML text (bytes as UTF-8) -> dict; UnreadableFile for bad text or deep nesting."""
    text = _text(raw) if isinstance(raw, bytes) else raw
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UnreadableFile(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise UnreadableFile(f"nested more than {depth} levels deep") from None
    check_depth(data, depth)
    return data


def load_json(path: PathArg, limit: int, depth: int = MAX_DEPTH) -> Any:
    """:func:`read_bytes` then :func:`parse_json`."""
    return parse_json(read_bytes(path, limit), depth)


def load_toml(path: PathArg, limit: int, depth: int = MAX_DEPTH) -> dict:
    """:func:`read_bytes` then :func:`parse_toml`."""
    return parse_toml(read_bytes(path, limit), depth)


def temp_name(final: PathArg) -> str:
    """A fresh hidden sibling name of ``final``: ``.NAME.tmp-PID-RANDOM``."""
    folder, name = os.path.split(os.fspath(final))
    return os.path.join(folder, f".{name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")


def create_new(path: PathArg, mode: int = 0o644) -> int:
    """A file descriptor of a newly created file (never an existing file, never a link)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    return os.open(path, flags, mode)


def write_atomic(final: PathArg, data: bytes | str, *, fsync: bool = True) -> None:
    """Write ``data`` (str as UTF-8) as ``final``, whole or not at all (module docstring).

    OSError on failure, with nothing left behind but what was there before."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    tmp = temp_name(final)
    try:
        fd = create_new(tmp)
        try:
            _write_all(fd, data)
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, final)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _write_all(fd: int, data) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def output_file_problem(path: PathArg) -> str | None:
    """Why a file cannot be written at ``path`` (None: it is new or a regular file). A FIFO
    or a device there would block the writer or swallow the file; a folder cannot be one."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot write there ({_reason(exc)})"
    if stat.S_ISREG(info.st_mode):
        return None
    return "cannot write there (it is " + (
        "a folder)" if stat.S_ISDIR(info.st_mode) else "not a regular file)"
    )


def check_text(text: object) -> str | None:
    """None when ``text`` (a str or a path) can be written as UTF-8; otherwise the problem."""
    value = os.fspath(text) if isinstance(text, os.PathLike) else text
    if isinstance(value, bytes):
        value = os.fsdecode(value)
    try:
        str(value).encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8 text (bytes of another encoding)"
    return None


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__
