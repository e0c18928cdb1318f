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

The parts live in their own modules, and this one gathers their public names: the folder's
files and ``run.json`` (:mod:`~bnb_sim.runner.run_files`), the column contract
(:mod:`~bnb_sim.runner.run_columns`), the parts on disk and their checks
(:mod:`~bnb_sim.runner.parts`), the writer (:mod:`~bnb_sim.runner.run_writer`) and the
reader (:mod:`~bnb_sim.runner.run_reader`).
"""

from __future__ import annotations

from bnb_sim.runner.parts import run_parts, verify_run
from bnb_sim.runner.run_columns import (
    GAME_COLUMNS,
    RUN_COLUMNS,
    RUN_KEY,
    SEAT_COLUMNS,
    SEAT_PREFIXES,
    has_run_columns,
    run_id_of,
    run_info,
)
from bnb_sim.runner.run_files import (
    FORMAT,
    MAX_META_BYTES,
    META_NAME,
    STATUSES,
    TABLES,
    WriteFailed,
    check_target,
    folder_state,
    part_name,
    read_meta,
)
from bnb_sim.runner.run_reader import ColumnSelection, load_run
from bnb_sim.runner.run_writer import META_FLUSH_SECONDS, RunWriter
from bnb_sim.runner.verify import STAMP_KEY

__all__ = [
    "FORMAT",
    "GAME_COLUMNS",
    "MAX_META_BYTES",
    "META_FLUSH_SECONDS",
    "META_NAME",
    "RUN_COLUMNS",
    "RUN_KEY",
    "SEAT_COLUMNS",
    "SEAT_PREFIXES",
    "STAMP_KEY",
    "STATUSES",
    "TABLES",
    "ColumnSelection",
    "RunWriter",
    "WriteFailed",
    "check_target",
    "folder_state",
    "has_run_columns",
    "load_run",
    "part_name",
    "read_meta",
    "run_id_of",
    "run_info",
    "run_parts",
    "verify_run",
]
