"""The tuning folder: ``tune.json`` with the spec and every finished evaluation.

A tuning run is a folder, like a simulate run: ``tune.json`` records the command's spec (what
decides the answer: space, field or targets, players, seed, budget, ...), the status, and
each finished evaluation under its key ``stage:block:index`` (the point, its score and what
the report needs). It is rewritten atomically (temporary file + rename) after every
evaluation, so an interrupted run (Ctrl-C, a crash, a killed job) keeps everything it
finished, and ``--resume`` replays the search from the seed, taking the finished evaluations
from the file and playing only the missing ones. The spec of a resumed run must equal the
stored one: a different flag is one error line naming the key.

The folder follows the rules of run folders: ``--out`` must be new, empty or a tuning folder
(a simulate run folder or a folder of your own files is refused, with or without
``--force``), and one process at a time writes it (:func:`open_tune_folder`: the lock of
:class:`~bnb_sim.runner.lock.RunLock`, held until the answer and the report are written).
``tune.json`` is read as untrusted input (a regular file of bounded size and nesting, its
structure checked, and its ``digest``, the hash of everything else in it, must still match),
and written atomically into a new temporary file, never through a link.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bnb_sim import jsonsafe
from bnb_sim.errors import BnbError
from bnb_sim.safe_io import UnreadableFile, load_json, write_atomic

__all__ = ["TUNE_FILE", "TuneStore", "open_tune_folder", "tune_folder_state"]

TUNE_FILE = "tune.json"
WEIGHTS_FILE = "tuned.toml"  # the answer of a policy tuning
OVERRIDE_FILE = "tuned-components.toml"  # the answer of a game tuning
FORMAT = 1
#: A larger tune.json is refused (a budget of 10 million games writes a few MB).
MAX_TUNE_BYTES = 256_000_000
#: Evaluation fields that must be numbers (``se`` may be null: a single seed).
_NUMBERS = ("score", "se")
_COUNTS = ("n", "games", "wins")


def tune_folder_state(out: Path) -> str:
    """``missing``, ``file``, ``empty`` (the lock and temporary files do not count),
    ``tune`` (holds tune.json), ``run`` (a simulate run: run.json) or ``foreign``."""
    from bnb_sim.runner.lock import LOCK_NAME
    from bnb_sim.runner.storage import META_NAME

    try:
        names = os.listdir(out)
    except FileNotFoundError:
        return "missing"
    except NotADirectoryError:
        return "file"
    except OSError as exc:
        raise BnbError(f"tune: {out}: cannot use this folder ({exc.strerror or exc})") from None
    if TUNE_FILE in names:
        return "tune"
    if META_NAME in names:
        return "run"
    rest = [n for n in names if n != LOCK_NAME and not (n.startswith(".") and ".tmp-" in n)]
    return "foreign" if rest else "empty"


def check_tune_folder(out: Path, *, resume: bool, force: bool) -> str:
    """BnbError unless ``out`` may be opened as a tuning folder with these flags; its state."""
    state = tune_folder_state(out)
    if state == "file":
        raise BnbError(f"tune: {out}: exists and is not a folder")
    if state == "run":
        raise BnbError(
            f"tune: {out}: is a simulate run folder (it has run.json); give a new or empty "
            "folder for the tuning"
        )
    if state == "foreign":
        raise BnbError(
            f"tune: {out}: is a non-empty folder that is not a tuning run (no {TUNE_FILE}); "
            "give a new or empty folder (--force only replaces a tuning run, so nothing of "
            "yours is overwritten)"
        )
    if resume and force:
        raise BnbError("tune: --resume and --force cannot be used together")
    if resume and state != "tune":
        raise BnbError(f"tune: {out}: no {TUNE_FILE} to resume")
    if state == "tune" and not (resume or force):
        raise BnbError(
            f"tune: {out} already holds a tuning run; add --resume to continue it "
            "or --force to start again"
        )
    return state


def open_tune_folder(out: Path, *, resume: bool = False, force: bool = False):
    """Check ``out`` (:func:`check_tune_folder`), create it and lock it: the
    :class:`~bnb_sim.runner.lock.RunLock` held, to be released once the tuning's files are
    all written. RunError if another process holds it."""
    from bnb_sim.runner.lock import RunLock

    out = Path(out)
    check_tune_folder(out, resume=resume, force=force)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BnbError(f"tune: cannot create {out} ({exc.strerror or exc})") from None
    lock = RunLock(out).acquire()
    try:
        check_tune_folder(out, resume=resume, force=force)  # again, now that we hold it
    except BaseException:
        lock.release()
        raise
    return lock


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _digest(data: dict) -> str:
    body = {k: v for k, v in data.items() if k != "digest"}
    return _hash(jsonsafe.dumps(body, sort_keys=True, separators=(",", ":")))


def _hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _compact(value: Any) -> str:
    """``value`` (clean already) as the digest writes it: sorted keys, no spaces."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _clean(value: Any) -> Any:
    """JSON-safe: NaN/inf -> None, numpy scalars -> Python, tuples -> lists, keys -> text
    (one pass over the value)."""
    from bnb_sim.analysis.report_builder import _jsonable

    return _jsonable(value)


