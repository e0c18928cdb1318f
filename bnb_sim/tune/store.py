"""The tuning folder: ``tune.json`` with the spec and every finished evaluation.

A tuning run is a folder, like a simulate run: ``tune.json`` records the command's spec (what
decides the answer: space, field or targets, players, seed, budget, ...), the status, and
each finished evaluation under its key ``stage:block:index`` (the point, its score and what
the report needs). It is rewritten atomically (temporary file + rename) after every
evaluation, so an interrupted run (Ctrl-C, a crash, a killed job) keeps everything it
finished, and ``--resume`` replays the search from the seed, taking the finished evaluations
from the file and playing only the missing ones. The spec of a resumed run must equal the
stored one: a different flag is one error line naming the key.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bnb_sim.errors import BnbError

__all__ = ["TUNE_FILE", "TuneStore"]

TUNE_FILE = "tune.json"
FORMAT = 1


def _clean(value: Any) -> Any:
    """JSON-safe: NaN/inf -> None, numpy scalars -> Python, tuples -> lists."""
    from bnb_sim.analysis.report import _jsonable

    value = _jsonable(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


class TuneStore:
    """Open (create, resume or overwrite) the tuning folder ``out`` for ``spec``."""

    def __init__(self, out: Path, spec: dict, *, resume: bool = False, force: bool = False):
        self.dir = Path(out)
        self.path = self.dir / TUNE_FILE
        spec = _clean(spec)
        exists = self.path.exists()
        if resume and not exists:
            raise BnbError(f"tune: {self.dir}: no {TUNE_FILE} to resume")
        if exists and not (resume or force):
            raise BnbError(
                f"tune: {self.dir} already holds a tuning run; add --resume to continue it "
                "or --force to start again"
            )
        if resume:
            self.data = self._load()
            self._check_spec(spec)
        else:
            self.data = {"format": FORMAT, "kind": "tune", "status": "running", "spec": spec}
            self.data["evaluations"] = {}
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BnbError(f"tune: cannot create {self.dir} ({exc.strerror or exc})") from None
        self.save()

    # -- file --------------------------------------------------------------------------
    def _load(self) -> dict:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise BnbError(f"tune: {self.path}: cannot read it ({exc})") from None
        if not isinstance(data, dict) or data.get("kind") != "tune" or "spec" not in data:
            raise BnbError(f"tune: {self.path} is not a tuning run")
        data.setdefault("evaluations", {})
        return data

    def _check_spec(self, spec: dict) -> None:
        stored = self.data["spec"]
        for key in sorted(set(stored) | set(spec)):
            if stored.get(key) != spec.get(key):
                raise BnbError(
                    f"tune: cannot resume {self.dir}: '{key}' was {stored.get(key)!r}, "
                    f"now {spec.get(key)!r} (give the same options, or --force)"
                )

    def save(self) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            tmp.write_text(json.dumps(_clean(self.data), indent=1) + "\n", encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:
            raise BnbError(f"tune: cannot write {self.path} ({exc.strerror or exc})") from None

    # -- evaluations -------------------------------------------------------------------
    @property
    def evaluations(self) -> dict[str, dict]:
        return self.data["evaluations"]

    def games_done(self) -> int:
        return int(sum(int(e.get("games", 0)) for e in self.evaluations.values()))

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
