"""Blocks of games on Dask for the studies that play many set-ups (``bnb sensitivity``, the
Heroes of the Village rungs of ``bnb robustness`` and options of ``bnb value``).

A study asks for games ``start .. start + n - 1`` of one config at a time, and the next block
is often another config (a moved estimate, another rung). :class:`DaskBlocks` keeps one Dask
connection (a ``LocalCluster`` for ``"local"``) open across those blocks, scatters each
config once, cuts its block into chunks for the workers and puts the frames back together in
game order. A game is a pure function of (seed, game index), so the frames hold the same rows
as one local ``play_block(config, start, n)``: the study's numbers do not change. The
connection, the version check and the cache warm-up are those of ``bnb simulate --dask``
(:class:`~bnb_sim.runner.dask_backend.DaskExecutor`); the cache is warmed again only when a
config brings other policies (other kernels). Nothing here imports numba or dask at import.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["DaskBlocks", "open_blocks", "study_executor"]

#: games per chunk at most (the frames of a chunk travel back to the client)
MAX_CHUNK = 50_000
#: chunks per worker thread in one block, so every worker has work until the block's end
CHUNKS_PER_THREAD = 2


def study_executor(config: Any, address: str, threads: int | None):
    """A :class:`~bnb_sim.runner.dask_backend.DaskExecutor` that can switch configs
    (:meth:`use`), prepared (the config scattered, the cache warmed). A subclass here, not a
    change there: ``dask_backend`` is part of the numba cache's fingerprint."""
    import uuid

    from bnb_sim.runner.dask_backend import DaskExecutor, config_payload

    class StudyExecutor(DaskExecutor):
        def use(self, config: Any, *, warm: bool) -> None:
            """Play ``config`` from now on, under fresh task keys; the cache warmed again
            when ``warm`` (other kernels than the configs before)."""
            self.config = config
            self._token = uuid.uuid4().hex[:12]
            if warm:
                self.prepare()  # scatters the payload and warms
                return
            self._payload = self.client.scatter(
                [config_payload(config)], broadcast=True, hash=False
            )[0]

    executor = StudyExecutor(config, address, threads)
    try:
        executor.prepare()
    except BaseException:
        executor.close()
        raise
    return executor


class DaskBlocks:
    """One Dask connection that plays blocks of any registered game's configs.

    ``address`` is checked at once (one line, before anything is written or played); the
    cluster starts on the first :meth:`play` and stays until :meth:`close` (a later
    :meth:`play` opens it again). ``threads``: worker processes of ``"local"``.
    """

    def __init__(self, address: str, threads: int | None = None):
        from bnb_sim.runner.dask_backend import check_address

        self.address = check_address(address)
        self.threads = threads
        self._executor = None
        self._kernels: set[str] = set()

    def _open(self, config: Any):
        """The executor, playing ``config`` (the connection made on first use)."""
        kernels = repr((getattr(config, "game", None), getattr(config, "policies", None)))
        if self._executor is None:
            self._executor = study_executor(config, self.address, self.threads)
        else:
            self._executor.use(config, warm=kernels not in self._kernels)
        self._kernels.add(kernels)
        return self._executor

    def chunk_size(self, n: int, threads: int) -> int:
        """Games per chunk: about :data:`CHUNKS_PER_THREAD` chunks per worker thread."""
        per = -(-int(n) // max(1, CHUNKS_PER_THREAD * int(threads)))
        return max(1, min(per, MAX_CHUNK))

    def play(
        self,
        config: Any,
        start: int,
        n: int,
        *,
        keep: Callable[[str], bool] | None = None,
        report: bool = True,
    ):
        """``(seats, games)`` of games ``start .. start + n - 1`` of ``config``, in game order
        (the rows of a local block). ``keep`` selects the seat columns; ``report``: tell the
        progress meter each chunk's games (:func:`bnb_sim.feedback.games_played`)."""
        from bnb_sim.feedback import games_played

        executor = self._open(config)
        size = self.chunk_size(n, executor.threads)
        tasks = [(k, int(start) + s, min(size, int(n) - s))
                 for k, s in enumerate(range(0, int(n), size))]  # fmt: skip
        sizes = {k: m for k, _s, m in tasks}
        parts: dict[int, tuple[Any, Any]] = {}
        try:
            for k, seats, games in executor.run(tasks):
                if keep is not None:
                    seats = seats[[c for c in seats.columns if keep(c)]]
                parts[k] = (seats, games)
                if report:
                    games_played(sizes[k])
        except BaseException:
            executor.stop()
            raise
        ordered = [parts[k] for k in sorted(parts)]
        return concat([p[0] for p in ordered]), concat([p[1] for p in ordered])

    def close(self) -> None:
        if self._executor is not None:
            self._executor.close()
            self._executor = None
        self._kernels.clear()

    def __enter__(self) -> DaskBlocks:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()


def open_blocks(dask: str | None, threads: int | None = None) -> DaskBlocks | None:
    """A :class:`DaskBlocks` for ``dask`` (checked now), or None without one."""
    return None if dask is None else DaskBlocks(dask, threads)


def concat(frames: list):
    """The frames one under another; a categorical column stays categorical (its categories
    the union of the chunks', which may differ: a chunk lacks a value the run has)."""
    import pandas as pd
    from pandas.api.types import union_categoricals

    if len(frames) == 1:
        return frames[0]
    out = pd.concat(frames, ignore_index=True)
    for col in frames[0].columns:
        if all(isinstance(f[col].dtype, pd.CategoricalDtype) for f in frames):
            out[col] = union_categoricals([f[col] for f in frames], ignore_order=True)
    return out
