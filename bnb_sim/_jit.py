"""The one module that imports numba.

Numba's on-disk cache is keyed on each function's own source file, so editing a helper in
another module leaves stale machine code behind in its callers (docs/design.md, "Kernels and
the cache"). We sidestep that by keeping each group of kernels (each game, the shared
modules) in a folder named after a fingerprint of the source it can reach
(:mod:`bnb_sim.cache_paths`): an edit starts a fresh cache for the kernels it can change, and
an unchanged install keeps its warm cache across processes, clones and moves
(:class:`PackageCacheLocator`).

A user's ``NUMBA_CACHE_DIR`` is respected: our fingerprinted folders go inside it.
Everything that simulates imports numba through here; the CLI imports this module only
inside the commands that need kernels, so ``bnb --help`` and ``bnb report`` stay numba-free.
"""

from __future__ import annotations

import hashlib
import pathlib
import warnings

from bnb_sim.cache_paths import (  # noqa: F401 (re-exported: the cache's public names)
    _PACKAGE,
    CONSTANTS_MARKER,
    KERNEL_MARKER,
    _configure,
    cache_dir,
    cache_root,
    group_of,
    kernel_fingerprint,
)

CACHE_DIR = _configure()

import numba  # noqa: E402  (must follow the cache configuration above)
from numba import prange  # noqa: E402
from numba.core import caching as _caching  # noqa: E402
from numba.core import types as _types  # noqa: E402
from numba.core.registry import CPUDispatcher as _CPUDispatcher  # noqa: E402

# If numba was imported before us, its config already froze the old value; set it directly.
numba.config.CACHE_DIR = CACHE_DIR


class PackageCacheLocator(_caching._CacheLocator):
    """Where numba caches a bnb-sim kernel: in its group's fingerprinted folder
    (:func:`bnb_sim.cache_paths.cache_dir`), under the module's path inside the package.

    numba's own locators key the folder on the absolute path of the source and (before
    numba 0.68) stamp it with the file's modification time, so a second clone, a moved
    checkout or a reinstall of the same code compiled everything again. Here the folder is
    the same for identical code wherever it lies, and the stamp is a hash of the source.
    """

    def __init__(self, py_func, py_file):
        path = pathlib.Path(py_file).resolve()
        self._py_file = str(path)
        self._lineno = py_func.__code__.co_firstlineno
        inside = path.parent.relative_to(_PACKAGE)
        self._cache_path = str(cache_dir(group_of(path)).joinpath(*inside.parts))

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return _source_hash(self._py_file)

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            pathlib.Path(py_file).resolve().relative_to(_PACKAGE)
        except (ValueError, OSError):
            return None  # not bnb-sim's: numba's own locators take it
        self = cls(py_func, py_file)
        try:
            self.ensure_cache_path()
        except OSError:
            return None
        return self


_HASHES: dict[str, bytes] = {}


def _source_hash(path: str) -> bytes:
    if path not in _HASHES:
        _HASHES[path] = hashlib.sha256(pathlib.Path(path).read_bytes()).digest()
    return _HASHES[path]


# Consulted before numba's own locators (a user's NUMBA_CACHE_LOCATOR_CLASSES replaces the
# list and wins).
if PackageCacheLocator not in _caching.CacheImpl._locator_classes:
    _caching.CacheImpl._locator_classes = [
        PackageCacheLocator,
        *_caching.CacheImpl._locator_classes,
    ]

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


class _Dispatcher(_CPUDispatcher):
    """numba's dispatcher, compiling one version per argument *types* when called from other
    kernels, not one per constant value.

    A kernel that calls ``f(pub, 0)`` and ``f(pub, 1)`` would otherwise compile ``f`` twice,
    once for ``Literal[int](0)`` and once for ``Literal[int](1)``: numba types a constant
    argument by its value. Seven calls of the stream seeder with seven stream ids compiled
    it seven times, and a one-step helper six times (docs/design.md, "Kernels and the
    cache"). Only the call's typing changes; the compiled code is the same function of its
    arguments, so the results are too.
    """

    def get_call_template(self, args, kws):
        args = tuple(_types.unliteral(a) for a in args)
        kws = {key: _types.unliteral(value) for key, value in kws.items()}
        return super().get_call_template(args, kws)


def _ours(dispatcher):
    if type(dispatcher) is _CPUDispatcher:
        dispatcher.__class__ = _Dispatcher
    return dispatcher


def njit(fn=None, *, per_constant: bool = False, **options):
    """``numba.njit`` for bnb-sim's kernels: one compiled version per argument types
    (:class:`_Dispatcher`). Code that allocates (set-up, tables, output rows) uses it;
    code the game loop reaches uses :func:`kernel`.

    ``per_constant=True`` keeps numba's own typing: a version per constant argument value,
    with the branches on that constant pruned. Worth its compile only in the hot helpers
    that callers give a constant flag or offset (the one-step bots' ``randomize``, a rule's
    ``by_pickaxe``): typed by value the search bots' playouts run faster
    (docs/design.md, "Kernels and the cache")."""
    decorator = numba.njit(**options)

    def wrap(function):
        dispatcher = decorator(function)
        return dispatcher if per_constant else _ours(dispatcher)

    return wrap if fn is None else wrap(fn)


