"""The one module that imports numba.

Numba's on-disk cache is keyed on each function's own source file, so editing a helper in
another module leaves stale machine code behind in its callers (docs/design.md, "Kernels and
the cache"). We sidestep that by keeping the cache in a folder named after a fingerprint of
every module that holds jitted code: any edit to any kernel starts a fresh cache, and an
unchanged install keeps its warm cache across processes.

A user's ``NUMBA_CACHE_DIR`` is respected: our fingerprinted folder goes inside it.
Everything that simulates imports numba through here; the CLI imports this module only
inside the commands that need kernels, so ``bnb --help`` and ``bnb report`` stay numba-free.
"""

from __future__ import annotations

import warnings

from bnb_sim.cache_paths import (  # noqa: F401 (re-exported: the cache's public names)
    CONSTANTS_MARKER,
    KERNEL_MARKER,
    _configure,
    cache_dir,
    cache_root,
    kernel_fingerprint,
)

CACHE_DIR = _configure()

import numba  # noqa: E402  (must follow the cache configuration above)
from numba import njit, prange  # noqa: E402

# If numba was imported before us, its config already froze the old value; set it directly.
numba.config.CACHE_DIR = CACHE_DIR

# The plugin path passes cfuncs as first-class functions (docs/design.md, "Policies"); numba
# still labels that feature experimental and would warn once per compiled game config.
warnings.filterwarnings(
    "ignore",
    message="First-class function type feature is experimental",
    category=numba.NumbaExperimentalFeatureWarning,
)


def _has_nrt_option() -> bool:
    try:
        numba.njit(_nrt=False)
    except (KeyError, TypeError, ValueError):  # pragma: no cover - depends on numba
        return False
    return True


_NO_NRT = {"_nrt": False} if _has_nrt_option() else {}


def kernel(fn=None, *, inline: str = "never", nogil: bool = False):
    """``njit(cache=True)`` without numba's reference-counting runtime (NRT).

    Numba wraps array uses in calls to ``NRT_incref``/``NRT_decref``. They cannot be
    inlined, and LLVM must assume an opaque call may write memory, so values cannot stay in
    registers across them: in the game loop they took about 40% of the time (measured with
    cycle counters; ``python scripts/bench_engine.py --only speed``). The rules and the bots
    work in arrays they are given and never allocate, so they do not need the runtime; a
    kernel that allocates (``np.zeros``, ``np.sort``...) fails to compile instead of leaking.
    Code that allocates (set-up, tables, output rows) stays ``njit``.

    Every function the game loop reaches must be a kernel (or inlined): numba stores one
    compiled version per signature, and a plain ``njit`` helper first compiled from a caller
    with the runtime would keep the reference counting when the loop links it.

    ``_nrt`` is a numba option without a public name yet; if a numba release drops it, the
    kernels compile with the runtime (slower, same results).

    ``error_model="numpy"``: integer ``//`` and ``%`` (seat rotations, grid coordinates,
    bounded draws) compile without the division-by-zero test and raise path that the default
    Python error model puts around each one, which also keeps LLVM from hoisting and
    combining them. The rules never divide by zero (a game that did would already stop with
    an error), so results are the same.

    ``nogil``: called from Python, the kernel releases the GIL (it matters only there;
    inlined into another kernel it is that kernel's code), so the caller's main thread can
    take Ctrl-C while a worker thread waits in a long decision (``Game.play``).
    """
    decorator = numba.njit(cache=True, inline=inline, nogil=nogil, error_model="numpy", **_NO_NRT)
    return decorator if fn is None else decorator(fn)


__all__ = ["CACHE_DIR", "kernel", "kernel_fingerprint", "njit", "numba", "prange"]
