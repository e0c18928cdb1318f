"""The team bot's value of a fight, with the option to stop after a failed roll (R-HV-6).

A fight is valued as the player would play it: each roll is taken only while rolling on is
worth more than stopping. The value of rolling on, from the Illager's current space with
``rolls_left`` rolls (the next one taken now), is an exact expectation over the Fight die's
faces (backward induction over rolls, Illager spaces and the Panda's protections left):

* a number that reaches the mob's value (with the Wolf's bonus): ``fight`` x 2 when the
  tile's block is needed, else x 1 (the site is free again, a reward block);
* an arrow: the Illager one space away, worth ``illager``, then the choice again;
* an Illager face (unless the Panda ignores it): one space toward the village, costing
  ``illager``, or the game lost when the Illager stands on space 1, costing ``lose``;
* any other face: the choice again.

Where the fight leaves the Illager matters beyond the linear ``illager`` term in one place:
on space 1 the Illagers die at the end of the turn loses the game with the chance of its
Illager faces, so ending a fight there costs ``lose`` times that chance (and an arrow from
space 1 is worth that much more). Stopping keeps the Illager where it is. So the bot stops
when the rolls left cost more than the win is worth, and in particular when an Illager face
would put the game at risk that the mob does not repay. The same value scores starting a
fight. Nothing here allocates: the two layers of the recursion live in ``buf``.
"""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.heroes_village.layout import (
    FACE_ARROW,
    FACE_ILLAGER,
    K_FIGHT_FACES,
    K_ILL_FACES,
    K_LAST_SPACE,
    K_N_FIGHT_FACES,
    K_N_ILL_FACES,
    K_WOLF_BONUS,
    MAX_FIGHT_ROLLS,
    MAX_PANDA,
    S_ILLAGER,
    S_PET,
    WOLF,
)
from bnb_sim.games.heroes_village.policies import W_FIGHT, W_ILLAGER, W_LOSE

DP_LAYER = (2 * MAX_FIGHT_ROLLS + 1) * (MAX_PANDA + 1)  # Illager spaces x Panda protections
DP_SIZE = 2 * DP_LAYER  # two layers: the rolls done and the roll being valued


@kernel(inline="always")
def _risk_at(pos, doom):
    """What ending the fight with the Illager on ``pos`` costs beyond the linear term."""
    return doom if pos == 1 else 0.0


@kernel
def fight_value(params, s, k, seat, value, unblock, rolls_left, panda_left, buf, at):
    """The value of rolling on (the next roll taken) in a fight of ``seat`` against a mob of
    fight value ``value``, relative to stopping now; ``buf[at : at + DP_SIZE]`` is scratch."""
    n = k[K_N_FIGHT_FACES]
    bonus = k[K_WOLF_BONUS] if s[S_PET + seat] == WOLF else 0
    n_win = 0
    n_arrow = 0
    n_ill = 0
    for i in range(n):
        face = k[K_FIGHT_FACES + i]
        if face >= 0:
            if face + bonus >= value:
                n_win += 1
        elif face == FACE_ARROW:
            n_arrow += 1
        elif face == FACE_ILLAGER:
            n_ill += 1
    p_win = n_win / n
    p_arrow = n_arrow / n
    p_ill = n_ill / n
    p_other = 1.0 - p_win - p_arrow - p_ill
    die_ill = 0
    for i in range(k[K_N_ILL_FACES]):
        if k[K_ILL_FACES + i] == FACE_ILLAGER:
            die_ill += 1
    lose = params[W_LOSE]
    doom = -lose * die_ill / k[K_N_ILL_FACES]  # ending the turn on space 1
    gain = params[W_FIGHT] * unblock
    step = params[W_ILLAGER]
    start = s[S_ILLAGER]
    last = k[K_LAST_SPACE]
    big_r = rolls_left
    width = 2 * big_r + 1  # Illager spaces start - R .. start + R
    stride = panda_left + 1
    prev = at
    cur = at + DP_LAYER
    for idx in range(width):  # no roll left: the fight ends where the Illager stands
        for u in range(stride):
            buf[prev + idx * stride + u] = _risk_at(start - big_r + idx, doom)
    result = 0.0
    for r in range(1, big_r + 1):
        for idx in range(width):
            pos = start - big_r + idx
            for u in range(stride):
                here = idx * stride + u
                if pos < 1 or pos > last:
                    buf[cur + here] = 0.0  # not reachable
                    continue
                end_here = _risk_at(pos, doom)
                c = p_win * (gain + end_here) + p_other * buf[prev + here]
                if pos < last and idx + 1 < width:
                    c += p_arrow * (step + buf[prev + here + stride])
                else:
                    c += p_arrow * buf[prev + here]  # the end of the path: no move
                if u > 0:
                    c += p_ill * buf[prev + here - 1]  # the Panda ignores it
                elif pos == 1:
                    c -= p_ill * lose
                elif idx >= 1:
                    c += p_ill * (buf[prev + here - stride] - step)
                if r == big_r and idx == big_r and u == panda_left:
                    result = c - end_here
                buf[cur + here] = max(end_here, c)  # before this roll the player may stop
        prev, cur = cur, prev
    return result
