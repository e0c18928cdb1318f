"""Part verification: every Parquet part says which run and games it holds, and is checked.

Each part file carries a *stamp* in its Parquet key-value metadata (key ``bnb_sim.part``, a
JSON object; docs/run-format.md)::

    {"format": 1, "table": "seats", "part": 3, "first_game": 3000, "n_games": 1000,
     "rows": {"seats": 4000, "games": 1000}, "identity": "sha256:..."}

and ``run.json`` records each part's files (``part_files``: rows, bytes, sha256 of the file).
The *identity* is a hash of everything that decides the rows: the run kind, every parameter
except the few that only say how the games were played (:data:`NON_IDENTITY_PARAMS`), and the
components' content hash. A parameter added to ``run.json`` later becomes part of the
identity without any change here.

:func:`check_part` answers "is this file part ``k`` of this run, complete and undamaged?"
from the footer (stamp, row count) and the checksum (when ``run.json`` records one), which
costs one pass over the bytes and no decoding. A part that has no recorded checksum (written
after the last ``run.json`` update, for example just before a SIGKILL) is decoded in full
instead. Runs written before parts were stamped (``run.json`` without ``identity``) are
*legacy* runs: their unstamped parts are checked by row counts, game range and a full decode.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from bnb_sim.safe_io import UnreadableFile, parse_json

#: The Parquet key-value metadata key of a part's stamp.
STAMP_KEY = b"bnb_sim.part"
STAMP_FORMAT = 1
#: ``params`` keys that do not change any row (how the games were played, not which ones).
NON_IDENTITY_PARAMS = frozenset({"threads", "backend", "dask", "check"})
_HASH_BLOCK = 1 << 20


def identity_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of ``params`` that decide the rows (all but NON_IDENTITY_PARAMS)."""
    return {k: v for k, v in params.items() if k not in NON_IDENTITY_PARAMS}


