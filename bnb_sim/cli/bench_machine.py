"""The machine a benchmark runs on: platform, CPU, versions and load, for ``bnb bench`` and
``bnb bench --reference`` alike (:mod:`bnb_sim.cli.bench_cmd`,
:mod:`bnb_sim.cli.bench_reference`). The machine description itself is the run folders'
(:func:`bnb_sim.runner.run_meta.machine`); nothing heavy is imported until a function runs."""

from __future__ import annotations

import os

from bnb_sim.runner.run_meta import _threading_layer as threading_layer
from bnb_sim.runner.run_meta import machine

__all__ = ["load_average", "machine", "threading_layer"]


def load_average() -> float | None:
    """The 1-minute load average, or None where the system has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None
