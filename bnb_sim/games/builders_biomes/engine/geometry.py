"""The table layout: a 4x4 grid of tile stacks ringed by 16 weapon-token spots (R-SETUP-2),
and the 5x5 crossing points the characters walk on (R-SETUP-4, R-EXPLORE-1).

The 6x6 cell grid (corners empty) has cell ``(r, c)``; stacks are the inner cells
``1 <= r, c <= 4`` (stack ``(r - 1) * 4 + (c - 1)``), token spots the border cells without the
corners. Crossing point ``(i, j)`` (``0 <= i, j <= 4``, id ``i * 5 + j``) touches the cells
``(i, j)``, ``(i, j + 1)``, ``(i + 1, j)`` and ``(i + 1, j + 1)``: those four are "next to" it.

The tables are built here in plain Python and handed to the kernels as arrays.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

N_STACKS = 16
N_SLOTS = 16
N_POINTS = 25
CENTER_POINT = 12  # (2, 2): all characters start here (R-SETUP-4)

Geometry = namedtuple(
    "Geometry",
    [
        "adj_stacks",  # int64[25]: bitmask of the stacks next to each crossing point
        "adj_slots",  # int64[25]: bitmask of the token spots next to each crossing point
        "reach",  # int64[25]: bitmask of points reachable in 0..max_steps steps
        "distance",  # int64[25, 25]: steps between crossing points (Manhattan)
    ],
)


def stack_of_cell(r: int, c: int) -> int:
    """Stack index of an inner cell, or -1."""
    if 1 <= r <= 4 and 1 <= c <= 4:
        return (r - 1) * 4 + (c - 1)
    return -1


def slot_of_cell(r: int, c: int) -> int:
    """Token-spot index of a border cell (top 0-3, bottom 4-7, left 8-11, right 12-15), or -1."""
    if r == 0 and 1 <= c <= 4:
        return c - 1
    if r == 5 and 1 <= c <= 4:
        return 4 + c - 1
    if c == 0 and 1 <= r <= 4:
        return 8 + r - 1
    if c == 5 and 1 <= r <= 4:
        return 12 + r - 1
    return -1


def cell_of_slot(slot: int) -> tuple[int, int]:
    """Inverse of :func:`slot_of_cell`."""
    side, k = divmod(slot, 4)
    return [(0, k + 1), (5, k + 1), (k + 1, 0), (k + 1, 5)][side]


def cells_next_to(point: int) -> list[tuple[int, int]]:
    """The four cells around a crossing point."""
    i, j = divmod(point, 5)
    return [(i, j), (i, j + 1), (i + 1, j), (i + 1, j + 1)]


def build_geometry(max_steps: int) -> Geometry:
    """Adjacency and reach tables for characters that move up to ``max_steps`` steps."""
    adj_stacks = np.zeros(N_POINTS, np.int64)
    adj_slots = np.zeros(N_POINTS, np.int64)
    distance = np.zeros((N_POINTS, N_POINTS), np.int64)
    for p in range(N_POINTS):
        for r, c in cells_next_to(p):
            if stack_of_cell(r, c) >= 0:
                adj_stacks[p] |= 1 << stack_of_cell(r, c)
            if slot_of_cell(r, c) >= 0:
                adj_slots[p] |= 1 << slot_of_cell(r, c)
        for q in range(N_POINTS):
            distance[p, q] = abs(p // 5 - q // 5) + abs(p % 5 - q % 5)
    reach = np.zeros(N_POINTS, np.int64)
    for p in range(N_POINTS):
        for q in range(N_POINTS):
            if distance[p, q] <= max_steps:
                reach[p] |= 1 << q
    return Geometry(adj_stacks, adj_slots, reach, distance)
