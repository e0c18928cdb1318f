"""Run folders and blocks of games for any game that implements the protocol.

:func:`simulate_to_dir` is ``bnb simulate`` for a game served through
:mod:`bnb_sim.core.protocol`: the shared :class:`~bnb_sim.runner.storage.RunWriter` (lock,
stamps, checksums, resume, ``--force``) with the column contract the game declares
(``game.columns(config)``), one Parquet part per chunk. Every game is a function of the
config and its index (the protocol's promise), so any chunk size gives the same rows.

:func:`play_games` plays games ``0 .. n-1`` in blocks for the studies (compare, tournament,
sweep) without a folder.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bnb_sim.errors import RunError, SpecError

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
BLOCK = 50_000


def arrow_columns(columns: Mapping[str, str]) -> dict[str, Any]:
    """A game's declared columns (name -> protocol type name) as Arrow types."""
    import pyarrow as pa

    out = {}
    for name, kind in columns.items():
        if kind not in _ARROW:
            raise SpecError(f"column {name!r}: unknown type {kind!r} (one of {sorted(_ARROW)})")
        out[name] = getattr(pa, _ARROW[kind])()
    return out


def component_info(game: Any, components: Any) -> dict[str, Any]:
    """run.json ``components``: the game's data as JSON (``component_data`` if the game
    has one, else the components themselves) and its content hash."""
    describe = getattr(game, "component_data", None)
    data = describe(components) if callable(describe) else components
    from bnb_sim import jsonsafe

    text = jsonsafe.dumps(data, sort_keys=True)
    return {
        "source": "protocol",
        "content_hash": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "data": json.loads(text),
    }


def play_games(game: Any, config: Any, n: int, threads: int | None = None, start: int = 0):
    """``(seats, games)`` of games ``start .. start + n - 1``, played in blocks."""
    import pandas as pd

    seats, games = [], []
    for first in range(start, start + n, BLOCK):
        a, b = game.play_block(config, first, min(BLOCK, start + n - first), threads)
        seats.append(a)
        games.append(b)
    if len(seats) == 1:
        return seats[0], games[0]
    return pd.concat(seats, ignore_index=True), pd.concat(games, ignore_index=True)


def _run_folder_helpers():
    """The shared run-folder helpers (the same ones ``bnb simulate`` uses)."""
    from bnb_sim.runner.run_dir import _new_dirs, _remove_empty
    from bnb_sim.runner.run_meta import _check_resume, machine_info, versions

    return _check_resume, _new_dirs, _remove_empty, machine_info, versions


def _writer_class(game: Any, config: Any):
    from bnb_sim.runner.storage import RunWriter

    seat_columns, game_columns = game.columns(config)

    class ProtocolRunWriter(RunWriter):
        pass

    ProtocolRunWriter.seat_columns = arrow_columns(seat_columns)
    ProtocolRunWriter.seat_prefixes = ()
    ProtocolRunWriter.game_columns = arrow_columns(game_columns)
    ProtocolRunWriter.game_prefixes = ()
    return ProtocolRunWriter


