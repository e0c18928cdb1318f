"""Run directories on disk: ``run.json`` plus Parquet parts (``docs/run-format.md``).

Writing::

    with RunWriter("runs/r1", resume=args.resume, force=args.force) as writer:  # locks it
        writer.write_meta({..., "status": "partial", "parts": n_parts})   # first, before any part
        for k in writer.verify_parts(n_parts):                             # resume: re-check
            writer.write_part(k, seats_df, games_df)
        writer.finish()                                                    # status -> complete

Reading::

    seats, games, meta = load_run("runs/r1")                # every column
    seats, games, meta = load_run("runs/r1", seat_columns=["policy", "won"], game_columns=[])

Guarantees (docs/simulate.md, "Run folders"):

* **One writer.** A :class:`RunWriter` holds an ``flock`` on ``RUN/.bnb-sim.lock``
  (:mod:`bnb_sim.runner.lock`) from opening to :meth:`RunWriter.close`; the OS drops it when
  the process dies, SIGKILL included. A second writer gets a one-line RunError.
* **Atomic files.** Every file is written to a temporary name that starts with a dot in the
  same folder, fsynced and renamed with :func:`os.replace`, so a part (or ``run.json``) that
  exists is complete, and readers (pyarrow ignores dot files) never see a half-written one.
* **Verified parts.** Each part is stamped (Parquet key-value metadata: game range, row
  counts of both tables, the run's identity hash) and ``run.json`` records its checksum
  (:mod:`bnb_sim.runner.verify`). ``load_run`` checks every part it reads and
  :meth:`RunWriter.verify_parts` (resume) deletes and re-plays a torn or foreign one.
* **--force deletes only what bnb-sim wrote.** Only a folder with a valid ``run.json`` is
  overwritten, and only its ``run.json`` and ``part-*.parquet`` files are deleted.

Problems a user can cause (a folder that is not a run, bad or edited JSON, a corrupt or
foreign part, an existing folder that would be overwritten, a folder held by another process,
a read-only or full disk) raise :class:`~bnb_sim.errors.RunError` with a one-line message
that names the path. Frames that break the column contract raise ``ValueError``: that is a
bug in the caller, not a user error.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import re
import stat
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from bnb_sim.errors import ArgumentTypeError, RunError
from bnb_sim.runner.lock import LOCK_NAME, RunLock
from bnb_sim.runner.verify import (
    STAMP_KEY,
    PartProblem,
    RunShape,
    check_part,
    description_hash,
    identity_hash,
    make_stamp,
    sha256_bytes,
)
from bnb_sim.safe_io import UnreadableFile, check_text, load_json, write_atomic

FORMAT = 1
STATUSES = ("complete", "partial")
TABLES = ("seats", "games")
META_NAME = "run.json"
#: A larger run.json is refused (a million parts take about 400 MB).
MAX_META_BYTES = 1_000_000_000
_PART_RE = re.compile(r"^part-(\d{6,})\.parquet$")
_TMP_PREFIX = "."
_COMPRESSION = "zstd"

# The fixed columns of docs/run-format.md with their Arrow types.
SEAT_COLUMNS: dict[str, pa.DataType] = {
    "game": pa.int64(),
    "seat": pa.int8(),
    "player": pa.int8(),
    "policy": pa.string(),
    "n_players": pa.int8(),
    "board": pa.string(),
    "xp": pa.int32(),
    "xp_buildings": pa.int32(),
    "xp_mobs": pa.int32(),
    "xp_hoes": pa.int32(),
    "xp_round_a": pa.int32(),
    "xp_round_b": pa.int32(),
    "xp_round_c": pa.int32(),
    "xp_bonus_mobs": pa.int32(),
    "blocks_left": pa.int16(),
    "mobs_defeated": pa.int16(),
    "buildings_built": pa.int16(),
    "weapons_taken": pa.int16(),
    "fights": pa.int16(),
    "fights_won": pa.int16(),
    "tnt_detonated": pa.int16(),
    "hunger_spent": pa.int16(),
    "choice_a": pa.string(),
    "choice_b": pa.string(),
    "choice_c": pa.string(),
    "rank": pa.int8(),
    "won": pa.bool_(),
    "total_xp_after_a": pa.int16(),
    "total_xp_after_b": pa.int16(),
    "turns": pa.int16(),
}
# Per-species / per-type seat columns (names follow the component file): all int16.
SEAT_PREFIXES = ("fights_", "wins_", "defeated_", "built_")

GAME_COLUMNS: dict[str, pa.DataType] = {
    "game": pa.int64(),
    "n_players": pa.int8(),
    "turns": pa.int16(),
    "round_a_turn": pa.int16(),
    "round_b_turn": pa.int16(),
    "round_c_turn": pa.int16(),
    "winners": pa.int8(),
    "winner_policy": pa.string(),
    "first_policy": pa.string(),
    "cube_blocks_left": pa.int16(),
    "tiles_left": pa.int16(),
    "tokens_left": pa.int16(),
}

ColumnSelection = Sequence[str] | Callable[[str], bool] | None

#: The columns every part of every run ends with (both tables, every game), so rows of
#: several runs concatenated can be told apart: ``run_id`` (dictionary-encoded, so it costs a
#: few bytes per part on disk and an int8 code per row in memory) and the run's ``seed``.
RUN_COLUMNS: dict[str, pa.DataType] = {
    "run_id": pa.dictionary(pa.int8(), pa.string()),
    "seed": pa.int64(),
}
#: Parquet key-value metadata of each part that describes its run (beside the stamp).
RUN_KEY = b"bnb_sim.run"
_RUN_ID_DIGITS = 16


def run_id_of(meta: Mapping[str, Any]) -> str:
    """The run id of the run described by ``meta`` (run.json): 16 hex digits of the hash of
    what decides its rows, the identity hash (:func:`~bnb_sim.runner.verify.identity_hash`)
    without ``chunk_size``.

    It follows from the parameters, seed and components, like every row: runs that share it
    hold the same rows (the same command played twice, with other chunk sizes or threads, or
    on other machines and Dask), and runs that differ in anything that changes a row have
    different ids.
    """
    params = {k: v for k, v in (meta.get("params") or {}).items() if k != "chunk_size"}
    return identity_hash({**meta, "params": params}).split(":", 1)[-1][:_RUN_ID_DIGITS]


def run_info(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The run metadata written into each part (``bnb_sim.run``): run id, seed, version."""
    from bnb_sim import __version__

    info = {
        "run_id": run_id_of(meta),
        "seed": meta["params"]["seed"],
        "bnb_sim": __version__,
        "game": meta.get("game", "builders_biomes"),
        "kind": meta.get("kind"),
    }
    return info


