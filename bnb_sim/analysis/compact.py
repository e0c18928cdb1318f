"""Load a run for its report in little memory: only the columns the report reads, in the
smallest integer type that holds each column's values, filled part by part.

``load_run`` reads the whole run as one Arrow table and converts it (two copies of every
column at its stored width). A report of 1,000,000 4-player games took 1.3 GB that way. Here
each Parquet part is read on its own and copied into preallocated NumPy columns whose type
is the narrowest that holds the values read so far (a count of fights fits in int8, a game
index in int32; a column is widened when a later part needs it), and the frame is built on
those arrays without another copy. Memory then grows linearly with the number of games, at
about 47 bytes per player result (docs/simulate.md, "Reports: answers first").

Verification is the same as :func:`bnb_sim.runner.storage.load_run` (every part's stamp,
game range, row counts and checksum; run.json against the rows).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from bnb_sim.errors import RunError

_INT_TYPES = (np.int8, np.int16, np.int32, np.int64)


def smallest_int(lo: int, hi: int) -> np.dtype:
    """The narrowest signed integer type that holds ``lo .. hi``."""
    for dtype in _INT_TYPES:
        info = np.iinfo(dtype)
        if info.min <= lo and hi <= info.max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def _is_string(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_dictionary(t)


def read_compact(run: Path, table: str, parts: list[int], keep: Callable[[str], bool]):
    """One table of a run as a compact DataFrame (see the module docstring)."""
    from bnb_sim.runner.run_files import part_name
    from bnb_sim.runner.run_reader import _corrupt

    files = [run / table / part_name(k) for k in parts]
    try:
        handles = [pq.ParquetFile(f) for f in files]
    except (pa.ArrowException, OSError) as exc:
        bad = next((f for f in files if not _opens(f)), files[0])
        raise _corrupt(bad, exc) from None
    schema = handles[0].schema_arrow
    columns = [c for c in schema.names if keep(c)]
    strings = [c for c in columns if _is_string(schema.field(c).type)]
    ints = {c for c in columns if pa.types.is_integer(schema.field(c).type)}
    n_rows = sum(h.metadata.num_rows for h in handles)
    arrays: dict[str, np.ndarray] = {}
    ranges: dict[str, tuple[int, int]] = {}
    for c in columns:
        if c in strings:
            arrays[c] = np.empty(n_rows, np.int16)  # category codes, narrowed at the end
        elif c in ints:  # starts narrow, widened (once or twice) when a part needs it
            arrays[c] = np.empty(n_rows, np.int8)
            ranges[c] = (0, 0)
        else:
            arrays[c] = np.empty(n_rows, schema.field(c).type.to_pandas_dtype())
    categories: dict[str, dict[str, int]] = {c: {} for c in strings}
    at = 0
    for file, handle in zip(files, handles, strict=True):
        try:
            part = handle.read(columns=columns, use_threads=True)
        except (pa.ArrowException, OSError) as exc:
            raise _corrupt(file, exc) from None
        n = part.num_rows
        for c in columns:
            column = part.column(c)
            if c in strings:
                arrays[c][at : at + n] = _codes(column, categories[c])
            else:
                values = column.to_numpy()
                if c in ranges and n:
                    lo, hi = ranges[c]
                    lo, hi = min(lo, int(values.min())), max(hi, int(values.max()))
                    ranges[c] = (lo, hi)
                    wide = smallest_int(lo, hi)
                    if wide.itemsize > arrays[c].dtype.itemsize:
                        arrays[c] = arrays[c].astype(wide)  # the rows so far, widened
                arrays[c][at : at + n] = values
        at += n
        del part
    data: dict[str, Any] = {}
    for c in columns:
        if c in strings:
            labels = list(categories[c])
            codes = arrays.pop(c).astype(smallest_int(-1, max(len(labels), 1)), copy=False)
            data[c] = pd.Categorical.from_codes(codes, categories=labels)
        else:
            data[c] = arrays.pop(c)
    return pd.DataFrame(data, copy=False)


def _opens(file: Path) -> bool:
    try:
        pq.ParquetFile(file)
        return True
    except (pa.ArrowException, OSError):
        return False


def _codes(column: pa.ChunkedArray, mapping: dict[str, int]) -> np.ndarray:
    """Codes of a string column into the run-wide category list ``mapping`` (extended)."""
    encoded = column.combine_chunks().dictionary_encode()
    local = encoded.dictionary.to_pylist()
    lookup = np.array([mapping.setdefault(v, len(mapping)) for v in local] or [0], np.int32)
    indices = encoded.indices.to_numpy(zero_copy_only=False)
    if encoded.null_count:
        raise RunError("a string column has missing values")  # the writer never stores any
    return lookup[indices]


def load_for_report(
    path: str | os.PathLike,
    seat_columns: Callable[[str], bool],
    game_columns: Callable[[str], bool],
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """``(seats, games, meta)`` like :func:`bnb_sim.runner.storage.load_run`, compact."""
    from bnb_sim.runner.parts import run_parts, verify_run
    from bnb_sim.runner.run_files import read_meta
    from bnb_sim.runner.run_reader import _cross_check

    run = Path(path)
    meta = read_meta(run)
    parts = run_parts(run, meta)
    if not parts:
        raise RunError(f"{run}: the run has no finished parts yet")
    verify_run(run, meta, parts)
    from bnb_sim.feedback import status

    status(f"reading {run} ({len(parts)} verified part(s))")
    seats = read_compact(run, "seats", parts, seat_columns)
    games = read_compact(run, "games", parts, game_columns)
    pa.default_memory_pool().release_unused()  # the parts' buffers, kept by Arrow's pool
    _cross_check(run, meta, seats, games)
    return seats, games, meta
