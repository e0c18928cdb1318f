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

import hashlib
import os
import pathlib
import tempfile
import warnings

_PACKAGE = pathlib.Path(__file__).resolve().parent
# Folders whose modules all feed kernels (@njit code and the constants it reads); a change in
# any of them invalidates the cache.
_KERNEL_FOLDERS = ("games/builders_biomes/engine", "games/builders_biomes/policies")
# Elsewhere (the shared modules such as rng.py and plugins.py, the game packages under
# bnb_sim/games/), the modules with kernels and the modules whose constants kernels read carry
# this marker; reports and CLI code do not, so editing those does not recompile anything.
KERNEL_MARKER = b"bnb_sim._jit"
CONSTANTS_MARKER = b"# numba-constants"


def _marked_kernel_files() -> list[pathlib.Path]:
    return [
        path
        for path in sorted(_PACKAGE.rglob("*.py"))
        if KERNEL_MARKER in (text := path.read_bytes()) or CONSTANTS_MARKER in text
    ]


def kernel_fingerprint() -> str:
    """Short hash of the source of every module that holds jitted code."""
    digest = hashlib.sha256()
    files = {pathlib.Path(__file__).resolve()}
    for folder in _KERNEL_FOLDERS:
        files.update((_PACKAGE / folder).rglob("*.py"))
    files.update(_marked_kernel_files())
    for path in sorted(files):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _writable(folder: pathlib.Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".write-probe"
        probe.write_text("ok")
        probe.unlink()
        return True
    except OSError:
        return False


def cache_root() -> pathlib.Path:
    """The folder that holds the fingerprinted caches (not including the fingerprint)."""
    user_dir = os.environ.get("BNB_USER_NUMBA_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    if user_dir and not user_dir.endswith(_FINGERPRINT_SUFFIX):
        return pathlib.Path(user_dir)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(xdg) / "bnb-sim"


_FINGERPRINT_SUFFIX = "-bnbsim"


def cache_dir() -> pathlib.Path:
    """Where this installation's compiled kernels live."""
    folder = cache_root() / f"numba-{kernel_fingerprint()}{_FINGERPRINT_SUFFIX}"
    if not _writable(folder):
        folder = pathlib.Path(tempfile.gettempdir()) / "bnb-sim" / folder.name
        folder.mkdir(parents=True, exist_ok=True)
    return folder


def _configure() -> str:
    user_dir = os.environ.get("NUMBA_CACHE_DIR")
    if user_dir and not user_dir.endswith(_FINGERPRINT_SUFFIX):
        # Remember the user's choice so that worker processes that inherit our environment
        # derive the same folder instead of nesting fingerprints.
        os.environ["BNB_USER_NUMBA_CACHE_DIR"] = user_dir
    folder = str(cache_dir())
    os.environ["NUMBA_CACHE_DIR"] = folder
    return folder


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


def kernel(fn=None, *, inline: str = "never"):
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
    """
    decorator = numba.njit(cache=True, inline=inline, error_model="numpy", **_NO_NRT)
    return decorator if fn is None else decorator(fn)


__all__ = ["CACHE_DIR", "kernel", "kernel_fingerprint", "njit", "numba", "prange"]