def _scope_copies_once():
    """A context in which a numba IR scope is deep-copied once per copy of a function's IR.

    numba's inliner copies the callee's IR block by block, and each block's copy copies the
    scope again, with every variable of the function: the cost grows with blocks times
    variables, so an inlined function that inlines others (the Heroes of the Village bot)
    spent half its compile copying. Inside this context the blocks of one copy share one copy
    of the scope, as they share the original; the copy is otherwise the same. Outside it (and
    on a Python without ``copy._reconstruct``) nothing changes.
    """
    import contextlib
    import copy

    from numba.core import ir

    reconstruct = getattr(copy, "_reconstruct", None)
    active: list[dict] = []

    def deepcopy_scope(self, memo):
        copies = active[-1]
        new = copies.get(id(self))
        if new is None:
            new = copies[id(self)] = reconstruct(self, memo, *self.__reduce_ex__(4))
        memo[id(self)] = new
        return new

    @contextlib.contextmanager
    def scope_copies():
        if reconstruct is None or "__deepcopy__" in vars(ir.Scope):
            yield
            return
        active.append({})
        ir.Scope.__deepcopy__ = deepcopy_scope
        try:
            yield
        finally:
            active.pop()
            if not active:
                del ir.Scope.__deepcopy__

    return scope_copies


def _reuse_inlined_ir() -> None:
    """Translate a function inlined with ``inline="always"`` once per process, not once per
    call site.

    numba's inliner runs the whole untyped front end (bytecode to IR, its own inlining,
    rewrites) over the callee at every call site and copies the result into the caller. The
    copy is what the caller mutates, so the translation can be kept and copied again: a
    quarter of the batch kernel's compile went into translating the same small accessors
    hundreds of times (docs/design.md, "Kernels and the cache"). Only bnb-sim's own
    functions are kept (their globals are constants); a numba whose inliner differs from
    the one this was written for is left alone.
    """
    import inspect

    try:
        from numba.core.inline_closurecall import InlineWorker
    except ImportError:  # pragma: no cover - depends on numba
        return
    original = getattr(InlineWorker, "inline_function", None)
    if original is None or getattr(original, "_bnb_reuse", False):
        return
    try:
        params = list(inspect.signature(original).parameters)
    except (TypeError, ValueError):  # pragma: no cover
        return
    expected = ["self", "caller_ir", "block", "i", "function", "arg_typs"]
    if params != expected or not hasattr(InlineWorker, "inline_ir"):  # pragma: no cover
        return
    translated: dict = {}
    scope_copies = _scope_copies_once()

    def inline_function(self, caller_ir, block, i, function, arg_typs=None):
        if not getattr(function, "__module__", "").startswith("bnb_sim."):
            return original(self, caller_ir, block, i, function, arg_typs)
        parallel = getattr(getattr(self.flags, "auto_parallel", None), "enabled", False)
        key = (function, bool(parallel))
        callee_ir = translated.get(key)
        if callee_ir is None:
            callee_ir = translated[key] = self.run_untyped_passes(function)
        # inline_ir works on a deep copy of callee_ir (numba: "Always copy the callee IR,
        # it gets mutated"), so the kept translation stays as it was
        freevars = function.__code__.co_freevars
        with scope_copies():
            return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)

    inline_function._bnb_reuse = True
    InlineWorker.inline_function = inline_function


_reuse_inlined_ir()


def _faster_flag_values() -> None:
    """Read numba's compile flags without a property call per option.

    Typing looks up every overloaded operation in a cache keyed on the compile flags, and
    hashing or comparing the flags reads each of their thirty-odd options through a property
    (``TargetConfig.values``): a tenth of the engine's compile (cProfile). The same dict,
    read straight from the set values and the options' defaults, changes nothing but the
    time. Left alone if the result would differ (a numba that reads options otherwise).
    """
    from numba.core import targetconfig
    from numba.core.compiler import Flags

    cls = targetconfig.TargetConfig
    original = cls.values
    if getattr(original, "_bnb_fast", False):
        return

    def values(self):
        get = self._values.get
        return {name: get(name, option.default) for name, option in self.options.items()}

    try:
        probe = Flags()
        probe.nrt = True
        probe.error_model = "numpy"
        if values(probe) != original(probe) or values(Flags()) != original(Flags()):
            return
    except Exception:  # pragma: no cover - depends on numba
        return
    values._bnb_fast = True
    cls.values = values


_faster_flag_values()


def kernel(fn=None, *, inline: str = "never", nogil: bool = False, per_constant: bool = False):
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
    return njit(
        fn,
        per_constant=per_constant,
        cache=True,
        inline=inline,
        nogil=nogil,
        error_model="numpy",
        **_NO_NRT,
    )


__all__ = [
    "CACHE_DIR",
    "PackageCacheLocator",
    "kernel",
    "kernel_fingerprint",
    "njit",
    "numba",
    "prange",
]
