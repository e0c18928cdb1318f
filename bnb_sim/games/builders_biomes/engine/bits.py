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
    """Index of the k-th (0-based, from the lowest) set bit of ``x``; -1 if there is none."""
    x = np.uint64(x)
    for _ in range(k):
        if x == 0:
            return -1
        x &= x - np.uint64(1)
    if x == 0:
        return -1
    return lowest_bit_index(x)


@kernel(inline="always")
def bit(index):
    """The uint64 with only bit ``index`` set."""
    return np.uint64(1) << np.uint64(index)


@kernel(inline="always")
def low_index(mask):
    """Index of the lowest set bit of a non-zero, non-negative int64 mask."""
    return popcount(np.uint64((mask & -mask) - 1))