def _with_run_columns(table: pa.Table, info: Mapping[str, Any]) -> pa.Table:
    """``table`` with the run columns (replaced if present: a legacy part being restamped)."""
    for name in RUN_COLUMNS:
        if name in table.column_names:
            table = table.drop_columns([name])
    n = table.num_rows
    run_id = pa.DictionaryArray.from_arrays(
        pa.array(np.zeros(n, np.int8)), pa.array([info["run_id"]], pa.string())
    )
    seed = pa.array(np.full(n, info["seed"], np.int64))
    return table.append_column(pa.field("run_id", RUN_COLUMNS["run_id"]), run_id).append_column(
        pa.field("seed", RUN_COLUMNS["seed"]), seed
    )


def has_run_columns(file: str | os.PathLike) -> bool:
    """Whether a part file has the run columns (parts written before they existed do not)."""
    try:
        names = pq.read_schema(file).names
    except (pa.ArrowException, OSError):
        return True  # not ours to judge: check_part reports a bad file
    return all(name in names for name in RUN_COLUMNS)


def part_name(k: int) -> str:
    """The file name of part ``k`` (``part-000003.parquet``)."""
    return f"part-{k:06d}.parquet"


#: ``run.json`` is rewritten with the new parts' checksums at most this often while a run
#: goes on (and always at the end or on an interruption); parts written since the last
#: update are decoded in full when they are checked.
META_FLUSH_SECONDS = 1.0
_VERIFY_THREADS = 4


