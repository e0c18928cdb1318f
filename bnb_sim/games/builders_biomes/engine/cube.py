"""The 4x4x4 block cube as a 64-bit bitboard (R-SETUP-3, R-CUBE-1, R-CUBE-2, R-SCORE-1).

Bit ``layer * 16 + row * 4 + col`` is set when that position holds a block; layer 0 is the
top layer (the rules' "layer 1"). Exposure tests are a handful of shifts and masks: shifting
the occupancy by one column, one row or one layer lines every block up with its neighbour.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel, njit

FULL = np.uint64(0xFFFFFFFFFFFFFFFF)
COL0 = np.uint64(0x1111111111111111)  # col == 0: the west face is on the outside
COL3 = np.uint64(0x8888888888888888)  # col == 3: the east face is on the outside
ROW0 = np.uint64(0x000F000F000F000F)  # row == 0: the north face is on the outside
ROW3 = np.uint64(0xF000F000F000F000)  # row == 3: the south face is on the outside
LAYER_MASK = np.uint64(0xFFFF)
N_POSITIONS = 64


@kernel(inline="always")
def _at_least(a, b, c, d, k):
    """Bitwise "at least k of the four bitboards have this bit set"."""
    if k <= 0:
        return np.uint64(0xFFFFFFFFFFFFFFFF)
    if k == 1:
        return a | b | c | d
    if k == 2:
        return ((a | b) & (c | d)) | (a & b) | (c & d)
    if k == 3:
        return (a & b & (c | d)) | (c & d & (a | b))
    if k == 4:
        return a & b & c & d
    return np.uint64(0)


@kernel(inline="always")
def _side_exposure(occ):
    """Four bitboards: the west, east, north and south face of each position is exposed."""
    west = ~(occ << np.uint64(1)) | np.uint64(0x1111111111111111)
    east = ~(occ >> np.uint64(1)) | np.uint64(0x8888888888888888)
    north = ~(occ << np.uint64(4)) | np.uint64(0x000F000F000F000F)
    south = ~(occ >> np.uint64(4)) | np.uint64(0xF000F000F000F000)
    return west, east, north, south


@kernel(inline="always")
def collectable_bits(occ, min_sides):
    """R-CUBE-1: blocks whose top face and at least ``min_sides`` side faces are exposed.

    The top face is exposed when the position one layer up is empty (always true in the top
    layer); the bottom face never counts.
    """
    occ = np.uint64(occ)
    top = ~(occ << np.uint64(16))
    west, east, north, south = _side_exposure(occ)
    return occ & top & _at_least(west, east, north, south, min_sides)


@kernel(inline="always")
def visible_bits(occ):
    """Blocks a player at the table can see: any face but the bottom one is exposed."""
    occ = np.uint64(occ)
    top = ~(occ << np.uint64(16))
    west, east, north, south = _side_exposure(occ)
    return occ & (top | west | east | north | south)


@kernel(inline="always")
def layer_empty(occ, layer):
    """True when layer ``layer`` (0 = top) holds no block (R-SCORE-1 triggers)."""
    return ((np.uint64(occ) >> np.uint64(16 * layer)) & np.uint64(0xFFFF)) == np.uint64(0)


@njit(cache=True)
def collectable_array(occ_flat, min_sides):
    """Array façade of :func:`collectable_bits` for 64 booleans in bit order."""
    occ = np.uint64(0)
    for i in range(64):
        if occ_flat[i]:
            occ |= np.uint64(1) << np.uint64(i)
    bits = collectable_bits(occ, min_sides)
    out = np.zeros(64, np.bool_)
    for i in range(64):
        out[i] = ((bits >> np.uint64(i)) & np.uint64(1)) == np.uint64(1)
    return out


@kernel
def bench_collectable(n, min_sides):
    """Run :func:`collectable_bits` ``n`` times on varied boards (for the speed script)."""
    acc = np.uint64(0)
    occ = np.uint64(0xFFFFFFFFFFFFFFFF)
    for _ in range(n):
        acc ^= collectable_bits(occ, min_sides)
        occ = occ * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
    return acc