def simulate_to_dir(
    game: Any,
    config: Any,
    components: Any,
    games: int,
    out: str | Path,
    *,
    chunk_size: int | None = None,
    threads: int | None = None,
    resume: bool = False,
    force: bool = False,
    dask: str | None = None,
    command: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    notice: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games of ``config`` into the run folder ``out``; returns a summary.

    The folder rules are the shared writer's: locked for the whole call, ``force``
    overwrites only a valid run, ``resume`` needs the same identity (the config's
    ``identity()`` and the components' hash) and re-checks every stored part. A new folder
    is removed again if the run fails before its first part.

    ``dask``: ``"local"`` or a scheduler address plays the chunks on Dask workers
    (:class:`~bnb_sim.runner.dask_backend.DaskExecutor`; the game object and its picklable
    config travel to the workers); the rows are the same, since every game is a function
    of the config and its index. ``threads`` is then the number of local workers.
    """
    _check_resume, _new_dirs, _remove_empty, machine_info, versions = _run_folder_helpers()
    if games < 1:
        raise SpecError(f"--games {games}: must be at least 1")
    if chunk_size is not None and int(chunk_size) < 1:
        raise SpecError("--chunk-size must be at least 1")
    if dask is not None:
        from bnb_sim.runner.dask_backend import check_address

        dask = check_address(dask)
    out = Path(out)
    info = run_components(game, components)
    created = _new_dirs(out)
    try:
        writer = _writer_class(game, config)(out, resume=resume, force=force, notice=notice)
    except BaseException:
        _remove_empty(created)
        raise
    executor = None
    try:
        old = writer.stored
        if chunk_size is None and old is not None:
            chunk_size = old["params"]["chunk_size"]
        chunk = int(chunk_size or max(1000, min(200_000, games // 8 or 1)))
        n_parts = -(-games // chunk)
        executor = _executor(game, config, dask, threads)
        params = {
            "games": int(games),
            "players": int(config.n_players),
            "chunk_size": chunk,
            "seed": int(config.seed),
            "policies": list(dict.fromkeys(config.labels)),
            **{k: v for k, v in config.identity().items() if k not in ("games", "chunk_size")},
            "backend": executor.backend,
            "dask": dask,
        }
        if old is not None:
            if old.get("game") != game.name:
                raise RunError(
                    f"{out}: cannot resume: it is a run of another game "
                    f"({old.get('game') or 'builders_biomes'}), not {game.name}"
                )
            _check_resume(out, old, params, info["content_hash"])
        meta = {
            "kind": "simulate",
            "game": game.name,
            "outcome": game.outcome,
            "title": info.pop("title", game.title),
            "params": params,
            "components": info,
            "versions": versions(),
            "machine": machine_info(),
            "parts": n_parts,
        }
        stored_command = (old or {}).get("command", command)
        if stored_command is not None:
            meta["command"] = stored_command
        if old is not None and command is not None:
            meta["resumed_with"] = command
        todo = writer.verify_parts(n_parts, meta) if old is not None else list(range(n_parts))
        writer.write_meta(meta)
        summary = _play_parts(executor, writer, todo, games, chunk, progress)
        writer.write_meta({**writer.meta, "timing": {"seconds": summary["seconds"]}})
        writer.finish()
        return {"path": str(out), **summary, "rows_per_game": rows_per_game(config)}
    except BaseException:
        if writer.stored is None and writer.written == 0:
            writer.discard(created)
        else:
            writer.flush()  # the checksums of the parts written so far
        if executor is not None:
            executor.stop()
        raise
    finally:
        if executor is not None:
            executor.close()
        writer.close()


def run_components(game: Any, components: Any) -> dict[str, Any]:
    """run.json ``components``: the game's own record (its optional ``run_components``
    method: source, content hash, provenance, ... and optionally the run's ``title``), else
    :func:`component_info`."""
    own = getattr(game, "run_components", None)
    return dict(own(components)) if callable(own) else component_info(game, components)


def rows_per_game(config: Any) -> int:
    """Game rows per game index (a config may play several variants of each index, e.g.
    every pet team: its identity's ``rows_per_game``, which the shared storage reads too)."""
    return int(((config.identity() or {}).get("rows_per_game") or {}).get("games", 1))


class LocalExecutor:
    """Plays the chunks in this process with the game's ``play_block``, one after the other
    (the interface of :class:`~bnb_sim.runner.dask_backend.DaskExecutor`)."""

    backend = "local"

    def __init__(self, game: Any, config: Any, threads: int | None):
        self.game, self.config, self.threads = game, config, threads

    def prepare(self) -> None:
        self.game.play_block(self.config, 0, 1, self.threads)  # compile or load, untimed

    def run(self, tasks):
        for k, start, n in tasks:
            yield (k, *self.game.play_block(self.config, start, n, self.threads))

    def stop(self) -> None:
        """Nothing runs in the background here."""

    def close(self) -> None:
        pass


def _executor(game: Any, config: Any, dask: str | None, threads: int | None):
    if dask is None:
        return LocalExecutor(game, config, threads)
    from bnb_sim.runner.dask_backend import DaskExecutor

    return DaskExecutor(config, dask, threads, payload={"protocol": game, "config": config})


def _play_parts(executor, writer, todo, games, chunk, progress) -> dict[str, Any]:
    tasks = [(p, p * chunk, min(chunk, games - p * chunk)) for p in todo]
    sizes = {p: n for p, _, n in tasks}
    done = games - sum(sizes.values())
    executor.prepare()
    rows = 0
    t0 = time.perf_counter()
    for p, seats, games_df in executor.run(tasks):  # Dask: in the order chunks finish
        writer.write_part(p, seats, games_df)
        done += sizes[p]
        rows += len(games_df)
        if progress is not None:
            progress(done, games)
    seconds = time.perf_counter() - t0
    return {
        "games": games,
        "seconds": seconds,
        "games_per_second": rows / seconds if seconds > 0 else None,
        "backend": executor.backend,
    }