def _is_tmp(name: str) -> bool:
    return name.startswith(_TMP_PREFIX) and ".tmp-" in name


# --------------------------------------------------------------------------------------
# run.json


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
    is one line. :func:`bnb_sim.runner.simulate.run_to_dir` adds how much is stored and how
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


# --------------------------------------------------------------------------------------
# what a folder is


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


# --------------------------------------------------------------------------------------
# writing


def _to_table(df: pd.DataFrame, fixed: dict[str, pa.DataType], prefixes: tuple[str, ...], kind):
    """``df`` as an Arrow table with the contract's types (ValueError if it breaks it)."""
    missing = [c for c in fixed if c not in df.columns]
    if missing:
        raise ValueError(f"{kind} frame lacks the contract columns {missing}")
    table = pa.Table.from_pandas(df, preserve_index=False)
    fields = []
    for field in table.schema:
        target = fixed.get(field.name)
        if target is None and field.name.startswith(prefixes):
            target = pa.int16()
        if target is None and pa.types.is_dictionary(field.type):
            target = field.type.value_type
        if target is None and pa.types.is_large_string(field.type):
            target = pa.string()
        fields.append(pa.field(field.name, target or field.type))
    try:
        return table.cast(pa.schema(fields), safe=True).replace_schema_metadata(None)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise ValueError(f"{kind} frame does not fit the column contract: {exc}") from None


def _encode(table: pa.Table) -> pa.Buffer:
    sink = pa.BufferOutputStream()
    # Statistics only for `game` (readers filter on it): computing min/max for every column
    # was a quarter of the encoding time. Page CRCs let a full decode find damaged bytes in
    # a part that has no checksum in run.json yet (verify.check_part).
    pq.write_table(
        table,
        sink,
        compression=_COMPRESSION,
        write_statistics=["game"],
        write_page_checksum=True,
    )
    return sink.getvalue()


def _game_range(games: pa.Table, rows_per_game: int = 1) -> tuple[int, int]:
    """``(first_game, n_games)`` of a games table; ValueError unless its game indices are
    consecutive and each has ``rows_per_game`` rows (1 for Builders & Biomes; one per pet
    team for Heroes of the Village)."""
    import pyarrow.compute as pc

    n = games.num_rows
    if n == 0:
        raise ValueError("a part must hold at least one game")
    counts = pc.value_counts(games["game"]).field("counts")
    lo, hi = pc.min_max(games["game"]).values()
    first, last = lo.as_py(), hi.as_py()
    fewest, most = (v.as_py() for v in pc.min_max(counts).values())
    if last - first + 1 != len(counts) or (fewest, most) != (rows_per_game, rows_per_game):
        raise ValueError(
            f"games frame holds {n} rows for games {first}..{last}, expected "
            f"{rows_per_game} row(s) for each game index"
        )
    return first, len(counts)


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


def _record(shape: RunShape, k: int, results: Mapping[str, Any]) -> dict[str, Any]:
    first, n_games = shape.part_range(k)
    return {"first_game": first, "n_games": n_games, **{t: results[t] for t in TABLES}}


