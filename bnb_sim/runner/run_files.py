"""The files of a run directory and what a folder is: the names (``run.json``, ``seats/``,
``games/``, ``part-000003.parquet``), reading and checking ``run.json`` (:func:`read_meta`),
atomic writes and their one-line failure (:class:`WriteFailed`), and whether a path may be
opened as a run (:func:`folder_state`, :func:`check_target`).
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bnb_sim.errors import RunError
from bnb_sim.runner.lock import LOCK_NAME
from bnb_sim.safe_io import UnreadableFile, check_text, load_json, write_atomic

FORMAT = 1


STATUSES = ("complete", "partial")


TABLES = ("seats", "games")


META_NAME = "run.json"


#: A larger run.json is refused (a million parts take about 400 MB).
MAX_META_BYTES = 1_000_000_000


_PART_RE = re.compile(r"^part-(\d{6,})\.parquet$")


_TMP_PREFIX = "."


def part_name(k: int) -> str:
    """The file name of part ``k`` (``part-000003.parquet``)."""
    return f"part-{k:06d}.parquet"


def _is_tmp(name: str) -> bool:
    return name.startswith(_TMP_PREFIX) and ".tmp-" in name


def read_meta(path: str | os.PathLike) -> dict[str, Any]:
    """Read and check ``run.json`` of the run directory ``path``; RunError if it is not a run
    (missing, not JSON, a key of the wrong type, or parameters that do not match the run's
    identity hash: :func:`bnb_sim.runner.meta_check.check_meta`)."""
    from bnb_sim.runner.meta_check import check_meta

    run = Path(path)
    if folder_state(run, listing=False) == "missing":
        raise RunError(f"{run}: no such run directory")
    if not run.is_dir():
        raise RunError(f"{run}: not a run directory (it is a file)")
    file = run / META_NAME
    if not file.is_file():
        raise RunError(f"{run}: not a run directory (no {META_NAME})")
    try:
        meta = load_json(file, MAX_META_BYTES)
    except UnreadableFile as exc:
        raise RunError(f"{file}: {exc.reason}") from None
    if not isinstance(meta, dict):
        raise RunError(f"{file}: not a run description (expected a JSON object)")
    if meta.get("format") != FORMAT:
        raise RunError(
            f"{file}: unsupported run format {meta.get('format')!r} (this bnb-sim reads {FORMAT})"
        )
    if meta.get("status") not in STATUSES:
        raise RunError(
            f"{file}: 'status' is {meta.get('status')!r}, expected one of {', '.join(STATUSES)}"
        )
    parts = meta.get("parts")
    if parts is not None and (not isinstance(parts, int) or isinstance(parts, bool) or parts < 0):
        raise RunError(f"{file}: 'parts' is {parts!r}, expected a non-negative integer")
    check_meta(meta, file)
    return meta


def _json_default(value: Any) -> Any:
    """JSON for numpy scalars/arrays, paths and sets found in meta dicts."""
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"run.json: cannot store {type(value).__name__} value {value!r}")


class WriteFailed(RunError):
    """Writing a file of the run failed (disk full, read-only, a directory in the way).

    ``file`` is the file, ``errno`` the OS error number and ``reason`` its text; the message
    is one line. :func:`bnb_sim.runner.run_dir.run_to_dir` adds how much is stored and how
    to resume.
    """

    def __init__(self, file: Path, exc: OSError, doing: str = "write"):
        self.file = Path(file)
        self.errno = exc.errno
        self.reason = _os_reason(exc)
        super().__init__(f"{self.file}: cannot {doing} it ({self.reason})")

    @property
    def disk_full(self) -> bool:
        return self.errno in (errno.ENOSPC, errno.EDQUOT)


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, IsADirectoryError):
        return "a directory is in the way"
    return exc.strerror or type(exc).__name__


def _write_bytes_atomic(final: Path, data) -> None:
    """Write ``data`` to a new temporary sibling of ``final`` (never through a link), fsync
    it, rename it over ``final`` (:func:`bnb_sim.safe_io.write_atomic`).

    OSError (disk full, read-only, a directory at ``final``) becomes :class:`WriteFailed`;
    the temporary file is removed whatever happens.
    """
    try:
        write_atomic(final, data)
    except OSError as exc:
        raise WriteFailed(final, exc) from None


def _check_path_text(run: Path) -> None:
    problem = check_text(run)
    if problem is not None:
        raise RunError(
            f"{run}: the folder's name {problem}; the Parquet library cannot open files "
            "there: rename it"
        )


def _unlink_quietly(file: Path) -> None:
    try:
        file.unlink(missing_ok=True)
    except OSError:
        pass


def _normalised(meta: Mapping[str, Any]) -> dict[str, Any]:
    """``meta`` as it reads back from JSON (numpy scalars, tuples, paths made plain)."""
    return json.loads(json.dumps(meta, default=_json_default))


def folder_state(path: str | os.PathLike, *, listing: bool = True) -> str:
    """``missing``, ``file``, ``empty``, ``run`` (has run.json) or ``foreign``.

    ``empty`` also covers what a writer leaves when it is killed before writing ``run.json``:
    the lock file, empty ``seats/`` and ``games/`` folders and temporary files. Without
    ``listing``, a folder is just ``folder``. RunError for a path that cannot be used (too
    long, not UTF-8, ...).
    """
    run = Path(path)
    _check_path_text(run)
    try:
        info = os.stat(run)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:  # a name too long, a loop of links, a file used as a folder...
        raise RunError(f"{run}: cannot use this path ({_os_reason(exc)})") from None
    if not stat.S_ISDIR(info.st_mode):
        return "file"
    if not listing:
        return "folder"
    try:
        listing = os.listdir(run)
    except OSError as exc:
        raise RunError(f"{run}: cannot read the folder ({_os_reason(exc)})") from None
    names = {n for n in listing if n != LOCK_NAME and not _is_tmp(n)}
    if META_NAME in names:
        return "run"
    for table in TABLES:
        folder = run / table
        if table in names and folder.is_dir():
            if all(_is_tmp(n) for n in os.listdir(folder)):
                names.discard(table)
    return "empty" if not names else "foreign"


def check_target(path: str | os.PathLike, *, resume: bool = False, force: bool = False) -> str:
    """RunError unless ``path`` may be opened as a run with these flags; returns its state.

    Nothing is created or changed: this runs before anything is played (and again, under the
    lock, when :class:`RunWriter` opens the folder).
    """
    run = Path(path)
    if resume and force:
        raise RunError("--resume and --force cannot be used together")
    state = folder_state(run)
    if state == "file":
        raise RunError(f"{run}: exists and is not a directory")
    if state == "foreign":
        if resume:
            raise RunError(f"{run}: not a run directory (no {META_NAME})")
        if force:
            raise RunError(
                f"{run}: is not a run (no {META_NAME}); --force only overwrites a run "
                "bnb-sim wrote, so nothing was deleted"
            )
        raise RunError(
            f"{run}: already exists (a non-empty folder that is not a run); "
            "choose a new or empty folder"
        )
    if state == "run" and not (resume or force):
        raise RunError(
            f"{run}: already exists (a run); use --resume to continue it or --force to overwrite it"
        )
    if state == "run" and force:
        try:
            read_meta(run)
        except RunError as exc:
            raise RunError(
                f"{exc}; --force only overwrites a valid run, so nothing was deleted"
            ) from None
    return state


def _listdir(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _rmdir_quietly(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass
