"""Writing a run directory: :class:`RunWriter` creates or reopens the folder under its lock,
writes each part and ``run.json`` atomically, re-checks stored parts on resume and marks the
run complete (the guarantees are listed in :mod:`bnb_sim.runner.storage`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from bnb_sim.errors import RunError
from bnb_sim.runner.lock import RunLock
from bnb_sim.runner.parts import _check_parts, _record, _refuse_extra_parts
from bnb_sim.runner.run_columns import (
    GAME_COLUMNS,
    RUN_KEY,
    SEAT_COLUMNS,
    SEAT_PREFIXES,
    _encode,
    _game_range,
    _to_table,
    _with_run_columns,
    arrow_columns,
    has_run_columns,
    run_id_of,
    run_info,
)
from bnb_sim.runner.run_files import (
    _PART_RE,
    FORMAT,
    META_NAME,
    TABLES,
    WriteFailed,
    _is_tmp,
    _listdir,
    _normalised,
    _os_reason,
    _rmdir_quietly,
    _unlink_quietly,
    _write_bytes_atomic,
    check_target,
    part_name,
    read_meta,
)
from bnb_sim.runner.verify import (
    STAMP_KEY,
    PartProblem,
    RunShape,
    description_hash,
    identity_hash,
    make_stamp,
    sha256_bytes,
)

#: ``run.json`` is rewritten with the new parts' checksums at most this often while a run
#: goes on (and always at the end or on an interruption); parts written since the last
#: update are decoded in full when they are checked.
META_FLUSH_SECONDS = 1.0


class RunWriter:
    """Creates (or reopens) a run directory, holds its lock, writes parts and ``run.json``.

    * a new or empty folder: used as is;
    * a run (a folder with ``run.json``): RunError unless ``resume=True`` (its ``run.json``
      is read into :attr:`meta`; the caller checks that the parameters match, then
      :meth:`verify_parts` says which parts to play) or ``force=True`` (``run.json`` must be
      valid; it and the ``part-*.parquet`` files of ``seats/`` and ``games/`` are deleted,
      anything else is left alone; a directory where a part file would go is refused);
    * any other non-empty folder: RunError (``--force`` does not delete what bnb-sim did not
      write).

    ``resume=True`` on a folder that does not exist yet simply starts a new run. The folder
    is locked until :meth:`close` (or the end of a ``with`` block, or the process).

    The column contract of the tables (fixed columns with their Arrow types, and the prefixes
    of the int16 per-type columns) is the class's: a game with other columns subclasses the
    writer and sets them; everything else (lock, stamps, checksums, verification) is shared.
    """

    seat_columns: Mapping[str, pa.DataType] = SEAT_COLUMNS
    seat_prefixes: tuple[str, ...] = SEAT_PREFIXES
    game_columns: Mapping[str, pa.DataType] = GAME_COLUMNS
    game_prefixes: tuple[str, ...] = ()

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        resume: bool = False,
        force: bool = False,
        notice: Callable[[str], None] | None = None,
    ):
        self.path = Path(path)
        self.meta: dict[str, Any] | None = None
        self.stored: dict[str, Any] | None = None  # run.json as found (resume)
        self._notice = notice
        self._records: dict[int, dict[str, Any]] = {}
        self.written = 0  # parts written by this writer
        self._last_flush = time.monotonic()
        self._dirty = False
        run = self.path
        check_target(run, resume=resume, force=force)
        try:
            run.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunError(f"{run}: cannot create the run directory ({_os_reason(exc)})") from None
        self._lock = RunLock(run).acquire()
        try:
            self._open(resume=resume, force=force)
        except BaseException:
            self._lock.release(remove=self._lock.created)
            raise

    def _open(self, *, resume: bool, force: bool) -> None:
        run = self.path
        state = check_target(run, resume=resume, force=force)  # again, now that we hold it
        if state == "run" and resume:
            self.stored = read_meta(run)
            self.meta = self.stored
            self._records = {int(k): v for k, v in (self.stored.get("part_files") or {}).items()}
        elif state == "run" and force:
            self._clear_run()
        try:
            for table in TABLES:
                folder = run / table
                if folder.exists() and not folder.is_dir():
                    raise RunError(f"{folder}: is in the way (not a folder)")
                folder.mkdir(exist_ok=True)
                for name in os.listdir(folder):
                    if _is_tmp(name) and name[1:].startswith("part-"):
                        (folder / name).unlink(missing_ok=True)  # left by a killed writer
            for name in os.listdir(run):
                if _is_tmp(name) and name[1:].startswith(META_NAME):
                    (run / name).unlink(missing_ok=True)
        except OSError as exc:
            raise RunError(f"{run}: cannot create the run directory ({_os_reason(exc)})") from None

    def _own_part_files(self) -> list[Path]:
        """The part and temporary files of this run; RunError if a directory or link sits
        where a part file would be (bnb-sim never deletes what it did not write)."""
        files = []
        for table in TABLES:
            folder = self.path / table
            if not folder.exists():
                continue
            if not folder.is_dir():
                raise RunError(f"{folder}: is in the way (not a folder)")
            for entry in os.scandir(folder):
                if _PART_RE.match(entry.name) or (_is_tmp(entry.name) and "part-" in entry.name):
                    if not entry.is_file(follow_symlinks=False):
                        raise RunError(
                            f"{entry.path}: is in the way (a directory or link, not a part "
                            "bnb-sim wrote); remove it and try again"
                        )
                    files.append(Path(entry.path))
        return files

    def _clear_run(self) -> None:
        """--force: delete run.json and the part files (all checked before any is deleted)."""
        files = self._own_part_files()
        try:
            for file in files:
                file.unlink(missing_ok=True)
            (self.path / META_NAME).unlink(missing_ok=True)
        except OSError as exc:
            raise RunError(f"{self.path}: cannot delete the old run ({_os_reason(exc)})") from None

    # ----------------------------------------------------------------------------------

    def part_path(self, table: str, k: int) -> Path:
        return self.path / table / part_name(k)

    def has_part(self, k: int) -> bool:
        """Whether both files of part ``k`` exist (not whether they are good: verify_parts)."""
        return all(self.part_path(table, k).is_file() for table in TABLES)

    def missing_parts(self, n_parts: int) -> list[int]:
        """The part indices in ``range(n_parts)`` whose files do not both exist."""
        return [k for k in range(n_parts) if not self.has_part(k)]

    def verify_parts(self, n_parts: int, meta: Mapping[str, Any] | None = None) -> list[int]:
        """Check both files of every existing part; return the parts still to be played.

        A torn, damaged or foreign part (another run's, a wrong game range or row count, a
        checksum that differs from run.json) is deleted and reported through ``notice`` (or a
        warning), and comes back as to be played; a part with only one of its two files
        (a writer killed in between) too. ``meta`` is the run.json about to be written
        (default: :attr:`meta`). RunError if a directory or link is where a part file goes,
        or a part file beyond ``n_parts`` is in the folder.
        """
        meta = _normalised(meta if meta is not None else (self.meta or {}))
        shape = RunShape.of(meta)
        legacy = self.stored is not None and "identity" not in self.stored
        shape = dataclasses.replace(shape, legacy=legacy)
        self._own_part_files()  # refuses anything in the way first
        _refuse_extra_parts(self.path, n_parts)
        results = _check_parts(self.path, range(n_parts), shape, self._records)
        todo = []
        for k in range(n_parts):
            problems = {t: r for t, r in results[k].items() if isinstance(r, PartProblem)}
            if not problems:
                self._records[k] = _record(shape, k, results[k])
                if legacy or not all(has_run_columns(self.part_path(t, k)) for t in TABLES):
                    self._restamp(k, shape)  # parts of an older bnb-sim get the run columns
                continue
            self._records.pop(k, None)
            todo.append(k)
            if all(p.kind == "missing" for p in problems.values()):
                for table in TABLES:  # one file of the two: a writer killed in between
                    _unlink_quietly(self.part_path(table, k))
                continue
            table, problem = next((t, p) for t, p in problems.items() if p.kind != "missing")
            self._say(f"{self.part_path(table, k)}: {problem.describe()}; playing part {k} again")
            for t in TABLES:
                try:
                    self.part_path(t, k).unlink(missing_ok=True)
                except OSError as exc:
                    raise WriteFailed(self.part_path(t, k), exc, "delete") from None
        self._dirty = True
        return todo

    def _restamp(self, k: int, shape: RunShape) -> None:
        """Rewrite a verified part of a legacy run (or of an older bnb-sim) with its stamp and
        the run columns (one decode and encode)."""
        tables = {t: pq.read_table(self.part_path(t, k)) for t in TABLES}
        self._write_tables(k, tables, shape.identity)

    def _say(self, message: str) -> None:
        if self._notice is not None:
            self._notice(message)
        else:
            warnings.warn(message, RuntimeWarning, stacklevel=3)

    def write_part(self, k: int, seats: pd.DataFrame, games: pd.DataFrame) -> None:
        """Write part ``k`` (seats first, then games; each file atomically, stamped and
        checksummed). Needs :meth:`write_meta` first (the stamp holds the run's identity)."""
        if not isinstance(k, int) or k < 0:
            raise ValueError(f"part index must be a non-negative int, got {k!r}")
        tables = {
            "seats": _to_table(seats, self.seat_columns, self.seat_prefixes, "seats"),
            "games": _to_table(games, self.game_columns, self.game_prefixes, "games"),
        }
        if self.meta is None:
            raise ValueError("write_meta must come before the first part")
        self._write_tables(k, tables, self.meta["identity"])

    def _write_tables(self, k: int, tables: dict[str, pa.Table], identity: str) -> None:
        """Stamp, encode, write and checksum both tables of part ``k`` (ValueError unless
        they hold this part's games with the rows the run's shape says)."""
        shape = RunShape.of(self.meta)
        first, n_games = _game_range(tables["games"], shape.rows("games", 1))
        if (first, n_games) != shape.part_range(k):
            raise ValueError(
                f"part {k} must hold games {shape.part_range(k)} (first, count), got "
                f"{(first, n_games)}"
            )
        rows = {t: data.num_rows for t, data in tables.items()}
        want = {t: shape.rows(t, n_games) for t in tables}
        if rows != want:
            raise ValueError(f"part {k} holds {rows} rows, its {n_games} games make {want}")
        record: dict[str, Any] = {"first_game": first, "n_games": n_games}
        info = run_info({**self.meta, "identity": identity})
        about = json.dumps(info)
        for table, data in tables.items():
            stamp = make_stamp(table, k, first, n_games, rows, identity)
            data = _with_run_columns(data, info)
            kv = {STAMP_KEY: json.dumps(stamp), RUN_KEY: about}
            buf = _encode(data.replace_schema_metadata(kv))
            _write_bytes_atomic(self.part_path(table, k), buf)
            record[table] = {"rows": rows[table], "bytes": buf.size, "sha256": sha256_bytes(buf)}
        self._records[k] = record
        self.written += 1
        self._dirty = True
        if time.monotonic() - self._last_flush >= META_FLUSH_SECONDS:
            self.flush()

    def write_meta(self, meta: dict[str, Any]) -> None:
        """Write ``run.json`` atomically; fills in ``format`` and ``status`` (``partial``), the
        run's ``identity`` hash, its ``run_id`` and the ``part_files`` records of the parts
        written so far."""
        meta = dict(meta)
        meta.setdefault("format", FORMAT)
        meta.setdefault("status", "partial")
        meta.pop("part_files", None)
        meta = _normalised(meta)
        meta["identity"] = identity_hash(meta)
        meta["description_hash"] = description_hash(meta)
        meta["run_id"] = run_id_of(meta)  # the parts' run_id column
        meta["part_files"] = {str(k): self._records[k] for k in sorted(self._records)}
        text = json.dumps(meta, indent=2) + "\n"
        _write_bytes_atomic(self.path / META_NAME, text.encode("utf-8"))
        self.meta = meta
        self._dirty = False
        self._last_flush = time.monotonic()

    def flush(self) -> None:
        """Write ``run.json`` again if parts were written since it was last written."""
        if self._dirty and self.meta is not None:
            self.write_meta(self.meta)

    def finish(self) -> None:
        """Mark the run complete; RunError if ``meta['parts']`` says parts are missing."""
        meta = self.meta if self.meta is not None else read_meta(self.path)
        n_parts = meta.get("parts")
        if n_parts is not None:
            if any(k not in self._records and self.has_part(k) for k in range(n_parts)):
                self.verify_parts(n_parts)  # parts of an earlier session nobody checked yet
            missing = [k for k in range(n_parts) if k not in self._records or not self.has_part(k)]
            if missing:
                raise RunError(
                    f"{self.path}: cannot mark the run complete, {len(missing)} of {n_parts} "
                    f"parts are missing (first: {part_name(missing[0])})"
                )
        self.write_meta({**meta, "status": "complete"})

    def discard(self, created: Sequence[Path] = ()) -> None:
        """Remove a new run that failed before its first part: run.json, part and temporary
        files, the table folders if empty, the lock file, and the folders in ``created``
        (deepest first) if empty. Errors are ignored: this runs while another error is
        being raised."""
        run = self.path
        try:
            for file in self._own_part_files():
                file.unlink(missing_ok=True)
        except (OSError, RunError):
            pass
        for file in [run / META_NAME, *(run / n for n in _listdir(run) if _is_tmp(n))]:
            _unlink_quietly(file)
        for table in TABLES:
            _rmdir_quietly(run / table)
        self._lock.release(remove=True)
        for folder in created:
            _rmdir_quietly(folder)

    def close(self) -> None:
        """Release the lock (run.json keeps the state of the last write)."""
        self._lock.release()

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def writer_class(plan: Any) -> type[RunWriter]:
    """The writer of ``plan``'s run: the column contract its game declares
    (``game.columns(config)``, and the prefixes of its per-type columns, its optional
    ``column_prefixes(config)``: none without it) for a plan played by a protocol object,
    else this module's own (a plan made by hand of the default game's config)."""
    if plan.game is None:
        return RunWriter
    seat_columns, game_columns = plan.game.columns(plan.config)
    own = getattr(plan.game, "column_prefixes", None)
    seat_prefixes, game_prefixes = own(plan.config) if callable(own) else ((), ())

    class ProtocolRunWriter(RunWriter):
        pass

    ProtocolRunWriter.seat_columns = arrow_columns(seat_columns)
    ProtocolRunWriter.seat_prefixes = tuple(seat_prefixes)
    ProtocolRunWriter.game_columns = arrow_columns(game_columns)
    ProtocolRunWriter.game_prefixes = tuple(game_prefixes)
    return ProtocolRunWriter
