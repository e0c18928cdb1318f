"""What every game's ``bnb train`` shares: derived seeds, checkpoints, and where the games of
a CMA-ES generation play (this process, or the workers of a Dask cluster).

A game's training core (``strong_train`` of each game) asks for every candidate of a
generation at once as a list of *calls* (plain, picklable data: the candidate's weights and
what it plays on). Each call's result is a pure function of the plan and the call, so it does
not matter where it runs:

* :class:`LocalEvaluator` plays them one after another in this process.
* :class:`DaskEvaluator` sends each as a task to a Dask cluster (``"local"``: an embedded
  ``LocalCluster`` of one-thread worker processes; or a scheduler address). The connection,
  the version check and the numba cache warm-up are those of ``bnb simulate --dask``
  (:mod:`bnb_sim.runner.dask_backend`); the plan travels once per worker as plain data made by
  the game (its ``payload`` function) and is rebuilt there once per process. The results come
  back in the order of the calls, so a run on Dask writes the file of a local run.

The evaluation function is named by a dotted path (``module:function``) so that a worker
with bnb-sim installed imports it; this module imports no game.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bnb_sim import jsonsafe
from bnb_sim.errors import BnbError, RunError
from bnb_sim.games import DEFAULT_GAME
from bnb_sim.safe_io import UnreadableFile, load_json, write_atomic

CHECKPOINT_LIMIT = 64 * 1024 * 1024  # bytes: far above any real run's generations


def derive(seed: int, stream: int) -> int:
    """A 63-bit seed for a stream of a training run (each game numbers its own streams)."""
    state = np.random.SeedSequence([int(seed), 7, stream]).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


# ---- checkpoints -----------------------------------------------------------------------------
def jsonable(obj):
    return json.loads(jsonsafe.dumps(obj))


def same_run(key) -> dict:
    """What a resumed run must share with the checkpoint: everything but the budget (a
    generation's candidates and games do not depend on it, so a resume may extend or shorten
    a run: it ends with the file an uninterrupted run with the new budget writes)."""
    if not isinstance(key, dict):
        return {}
    skip = ("budget_games", "budget_minutes", "game")  # the game is checked on its own
    return {k: v for k, v in key.items() if k not in skip}


def load_checkpoint(path: Path, key: dict, version: int) -> list[dict]:
    """The recorded generations of the checkpoint at ``path``; BnbError (one line) if it cannot
    be read, is no checkpoint, or belongs to another run (another game, other settings)."""
    try:  # bounded, regular file only: a checkpoint is user-writable input
        data = load_json(path, CHECKPOINT_LIMIT)
    except UnreadableFile as exc:
        raise BnbError(f"train: cannot read the checkpoint {path} ({exc.reason})") from None
    if not isinstance(data, dict) or not isinstance(data.get("generations", []), list):
        raise BnbError(f"train: the checkpoint {path} is not a checkpoint of bnb train")
    theirs, ours = data.get("plan"), jsonable(key)
    game = ours.get("game")
    their_game = theirs.get("game", DEFAULT_GAME) if isinstance(theirs, dict) else None
    if their_game is not None and game and their_game != game:
        raise BnbError(
            f"train: the checkpoint {path} is of a training run for another game "
            f"({their_game}, not {game}); start again without "
            "--resume, or give that game"
        )
    if data.get("version") != version or same_run(theirs) != same_run(ours):
        raise BnbError(
            f"train: the checkpoint {path} is of another training run (other settings); "
            "start again without resume, or give the same settings"
        )
    return list(data.get("generations", []))


def save_checkpoint(path: Path, key: dict, version: int, generations: list[dict]) -> None:
    data = {"version": version, "plan": key, "generations": generations}
    write_atomic(path, jsonsafe.dumps(data, indent=1))  # never half-written, never via a link


# ---- where a generation's calls play ---------------------------------------------------------
def _function(path: str) -> Callable:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


class LocalEvaluator:
    """Play the calls in this process, in order: ``evaluate(plan, call, threads)``."""

    backend = "local"

    def __init__(self, plan, evaluate: str, threads: int | None):
        self.plan, self.threads = plan, threads
        self._evaluate = _function(evaluate)

    def map(self, calls: Sequence[Any]) -> list:
        return [self._evaluate(self.plan, call, self.threads) for call in calls]

    def close(self) -> None:
        pass


_PLANS: dict[str, Any] = {}


def train_task(payload: dict[str, Any], call: Any, threads: int | None = None):
    """Dask task: one call of a training run (the plan rebuilt once per worker process)."""
    from bnb_sim.runner.dask_backend import _task_threads, quiet_numba_warnings
    from bnb_sim.tune.policy_tune import threads_kept

    quiet_numba_warnings()
    key = payload["key"]
    plan = _PLANS.get(key)
    if plan is None:
        plan = _function(payload["rebuild"])(payload["data"])
        if len(_PLANS) > 8:
            _PLANS.clear()
        _PLANS[key] = plan
    with threads_kept():
        return _function(payload["evaluate"])(plan, call, _task_threads(threads))


class DaskEvaluator:
    """Play the calls as tasks on a Dask cluster (connected on the first generation played:
    a resumed run that has nothing left to play connects to nothing)."""

    def __init__(self, plan, evaluate: str, payload: dict, warm_config, address: str,
                 threads: int | None):  # fmt: skip
        self.plan, self.address, self.threads = plan, address, threads
        self.backend = "dask-local" if address == "local" else "dask"
        self._payload_data = {"evaluate": evaluate, **payload}
        self._warm_config = warm_config
        self._chunks = None
        self.client = None
        self._payload = None
        self._token = uuid.uuid4().hex[:12]
        self._futures: list = []
        self._round = 0

    def _start(self) -> None:
        from bnb_sim.runner.dask_backend import DaskExecutor as ChunkExecutor

        self._chunks = ChunkExecutor(self._warm_config, self.address, self.threads)
        self.client = self._chunks.client
        self._chunks.prepare()  # version check, numba cache warmed host by host
        self._payload = self.client.scatter([self._payload_data], broadcast=True, hash=False)[0]

    def map(self, calls: Sequence[Any]) -> list:
        if self._chunks is None:
            self._start()
        self._round += 1
        self._futures = [
            self.client.submit(
                train_task,
                self._payload,
                call,
                self._chunks.task_threads,
                key=f"bnb-train-{self._token}-{self._round}-{i}",
                pure=False,
                retries=1,
            )  # fmt: skip
            for i, call in enumerate(calls)
        ]
        try:
            results = []
            for i, future in enumerate(self._futures):
                try:
                    results.append(future.result())
                except BnbError:
                    raise
                except Exception as exc:
                    lines = str(exc).strip().splitlines()
                    first = lines[0] if lines else type(exc).__name__
                    raise RunError(
                        f"dask: training evaluation {i} of generation call {self._round} "
                        f"failed on a worker ({type(exc).__name__}: {first})"
                    ) from None
            return results
        finally:
            self.stop()

    def stop(self) -> None:
        """Cancel what is still queued or running (after Ctrl-C or an error)."""
        futures, self._futures = self._futures, []
        if futures and self.client is not None:
            with contextlib.suppress(Exception):
                self.client.cancel(futures)

    def close(self) -> None:
        self.stop()
        if self._chunks is not None:
            self._chunks.close()
            self._chunks = self.client = None


@contextlib.contextmanager
def open_evaluator(plan, evaluate: str, *, threads: int | None = None, dask: str | None = None,
                   payload: Callable[[], dict] | None = None, warm_config=None):  # fmt: skip
    """The evaluator of a training run (local without ``dask``), closed afterwards.

    With ``dask``, ``payload()`` gives the plan as plain data plus how to rebuild it
    (``{"key", "rebuild", "data"}``) and ``warm_config`` is a run config of the game whose
    kernels the workers compile first."""
    if dask is None:
        evaluator: LocalEvaluator | DaskEvaluator = LocalEvaluator(plan, evaluate, threads)
    else:
        from bnb_sim.runner.dask_backend import check_address

        address = check_address(dask)
        evaluator = DaskEvaluator(plan, evaluate, payload(), warm_config, address, threads)
    try:
        yield evaluator
    finally:
        evaluator.close()
