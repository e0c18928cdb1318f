"""Connected groups on the 3x3 player board (R-SCORE-2, R-SCORE-4, R-END-1).

A board characteristic is a 9-bit mask (bit ``row * 3 + col``). The size of the largest
orthogonally connected group of a mask is read from a 512-entry table built once by flood
fill (:func:`bnb_sim.games.builders_biomes.components.arrays.group_table`, passed in with the
component
arrays); counting every matching space (beginner variant, bonus mobs) is a popcount.
"""

from __future__ import annotations

from bnb_sim._jit import kernel


@kernel(inline="always")
def count_spaces(mask):
    """Number of spaces in a 9-bit mask (popcount of 9 bits)."""
    m = mask & 0x1FF
    m = m - ((m >> 1) & 0x5555)
    m = (m & 0x3333) + ((m >> 2) & 0x3333)
    m = (m + (m >> 4)) & 0x0F0F
    return (m + (m >> 8)) & 0x1F


@kernel(inline="always")
def group_score(table, mask, beginner):
    """Spaces that count for a scoring round: the largest group, or all of them (R-SCORE-4)."""
    if beginner:
        return count_spaces(mask)
    return table[mask & 0x1FF]
