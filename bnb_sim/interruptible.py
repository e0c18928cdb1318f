"""Work that Ctrl-C can stop, even while a compiled kernel runs (pure Python).

Python runs a signal handler only in the main thread, and only between bytecodes: while the
main thread is inside a numba kernel (a search bot's decision of minutes, a plugin stuck in a
loop), Ctrl-C waits for the kernel to return. :func:`run_interruptible` therefore runs the
work in a worker thread (the kernels it calls release the GIL) while the main thread waits,
ready for signals:

* the first Ctrl-C sets the ``stop`` event the work checks between steps (a game stops after
  the decision in progress) and tells the user through ``on_first``;
* a second Ctrl-C raises ``KeyboardInterrupt`` at once; the worker, a daemon thread, is left
  behind (the process is about to end) and whatever it works on is not to be used again.

:func:`terminate_as_interrupt` makes SIGTERM stop a command the way Ctrl-C does (its clean-up
and resume hint included) instead of killing it silently.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

T = TypeVar("T")

#: How often the waiting main thread wakes up (signals are taken between waits).
POLL_SECONDS = 0.05


def run_interruptible(
    work: Callable[[threading.Event], T], *, on_first: Callable[[], None] | None = None
) -> T:
    """``work(stop)`` in a worker thread, the calling thread waiting (module docstring).

    Off the main thread (where no signal arrives) the work simply runs in place. An exception
    of the work is raised here; ``work`` raises ``KeyboardInterrupt`` itself when it sees
    ``stop`` set."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        return work(stop)
    result: list[T] = []
    failure: list[BaseException] = []
    done = threading.Event()

    def target() -> None:
        try:
            result.append(work(stop))
        except BaseException as exc:  # handed to the waiting thread
            failure.append(exc)
        finally:
            done.set()

    worker = threading.Thread(target=target, name="bnb-interruptible", daemon=True)
    worker.start()
    # Wait on an Event, not Thread.join: in CPython 3.11 a Ctrl-C inside join() can mark a
    # thread that still runs as stopped (is_alive() turns False; bpo-45274's clean-up).
    while not done.is_set():
        try:
            done.wait(POLL_SECONDS)
        except KeyboardInterrupt:
            if stop.is_set():
                raise  # the second Ctrl-C: now
            stop.set()
            if on_first is not None:
                on_first()
    if failure:
        raise failure[0]
    return result[0]


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[list[int]]:
    """Inside the block SIGTERM raises ``KeyboardInterrupt`` like Ctrl-C (and asks running
    batch kernels to stop); the yielded list gets the signal numbers seen, so the caller can
    say "stopped by SIGTERM" and exit with 143. Only in the main thread (elsewhere a no-op)."""
    seen: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield seen
        return

    def handle(signum, frame) -> None:
        from bnb_sim.runner.kernel_stops import request_stop

        seen.append(signum)
        request_stop()  # a kernel in a worker thread returns before its next decision
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, handle)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGTERM, old)
        if seen:
            from bnb_sim.runner.kernel_stops import clear_stop_request

            clear_stop_request()
