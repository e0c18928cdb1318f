"""Fights of Heroes of the Village (R-HV-6 with the Wolf and the Panda of R-HV-9).

A fight is one action of up to ``rules.fight_rolls`` rolls of the Fight die. The first roll
comes with the action; after each failed roll the player decides whether to roll again
(``A_FIGHT`` + the tile) or to stop (``A_STOP``): "a player *may* roll the Fight die three
times". While that decision is open the phase is ``PH_FIGHT``; the action is counted when the
fight starts, and the turn goes on when the fight ends.

A fight that the player stops, or that a loss of the game cuts short, is rolled to its end for
the fight record only (``fights_vV``/``wins_vV``), from a stream of its own, so that the record
can be set against the exact odds of a full fight without moving any die the game uses.
"""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.heroes_village.core import (
    can_hold,
    draw_from_pouch,
    is_over,
    log_event,
    move_illager,
    return_drawn,
    stat_add,
)
from bnb_sim.games.heroes_village.layout import (
    EV_DEFEAT,
    EV_FIGHT,
    EV_FIGHT_STOP,
    EV_ROLL,
    FACE_ARROW,
    FACE_ILLAGER,
    K_FIGHT_FACES,
    K_FIGHT_ROLLS,
    K_MOBS_REUSED,
    K_N_FIGHT_FACES,
    K_N_TOKENS,
    K_PANDA_IGNORE,
    K_PANDA_PER_TURN,
    K_REWARD_DRAW,
    K_TOKEN_VALUE,
    K_WOLF_BONUS,
    N_BLOCKS,
    PANDA,
    PH_ACTION,
    PH_FIGHT,
    PH_PICK,
    PICK_REWARD,
    RNG_FIGHT,
    RNG_RECORD,
    S_ARROWS,
    S_DRAWN,
    S_FIGHT_ROLLS,
    S_FIGHT_TILE,
    S_FIGHTS_CUT,
    S_FIGHTS_STOPPED,
    S_ILLAGER_ROLLS,
    S_LOST_IN_FIGHT,
    S_MOB_NEXT,
    S_MOB_PILE,
    S_MOBS_DEFEATED,
    S_PANDA_USED,
    S_PET,
    S_PHASE,
    S_PICK_KIND,
    S_TILE_MOB,
    T_FIGHTS_BY_VALUE,
    T_FIGHTS_STOPPED,
    T_FIGHTS_WON,
    T_ILL_IGNORED,
    T_ROLLS,
    T_WINS_BY_VALUE,
    WOLF,
)
from bnb_sim.rng import bounded_row


@kernel(inline="always")
def fight_bonus(s, k, seat):
    """The Wolf's bonus on every Fight roll of ``seat`` (R-HV-9)."""
    return k[K_WOLF_BONUS] if s[S_PET + seat] == WOLF else 0


@kernel
def record_on_paper(s, k, rng, seat, value, bonus, rolls_done):
    """A fight that was stopped, or cut short by the loss, finished for the fight record only
    (from the record stream: the game's dice do not move). Counting only such fights as lost
    would bias the recorded P(defeated) downward, leaving them out would bias it upward."""
    won = False
    for _ in range(rolls_done, k[K_FIGHT_ROLLS]):
        face = k[K_FIGHT_FACES + bounded_row(rng, RNG_RECORD, k[K_N_FIGHT_FACES])]
        if face >= 0 and face + bonus >= value:
            won = True
            break
    stat_add(s, seat, T_FIGHTS_BY_VALUE + value, 1)
    if won:
        stat_add(s, seat, T_WINS_BY_VALUE + value, 1)


@kernel
def start_fight(s, k, rng, seat, tile, log):
    """R-HV-6: the fight action on ``tile``'s mob, with its first roll."""
    token = s[S_TILE_MOB + tile]
    log_event(log, s, EV_FIGHT, tile, token, k[K_TOKEN_VALUE + token])
    s[S_FIGHT_TILE] = tile
    s[S_FIGHT_ROLLS] = 0
    roll_fight(s, k, rng, seat, log)


