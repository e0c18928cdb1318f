"""Which parts a run directory holds and whether they are good: the part indices on disk
(:func:`run_parts`; a part beyond run.json's count is refused) and the check of both files of
each part against its stamp and run.json's checksum (:func:`verify_run`, in threads).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bnb_sim.errors import RunError
from bnb_sim.runner.run_files import _PART_RE, TABLES, part_name, read_meta
from bnb_sim.runner.verify import (
    PartProblem,
    RunShape,
    check_part,
)

_VERIFY_THREADS = 4


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
