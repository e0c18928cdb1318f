"""Export a run directory to CSV for spreadsheets: ``seats.csv``, ``games.csv``, ``run.csv``.

The Parquet parts are converted one at a time (memory stays at one part, whatever the run's
size) and each CSV is written under a temporary name and renamed, so an interrupted export
leaves no half-written file behind. ``run.csv`` lists the run's parameters (``run.json``) as
``key,value`` rows, nested values as JSON.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any

from bnb_sim.errors import BnbError, RunError
from bnb_sim.feedback import status

TABLES = ("seats", "games")


def _flatten(prefix: str, value: Any, rows: list[tuple[str, str]]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), item, rows)
    elif isinstance(value, (list, tuple)):
        rows.append((prefix, json.dumps(value, ensure_ascii=False)))
    else:
        rows.append((prefix, "" if value is None else str(value)))


def run_parameters(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """``run.json`` as ``(dotted key, text)`` rows (lists as JSON)."""
    rows: list[tuple[str, str]] = []
    _flatten("", meta, rows)
    return rows


def check_target(out: Path, force: bool) -> None:
    """A target folder must be new, empty, or replaced on purpose (``force``)."""
    if out.exists() and not out.is_dir():
        raise BnbError(f"{out}: exists and is not a folder")
    if out.exists() and any(out.iterdir()) and not force:
        raise BnbError(f"{out}: the folder exists and is not empty (use --force to replace it)")


def _write_table_csv(run: Path, table: str, parts: list[int], target: Path) -> int:
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    from bnb_sim.runner.storage import part_name

    rows = 0
    writer = None
    try:
        for k in parts:
            file = run / table / part_name(k)
            try:
                data = pq.read_table(file, use_threads=False)
            except (pa.ArrowException, OSError) as exc:
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise RunError(f"{file}: cannot read the part ({reason})") from None
            # spreadsheets want plain text, not Arrow dictionaries
            data = data.cast(
                pa.schema(
                    pa.field(f.name, pa.string()) if pa.types.is_dictionary(f.type) else f
                    for f in data.schema
                )
            )
            if writer is None:
                writer = pcsv.CSVWriter(str(target), data.schema)
            writer.write_table(data)
            rows += data.num_rows
    finally:
        if writer is not None:
            writer.close()
    return rows


def export_csv(run: str | os.PathLike, out: str | os.PathLike, force: bool = False) -> dict:
    """Write ``seats.csv``, ``games.csv`` and ``run.csv`` of run directory ``run`` into ``out``.

    Returns ``{"dir", "seats", "games", "run", "rows": {"seats": n, "games": n}}``. Raises
    :class:`RunError` for a missing or broken run and :class:`BnbError` for a target that
    exists and is not empty (unless ``force``) or cannot be written.
    """
    from bnb_sim.runner.storage import read_meta, run_parts

    run, out = Path(run), Path(out)
    meta = read_meta(run)
    parts = run_parts(run, meta)
    if not parts:
        raise RunError(f"{run}: the run has no finished parts yet")
    check_target(out, force)
    written: dict[str, Any] = {"dir": out, "rows": {}}
    try:
        out.mkdir(parents=True, exist_ok=True)
        for table in TABLES:
            final = out / f"{table}.csv"
            partial = out / f".{table}.csv.partial"
            status(f"writing {final} ({len(parts)} part(s))")
            try:
                written["rows"][table] = _write_table_csv(run, table, parts, partial)
                os.replace(partial, final)
            finally:
                partial.unlink(missing_ok=True)
            written[table] = final
        final, partial = out / "run.csv", out / ".run.csv.partial"
        with open(partial, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["key", "value"])
            writer.writerows(run_parameters(meta))
        os.replace(partial, final)
        written["run"] = final
    except OSError as exc:
        raise BnbError(f"{out}: cannot write the CSV files there ({exc.strerror or exc})") from None
    return written
