"""Counter-based random streams for nopython code (docs/design.md, "Random streams").

Every random draw in a game comes from a xoshiro256** state seeded by SplitMix64 from
(master key, game index, stream id). A game's streams therefore depend on nothing but those
three numbers: not on the thread that plays it, the chunk it sits in or the machine it runs on,
and any game can be replayed from its index alone.

Bounded integers use Lemire's multiply-shift on the upper 32 bits with rejection, so they are
unbiased (no ``u % n``). All arithmetic is on ``np.uint64`` so numba never promotes to float.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@kernel(inline="always")
def splitmix64(x):
    """One SplitMix64 output for input ``x`` (a bijective 64-bit mixer)."""
    z = np.uint64(x) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def seed_stream(state, master, game_index, stream):
    """Fill ``state`` (uint64[4]) for stream ``stream`` of game ``game_index``.

    The three keys pass through the mixer one after the other so that nearby indices give
    unrelated states (docs/design.md: never seed with ``master + i``).
    """
    key = splitmix64(np.uint64(master))
    key = splitmix64(key ^ np.uint64(game_index))
    key = splitmix64(key ^ (np.uint64(stream) * np.uint64(0xD1B54A32D192ED03)))
    for k in range(4):
        key = splitmix64(key)
        state[k] = key
    if state[0] == 0 and state[1] == 0 and state[2] == 0 and state[3] == 0:
        state[0] = np.uint64(1)  # the all-zero state is the one fixed point of xoshiro


@kernel(inline="always")
def stream_game_index(game_index, fixed, group, source):
    """The game index that seeds chance source ``source`` (a bit number of ``fixed``).

    Normally the game's own index. A luck design (``bnb luck``) fixes some sources across
    groups of ``group`` consecutive games: a fixed source of game ``g`` is seeded from
    ``-1 - g // group``, which no real game index (never negative) reaches, so every game of
    a group shares that source's draws while its other sources vary. With ``fixed == 0`` (every
    ordinary run) this is ``game_index`` and no row changes.
    """
    if group > 0 and (fixed >> source) & 1:
        return -1 - game_index // group
    return game_index


@kernel(inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@kernel(inline="always")
def _xoshiro_step(s0, s1, s2, s3):
    """One xoshiro256** step on the four state words: ``(output, s0, s1, s2, s3)``."""
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@kernel(inline="always")
def next_u64(state):
    """Next 64-bit output of xoshiro256** and advance ``state`` (uint64[4]) in place."""
    result, state[0], state[1], state[2], state[3] = _xoshiro_step(
        state[0], state[1], state[2], state[3]
    )
    return result


@kernel(inline="always")
def bounded(state, n):
    """Uniform integer in ``[0, n)`` for ``1 <= n < 2**32``, unbiased (Lemire 2019)."""
    bound = np.uint64(n)
    product = (next_u64(state) >> np.uint64(32)) * bound
    low = product & np.uint64(0xFFFFFFFF)
    if low < bound:
        threshold = (np.uint64(0x100000000) - bound) % bound
        while low < threshold:
            product = (next_u64(state) >> np.uint64(32)) * bound
            low = product & np.uint64(0xFFFFFFFF)
    return np.int64(product >> np.uint64(32))


@kernel(inline="always")
def uniform(state):
    """Uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def shuffle_inplace(state, values):
    """Fisher-Yates shuffle of a 1-d array with draws from ``state``."""
    for i in range(values.shape[0] - 1, 0, -1):
        j = bounded(state, i + 1)
        tmp = values[i]
        values[i] = values[j]
        values[j] = tmp


@kernel(inline="always")
def next_u64_row(streams, row):
    """:func:`next_u64` on row ``row`` of a 2-d array of streams (no view is created)."""
    result, streams[row, 0], streams[row, 1], streams[row, 2], streams[row, 3] = _xoshiro_step(
        streams[row, 0], streams[row, 1], streams[row, 2], streams[row, 3]
    )
    return result


@kernel(inline="always")
def bounded_row(streams, row, n):
    """:func:`bounded` on row ``row`` of a 2-d array of streams: the same numbers as
    ``bounded(streams[row], n)``."""
    bound = np.uint64(n)
    product = (next_u64_row(streams, row) >> np.uint64(32)) * bound
    low = product & np.uint64(0xFFFFFFFF)
    if low < bound:
        threshold = (np.uint64(0x100000000) - bound) % bound
        while low < threshold:
            product = (next_u64_row(streams, row) >> np.uint64(32)) * bound
            low = product & np.uint64(0xFFFFFFFF)
    return np.int64(product >> np.uint64(32))
