"""``run.json`` is untrusted input: check its shape before anything uses it.

:func:`check_meta` is called by :func:`~bnb_sim.runner.storage.read_meta` on every run.json
it reads. A key of the wrong type, a missing parameter, a part count that does not follow
from ``games`` and ``chunk_size``, or parameters that no longer give the run's recorded
identity hash (an edited run.json) raise :class:`~bnb_sim.errors.RunError` with one line
that names the file and the key, so no report is ever built from a run.json that does not
describe its data.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bnb_sim.errors import RunError
from bnb_sim.safe_io import digits
from bnb_sim.toml_files import clean

_OBJECT_KEYS = ("components", "versions", "machine", "timing")
_STRING_KEYS = ("kind", "command", "resume_command", "resumed_with", "identity", "description_hash")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string"}.get(
        type(value), "null" if value is None else type(value).__name__
    )


class _Checker:
    def __init__(self, file: Path):
        self.file = file

    def fail(self, key: str, problem: str) -> RunError:
        return RunError(f"{self.file}: '{key}' {problem}")

    def object(self, obj: Mapping, key: str, where: str = "", required: bool = True):
        name = f"{where}{key}"
        if key not in obj:
            if required:
                raise self.fail(name, "is missing")
            return None
        value = obj[key]
        if not isinstance(value, dict):
            raise self.fail(name, f"must be an object, got {_type_name(value)}")
        return value

    def integer(self, obj: Mapping, key: str, where: str = "", minimum: int | None = None):
        name = f"{where}{key}"
        if key not in obj:
            raise self.fail(name, "is missing")
        value = obj[key]
        if not _is_int(value) or (minimum is not None and value < minimum):
            bound = f" of at least {minimum}" if minimum is not None else ""
            raise self.fail(name, f"must be an integer{bound}, got {value!r}")
        return value

    def string(self, obj: Mapping, key: str, where: str = "", required: bool = False):
        name = f"{where}{key}"
        if key not in obj:
            if required:
                raise self.fail(name, "is missing")
            return None
        value = obj[key]
        if not isinstance(value, str):
            raise self.fail(name, f"must be a string, got {_type_name(value)}")
        return value


def check_meta(meta: dict[str, Any], file: Path) -> None:
    """RunError (one line naming ``file`` and the key) unless ``meta`` describes a run."""
    c = _Checker(file)
    for key in _OBJECT_KEYS:
        c.object(meta, key, required=False)
    for key in _STRING_KEYS:
        c.string(meta, key)
    params = c.object(meta, "params")
    games = c.integer(params, "games", "params.", minimum=1)
    players = c.integer(params, "players", "params.", minimum=1)
    chunk_size = c.integer(params, "chunk_size", "params.", minimum=1)
    c.integer(params, "seed", "params.")
    policies = params.get("policies")
    if not (isinstance(policies, list) and policies and all(isinstance(p, str) for p in policies)):
        raise c.fail("params.policies", f"must be a non-empty list of strings, got {policies!r}")
    _check_rows_per_game(c, params, players)
    parts = meta.get("parts")
    n_parts = -(-games // chunk_size)
    if parts != n_parts:
        raise c.fail(
            "parts",
            f"is {parts!r}, but {games:,} games in chunks of {chunk_size:,} make {n_parts:,} parts",
        )
    components = meta.get("components")
    if components is not None:
        c.string(components, "content_hash", "components.")
    _check_game(c, meta)
    _check_part_files(c, meta, games, chunk_size)
    _check_identity(c, meta)


def _check_game(c: _Checker, meta: Mapping) -> None:
    """``game`` (optional: runs without it are Builders & Biomes runs) names a game."""
    from bnb_sim.errors import BnbError
    from bnb_sim.games import get_game

    name = c.string(meta, "game")
    if name is not None:
        try:
            get_game(name)
        except BnbError as exc:
            raise c.fail("game", f"names no game of this bnb-sim ({exc})") from None


def _check_rows_per_game(c: _Checker, params: Mapping, players: int) -> None:
    """``params.rows_per_game`` (optional): the rows of each table per game index; the seats
    rows are a whole number of games rows times the players (one row per seat)."""
    rows = c.object(params, "rows_per_game", "params.", required=False)
    if rows is None:
        return
    where = "params.rows_per_game."
    seats = c.integer(rows, "seats", where, minimum=1)
    games = c.integer(rows, "games", where, minimum=1)
    extra = sorted(set(rows) - {"seats", "games"})
    if extra:
        raise c.fail(f"{where}{extra[0]}", "is not a table of the run (seats, games)")
    if seats != games * players:
        raise c.fail(
            f"{where}seats",
            f"is {seats}, but {games} games rows of {players} players make {games * players}",
        )


def _check_part_files(c: _Checker, meta: Mapping, games: int, chunk_size: int) -> None:
    records = c.object(meta, "part_files", required=False)
    n_parts = -(-games // chunk_size)
    for key, record in (records or {}).items():
        where = f"part_files.{clean(key)}"
        k = digits(key)
        if k is None or k >= n_parts:
            raise c.fail(where, f"is not a part of this run (it has {n_parts:,} parts)")
        if not isinstance(record, dict):
            raise c.fail(where, f"must be an object, got {_type_name(record)}")
        first = k * chunk_size
        want = (first, min(chunk_size, games - first))
        got = (
            c.integer(record, "first_game", f"{where}."),
            c.integer(record, "n_games", f"{where}."),
        )
        if got != want:
            raise c.fail(
                where, f"records {got[1]} games from {got[0]}, expected {want[1]} from {want[0]}"
            )
        for table in ("seats", "games"):
            entry = c.object(record, table, f"{where}.")
            c.integer(entry, "rows", f"{where}.{table}.", minimum=0)
            c.integer(entry, "bytes", f"{where}.{table}.", minimum=0)
            c.string(entry, "sha256", f"{where}.{table}.", required=True)


def _check_identity(c: _Checker, meta: Mapping) -> None:
    """The recorded hashes still match: ``identity`` (what decides the rows) and
    ``description_hash`` (game, title, components with their provenance and estimates). Runs
    written before either existed have none of it and are checked by their parts alone."""
    from bnb_sim.runner.verify import description_hash, identity_hash

    stored = meta.get("identity")
    if stored is not None and stored != identity_hash(meta):
        raise RunError(
            f"{c.file}: the parameters or components no longer match the run's identity hash "
            "(was run.json edited?); refusing to describe the data with them"
        )
    described = meta.get("description_hash")
    if described is not None and described != description_hash(meta):
        raise RunError(
            f"{c.file}: 'game', 'title' or 'components' (its estimates, provenance or data) "
            "no longer match the run's description hash (was run.json edited?); refusing to "
            "describe the data with them"
        )
