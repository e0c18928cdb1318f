"""Freeing a report's figures one by one without scanning the whole process for each.

:meth:`bnb_sim.analysis.report_builder.Section.figure` frees every rendered figure at once
with ``gc.collect()``: a matplotlib figure is a web of reference cycles (figure, canvas, axes,
artists, transforms) of a few MB, and a report's 20 figures held 80-150 MB until the collector
came by. But a full collection scans every object of the process (pandas, numba, matplotlib
and, in a test worker, pytest's): 74 ms a figure in ``bnb report``, 135 ms in a test worker,
a quarter of the time of the report tests.

:func:`renders_figures` wraps the functions that build a report: the objects alive when the
outermost one starts are set aside (``gc.freeze()``), so each figure's collection scans only
what the report made since, and they are handed back to the collector when it ends
(``gc.unfreeze()``). A process that froze objects of its own (a forking server) keeps its own
arrangement: nothing is frozen or unfrozen then. Imports nothing heavy.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

__all__ = ["renders_figures"]


class _Scopes:
    """How many report builds are running, and whether the outermost froze the heap."""

    lock = threading.Lock()
    depth = 0
    froze = False


@contextlib.contextmanager
def renders_figures() -> Iterator[None]:
    """A context manager, or a decorator (``@renders_figures()``), for building a report."""
    with _Scopes.lock:
        if _Scopes.depth == 0:
            _Scopes.froze = gc.get_freeze_count() == 0
            if _Scopes.froze:
                gc.freeze()
        _Scopes.depth += 1
    try:
        yield
    finally:
        with _Scopes.lock:
            _Scopes.depth -= 1
            if _Scopes.depth == 0 and _Scopes.froze:
                gc.unfreeze()
                _Scopes.froze = False
