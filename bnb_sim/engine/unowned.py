"""Views of arrays without a reference-counted owner, for the hot loop.

Every numba array carries a pointer to its owner ("meminfo"), and passing an array to a
function that is not fully inlined increments and decrements that owner's count with atomic
instructions. A game makes hundreds of decisions and thousands of helper calls on the same
few arrays, and those atomics were a third of the run time. A view made with
``numba.carray`` from the raw data pointer has no owner, so the counting is skipped.

The views must not outlive the arrays they point into: the functions here are only used
inside a kernel that keeps the owning arrays alive for the whole game.
"""

from __future__ import annotations

from numba import carray, types
from numba.extending import intrinsic

from bnb_sim._jit import njit, numba


def _pointer_intrinsic(dtype):
    @intrinsic
    def as_pointer(typingctx, address):
        sig = types.CPointer(dtype)(types.int64)

        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(types.CPointer(dtype)))

        return sig, codegen

    return as_pointer


_int64_pointer = _pointer_intrinsic(types.int64)
_uint64_pointer = _pointer_intrinsic(types.uint64)
_float64_pointer = _pointer_intrinsic(types.float64)


@njit(cache=True, inline="always")
def unowned_int64(a):
    """A view of a C-contiguous int64 array with no reference-counted owner."""
    return carray(_int64_pointer(a.ctypes.data), a.shape)


@njit(cache=True, inline="always")
def unowned_uint64(a):
    """A view of a C-contiguous uint64 array with no reference-counted owner."""
    return carray(_uint64_pointer(a.ctypes.data), a.shape)


@njit(cache=True, inline="always")
def unowned_float64(a):
    """A view of a C-contiguous float64 array with no reference-counted owner."""
    return carray(_float64_pointer(a.ctypes.data), a.shape)


if numba.config.DISABLE_JIT:  # plain Python (NUMBA_DISABLE_JIT=1): arrays are fine as they are

    def unowned_int64(a):  # noqa: F811
        return a

    unowned_uint64 = unowned_int64
    unowned_float64 = unowned_int64
