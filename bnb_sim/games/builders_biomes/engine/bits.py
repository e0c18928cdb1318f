"""Bit tricks on uint64 bitboards (popcount, lowest set bit, k-th set bit)."""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel


@kernel(inline="always")
def popcount(x):
    """Number of set bits of a uint64 (SWAR, no loop)."""
    x = np.uint64(x)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@kernel(inline="always")
def lowest_bit_index(x):
    """Index of the lowest set bit of a non-zero uint64."""
    x = np.uint64(x)
    return popcount((x & (~x + np.uint64(1))) - np.uint64(1))


@kernel(inline="always")
def kth_set_bit(x, k):
    """Index of the k-th (0-based, from the lowest) set bit of ``x``; -1 if there is none
    (a negative ``k`` counts as 0).

    It narrows the answer down by halves (32, 16, ..., 1 bits), counting the set bits of the
    lower half each time: six popcounts and no branch on ``k``. Clearing ``k`` bits in a loop
    mispredicted the loop's exit on almost every random decision."""
    x = np.uint64(x)
    k = max(np.int64(k), 0)
    if k >= popcount(x):
        return -1
    index = 0
    for width in (32, 16, 8, 4, 2, 1):
        low = popcount(x & ((np.uint64(1) << np.uint64(width)) - np.uint64(1)))
        if k >= low:
            k -= low
            x >>= np.uint64(width)
            index += width
    return index


@kernel(inline="always")
def bit(index):
    """The uint64 with only bit ``index`` set."""
    return np.uint64(1) << np.uint64(index)


@kernel(inline="always")
def low_index(mask):
    """Index of the lowest set bit of a non-zero, non-negative int64 mask."""
    return popcount(np.uint64((mask & -mask) - 1))
