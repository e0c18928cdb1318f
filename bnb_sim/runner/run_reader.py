"""Reading a run directory: :func:`load_run` verifies every part it reads, loads the columns
asked for as pandas frames (strings as categoricals) and checks run.json against the rows.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from bnb_sim.errors import ArgumentTypeError, RunError
from bnb_sim.runner.parts import run_parts, verify_run
from bnb_sim.runner.run_files import META_NAME, part_name, read_meta

ColumnSelection = Sequence[str] | Callable[[str], bool] | None


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