def identity_hash(meta: Mapping[str, Any]) -> str:
    """``sha256:<hex>`` of the run's kind, identity parameters and components content hash."""
    params = meta.get("params")
    components = meta.get("components")
    ident = {
        "kind": meta.get("kind", "simulate"),
        "params": identity_params(params if isinstance(params, Mapping) else {}),
        "components": components.get("content_hash") if isinstance(components, Mapping) else None,
    }
    text = json.dumps(ident, sort_keys=True, separators=(",", ":"), default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


#: The ``run.json`` keys that describe a run beyond its identity (they change no row, so
#: they are not in the identity, but a report tells them: which game, which component data
#: with which estimates). :func:`description_hash` covers them.
DESCRIPTION_KEYS = ("kind", "game", "title", "components")


def description_hash(meta: Mapping[str, Any]) -> str:
    """``sha256:<hex>`` of the run's :data:`DESCRIPTION_KEYS` (``run.json``'s
    ``description_hash``): an edited estimate count or ``game`` no longer matches it."""
    described = {key: meta.get(key) for key in DESCRIPTION_KEYS}
    text = json.dumps(described, sort_keys=True, separators=(",", ":"), default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_bytes(data) -> str:
    return hashlib.sha256(memoryview(data)).hexdigest()


def sha256_file(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class RunShape:
    """What the parts of one run must be: identity, game ranges and rows per game."""

    identity: str
    games: int
    chunk_size: int
    players: int
    legacy: bool = False  # run.json predates stamps: unstamped parts are allowed
    #: rows of each table per game index; None: one games row and ``players`` seats rows
    rows_per_game: Mapping[str, int] | None = None

    @classmethod
    def of(cls, meta: Mapping[str, Any]) -> RunShape:
        """From a run.json checked by :func:`~bnb_sim.runner.storage.read_meta`."""
        params = meta["params"]
        players = int(params["players"])
        return cls(
            identity=identity_hash(meta),
            games=int(params["games"]),
            chunk_size=int(params["chunk_size"]),
            players=players,
            legacy="identity" not in meta,
            rows_per_game=rows_per_game(params),
        )

    @property
    def n_parts(self) -> int:
        return -(-self.games // self.chunk_size)

    def part_range(self, k: int) -> tuple[int, int]:
        """``(first_game, n_games)`` of part ``k``."""
        first = k * self.chunk_size
        return first, max(0, min(self.chunk_size, self.games - first))

    def rows(self, table: str, n_games: int) -> int:
        """The rows of ``table`` in a part of ``n_games`` game indices."""
        per_game = self.rows_per_game or {"seats": self.players, "games": 1}
        return n_games * per_game[table]


def rows_per_game(params: Mapping[str, Any]) -> dict[str, int]:
    """``{"seats": s, "games": g}``: the rows each game index has in each table.

    A run declares it as ``params.rows_per_game`` when a game index has more than one row in
    ``games`` (Heroes of the Village plays every pet team on the same index: ``games`` =
    teams, ``seats`` = teams x players); without it, one ``games`` row and ``players``
    ``seats`` rows (Builders & Biomes). :func:`~bnb_sim.runner.meta_check.check_meta` checks
    the declared values.
    """
    declared = params.get("rows_per_game")
    if declared is None:
        return {"seats": int(params["players"]), "games": 1}
    return {table: int(declared[table]) for table in ("seats", "games")}


def make_stamp(table: str, k: int, first_game: int, n_games: int, rows: Mapping[str, int],
               identity: str) -> dict[str, Any]:  # fmt: skip
    return {
        "format": STAMP_FORMAT,
        "table": table,
        "part": int(k),
        "first_game": int(first_game),
        "n_games": int(n_games),
        "rows": {t: int(n) for t, n in rows.items()},
        "identity": identity,
    }


def stamp_of(metadata: pq.FileMetaData) -> dict[str, Any] | None:
    """The stamp in a part's footer, None if it has none; ValueError if it is unreadable."""
    kv = metadata.metadata or {}
    raw = kv.get(STAMP_KEY)
    if raw is None:
        return None
    try:  # the footer is the file's: bounded nesting, any bytes
        stamp = parse_json(raw)
    except UnreadableFile as exc:
        raise ValueError(exc.reason) from None
    if not isinstance(stamp, dict):
        raise ValueError("not a JSON object")
    return stamp


class PartProblem(Exception):
    """Why a file is not a good part. ``kind``: ``missing``, ``in_the_way`` (not a regular
    file: bnb-sim never deletes it), ``damaged`` or ``foreign``."""

    def __init__(self, kind: str, detail: str):
        self.kind = kind
        self.detail = detail
        super().__init__(detail)

    def describe(self) -> str:
        what = {
            "missing": "missing part",
            "in_the_way": "in the way",
            "damaged": "corrupt Parquet part",
            "foreign": "foreign part",
        }[self.kind]
        return f"{what} ({self.detail})"


def _record_problem(record: Mapping[str, Any], size: int, path: Path) -> PartProblem | None:
    if int(record["bytes"]) != size:
        return PartProblem("damaged", f"{size:,} bytes, run.json records {int(record['bytes']):,}")
    if sha256_file(path) != record["sha256"]:
        return PartProblem("damaged", "its checksum differs from the one in run.json")
    return None


def check_part(
    path: str | os.PathLike,
    table: str,
    k: int,
    shape: RunShape,
    record: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Check part ``k`` of ``table`` at ``path``; returns its run.json record (rows, bytes,
    sha256) or raises :class:`PartProblem`.

    With a ``record`` (from run.json) the size and sha256 must match it and the footer's stamp
    must fit the run; without one the file is also decoded in full.
    """
    path = Path(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise PartProblem("missing", "no such file") from None
    except OSError as exc:
        raise PartProblem("damaged", f"cannot read it: {exc.strerror}") from None
    if not _is_regular(st):
        raise PartProblem("in_the_way", "a directory or link, not a part file bnb-sim wrote")
    mismatch = _record_problem(record, st.st_size, path) if record is not None else None
    try:
        footer = pq.read_metadata(path)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise mismatch or PartProblem(
            "damaged", f"not a readable Parquet file: {_first_line(exc)}"
        ) from None
    _check_footer(footer, table, k, shape)  # a part copied from elsewhere says so first
    if mismatch is not None:
        raise mismatch
    digest = None if record is None else record["sha256"]
    if record is None:
        try:
            # decodes every column of every page and checks the pages' CRCs
            pq.read_table(path, use_threads=False, page_checksum_verification=True)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise PartProblem("damaged", f"cannot decode it: {_first_line(exc)}") from None
        digest = sha256_file(path)
    return {"rows": int(footer.num_rows), "bytes": int(st.st_size), "sha256": digest}


def _is_regular(st: os.stat_result) -> bool:
    return stat.S_ISREG(st.st_mode)


def _check_footer(footer: pq.FileMetaData, table: str, k: int, shape: RunShape) -> None:
    first, n_games = shape.part_range(k)
    want_rows = shape.rows(table, n_games)
    try:
        stamp = stamp_of(footer)
    except ValueError as exc:
        raise PartProblem("damaged", f"its part stamp is unreadable: {exc}") from None
    if stamp is None:
        if not shape.legacy:
            raise PartProblem("foreign", "it has no bnb-sim part stamp, so it is not this run's")
        _check_legacy(footer, table, first, n_games, want_rows)
        return
    if stamp.get("identity") != shape.identity:
        raise PartProblem("foreign", "it belongs to another run (its identity hash differs)")
    if stamp.get("table") != table or stamp.get("part") != k:
        raise PartProblem(
            "foreign", f"it is {stamp.get('table')} part {stamp.get('part')}, not {table} part {k}"
        )
    if (stamp.get("first_game"), stamp.get("n_games")) != (first, n_games):
        raise PartProblem(
            "foreign",
            f"it holds games from {stamp.get('first_game')} ({stamp.get('n_games')} games), "
            f"expected {first} ({n_games} games)",
        )
    rows = stamp.get("rows")
    if not isinstance(rows, dict) or rows.get(table) != want_rows:
        raise PartProblem("foreign", f"its stamp counts {rows} rows, expected {want_rows}")
    if footer.num_rows != want_rows:
        raise PartProblem("damaged", f"{footer.num_rows:,} rows, its stamp says {want_rows:,}")


def _check_legacy(footer, table: str, first: int, n_games: int, want_rows: int) -> None:
    """Unstamped part of a legacy run: row count and the ``game`` column's min/max."""
    if footer.num_rows != want_rows:
        raise PartProblem("foreign", f"{footer.num_rows:,} rows, expected {want_rows:,}")
    names = footer.schema.to_arrow_schema().names
    if "game" not in names or footer.num_row_groups == 0:
        raise PartProblem("foreign", "it has no 'game' column")
    col = names.index("game")
    lo, hi = None, None
    for i in range(footer.num_row_groups):
        stats = footer.row_group(i).column(col).statistics
        if stats is None or not stats.has_min_max:
            return  # nothing to compare; the full decode still runs
        lo = stats.min if lo is None else min(lo, stats.min)
        hi = stats.max if hi is None else max(hi, stats.max)
    if (lo, hi) != (first, first + n_games - 1):
        raise PartProblem(
            "foreign", f"it holds games {lo}..{hi}, expected {first}..{first + n_games - 1}"
        )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
