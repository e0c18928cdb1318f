"""``bnb luck --dask``: the designs of a luck study played in slices on Dask workers.

A design of ``groups x per_group`` games is cut into slices of whole groups (a group's fixed
source is seeded from its group number, so a slice that starts on a group boundary plays the
same games as the whole design), a head-to-head into slices of games; each slice is the game's
own ``play_fixed`` / ``play_pair`` (its ``luck`` module) on a worker, and the slices' arrays
are put back in order. The numbers are those of one process.

The set-up's components travel as the game's Dask payload (``config_payload`` of the rung's
config, rebuilt once per worker process with the same content hash); the rest of the set-up
is plain data. The connection, the version check and the cache warm-up (again for a rung
with other policies) are those of ``bnb simulate --dask``
(:class:`~bnb_sim.runner.dask_backend.DaskExecutor`).
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import numpy as np

from bnb_sim.errors import BnbError, RunError

__all__ = ["LuckDask", "luck_task"]

#: slices per worker thread in one design, so every worker has work until the design's end
SLICES_PER_THREAD = 2


def luck_task(module_name: str, payload: dict, stub: Any, call: str, args: tuple, kwargs: dict,
              threads: int | None):  # fmt: skip
    """Dask task: ``module.<call>(setup, *args, **kwargs)`` of the game's luck module (by its
    name: the module the client found), the set-up's components rebuilt from ``payload``."""
    import importlib

    from bnb_sim.runner.dask_backend import _task_threads, config_from_payload, quiet_numba_warnings

    quiet_numba_warnings()
    module = importlib.import_module(module_name)
    setup = dataclasses.replace(stub, components=config_from_payload(payload).components)
    return getattr(module, call)(setup, *args, threads=_task_threads(threads), **kwargs)


def _slices(total: int, threads: int) -> list[tuple[int, int]]:
    """``(first, count)`` slices of ``range(total)``, about SLICES_PER_THREAD per thread."""
    step = max(1, -(-int(total) // max(1, SLICES_PER_THREAD * int(threads))))
    return [(first, min(step, int(total) - first)) for first in range(0, int(total), step)]


class LuckDask:
    """``play_fixed`` and ``play_pair`` of a game's luck module, on Dask workers."""

    def __init__(self, module, address: str, threads: int | None = None):
        from bnb_sim.runner.dask_backend import check_address

        self.module = module
        self.address = check_address(address)
        self.threads = threads
        self.executor = None
        self._warmed: set[str] = set()
        self._key = None

    def _use(self, setup, policies: list[str]):
        """The executor, with the config of ``policies`` scattered (warmed once per key)."""
        config = self.module._config(setup, list(policies))
        key = repr(list(policies))
        if self.executor is None:
            from bnb_sim.runner.dask_blocks import study_executor

            self.executor = study_executor(config, self.address, self.threads)
        elif key != self._key:
            self.executor.use(config, warm=key not in self._warmed)
        self._warmed.add(key)
        self._key = key
        return self.executor

    def _map(self, setup, call: str, calls: list[tuple[tuple, dict]]) -> list:
        """The results of ``call`` for every ``(args, kwargs)``, in order."""
        ex = self.executor
        stub = dataclasses.replace(setup, components=None)
        token = uuid.uuid4().hex[:12]
        futures = [
            ex.client.submit(
                luck_task,
                self.module.__name__,
                ex._payload,
                stub,
                call,
                args,
                kwargs,
                ex.task_threads,
                key=f"bnb-luck-{token}-{i}",
                pure=False,
                retries=1,
            )  # fmt: skip
            for i, (args, kwargs) in enumerate(calls)
        ]
        try:
            return ex.client.gather(futures)
        except BnbError:
            raise
        except Exception as exc:
            from bnb_sim.runner.dask_backend import _first_line

            raise RunError(f"dask: a luck slice failed on a worker ({type(exc).__name__}: "
                           f"{_first_line(exc)})") from None  # fmt: skip
        finally:
            ex.client.cancel(futures)

    def play_fixed(self, setup, rung: str, source: str, groups: int, per_group: int, *,
                   start: int = 0, threads=None, others: bool = False) -> np.ndarray:  # fmt: skip
        """The module's ``play_fixed``, in slices of whole groups."""
        ex = self._use(setup, [rung])
        calls = [((rung, source, count, per_group),
                  {"start": int(start) + first * int(per_group), "others": others})
                 for first, count in _slices(groups, ex.threads)]  # fmt: skip
        return np.vstack(self._map(setup, "play_fixed", calls))

    def play_pair(self, setup, lower: str, upper: str, games: int, *, threads=None) -> dict:
        """The module's ``play_pair``, in slices of games: per-game arrays joined in order
        (by the module's ``join_pairs`` when its summary needs every game)."""
        ex = self._use(setup, [lower, upper])
        calls = [((lower, upper, count), {"start": first})
                 for first, count in _slices(games, ex.threads)]  # fmt: skip
        parts = self._map(setup, "play_pair", calls)
        join = getattr(self.module, "join_pairs", None)  # a summary over every game
        if join is not None:
            return join(parts)
        return {key: np.concatenate([p[key] for p in parts])
                if isinstance(value, np.ndarray) else value
                for key, value in parts[0].items()}  # fmt: skip

    def close(self) -> None:
        if self.executor is not None:
            self.executor.close()
            self.executor = None
