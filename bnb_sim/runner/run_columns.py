"""The columns of a run's Parquet parts (``docs/run-format.md``): the fixed seat and game columns
with their Arrow types, the run columns and run id every part ends with, and turning a frame
into an encoded part that keeps that contract.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from bnb_sim.runner.verify import (
    identity_hash,
)

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
    from bnb_sim.games import DEFAULT_GAME

    info = {
        "run_id": run_id_of(meta),
        "seed": meta["params"]["seed"],
        "bnb_sim": __version__,
        "game": meta.get("game", DEFAULT_GAME),  # a run.json of before games were named
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


#: the protocol's column type names as Arrow types (names, so pyarrow loads when used)
_ARROW = {
    "bool": "bool_",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "float64": "float64",
    "string": "string",
}


def arrow_columns(columns: Mapping[str, str]) -> dict[str, Any]:
    """A game's declared columns (name -> protocol type name) as Arrow types."""
    from bnb_sim.errors import SpecError

    out = {}
    for name, kind in columns.items():
        if kind not in _ARROW:
            raise SpecError(f"column {name!r}: unknown type {kind!r} (one of {sorted(_ARROW)})")
        out[name] = getattr(pa, _ARROW[kind])()
    return out
