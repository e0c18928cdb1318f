"""Determinization for the search bots: a full game state consistent with what one seat knows.

A search bot may look at the true state only through :func:`determinize`. It copies the state
and then re-deals everything the acting seat cannot see among the places it cannot see:

* the cube's interior blocks (``pub`` shows them as hidden) are re-shuffled among the hidden
  positions (R-CUBE-1: only visible blocks are known);
* every face-down tile is re-shuffled among all face-down positions of all stacks, stack
  heights and face-up tops kept (R-SETUP-2, R-EXPLORE-1);
* the face-down weapon tokens on the table and the tokens the opponents took from the table
  (R-WEAPON-1: only the taker identifies them) form one pool, re-dealt to the table spots
  that still hold a token and to each opponent, as many as it took; an opponent's start
  tokens minus the TNT it detonated (R-FIGHT-4, public) stay with it;
* every random stream (the combat draws of every seat, hence the order of every pile, the
  own one included, and the other seats' policy streams) is re-seeded from the acting
  seat's own policy stream, so future draws are unknown too.

Each hidden multiset is first put in a canonical order (sorted) and only then shuffled, so the
sample depends on the hidden *contents* (which conservation makes public: every tile, block
and token that left its hiding place was seen by everyone) and not on their *arrangement*.
The sample is therefore a function of (public state, the seat's own pile, the seat's policy
stream) only; ``tests/test_search.py`` checks that two states which differ only in what the
seat cannot see give the same samples and decisions.

What it does not do: it does not infer anything from tokens revealed in earlier fights of
an opponent (it treats the opponent's taken tokens as an unconditioned draw from the pool);
that loses information, it never adds any.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.engine.layout import (
    H_BLOCK,
    H_FIGHT_LEFT,
    H_SIZE,
    H_STACKS,
    H_TOK_SLOT,
    K_N_TOKEN_TYPES,
    MAX_STACK_H,
    MAX_TILES,
    MAX_TOKEN_TYPES,
    N_BLOCK_TYPES,
    N_STREAM_ROWS,
    P_SIZE,
    P_STACK_H,
    P_TOP_UP,
    P_VIS_BLOCK,
    TOK_DETONATE,
    TOK_HEARTS,
    TOK_START,
    pile_at,
    stat_at,
    tok_attr,
)
from bnb_sim.games.builders_biomes.engine.state import (
    C_N_PLAYERS,
    C_PHASE,
    C_TOKENS,
    PH_BOW,
    PH_PICKAXE,
    PH_REVEAL_FOUR,
    PH_TNT,
    S_TNT,
    S_WEAPONS_TAKEN,
)
from bnb_sim.rng import bounded_row, next_u64_row, splitmix64

# scratch of determinize: int64[DET_SCRATCH]
DET_SCRATCH = 256


@kernel(inline="always")
def _shuffle_prefix(values, n, rng, row):
    """Fisher-Yates on ``values[:n]`` with draws from ``rng[row]``."""
    for i in range(n - 1, 0, -1):
        j = bounded_row(rng, row, i + 1)
        tmp = values[i]
        values[i] = values[j]
        values[j] = tmp


@kernel(per_constant=True)
def _redeal_cube(pub, hid, shid, rng, row, tmp):
    """Hidden blocks (``P_VIS_BLOCK == -2``): canonical order by type, shuffled, re-placed."""
    counts = tmp[MAX_TILES : MAX_TILES + N_BLOCK_TYPES]
    for t in range(N_BLOCK_TYPES):
        counts[t] = 0
    for pos in range(64):
        if pub[P_VIS_BLOCK + pos] == -2:
            counts[hid[H_BLOCK + pos]] += 1
    n = 0
    for t in range(N_BLOCK_TYPES):
        for _ in range(counts[t]):
            tmp[n] = t
            n += 1
    _shuffle_prefix(tmp, n, rng, row)
    j = 0
    for pos in range(64):
        if pub[P_VIS_BLOCK + pos] == -2:
            shid[H_BLOCK + pos] = tmp[j]
            j += 1


@kernel(inline="always")
def _face_down(pub, stack, level):
    """Whether level ``level`` of ``stack`` holds a face-down tile."""
    height = pub[P_STACK_H + stack]
    if level >= height:
        return False
    return not (level == height - 1 and pub[P_TOP_UP + stack] >= 0)


@kernel(per_constant=True)
def _redeal_tiles(pub, hid, shid, rng, row, tmp):
    """Face-down tiles of all stacks: sorted by id, shuffled, re-placed (heights kept)."""
    seen = tmp[MAX_TILES : 2 * MAX_TILES]  # presence flags by tile id
    for t in range(MAX_TILES):
        seen[t] = 0
    for s in range(16):
        for level in range(MAX_STACK_H):
            if _face_down(pub, s, level):
                seen[hid[H_STACKS + s * MAX_STACK_H + level]] += 1
    n = 0
    for t in range(MAX_TILES):
        for _ in range(seen[t]):
            tmp[n] = t
            n += 1
    _shuffle_prefix(tmp, n, rng, row)
    j = 0
    for s in range(16):
        for level in range(MAX_STACK_H):
            if _face_down(pub, s, level):
                shid[H_STACKS + s * MAX_STACK_H + level] = tmp[j]
                j += 1


@kernel(inline="always")
def _tnt_type(k):
    """The token type a detonation removes first (largest gain, as ``resolve_fight``)."""
    best = -1
    for t in range(k[K_N_TOKEN_TYPES]):
        if tok_attr(k, TOK_DETONATE, t) > 0:
            gain = tok_attr(k, TOK_DETONATE, t) - tok_attr(k, TOK_HEARTS, t)
            if best < 0 or gain > tok_attr(k, TOK_DETONATE, best) - tok_attr(k, TOK_HEARTS, best):
                best = t
    return best


@kernel(per_constant=True)
def _redeal_tokens(pub, hid, shid, k, seat, rng, row, tmp):
    """Table tokens and the opponents' taken tokens: one pool, re-dealt (R-WEAPON-1)."""
    n_types = k[K_N_TOKEN_TYPES]
    n_players = pub[C_N_PLAYERS]
    tnt = _tnt_type(k)
    pool = tmp[MAX_TILES : MAX_TILES + MAX_TOKEN_TYPES]
    base = tmp[MAX_TILES + MAX_TOKEN_TYPES : MAX_TILES + 2 * MAX_TOKEN_TYPES]
    for t in range(MAX_TOKEN_TYPES):
        pool[t] = 0
    for slot in range(16):
        if (pub[C_TOKENS] >> slot) & 1:
            pool[hid[H_TOK_SLOT + slot]] += 1
    for o in range(n_players):
        if o == seat:
            continue
        for t in range(n_types):
            # what everyone knows of o's pile: its start tokens less the TNT it detonated
            known = tok_attr(k, TOK_START, t)
            if t == tnt:
                known = max(known - pub[stat_at(o, S_TNT)], 0)
            extra = hid[pile_at(o, t)] - known
            if extra > 0:
                pool[t] += extra
    n = 0
    for t in range(n_types):
        for _ in range(pool[t]):
            tmp[n] = t
            n += 1
    _shuffle_prefix(tmp, n, rng, row)
    j = 0
    for slot in range(16):
        if (pub[C_TOKENS] >> slot) & 1:
            shid[H_TOK_SLOT + slot] = tmp[j]
            j += 1
    for o in range(n_players):
        if o == seat:
            continue
        owed = 0  # tokens of o that came from the table and are still in its pile
        for t in range(n_types):
            known = tok_attr(k, TOK_START, t)
            detonated = pub[stat_at(o, S_TNT)] if t == tnt else 0
            if t == tnt and detonated > known:
                owed -= detonated - known  # it detonated a TNT it had taken
                known = 0
            elif t == tnt:
                known -= detonated
            base[t] = known
        owed += pub[stat_at(o, S_WEAPONS_TAKEN)]
        for t in range(n_types):
            shid[pile_at(o, t)] = base[t]
        for _ in range(owed):
            if j < n:
                shid[pile_at(o, tmp[j])] += 1
                j += 1


