"""Run a batch kernel over blocks of games in worker threads (any game: no game imports).

The batch kernels play their games one after the other and release the GIL (``nogil``), so
Python threads play blocks of games side by side. A kernel with numba's ``parallel=True``
would do the same with its own threads, but its compile costs about a fifth more
(docs/design.md, "Kernels and the cache"). Each game is a pure function of its index and
writes only its own rows, so the rows do not depend on the number of threads or the blocks.

The kernel always runs in a worker thread, never in the main thread: numba holds signals
until a kernel returns, and Ctrl-C and SIGTERM must reach their handlers while games play.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

#: After a stop request, how long to wait for the kernels to notice it (one decision of each
#: thread's game; a plugin stuck inside one decision is left behind in its daemon thread).
STOP_GRACE_SECONDS = 10.0
#: The same wait when the stop had been asked for already (a SIGTERM a few seconds earlier:
#: the kernels had their time, a plugin stuck in a decision will not return).
STOPPED_GRACE_SECONDS = 0.5
#: Fewest games per block: a kernel call from Python costs tens of microseconds.
MIN_BLOCK = 16
#: Most games per block: enough blocks per thread to even out the threads' work.
MAX_BLOCK = 1024


def thread_count(threads: int | None) -> int:
    """Threads to use: ``threads``, or numba's thread count (``NUMBA_NUM_THREADS``, the usable
    cores by default; a Dask worker pins it to 1), never more than numba's limit."""
    from bnb_sim._jit import numba

    limit = int(numba.config.NUMBA_NUM_THREADS)
    return limit if threads is None else max(1, min(int(threads), limit))


def blocks(n: int, threads: int) -> list[tuple[int, int]]:
    """``(first, end)`` index ranges covering ``0 .. n - 1``: one range on one thread, else
    about eight per thread."""
    if n <= 0:
        return []
    if threads <= 1:
        return [(0, n)]
    size = max(MIN_BLOCK, min(MAX_BLOCK, -(-n // (threads * 8))))
    return [(first, min(n, first + size)) for first in range(0, n, size)]


def run_blocks(
    play: Callable[[int, int], None],
    n: int,
    threads: int | None,
    stop: np.ndarray | None = None,
    on_start: Callable[[], None] | None = None,
    on_end: Callable[[], None] | None = None,
) -> None:
    """``play(first, end)`` for every block of ``0 .. n - 1`` on :func:`thread_count` worker
    threads; returns when all are played, re-raising the first exception of a block.

    ``stop`` (a one-element int64 array the kernels read): set on any exception here (Ctrl-C
    in the main thread included), so the kernels wind down; the exception is re-raised once
    they have (or after :data:`STOP_GRACE_SECONDS`; :data:`STOPPED_GRACE_SECONDS` when the
    stop had been asked for already). Blocks taken after ``stop`` was set are
    still handed to ``play``: the kernel marks their games stopped without playing them.
    ``on_start``/``on_end`` run in this thread around the whole (to register ``stop``).
    """
    count = thread_count(threads)
    todo = blocks(n, count)
    if not todo:
        return
    count = min(count, len(todo))
    if count == 1 and threading.current_thread() is not threading.main_thread():
        for block in todo:  # already off the main thread (a Dask task, a worker): play here
            play(*block)
        return
    queue = iter(todo)
    lock = threading.Lock()
    failures: list[BaseException] = []

    def work() -> None:
        while True:
            with lock:
                block = next(queue, None)
                if block is None or failures:
                    return
            try:
                play(*block)
            except BaseException as exc:  # handed to the calling thread
                if stop is not None:
                    stop[0] = 1
                with lock:
                    failures.append(exc)
                return

    workers = [
        threading.Thread(target=work, name=f"bnb-kernel-{i}", daemon=True) for i in range(count)
    ]
    if on_start is not None:
        on_start()
    try:
        for worker in workers:
            worker.start()
        for worker in workers:
            while worker.is_alive():
                worker.join(0.05)
    except BaseException:
        asked_before = stop is not None and bool(stop[0])
        if stop is not None:
            stop[0] = 1
        grace = STOPPED_GRACE_SECONDS if asked_before else STOP_GRACE_SECONDS
        deadline = time.monotonic() + grace
        for worker in workers:
            try:
                worker.join(max(0.0, deadline - time.monotonic()))
            except RuntimeError:  # the signal came while it was being started: never ran
                pass
        raise
    finally:
        if on_end is not None:
            on_end()
    if failures:
        raise failures[0]