@kernel
def roll_fight(s, k, rng, seat, log):
    """One roll of the Fight die in the open fight: the mob is defeated, the game is lost,
    the rolls are used up, or the player decides whether to roll again (``PH_FIGHT``)."""
    tile = s[S_FIGHT_TILE]
    value = k[K_TOKEN_VALUE + s[S_TILE_MOB + tile]]
    bonus = fight_bonus(s, k, seat)
    r = s[S_FIGHT_ROLLS]
    face = k[K_FIGHT_FACES + bounded_row(rng, RNG_FIGHT, k[K_N_FIGHT_FACES])]
    s[S_FIGHT_ROLLS] = r + 1
    stat_add(s, seat, T_ROLLS, 1)
    log_event(log, s, EV_ROLL, face, r, value)
    if face >= 0 and face + bonus >= value:
        _end_fight(s, k, rng, seat, tile, value, True, log)
        return
    if face == FACE_ARROW:
        s[S_ARROWS] += 1
        move_illager(s, k, 1, log)
    elif face == FACE_ILLAGER:
        if s[S_PET + seat] == PANDA and s[S_PANDA_USED] < k[K_PANDA_IGNORE]:
            s[S_PANDA_USED] += 1
            stat_add(s, seat, T_ILL_IGNORED, 1)
        else:
            s[S_ILLAGER_ROLLS] += 1
            move_illager(s, k, -1, log)
            if is_over(s):
                s[S_LOST_IN_FIGHT] = 1
                s[S_FIGHTS_CUT] += 1
                record_on_paper(s, k, rng, seat, value, bonus, r + 1)
                return
    if r + 1 >= k[K_FIGHT_ROLLS]:
        _end_fight(s, k, rng, seat, tile, value, False, log)
        return
    s[S_PHASE] = PH_FIGHT  # the player may roll again, or stop


@kernel
def stop_fight(s, k, rng, seat, log):
    """The player stops the open fight after a failed roll: the mob stays (R-HV-6)."""
    tile = s[S_FIGHT_TILE]
    value = k[K_TOKEN_VALUE + s[S_TILE_MOB + tile]]
    s[S_FIGHTS_STOPPED] += 1
    stat_add(s, seat, T_FIGHTS_STOPPED, 1)
    log_event(log, s, EV_FIGHT_STOP, tile, s[S_FIGHT_ROLLS], value)
    record_on_paper(s, k, rng, seat, value, fight_bonus(s, k, seat), s[S_FIGHT_ROLLS])
    if k[K_PANDA_PER_TURN] == 0:
        s[S_PANDA_USED] = 0
    s[S_PHASE] = PH_ACTION


@kernel
def _end_fight(s, k, rng, seat, tile, value, won, log):
    """The fight is over by its dice: won (the token leaves, the reward draw) or lost after
    the last roll (the mob stays)."""
    if k[K_PANDA_PER_TURN] == 0:
        s[S_PANDA_USED] = 0
    s[S_PHASE] = PH_ACTION
    stat_add(s, seat, T_FIGHTS_BY_VALUE + value, 1)
    if not won:
        return
    token = s[S_TILE_MOB + tile]
    stat_add(s, seat, T_FIGHTS_WON, 1)
    stat_add(s, seat, T_WINS_BY_VALUE + value, 1)
    s[S_TILE_MOB + tile] = -1
    s[S_MOBS_DEFEATED] += 1
    if k[K_MOBS_REUSED]:
        # the token goes under the pile: shift the unused part down, put it last
        nxt = s[S_MOB_NEXT]
        for i in range(nxt - 1, k[K_N_TOKENS] - 1):
            s[S_MOB_PILE + i] = s[S_MOB_PILE + i + 1]
        s[S_MOB_PILE + k[K_N_TOKENS] - 1] = token
        s[S_MOB_NEXT] = nxt - 1
    log_event(log, s, EV_DEFEAT, tile, token, value)
    # the reward: draw, keep one (darkness may be kept)
    draw_from_pouch(s, rng, k[K_REWARD_DRAW])
    for b in range(N_BLOCKS):
        if s[S_DRAWN + b] > 0 and can_hold(s, k, seat, b):
            s[S_PICK_KIND] = PICK_REWARD
            s[S_PHASE] = PH_PICK
            return
    return_drawn(s)