def _check_parts(
    run: Path, parts: Iterable[int], shape: RunShape, records: Mapping[Any, Any]
) -> dict[int, dict[str, Any]]:
    """``{k: {table: record or PartProblem}}`` for both files of every part (in threads:
    hashing and footer reads release the GIL)."""

    def one(job):
        k, table = job
        record = records.get(k) or records.get(str(k))
        try:
            return (
                k,
                table,
                check_part(run / table / part_name(k), table, k, shape, (record or {}).get(table)),
            )
        except PartProblem as problem:
            return k, table, problem

    jobs = [(k, table) for k in parts for table in TABLES]
    out: dict[int, dict[str, Any]] = {}
    with ThreadPoolExecutor(max_workers=min(_VERIFY_THREADS, max(1, len(jobs)))) as pool:
        for k, table, result in pool.map(one, jobs):
            out.setdefault(k, {})[table] = result
    return out


def _refuse_extra_parts(run: Path, n_parts: int) -> None:
    for table in TABLES:
        extra = sorted(k for k in _part_indices(run, table) if k >= n_parts)
        if extra:
            raise RunError(
                f"{run / table / part_name(extra[0])}: not a part of this run (run.json says "
                f"it has {n_parts:,} parts); remove it"
            )


# --------------------------------------------------------------------------------------
# reading


def _part_indices(run: Path, table: str) -> set[int]:
    folder = run / table
    if not folder.is_dir():
        raise RunError(f"{run}: not a run directory (no {table}/ folder)")
    found = set()
    for entry in os.scandir(folder):
        match = _PART_RE.match(entry.name)
        if match:
            found.add(int(match.group(1)))
    return found


def run_parts(path: str | os.PathLike, meta: dict[str, Any] | None = None) -> list[int]:
    """The part indices to read: all of them for a complete run (RunError if one is missing),
    the ones present in both ``seats/`` and ``games/`` for a partial run. A part file beyond
    run.json's ``parts`` is refused (it cannot belong to the run)."""
    run = Path(path)
    meta = read_meta(run) if meta is None else meta
    present = {table: _part_indices(run, table) for table in TABLES}
    n_parts = meta.get("parts")
    if n_parts is not None:
        _refuse_extra_parts(run, n_parts)
    if meta["status"] == "complete" and n_parts is not None:
        for table in TABLES:  # the extra ones are refused above: count, never range(n_parts)
            n_missing = n_parts - len(present[table])
            if n_missing:
                first = next(k for k in range(n_parts) if k not in present[table])
                raise RunError(
                    f"{run}: the run is marked complete but {n_missing:,} of {n_parts:,} "
                    f"{table} parts are missing (first: {table}/{part_name(first)})"
                )
        return list(range(n_parts))
    both = present["seats"] & present["games"]
    if n_parts is not None:
        both = {k for k in both if k < n_parts}
    return sorted(both)


def verify_run(path: str | os.PathLike, meta: dict[str, Any], parts: Sequence[int]) -> None:
    """RunError naming the first part of ``parts`` that is not a good part of this run
    (torn, damaged, foreign, a wrong game range or row count; :func:`check_part`)."""
    run = Path(path)
    results = _check_parts(run, parts, RunShape.of(meta), meta.get("part_files") or {})
    for k in parts:
        for table in TABLES:
            result = results[k][table]
            if isinstance(result, PartProblem):
                fix = "remove it, then " if result.kind == "in_the_way" else ""
                raise RunError(
                    f"{run / table / part_name(k)}: {result.describe()}; the run is not read "
                    f"({fix}`bnb simulate ... --resume` plays this part again)"
                )


def _select(columns: ColumnSelection, names: list[str], where: str) -> list[str]:
    if columns is None:
        return names
    if callable(columns):
        return [name for name in names if columns(name)]
    unknown = [c for c in columns if c not in names]
    if unknown:
        raise RunError(f"{where}: no column {unknown[0]!r} in this run")
    return list(columns)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _corrupt(file: str | Path, exc: BaseException) -> RunError:
    return RunError(f"{file}: corrupt Parquet part ({_first_line(exc)})")


