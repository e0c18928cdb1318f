"""Exact combat odds in plain Python: the chance tree of R-FIGHT-2 to R-FIGHT-5 without numba.

``bnb odds`` and :func:`bnb_sim.combat_odds` ask for one pile at a time, a tree of at most a few
thousand states that Python walks in milliseconds; loading numba and its cache to run the jitted
:func:`bnb_sim.games.builders_biomes.engine.odds.exact_odds` costs about a second before the
first answer. So they use :func:`exact_odds` here, and the kernel stays for the bots' all-piles
table, which evaluates tens of thousands of piles (docs/design.md, "Kernels and the cache").

The tree is the kernel's, step for step: its states are revealed multisets (a tuple of counts
per token class), expanded breadth first one depth at a time, so states are created, merged and
scored in the kernel's order and the floating-point sums are the same (a hypothesis test holds
the two to 1e-12 on random piles and tokens). See the kernel's module docstring for why
multisets suffice and why a state owed more reveals than it has plain tokens left is sure to
reveal the whole pile.

This module imports neither numba nor :mod:`bnb_sim._jit`.
"""

from __future__ import annotations

import numpy as np

MAX_STATES = 1 << 21  # the kernel's limit on chance-tree states
_KEY_SPACE = 1 << 62  # the kernel keys multisets in an int64 (mixed radix)


def _classes(pile, hearts, extra, xp, blocks, detonate):
    """Token types with identical effects merged, in order of first appearance in the pile.

    Returns ``(counts, effects)``, ``effects[j] = (hearts, extra reveals, xp, blocks, gain)``;
    ``gain`` is what detonating one token adds to the hearts (R-FIGHT-4), never negative.
    """
    counts: list[int] = []
    effects: list[tuple[int, int, int, int, int]] = []
    for t, n in enumerate(pile):
        if n <= 0:
            continue
        gain = max(detonate[t] - hearts[t], 0) if detonate[t] > 0 else 0
        effect = (hearts[t], extra[t], xp[t], blocks[t], gain)
        if effect in effects:
            counts[effects.index(effect)] += n
        else:
            effects.append(effect)
            counts.append(n)
    return counts, effects


class _Totals:
    """The sums a terminal multiset adds to (R-FIGHT-3 to R-FIGHT-5), in the kernel's order."""

    def __init__(self, effects, h_max: int, max_hearts: int):
        self.hearts = [e[0] for e in effects]
        self.xp = [e[2] for e in effects]
        self.blocks = [e[3] for e in effects]
        self.gain = [e[4] for e in effects]
        # detonatable classes, largest gain first, ties in class order (R-FIGHT-4)
        self.det_order = sorted(
            (j for j, g in enumerate(self.gain) if g > 0), key=lambda j: -self.gain[j]
        )
        self.h_max = h_max
        self.p_win = [0.0] * (h_max + 1)
        self.p_no = [0.0] * (h_max + 1)
        self.e_spent = [0.0] * (h_max + 1)
        self.dist = [0.0] * (max_hearts + 1)
        self.e_revealed = 0.0
        self.e_xp = 0.0
        self.e_blocks = 0.0

    def score(self, r, p: float, k: int) -> None:
        """Add the terminal multiset ``r`` (``k`` tokens, probability ``p``).

        R-FIGHT-3 (XP, blocks), R-FIGHT-4 (TNT only to turn a loss into a win, as few as
        needed, largest gain first), R-FIGHT-5 (win when the hearts reach the mob's).
        """
        base = sum(n * h for n, h in zip(r, self.hearts, strict=True))
        gain = sum(n * g for n, g in zip(r, self.gain, strict=True))
        self.e_revealed += p * k
        self.e_xp += p * sum(n * x for n, x in zip(r, self.xp, strict=True))
        self.e_blocks += p * sum(n * b for n, b in zip(r, self.blocks, strict=True))
        self.dist[base + gain] += p
        for hh in range(min(base, self.h_max) + 1):
            self.p_win[hh] += p
            self.p_no[hh] += p
        for hh in range(base + 1, min(base + gain, self.h_max) + 1):
            self.p_win[hh] += p
            need = hh - base
            spent = 0
            for j in self.det_order:
                g = self.gain[j]
                use = min((need + g - 1) // g, r[j])
                spent += use
                need -= use * g
                if need <= 0:
                    break
            self.e_spent[hh] += p * spent


def exact_odds(
    pile, tok_hearts, tok_extra_reveals, tok_xp, tok_blocks, tok_detonate, fight_reveal, h_max
):
    """Exact fight statistics of ``pile`` (counts per token type) for mob hearts 0..``h_max``.

    Same arguments and results as the kernel
    :func:`bnb_sim.games.builders_biomes.engine.odds.exact_odds`: ``(p_win, p_win_no_tnt,
    e_tnt_spent, hearts_dist, e_revealed, e_hoe_xp, e_pickaxe_blocks)``, the first three
    float64[h_max + 1] (TNT played optimally, R-FIGHT-4), ``hearts_dist[k]`` = P(base hearts +
    every revealed detonation gain = k), three expectations. Raises ValueError, with the
    kernel's message, when the kernel's key space or tree would be too large.
    """
    arrays = (tok_hearts, tok_extra_reveals, tok_xp, tok_blocks, tok_detonate)
    counts, effects = _classes(*([int(x) for x in a] for a in (pile, *arrays)))
    size = 1
    for n in counts:
        if size > _KEY_SPACE // (n + 1):
            raise ValueError("pile has too many distinct token kinds for exact odds")
        size *= n + 1
    h_max = int(h_max)
    fight_reveal = int(fight_reveal)
    n_total = sum(counts)
    max_hearts = sum(n * (e[0] + e[4]) for n, e in zip(counts, effects, strict=True))
    extra = [e[1] for e in effects]
    totals = _Totals(effects, h_max, max_hearts)

    created = 1  # states made so far, the root included (the kernel's limit counts them all)
    p_all = 0.0  # mass of the paths sure to reveal the whole pile
    level: dict[tuple[int, ...], float] = {(0,) * len(counts): 1.0}
    for k in range(n_total + 1):
        children: dict[tuple[int, ...], float] = {}
        for r, p in level.items():
            owed = fight_reveal - k + sum(n * e for n, e in zip(r, extra, strict=True))
            if owed <= 0 or k == n_total:
                totals.score(r, p, k)
                continue
            plain_left = sum(c - n for c, n, e in zip(counts, r, extra, strict=True) if e == 0)
            if owed > plain_left:  # the reveals cannot run out before the pile does
                p_all += p
                continue
            inv = 1.0 / (n_total - k)  # reveal one more token (R-FIGHT-2)
            for j, avail in enumerate(c - n for c, n in zip(counts, r, strict=True)):
                if avail <= 0:
                    continue
                child = r[:j] + (r[j] + 1,) + r[j + 1 :]
                cp = p * (avail * inv)
                if child in children:
                    children[child] += cp
                    continue
                if created == MAX_STATES:
                    raise ValueError(
                        "pile needs too many chance-tree states for exact odds "
                        "(tokens with several extra reveals); use a Monte Carlo estimate"
                    )
                children[child] = cp
                created += 1
        level = children
    if p_all > 0.0:
        totals.score(tuple(counts), p_all, n_total)
    return (
        np.array(totals.p_win),
        np.array(totals.p_no),
        np.array(totals.e_spent),
        np.array(totals.dist),
        totals.e_revealed,
        totals.e_xp,
        totals.e_blocks,
    )


__all__ = ["MAX_STATES", "exact_odds"]
