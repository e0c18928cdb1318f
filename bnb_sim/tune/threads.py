"""Engine threads of a tuning run's small blocks of games (results never depend on them)."""

from __future__ import annotations

from contextlib import contextmanager

SMALL_BLOCK = 64


@contextmanager
def threads_kept():
    """Restore numba's thread count afterwards (:func:`engine_threads` changes it per block,
    and later code in the same process that passes no thread count must get all cores)."""
    from bnb_sim import _jit  # (not a kernel module: no jitted code here)

    numba = _jit.numba
    before = numba.get_num_threads()
    try:
        yield
    finally:
        numba.set_num_threads(before)


def keeps_threads(func):
    """Decorator: run ``func`` inside :func:`threads_kept`."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with threads_kept():
            return func(*args, **kwargs)

    return wrapper


def engine_threads(threads: int | None, n: int) -> int:
    """Threads for a block of ``n`` games: a small block runs faster on one thread (the
    parallel dispatch costs more than it saves); results never depend on it."""
    import os

    if threads is not None:
        return int(threads)
    return 1 if n < SMALL_BLOCK else max(1, os.cpu_count() or 1)
