"""Where a tuning run's evaluations play: this process, or the workers of a Dask cluster.

An *evaluation* is one call ``(stage, block, index, point)`` of a tuning driver (the games of
one candidate on one block of seeds; :mod:`bnb_sim.tune.search`). Its result is a pure
function of the plan and the call, so it does not matter where it runs: the optimisers ask
for every independent evaluation at once (all candidates of a CMA-ES generation, every point
of a grid, the finalists of a re-evaluation, the two sides of the final comparison) and an
executor plays them.

* :class:`LocalExecutor`: one after another in this process (the engine's numba threads).
* :class:`DaskExecutor`: each evaluation is a task on a Dask cluster (``dask="local"``: an
  embedded ``LocalCluster`` of one-thread worker processes, ``--threads`` of them; or a
  scheduler address). The connection, the version check and the numba cache warm-up (one
  worker per host first) are those of ``bnb simulate --dask``
  (:mod:`bnb_sim.runner.dask_backend`). The plan travels as plain data (the component dict,
  rebuilt and hash-checked on the worker once per process), the results come back as small
  dicts and the client writes ``tune.json``, so a tuning run on Dask gives exactly the
  answer of a local one, and resumes either way.

NTBEA's iterations depend on each other (each picks the next setting from the model), so a
game tuning with NTBEA plays its search one evaluation at a time on Dask too; its grid, and
both re-evaluations, spread over the workers.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from bnb_sim.errors import BnbError, RunError

__all__ = ["Call", "DaskExecutor", "LocalExecutor", "open_executor"]

Call = tuple[str, int, int, dict]  # (stage, block, index, point)


#: One evaluation ``(plan, stage, block, point, threads) -> result dict``: a top-level function
#: of an installed module (a Dask task carries it by reference), given by the tuning that owns
#: it (``evaluate_policy``, ``evaluate_game``), so this module imports no tuning.
Evaluate = Callable[..., dict]


class LocalExecutor:
    """Play the evaluations in this process, in order."""

    backend = "local"

    def __init__(self, plan, evaluate: Evaluate, threads: int | None):
        self.plan, self.evaluate, self.threads = plan, evaluate, threads

    def run(self, calls: Sequence[Call]) -> Iterator[tuple[int, dict]]:
        for i, (stage, block, _index, point) in enumerate(calls):
            yield i, self.evaluate(self.plan, stage, block, point, self.threads)

    def close(self) -> None:
        pass


# --------------------------------------------------------------------------------------
# worker side (top-level functions of an installed module, plain-data arguments)


def plan_payload(plan) -> dict[str, Any]:
    """The plan as plain data: its components as their dict, the rest as it is."""
    comps = plan.components
    return {
        "plan": replace(plan, components=None),
        "components": comps.data,
        "content_hash": comps.content_hash,
        "source": comps.source,
        "key": repr(plan.spec_dict()),  # what decides the answer (components hash included)
    }


_PLANS: dict[str, Any] = {}


def plan_from_payload(payload: dict[str, Any]):
    """Rebuild (once per process) the plan of :func:`plan_payload`."""
    key = payload["key"]
    plan = _PLANS.get(key)
    if plan is None:
        from bnb_sim.tune.hooks import tune_hooks

        hooks = tune_hooks(getattr(payload["plan"], "game", None))
        comps = hooks.components_from_dict(payload["components"], payload.get("source", "tune"))
        if comps.content_hash != payload["content_hash"]:
            raise BnbError(
                "a Dask worker rebuilt other component data (content hash "
                f"{comps.content_hash[:12]}, expected {payload['content_hash'][:12]}); "
                "install the same bnb-sim version on the workers"
            )
        plan = replace(payload["plan"], components=comps)
        if len(_PLANS) > 8:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def evaluate_task(
    payload: dict[str, Any], evaluate: Evaluate, call: Call, threads: int | None = None
):
    """Dask task: one evaluation -> its result dict."""
    from bnb_sim.runner.dask_backend import _task_threads, quiet_numba_warnings
    from bnb_sim.tune.threads import threads_kept

    quiet_numba_warnings()
    stage, block, _index, point = call
    with threads_kept():
        return evaluate(plan_from_payload(payload), stage, block, point,
                        _task_threads(threads))  # fmt: skip


# --------------------------------------------------------------------------------------
# client side


class DaskExecutor:
    """Play the evaluations as tasks on a Dask cluster (see the module docstring)."""

    def __init__(self, plan, evaluate: Evaluate, address: str, threads: int | None):
        self.plan, self.evaluate, self.address, self.threads = plan, evaluate, address, threads
        self.backend = "dask-local" if address == "local" else "dask"
        self._chunks = None  # connected on the first evaluation (a finished run needs none)
        self.client = None
        self._token = uuid.uuid4().hex[:12]
        self._futures: dict[str, tuple[int, Any]] = {}

    def _start(self) -> None:
        from bnb_sim.runner.dask_backend import DaskExecutor as ChunkExecutor

        self._chunks = ChunkExecutor(self.plan.warm_config(), self.address, self.threads)
        self.client = self._chunks.client
        self._chunks.prepare()  # version check, numba cache warmed host by host
        payload = plan_payload(self.plan)
        self._payload = self.client.scatter([payload], broadcast=True, hash=False)[0]

    def run(self, calls: Sequence[Call]) -> Iterator[tuple[int, dict]]:
        """Submit every call at once; yield ``(position, result)`` as they finish."""
        from distributed import as_completed

        if self._chunks is None:
            self._start()
        self._futures = {}
        for i, call in enumerate(calls):
            stage, block, index, _ = call
            future = self.client.submit(
                evaluate_task, self._payload, self.evaluate, call, self._chunks.task_threads,
                key=f"bnb-tune-{self._token}-{stage}-{block}-{index}", pure=False, retries=1,
            )  # fmt: skip
            self._futures[future.key] = (i, future)
        try:
            pending = [f for _, f in self._futures.values()]
            for future in as_completed(pending, loop=self.client.loop):
                i, _ = self._futures.pop(future.key)
                try:
                    result = future.result()
                except BnbError:
                    raise
                except Exception as exc:
                    stage, block, index, _ = calls[i]
                    raise RunError(
                        f"dask: evaluation {stage}:{block}:{index} failed on a worker "
                        f"({type(exc).__name__}: {_first_line(exc)})"
                    ) from None
                finally:
                    future.release()
                yield i, result
        finally:
            self.stop()

    def stop(self) -> None:
        """Cancel what is still queued or running (after Ctrl-C or an error)."""
        futures = [f for _, f in self._futures.values()]
        self._futures = {}
        if futures and self.client is not None:
            with contextlib.suppress(Exception):
                self.client.cancel(futures)

    def close(self) -> None:
        self.stop()
        if self._chunks is not None:
            self._chunks.close()
            self._chunks = self.client = None


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


@contextlib.contextmanager
def open_executor(plan, evaluate: Evaluate, *, threads: int | None = None, dask: str | None = None):
    """The executor of a run (local without ``dask``), closed afterwards."""
    if dask is None:
        executor: LocalExecutor | DaskExecutor = LocalExecutor(plan, evaluate, threads)
    else:
        from bnb_sim.runner.dask_backend import check_address

        executor = DaskExecutor(plan, evaluate, check_address(dask), threads)
    try:
        yield executor
    finally:
        executor.close()


def run_in_folder(
    plan,
    evaluate: Evaluate,
    stages,
    out: Path,
    *,
    resume: bool = False,
    force: bool = False,
    threads=None,
    advance=None,
    dask=None,
    lock=None,
):
    """``stages(store, batch)`` of a tuning whose evaluations are ``evaluate`` in the folder
    ``out``, holding its lock for the whole tuning (one writer per folder; ``lock``: the lock
    the caller holds already, :func:`open_tune_folder`), with the evaluations played by
    :func:`open_executor` (``dask``: on Dask workers; the same answer)."""
    from bnb_sim.tune.store import TuneStore, open_tune_folder

    own_lock = lock is None
    if own_lock:
        lock = open_tune_folder(out, resume=resume, force=force)
    try:
        with open_executor(plan, evaluate, threads=threads, dask=dask) as executor:
            store = TuneStore(out, plan.spec_dict(), resume=resume, force=force, lock=lock)
            if advance is not None and store.games_done():
                advance(store.games_done())
            return stages(store, store.batch(executor, advance))
    finally:
        if own_lock:
            lock.release()