def _read_table(run: Path, table: str, parts: Iterable[int], columns: ColumnSelection):
    files = [str(run / table / part_name(k)) for k in parts]
    try:
        schema = pq.read_schema(files[0])
    except (pa.ArrowException, OSError) as exc:
        raise _corrupt(files[0], exc) from None
    cols = _select(columns, schema.names, f"{run}/{table}")
    strings = [
        c
        for c in cols
        if pa.types.is_string(schema.field(c).type)
        or pa.types.is_large_string(schema.field(c).type)
    ]
    fmt = ds.ParquetFileFormat(read_options=ds.ParquetReadOptions(dictionary_columns=strings))
    try:
        data = ds.dataset(files, format=fmt).to_table(columns=cols, use_threads=True)
    except (pa.ArrowException, OSError) as exc:
        for file in files:  # find the culprit to name it
            try:
                pq.ParquetFile(file).read(columns=cols, use_threads=False)
            except (pa.ArrowException, OSError) as file_exc:
                raise _corrupt(file, file_exc) from None
        raise RunError(f"{run}/{table}: cannot read the parts ({_first_line(exc)})") from None
    return data.to_pandas(split_blocks=True, self_destruct=True)


def _cross_check(run: Path, meta: Mapping[str, Any], seats: pd.DataFrame, games: pd.DataFrame):
    """RunError if run.json's players or policies disagree with the rows read (a lying or
    mismatched run.json must never label the data)."""
    params = meta["params"]
    listed = set(params["policies"])
    if "policy" in seats.columns:
        found = {str(p) for p in pd.unique(seats["policy"])}
        if not found <= listed:
            raise RunError(
                f"{run / META_NAME}: 'params.policies' lists {sorted(listed)}, but the parts "
                f"hold {sorted(found - listed)}; run.json does not describe this data"
            )
    for frame in (seats, games):
        if "n_players" in frame.columns and len(frame):
            found = {int(n) for n in pd.unique(frame["n_players"])}
            if found != {int(params["players"])}:
                raise RunError(
                    f"{run / META_NAME}: 'params.players' is {params['players']}, but the parts "
                    f"hold games of {sorted(found)} players; run.json does not describe this data"
                )


def load_run(
    path: str | os.PathLike,
    seat_columns: ColumnSelection = None,
    game_columns: ColumnSelection = None,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """Load a run directory: ``(seats, games, meta)``.

    ``seat_columns`` / ``game_columns`` pick the columns to read: ``None`` for all, a list of
    names, or a predicate ``name -> bool``. Reading only what you need matters on big runs.
    Rows come in game order (part by part); string columns (``policy``, ``board``,
    ``choice_*``, ``winner_policy``, ...) are pandas categoricals. A partial run loads the
    parts that are complete.

    Every part read is verified first, both tables, whatever the columns asked for (its
    stamp, game range, row counts and run.json checksum; :mod:`bnb_sim.runner.verify`), and
    run.json is checked against the rows (players, policy labels). A complete run with a part
    missing, a corrupt or foreign part, a run.json that does not describe the data, or a run
    with no parts yet raise RunError naming the file.
    """
    from bnb_sim import _args

    _args.path(path, "path")
    for selection, name in ((seat_columns, "seat_columns"), (game_columns, "game_columns")):
        if selection is None or callable(selection):
            continue
        if not isinstance(selection, list | tuple) or not all(
            isinstance(c, str) for c in selection
        ):  # a bare string would be read as a list of letters
            raise ArgumentTypeError(
                f"{name} must be None, a list of column names or a predicate, "
                f"got {_args.show(selection)}"
            )
    run = Path(path)
    meta = read_meta(run)
    parts = run_parts(run, meta)
    if not parts:
        raise RunError(f"{run}: the run has no finished parts yet")
    verify_run(run, meta, parts)
    seats = _read_table(run, "seats", parts, seat_columns)
    games = _read_table(run, "games", parts, game_columns)
    _cross_check(run, meta, seats, games)
    return seats, games, meta
