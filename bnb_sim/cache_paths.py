"""Where the compiled kernels live, without importing numba (``bnb cache``, ``bnb warmup``).

Numba's on-disk cache is keyed on each function's own source file, so editing a helper in
another module leaves stale machine code behind in its callers (docs/design.md, "Kernels and
the cache"). We sidestep that by keeping the cache in a folder named after a fingerprint of
every module that holds jitted code: any edit to any kernel starts a fresh cache, and an
unchanged install keeps its warm cache across processes. A user's ``NUMBA_CACHE_DIR`` is
respected: our fingerprinted folder goes inside it. Old fingerprints (other versions, other
clones) stay behind until ``bnb cache clear`` removes them.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import shutil
import tempfile

_PACKAGE = pathlib.Path(__file__).resolve().parent  # bnb_sim/
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
    files = {_PACKAGE / "_jit.py", pathlib.Path(__file__).resolve()}
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


def cache_folders() -> list[pathlib.Path]:
    """Every bnb-sim kernel cache under :func:`cache_root` (this installation's and old ones)."""
    root = cache_root()
    if not root.is_dir():
        return []
    pattern = f"numba-*{_FINGERPRINT_SUFFIX}"
    return sorted(p for p in root.glob(pattern) if p.is_dir() and not p.is_symlink())


def folder_bytes(folder: pathlib.Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink())


def remove_folder(folder: pathlib.Path) -> None:
    """Delete one cache folder (only folders :func:`cache_folders` lists)."""
    if folder not in cache_folders():
        raise ValueError(f"{folder} is not a bnb-sim kernel cache")
    shutil.rmtree(folder)