class TuneStore:
    """Open (create, resume or overwrite) the tuning folder ``out`` for ``spec``.

    ``lock``: the folder's lock, held by the caller (:func:`open_tune_folder`, which also
    checked the folder; the runners take it for the whole tuning, the command line until the
    answer and the report are written). Without it only the folder is checked here."""

    def __init__(
        self, out: Path, spec: dict, *, resume: bool = False, force: bool = False, lock=None
    ):
        self.dir = Path(out)
        self.path = self.dir / TUNE_FILE
        self._texts: dict[str, tuple[dict, str]] = {}  # each evaluation's text (_text)
        spec = _clean(spec)
        if lock is None:
            check_tune_folder(self.dir, resume=resume, force=force)
            try:
                self.dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise BnbError(f"tune: cannot create {self.dir} ({exc.strerror or exc})") from None
        if resume:
            self.data = self._load()
            self._check_spec(spec)
        else:
            self.data = {"format": FORMAT, "kind": "tune", "status": "running", "spec": spec}
            self.data["evaluations"] = {}
        self.save()

    # -- file --------------------------------------------------------------------------
    def _load(self) -> dict:
        try:
            data = load_json(self.path, MAX_TUNE_BYTES)
        except UnreadableFile as exc:
            raise BnbError(f"tune: {self.path}: cannot read it ({exc.reason})") from None
        if not isinstance(data, dict) or data.get("kind") != "tune" or "spec" not in data:
            raise BnbError(f"tune: {self.path} is not a tuning run")
        if "digest" in data and data["digest"] != _digest(data):
            raise self._bad("its content no longer matches its digest (edited or damaged?)")
        if not isinstance(data["spec"], dict):
            raise self._bad("'spec' is not an object")
        data.setdefault("evaluations", {})
        if not isinstance(data["evaluations"], dict):
            raise self._bad("'evaluations' is not an object")
        for key, evaluation in data["evaluations"].items():
            self._check_evaluation(key, evaluation)
        return data

    def _bad(self, problem: str) -> BnbError:
        return BnbError(f"tune: {self.path}: {problem}; use --force to start again")

    def _check_evaluation(self, key: str, evaluation: Any) -> None:
        """An evaluation as this bnb-sim writes it (what the search reads from it)."""
        where = f"evaluation '{key[:60]}'"
        if not isinstance(evaluation, dict) or not isinstance(evaluation.get("point"), dict):
            raise self._bad(f"{where} is not an object with a 'point'")
        for name in _NUMBERS:
            value = evaluation.get(name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                raise self._bad(f"{where}: '{name}' is not a number")
        for name in _COUNTS:
            value = evaluation.get(name, 0)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise self._bad(f"{where}: '{name}' is not a count")
        seeds = evaluation.get("per_seed", [])
        if not (isinstance(seeds, list) and all(_is_number(v) for v in seeds)):
            raise self._bad(f"{where}: 'per_seed' is not a list of numbers")

    def _check_spec(self, spec: dict) -> None:
        stored = self.data["spec"]
        for key in sorted(set(stored) | set(spec)):
            if stored.get(key) != spec.get(key):
                raise BnbError(
                    f"tune: cannot resume {self.dir}: '{key}' was {stored.get(key)!r:.200}, "
                    f"now {spec.get(key)!r:.200} (give the same options, or --force)"
                )

    def save(self) -> None:
        """Write tune.json: the ledger as compact JSON with sorted keys (the text its digest
        hashes, :func:`_digest`), one evaluation a line."""
        digest = _hash(self._text())
        self.data["digest"] = digest
        try:  # a new temporary file, renamed over tune.json: removed again if this fails
            write_atomic(self.path, self._text(digest=digest, newlines=True) + "\n")
        except OSError as exc:
            raise BnbError(f"tune: cannot write {self.path} ({exc.strerror or exc})") from None

    def _text(self, *, digest: str | None = None, newlines: bool = False) -> str:
        """``self.data`` as :func:`_digest` writes it (without the digest unless given).

        Every part of the ledger is clean already (the spec and each evaluation are cleaned as
        they come in; a loaded file is JSON), and an evaluation never changes once stored, so
        each one's text is made once: writing the whole ledger again, cleaned and encoded,
        after every evaluation made a tuning's bookkeeping grow with the square of its
        evaluations (10 of 23 s of a 4,000-game policy tuning)."""
        body = {k: v for k, v in self.data.items() if k != "digest"}
        if digest is not None:
            body["digest"] = digest
        parts = []
        for key in sorted(body):
            is_ledger = key == "evaluations"
            value = self._evaluations_text(newlines) if is_ledger else _compact(body[key])
            parts.append(f"{_compact(key)}:{value}")
        return "{" + ",".join(parts) + "}"

    def _evaluations_text(self, newlines: bool) -> str:
        lead = "\n" if newlines else ""
        items = []
        for key in sorted(self.evaluations):
            evaluation = self.evaluations[key]
            known = self._texts.get(key)
            if known is None or known[0] is not evaluation:
                known = self._texts[key] = (evaluation, _compact(evaluation))
            items.append(f"{lead}{_compact(key)}:{known[1]}")
        return "{" + ",".join(items) + "}"

    # -- evaluations -------------------------------------------------------------------
    @property
    def evaluations(self) -> dict[str, dict]:
        return self.data["evaluations"]

    def games_done(self) -> int:
        return int(sum(int(e.get("games", 0)) for e in self.evaluations.values()))

    def games_by_stage(self) -> dict[str, int]:
        """Games played per stage (the part of an evaluation's key before the first ``:``);
        they add up to :meth:`games_done`."""
        out: dict[str, int] = {}
        for key, e in self.evaluations.items():
            stage = key.partition(":")[0]
            out[stage] = out.get(stage, 0) + int(e.get("games", 0))
        return out

    def memo(self, evaluate: Callable[[str, int, int, dict], dict]):
        """``evaluate`` with the ledger: a stored evaluation is returned, a new one saved."""

        def wrapped(stage: str, block: int, index: int, point: dict) -> dict:
            key = f"{stage}:{block}:{index}"
            stored = self._stored(key, point)
            if stored is not None:
                return stored
            result = _clean({**evaluate(stage, block, index, point), "point": point})
            self.evaluations[key] = result
            self.save()
            return result

        return wrapped

    def batch(self, executor, advance: Callable[[int], None] | None = None):
        """``many(calls) -> results`` (in call order) for calls ``(stage, block, index,
        point)``: stored evaluations come from the ledger, the others are played by
        ``executor`` (:mod:`bnb_sim.tune.execute`) and each is saved as soon as it finishes,
        so an interruption keeps every finished one; ``advance(games)`` per new one."""

        def many(calls) -> list[dict]:
            results: list[dict | None] = [None] * len(calls)
            missing = []
            for i, (stage, block, index, point) in enumerate(calls):
                stored = self._stored(f"{stage}:{block}:{index}", point)
                if stored is None:
                    missing.append(i)
                results[i] = stored
            if missing:
                for j, result in executor.run([calls[i] for i in missing]):
                    i = missing[j]
                    stage, block, index, point = calls[i]
                    result = _clean({**result, "point": point})
                    self.evaluations[f"{stage}:{block}:{index}"] = result
                    self.save()
                    if advance is not None:
                        advance(int(result.get("games", 0)))
                    results[i] = result
            return results  # type: ignore[return-value]

        return many

    def _stored(self, key: str, point: dict) -> dict | None:
        stored = self.evaluations.get(key)
        if stored is not None and _clean(point) != stored.get("point"):
            raise BnbError(
                f"tune: {self.path}: evaluation {key} was of {stored.get('point')}, "
                f"the search now asks for {_clean(point)} (edited file?); use --force"
            )
        return stored

    def finish(self, result: dict) -> None:
        self.data["status"] = "complete"
        self.data["result"] = _clean(result)
        self.save()
