"""Ctrl-C and SIGTERM during a run: :class:`_StopFlag` turns the first signal into a request to
stop between chunks (or, for SIGTERM, at the engine's next decision) and a second one into an
immediate stop, so that a run always ends as a valid, resumable run directory.
"""

from __future__ import annotations

import _thread
import signal
import threading
from collections.abc import Callable
from typing import Any


class _StopFlag:
    """SIGINT and SIGTERM handler: the first Ctrl-C asks to stop after the current chunk, a
    second one interrupts at once (the chunk in progress is lost; finished parts stay valid),
    except while the run is being wound down (``critical``: run.json is being written).
    SIGTERM stops at once: whoever sends it (a service manager, a batch scheduler) sends
    SIGKILL a few seconds later, and a chunk with a slow plugin could outlast that. If the
    engine has not noticed the stop after :attr:`TERM_GRACE_SECONDS` (a plugin stuck in one
    decision), the signal is delivered again, which ends the wait at once: the run stops with
    its resume command all the same."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)
    #: After a SIGTERM, how long the engine has to notice the stop before the wait for it is
    #: cut short (a plugin stuck in one decision never gets to the check; the run is then
    #: wound down at once, its chunk in progress lost, and the process may end).
    TERM_GRACE_SECONDS = 3.0

    def __init__(self, notice: Callable[[str], None] | None):
        self.signum: int | None = None
        self.critical = False
        self._notice = notice
        self._old: dict[int, Any] = {}
        self._escalation: threading.Timer | None = None

    @property
    def requested(self) -> bool:
        return self.signum is not None

    def __enter__(self) -> _StopFlag:
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                self._old[signum] = signal.getsignal(signum)
                signal.signal(signum, self._handle)
        return self

    def _handle(self, signum, frame) -> None:
        if self.signum is not None:
            if self.critical:
                return
            raise KeyboardInterrupt
        self.signum = signum
        if signum != signal.SIGINT:
            from bnb_sim.runner.kernel_stops import request_stop

            request_stop()  # the kernel returns before its next decision; the chunk is replayed
            if self._notice is not None:
                name = signal.Signals(signum).name
                self._notice(f"{name}: stopping now (the chunk in progress is played again)")
            self._escalate_later(signum)
            return
        if self._notice is not None:
            self._notice(
                "Ctrl-C: stopping after the current chunk (press Ctrl-C again to stop now)"
            )

    def _escalate_later(self, signum: int) -> None:
        """If the engine has not stopped within TERM_GRACE_SECONDS, deliver the signal to the
        main thread again: a second signal interrupts the wait at once (``_handle``)."""
        if not self._old:  # not the main thread: no handler of ours to deliver to
            return

        def again() -> None:
            if self._old and not self.critical:
                _thread.interrupt_main(signum)

        self._escalation = threading.Timer(self.TERM_GRACE_SECONDS, again)
        self._escalation.daemon = True
        self._escalation.start()

    def __exit__(self, *exc) -> None:
        from bnb_sim.runner.kernel_stops import clear_stop_request

        if self._escalation is not None:
            self._escalation.cancel()
        for signum, old in self._old.items():
            signal.signal(signum, old)
        self._old.clear()
        clear_stop_request()
