"""Run directories on disk: ``run.json`` plus Parquet parts (``docs/run-format.md``).

Writing::

    writer = RunWriter("runs/r1", resume=args.resume, force=args.force)
    writer.write_meta({..., "status": "partial", "parts": n_parts})   # first, before any part
    for k in writer.missing_parts(n_parts):
        writer.write_part(k, seats_df, games_df)
    writer.write_meta({**writer.meta, "timing": ...})
    writer.finish()                                                      # status -> complete

Reading::

    seats, games, meta = load_run("runs/r1")                # every column
    seats, games, meta = load_run("runs/r1", seat_columns=["policy", "won"], game_columns=[])

Every file is written to a temporary name that starts with a dot in the same folder and then
renamed with :func:`os.replace`, so a part (or ``run.json``) that exists is complete, and
readers (pyarrow ignores dot files) never see a half-written one.

Problems a user can cause (a folder that is not a run, bad JSON, a corrupt or missing part,
an existing folder that would be overwritten) raise :class:`~bnb_sim.errors.RunError` with a
one-line message that names the path. Frames that break the column contract raise
``ValueError``: that is a bug in the caller, not a user error.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from bnb_sim.errors import ArgumentTypeError, RunError

FORMAT = 1
STATUSES = ("complete", "partial")
TABLES = ("seats", "games")
META_NAME = "run.json"
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


def part_name(k: int) -> str:
    """The file name of part ``k`` (``part-000003.parquet``)."""
    return f"part-{k:06d}.parquet"


# --------------------------------------------------------------------------------------
# run.json


def read_meta(path: str | os.PathLike) -> dict[str, Any]:
    """Read and check ``run.json`` of the run directory ``path``; RunError if it is not a run."""
    run = Path(path)
    if not run.exists():
        raise RunError(f"{run}: no such run directory")
    if not run.is_dir():
        raise RunError(f"{run}: not a run directory (it is a file)")
    file = run / META_NAME
    if not file.is_file():
        raise RunError(f"{run}: not a run directory (no {META_NAME})")
    try:
        meta = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RunError(
            f"{file}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except UnicodeDecodeError:
        raise RunError(f"{file}: not valid JSON (not UTF-8 text)") from None
    except OSError as exc:
        raise RunError(f"{file}: cannot read it ({exc.strerror})") from None
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


def _atomic_write(final: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` for a temporary sibling of ``final``, fsync it, rename it over."""
    tmp = final.with_name(f"{_TMP_PREFIX}{final.name}.tmp-{os.getpid()}")
    try:
        write(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


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


class RunWriter:
    """Creates (or reopens) a run directory and writes its parts and ``run.json`` atomically.

    * a new or empty folder: used as is;
    * an existing, non-empty folder: RunError, unless ``resume=True`` (it must be a run; its
      ``run.json`` is read into :attr:`meta`, parts already written are kept; the caller checks
      that the parameters match) or ``force=True`` (it must look like a run: ``run.json``,
      ``seats/`` and ``games/`` are deleted, anything else in the folder is left alone).

    ``resume=True`` on a folder that does not exist yet simply starts a new run.
    """

    def __init__(self, path: str | os.PathLike, *, resume: bool = False, force: bool = False):
        if resume and force:
            raise RunError("--resume and --force cannot be used together")
        self.path = Path(path)
        self.meta: dict[str, Any] | None = None
        run = self.path
        if run.exists() and not run.is_dir():
            raise RunError(f"{run}: exists and is not a directory")
        if run.is_dir() and any(run.iterdir()):
            looks_like_run = any((run / name).exists() for name in (META_NAME, *TABLES))
            if resume:
                self.meta = read_meta(run)
            elif force:
                if not looks_like_run:
                    raise RunError(
                        f"{run}: exists and is not a run directory; refusing to overwrite it"
                    )
                (run / META_NAME).unlink(missing_ok=True)
                for table in TABLES:
                    shutil.rmtree(run / table, ignore_errors=True)
            else:
                what = "a run" if looks_like_run else "a non-empty folder"
                raise RunError(
                    f"{run}: already exists ({what}); use --resume to continue it "
                    "or --force to overwrite it"
                )
        try:
            for table in TABLES:
                (run / table).mkdir(parents=True, exist_ok=True)
                for stale in (run / table).glob(f"{_TMP_PREFIX}part-*.tmp-*"):
                    stale.unlink(missing_ok=True)
        except OSError as exc:
            raise RunError(f"{run}: cannot create the run directory ({exc.strerror})") from None

    def part_path(self, table: str, k: int) -> Path:
        return self.path / table / part_name(k)

    def has_part(self, k: int) -> bool:
        """Whether part ``k`` is complete (both its seats and games files exist)."""
        return all(self.part_path(table, k).is_file() for table in TABLES)

    def missing_parts(self, n_parts: int) -> list[int]:
        """The part indices in ``range(n_parts)`` that still have to be computed."""
        return [k for k in range(n_parts) if not self.has_part(k)]

    def write_part(self, k: int, seats: pd.DataFrame, games: pd.DataFrame) -> None:
        """Write part ``k`` (seats first, then games; each file atomically)."""
        if not isinstance(k, int) or k < 0:
            raise ValueError(f"part index must be a non-negative int, got {k!r}")
        tables = {
            "seats": _to_table(seats, SEAT_COLUMNS, SEAT_PREFIXES, "seats"),
            "games": _to_table(games, GAME_COLUMNS, (), "games"),
        }
        for table, data in tables.items():
            _atomic_write(
                self.part_path(table, k),
                # Statistics only for `game` (readers filter on it): computing min/max for
                # every column was a quarter of the encoding time.
                lambda tmp, data=data: pq.write_table(
                    data, tmp, compression=_COMPRESSION, write_statistics=["game"]
                ),
            )

    def write_meta(self, meta: dict[str, Any]) -> None:
        """Write ``run.json`` atomically; fills in ``format`` and ``status`` (``partial``)."""
        meta = dict(meta)
        meta.setdefault("format", FORMAT)
        meta.setdefault("status", "partial")
        text = json.dumps(meta, indent=2, default=_json_default) + "\n"
        _atomic_write(self.path / META_NAME, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        self.meta = meta

    def finish(self) -> None:
        """Mark the run complete; RunError if ``meta['parts']`` says parts are missing."""
        meta = self.meta if self.meta is not None else read_meta(self.path)
        n_parts = meta.get("parts")
        if n_parts is not None:
            missing = self.missing_parts(n_parts)
            if missing:
                raise RunError(
                    f"{self.path}: cannot mark the run complete, {len(missing)} of {n_parts} "
                    f"parts are missing (first: {part_name(missing[0])})"
                )
        self.write_meta({**meta, "status": "complete"})


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
    the ones present in both ``seats/`` and ``games/`` for a partial run."""
    run = Path(path)
    meta = read_meta(run) if meta is None else meta
    present = {table: _part_indices(run, table) for table in TABLES}
    n_parts = meta.get("parts")
    if meta["status"] == "complete" and n_parts is not None:
        for table in TABLES:
            missing = sorted(set(range(n_parts)) - present[table])
            if missing:
                raise RunError(
                    f"{run}: the run is marked complete but {len(missing)} of {n_parts} "
                    f"{table} parts are missing (first: {table}/{part_name(missing[0])})"
                )
        return list(range(n_parts))
    both = present["seats"] & present["games"]
    if n_parts is not None:
        both = {k for k in both if k < n_parts}
    return sorted(both)


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
    parts that are complete; a complete run with a part missing, a corrupt part, or a run
    with no parts yet raise RunError.
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
    seats = _read_table(run, "seats", parts, seat_columns)
    games = _read_table(run, "games", parts, game_columns)
    return seats, games, meta
