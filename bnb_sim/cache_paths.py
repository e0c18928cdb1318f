"""Where the compiled kernels live, without importing numba (``bnb cache``, ``bnb warmup``).

Numba keys a cached function on its own source file only, so editing a helper in another
module would leave stale machine code in its callers (docs/design.md, "Kernels and the
cache"). bnb-sim therefore keeps each group of kernels in a folder named after a fingerprint
of the source it can reach: the group's kernel modules and every bnb-sim module they import,
transitively (constants included). The groups are the games (``games/<name>/``) and the
shared modules (``rng.py``, ``plugins.py``...): an edit to one game's kernels starts a fresh
cache for that game only, an edit to a shared module for everything that imports it.

Inside a folder, a function's entries sit under its module's path *inside the package*, not
the absolute path of the checkout (``bnb_sim._jit`` installs the locator), and are stamped
with a hash of the source rather than its modification time: a second clone, a moved checkout
or a reinstall of identical code finds the kernels compiled.

A user's ``NUMBA_CACHE_DIR`` is respected: the fingerprinted folders go inside it. Old
fingerprints (other versions, edited code) stay behind until ``bnb cache clear`` removes them.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pathlib
import re
import shutil
import tempfile

_PACKAGE = pathlib.Path(__file__).resolve().parent  # bnb_sim/
#: Modules whose text makes the compiled code: always part of every fingerprint.
_ALWAYS = ("_jit.py", "cache_paths.py")
# A module that imports `kernel`, `njit` or `prange` from bnb_sim._jit holds kernels.
KERNEL_MARKER = b"bnb_sim._jit"
_KERNEL_IMPORT = re.compile(rb"^from bnb_sim\._jit import ([^\n(]+|\([^)]*\))", re.M)
_KERNEL_NAMES = {b"kernel", b"njit", b"prange"}
# A module whose constants kernels read but which no kernel module imports by name can carry
# this marker to join its group's fingerprint.
CONSTANTS_MARKER = b"# numba-constants"
# Top-level imports of bnb-sim modules (imports inside functions are Python-side only).
_TOP_IMPORT = re.compile(
    rb"^(?:from (bnb_sim(?:\.\w+)*) import ([^\n(]+|\([^)]*\))|import (bnb_sim(?:\.\w+)*))", re.M
)
SHARED = "shared"
_FINGERPRINT_SUFFIX = "-bnbsim"


def group_of(path: pathlib.Path) -> str:
    """The kernel group of a module of the package: its game's folder name, or ``shared``."""
    parts = path.resolve().relative_to(_PACKAGE).parts
    return parts[1] if len(parts) > 2 and parts[0] == "games" else SHARED


def _names(text: bytes) -> set[bytes]:
    return {name.strip() for name in re.split(rb"[\s,()]+", text) if name.strip()}


def _module_file(dotted: str) -> pathlib.Path | None:
    parts = dotted.split(".")[1:]
    base = _PACKAGE.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(path: pathlib.Path, text: bytes) -> set[pathlib.Path]:
    found = set()
    for module, names, plain in _TOP_IMPORT.findall(text):
        dotted = (module or plain).decode()
        target = _module_file(dotted)
        if target is not None:
            found.add(target)
        for name in _names(names):  # `from package import module`
            sub = _module_file(f"{dotted}.{name.decode()}") if module else None
            if sub is not None:
                found.add(sub)
    return found


@functools.cache
def _sources() -> dict[pathlib.Path, bytes]:
    return {path: path.read_bytes() for path in sorted(_PACKAGE.rglob("*.py"))}


def kernel_modules() -> list[pathlib.Path]:
    """The modules that define kernels (or carry :data:`CONSTANTS_MARKER`)."""
    found = []
    for path, text in _sources().items():
        if CONSTANTS_MARKER in text or any(
            _names(names) & _KERNEL_NAMES for names in _KERNEL_IMPORT.findall(text)
        ):
            found.append(path)
    return found


@functools.cache
def group_files(group: str) -> tuple[pathlib.Path, ...]:
    """The source a group's compiled code can depend on: its kernel modules, every bnb-sim
    module they import at top level (transitively), and :data:`_ALWAYS`."""
    sources = _sources()
    todo = [p for p in kernel_modules() if group_of(p) == group]
    seen = {_PACKAGE / name for name in _ALWAYS}
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo.extend(_imports(path, sources.get(path) or path.read_bytes()) - seen)
    return tuple(sorted(seen))


def groups() -> list[str]:
    """Every kernel group: ``shared`` and each game with kernels."""
    return sorted({group_of(p) for p in kernel_modules()} | {SHARED})


@functools.cache
def kernel_fingerprint(group: str = SHARED) -> str:
    """Short hash of the source a group's compiled code can depend on."""
    digest = hashlib.sha256()
    for path in group_files(group):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode())
        digest.update(_sources().get(path) or path.read_bytes())
    return digest.hexdigest()[:16]


def _writable(folder: pathlib.Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".write-probe-{os.getpid()}"
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


def folder_name(group: str = SHARED) -> str:
    return f"numba-{group}-{kernel_fingerprint(group)}{_FINGERPRINT_SUFFIX}"


def cache_dir(group: str = SHARED) -> pathlib.Path:
    """Where this installation's compiled kernels of ``group`` live (created if missing; a
    temporary folder when the cache root is not writable)."""
    return _cache_dir(str(cache_root()), group)


@functools.cache
def _cache_dir(root: str, group: str) -> pathlib.Path:
    folder = pathlib.Path(root) / folder_name(group)
    if not _writable(folder):
        folder = pathlib.Path(tempfile.gettempdir()) / "bnb-sim" / folder.name
        folder.mkdir(parents=True, exist_ok=True)
    return folder


def cache_dirs() -> list[pathlib.Path]:
    """This installation's folders, one per kernel group."""
    return [cache_dir(group) for group in groups()]


def _configure() -> str:
    user_dir = os.environ.get("NUMBA_CACHE_DIR")
    if user_dir and not user_dir.endswith(_FINGERPRINT_SUFFIX):
        # Remember the user's choice so that worker processes that inherit our environment
        # derive the same folder instead of nesting fingerprints.
        os.environ["BNB_USER_NUMBA_CACHE_DIR"] = user_dir
    folder = str(cache_dir(SHARED))  # numba's own folder: code outside bnb-sim (plugins)
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
