"""Stop requests for the batch kernels running in this process (Ctrl-C, SIGTERM).

A batch kernel checks a one-element ``stop`` array before each decision; a running kernel is
registered here (:func:`register`) so that a signal handler (:mod:`bnb_sim.interruptible`,
:mod:`bnb_sim.runner.stop_flag`) can set every one of them with :func:`request_stop`. Pure
Python on plain numpy arrays: it imports no engine, so the handlers need none.
"""

from __future__ import annotations

import numpy as np

__all__ = ["clear_stop_request", "register", "request_stop", "unregister"]

_ACTIVE_STOPS: list[np.ndarray] = []
#: A stop request made while no kernel runs (a signal while a chunk's kernel is being set
#: up) is kept for the next kernel that starts, until the run that asked clears it.
_STOP_PENDING = [False]


def request_stop() -> None:
    """Ask every batch kernel running in this process to stop before its next decision, or,
    when none runs, the next one to start (for signal handlers: a chunk cut short raises
    instead of returning rows)."""
    active = list(_ACTIVE_STOPS)
    for stop in active:
        stop[0] = 1
    if not active:
        _STOP_PENDING[0] = True


def clear_stop_request() -> None:
    """End a stop request (the run that made it has wound down)."""
    _STOP_PENDING[0] = False


def register(stop: np.ndarray) -> None:
    """A kernel that checks ``stop`` starts: a stop request reaches it (one made while no
    kernel ran, too)."""
    _ACTIVE_STOPS.append(stop)
    if _STOP_PENDING[0]:  # a request that came while no kernel ran: this one takes it
        _STOP_PENDING[0] = False
        stop[0] = 1


def unregister(stop: np.ndarray) -> None:
    """The kernel that checks ``stop`` has ended."""
    _ACTIVE_STOPS.remove(stop)