@kernel(per_constant=True)
def reseed_streams(rng, row, srng):
    """Every stream of the sample from fresh draws of ``rng[row]`` (future chance unknown)."""
    for r in range(N_STREAM_ROWS):
        key = next_u64_row(rng, row)
        for w in range(4):
            key = splitmix64(key)
            srng[r, w] = key
        if srng[r, 0] == 0 and srng[r, 1] == 0 and srng[r, 2] == 0 and srng[r, 3] == 0:
            srng[r, 0] = np.uint64(1)


@kernel(per_constant=True)
def determinize(pub, hid, k, seat, rng, row, spub, shid, srng, tmp):
    """Write into ``(spub, shid, srng)`` a state drawn from what ``seat`` knows of
    ``(pub, hid)``; draws from ``rng[row]`` (the seat's policy stream). ``tmp``: int64
    scratch of :data:`DET_SCRATCH` entries."""
    for i in range(P_SIZE):
        spub[i] = pub[i]
    for i in range(H_SIZE):
        shid[i] = hid[i]
    _redeal_cube(pub, hid, shid, rng, row, tmp)
    _redeal_tiles(pub, hid, shid, rng, row, tmp)
    _redeal_tokens(pub, hid, shid, k, seat, rng, row, tmp)
    phase = pub[C_PHASE]
    in_fight = phase == PH_PICKAXE or phase == PH_TNT or phase == PH_BOW
    if not (in_fight or phase == PH_REVEAL_FOUR):
        for t in range(MAX_TOKEN_TYPES):  # left over from a past fight; rebuilt at the next
            shid[H_FIGHT_LEFT + t] = 0
    reseed_streams(rng, row, srng)
