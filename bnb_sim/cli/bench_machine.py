"""The machine a benchmark runs on: platform, CPU, versions and load, for ``bnb bench`` and
``bnb bench --reference`` alike (:mod:`bnb_sim.cli.bench_cmd`,
:mod:`bnb_sim.cli.bench_reference`). Nothing heavy is imported until a function runs."""

from __future__ import annotations

import os
from typing import Any

__all__ = ["load_average", "machine", "threading_layer"]


def machine() -> dict[str, Any]:
    """Machine and versions (imports numba)."""
    import platform

    import numpy

    from bnb_sim._jit import numba
    from bnb_sim.runner.run_meta import machine_info

    return {
        **machine_info(),
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": numpy.__version__,
        "numba_threads": int(numba.config.NUMBA_NUM_THREADS),
        "threading_layer": threading_layer(),
    }


def threading_layer() -> str | None:
    from bnb_sim._jit import numba

    try:
        return numba.threading_layer()
    except ValueError:  # no parallel kernel has run yet
        return None


def load_average() -> float | None:
    """The 1-minute load average, or None where the system has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None
