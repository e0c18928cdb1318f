"""Export a run directory to CSV for spreadsheets: ``seats.csv``, ``games.csv``, ``run.csv``.

The run is verified first (like ``bnb report``: a torn, damaged or foreign part is refused).
The Parquet parts are converted one at a time (memory stays at one part, whatever the run's
size) into a new temporary folder beside the target, which is moved into place only when all
three files are complete: an interrupted or failed export leaves no file behind and never
mixes the files of two runs. ``run.csv`` lists the run's parameters (``run.json``) as
``key,value`` rows, nested values as JSON.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

from bnb_sim.errors import BnbError, RunError
from bnb_sim.feedback import status
from bnb_sim.safe_io import create_new, temp_name

TABLES = ("seats", "games")
EXPORT_NAMES = frozenset({"seats.csv", "games.csv", "run.csv"})


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
    try:
        info = os.stat(out)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise BnbError(f"{out}: cannot use this path ({exc.strerror or exc})") from None
    if not stat.S_ISDIR(info.st_mode):
        raise BnbError(f"{out}: exists and is not a folder")
    if os.listdir(out) and not force:
        raise BnbError(f"{out}: the folder exists and is not empty (use --force to replace it)")


def _write_table_csv(run: Path, table: str, parts: list[int], target: Path) -> int:
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    from bnb_sim.runner.run_files import part_name

    rows = 0
    writer = None
    with os.fdopen(create_new(target), "wb") as handle:  # Python opens it: any file name
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
                    writer = pcsv.CSVWriter(handle, data.schema)
                writer.write_table(data)
                rows += data.num_rows
        finally:
            if writer is not None:
                writer.close()
        handle.flush()
        os.fsync(handle.fileno())
    return rows


def _write_run_csv(meta: dict[str, Any], target: Path) -> None:
    with os.fdopen(create_new(target), "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["key", "value"])
        writer.writerows(run_parameters(meta))
        handle.flush()
        os.fsync(handle.fileno())


def export_csv(run: str | os.PathLike, out: str | os.PathLike, force: bool = False) -> dict:
    """Write ``seats.csv``, ``games.csv`` and ``run.csv`` of run directory ``run`` into ``out``.

    Returns ``{"dir", "seats", "games", "run", "rows": {"seats": n, "games": n}}``. Raises
    :class:`RunError` for a missing or broken run (every part is verified first, as
    ``bnb report`` does: a torn, damaged or foreign part is refused) and :class:`BnbError`
    for a target that exists and is not empty (unless ``force``) or cannot be written.

    The files are written into a new temporary folder beside ``out`` and moved into place
    only when all three are complete (:func:`_move_into_place`), so a failure leaves ``out``
    as it was (or absent), and an export never holds files of two runs.
    """
    from bnb_sim.runner.parts import run_parts, verify_run
    from bnb_sim.runner.run_files import read_meta

    run, out = Path(run), Path(out)
    meta = read_meta(run)
    parts = run_parts(run, meta)
    if not parts:
        raise RunError(f"{run}: the run has no finished parts yet")
    check_target(out, force)
    status(f"checking {len(parts)} part(s) of {run}")
    verify_run(run, meta, parts)
    target = Path(os.path.realpath(out))  # a link to a folder: that folder
    tmp = Path(temp_name(target))
    rows: dict[str, int] = {}
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        os.mkdir(tmp)
        for table in TABLES:
            status(f"writing {out / f'{table}.csv'} ({len(parts)} part(s))")
            rows[table] = _write_table_csv(run, table, parts, tmp / f"{table}.csv")
        _write_run_csv(meta, tmp / "run.csv")
        _move_into_place(tmp, target)
    except OSError as exc:
        raise BnbError(
            f"{out}: cannot write the CSV files there ({exc.strerror or exc}); nothing was changed"
        ) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    written: dict[str, Any] = {"dir": out, "rows": rows, "run": out / "run.csv"}
    written.update({table: out / f"{table}.csv" for table in TABLES})
    return written


def _is_export(folder: Path) -> bool:
    """Whether ``folder`` holds only what an export writes (plain files, no links)."""
    for entry in os.scandir(folder):
        if entry.name not in EXPORT_NAMES or not entry.is_file(follow_symlinks=False):
            return False
    return True


def _move_into_place(tmp: Path, target: Path) -> None:
    """Put the finished export ``tmp`` at ``target``: renamed onto a missing or empty folder;
    swapped with an earlier export (renamed aside, then deleted); into a folder that also
    holds other things, each file renamed over its namesake (links are replaced, never
    written through; nothing else there is touched)."""
    if not os.path.lexists(target) or not os.listdir(target):
        os.replace(tmp, target)
        return
    if _is_export(target):
        old = Path(temp_name(target))
        os.rename(target, old)
        try:
            os.rename(tmp, target)
        except OSError:
            os.rename(old, target)  # put the earlier export back
            raise
        shutil.rmtree(old, ignore_errors=True)
        return
    names = sorted(os.listdir(tmp))
    for name in names:  # refuse before anything moves: the export stays whole or absent
        if os.path.isdir(target / name) and not os.path.islink(target / name):
            raise IsADirectoryError(21, f"{target / name} is a folder")
    for name in names:
        os.replace(tmp / name, target / name)
