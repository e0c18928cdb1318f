"""Monte Carlo combat kernels (R-FIGHT-2 to R-FIGHT-5).

A weapon pile is a multiset: ``counts[t]`` tokens of type ``t`` (int64[T]). A fight reveals
tokens drawn uniformly without replacement, which is the same as shuffling the pile and
turning tokens over one by one (R-FIGHT-2). The engine's fight action and the Monte Carlo
estimator below share :func:`draw_token`, :func:`reveal_tokens` and :func:`plan_detonation`,
so there is exactly one implementation of each rule.

TNT (R-FIGHT-4) is played optimally: a revealed detonatable token is used only when that turns
a loss into a win, as few as needed, those with the largest gain first. A detonated token counts
``tok_detonate[t]`` hearts instead of ``tok_hearts[t]``; its gain is the difference.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel, njit
from bnb_sim.rng import bounded, seed_stream

# Rows of the (N_STATS, 2) array returned by simulate_combats: column 0 the sum over fights,
# column 1 the sum of squares.
STAT_WIN = 0
STAT_WIN_NO_TNT = 1
STAT_REVEALED = 2
STAT_HOE_XP = 3
STAT_PICKAXE_BLOCKS = 4
STAT_TNT_SPENT = 5
N_STATS = 6
STAT_NAMES = ("win", "win_no_tnt", "revealed", "hoe_xp", "pickaxe_blocks", "tnt_spent")


@kernel(per_constant=True)
def draw_token(counts, total, rng_state):
    """Draw one token uniformly from the multiset ``counts`` and remove it (R-FIGHT-2).

    ``total`` must equal ``counts.sum()`` and be positive. Returns the token type.
    """
    r = bounded(rng_state, total)
    t = 0
    while r >= counts[t]:
        r -= counts[t]
        t += 1
    counts[t] -= 1
    return t


@kernel
def reveal_tokens(counts, total, tok_extra_reveals, fight_reveal, rng_state, revealed):
    """Reveal a fight's tokens from ``counts`` (R-FIGHT-2); returns how many were revealed.

    ``fight_reveal`` tokens, plus ``tok_extra_reveals[t]`` more for each revealed token of type
    ``t`` (chains), until nothing is owed or the pile is empty. Revealed tokens are removed from
    ``counts`` and added to ``revealed`` (int64[T], normally zero on entry); the caller puts them
    back afterwards (R-FIGHT-5), less any detonated TNT.
    """
    owed = fight_reveal
    n = 0
    while owed > 0 and total > 0:
        t = draw_token(counts, total, rng_state)
        total -= 1
        revealed[t] += 1
        n += 1
        owed += tok_extra_reveals[t] - 1
    return n


@kernel
def plan_detonation(revealed, tok_hearts, tok_detonate, hearts, detonated):
    """Resolve a fight's hearts with optimal TNT (R-FIGHT-4, R-FIGHT-5).

    Fills ``detonated[t]`` (int64[T], zeroed here) with the tokens to detonate: none when the
    base hearts already win or when even all revealed TNT cannot win; otherwise as few as needed,
    the largest gain first. Returns ``(win, win_no_tnt, spent)``.
    """
    n_types = revealed.shape[0]
    base = 0
    for t in range(n_types):
        detonated[t] = 0
        base += revealed[t] * tok_hearts[t]
    if base >= hearts:
        return True, True, 0
    best_total = base
    for t in range(n_types):
        gain = tok_detonate[t] - tok_hearts[t]
        if tok_detonate[t] > 0 and gain > 0:
            best_total += revealed[t] * gain
    if best_total < hearts:
        return False, False, 0
    need = hearts - base
    spent = 0
    while need > 0:
        pick = -1
        pick_gain = 0
        for t in range(n_types):
            gain = tok_detonate[t] - tok_hearts[t]
            if tok_detonate[t] > 0 and revealed[t] > detonated[t] and gain > pick_gain:
                pick = t
                pick_gain = gain
        detonated[pick] += 1
        spent += 1
        need -= pick_gain
    return True, False, spent


@njit(cache=True)
def simulate_combats(
    pile,
    tok_hearts,
    tok_extra_reveals,
    tok_xp,
    tok_blocks,
    tok_detonate,
    fight_reveal,
    hearts,
    n,
    master,
    stream,
):
    """Play ``n`` independent fights of ``pile`` against a mob of ``hearts`` hearts.

    Fight ``i`` draws from ``seed_stream(state, master, i, stream)`` only, so the result
    depends on nothing but ``(pile, tokens, hearts, n, master, stream)``. Returns float64
    ``(N_STATS, 2)``: per statistic (``STAT_*``) the sum over fights and the sum of squares.
    All values are integers, so the sums are exact below 2**53.
    """
    n_types = pile.shape[0]
    total = 0
    for t in range(n_types):
        total += pile[t]
    counts = pile.copy()
    revealed = np.zeros(n_types, np.int64)
    detonated = np.zeros(n_types, np.int64)
    state = np.empty(4, np.uint64)
    out = np.zeros((N_STATS, 2), np.float64)
    values = np.zeros(N_STATS, np.float64)
    for i in range(n):
        seed_stream(state, master, i, stream)
        for t in range(n_types):
            revealed[t] = 0
        k = reveal_tokens(counts, total, tok_extra_reveals, fight_reveal, state, revealed)
        xp = 0
        blocks = 0
        for t in range(n_types):
            xp += revealed[t] * tok_xp[t]
            blocks += revealed[t] * tok_blocks[t]
            counts[t] += revealed[t]  # R-FIGHT-5: revealed tokens go back into the pile
        win, win_no_tnt, spent = plan_detonation(
            revealed, tok_hearts, tok_detonate, hearts, detonated
        )
        values[STAT_WIN] = 1.0 if win else 0.0
        values[STAT_WIN_NO_TNT] = 1.0 if win_no_tnt else 0.0
        values[STAT_REVEALED] = k
        values[STAT_HOE_XP] = xp
        values[STAT_PICKAXE_BLOCKS] = blocks
        values[STAT_TNT_SPENT] = spent
        for s in range(N_STATS):
            out[s, 0] += values[s]
            out[s, 1] += values[s] * values[s]
    return out
