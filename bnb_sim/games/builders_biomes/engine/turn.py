"""The turn (R-TURN-1 to R-TURN-3): two different actions, extra actions bought with hunger
mobs, then the scoring rounds triggered during the turn, then the next seat.

Hunger mobs follow the reading ``hunger`` (R-TURN-2): ``together`` (the rulebook, default)
asks once, after the main actions, how many tiles to return (PH_HUNGER) and then lets the seat
take that many extra actions; ``one-by-one`` spends one tile as each extra action starts, so
a mob won in an extra action can pay for the next.
"""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.components.arrays import (
    RULE_ACTIONS_PER_TURN,
    RULE_BLOCKS_PER_COLLECT,
    TILE_HUNGER_MOB,
)
from bnb_sim.games.builders_biomes.engine.layout import (
    K_FM_COLLECT_PER_BLOCK,
    K_FM_ON,
    K_OPTS,
    K_RULES,
    MAX_HELD,
    P_HELD,
    P_N_HELD,
    P_N_HUNGER,
    TILE_KIND,
    ability_at,
    stat_at,
    tile_attr,
    xp_at,
)
from bnb_sim.games.builders_biomes.engine.market import (
    AB_COLLECT_BLOCKS,
    AB_COLLECT_XP,
    AB_HUNGER_ACTIONS,
    actions_per_turn,
    after_round_fm,
)
from bnb_sim.games.builders_biomes.engine.scoring import end_game, start_round
from bnb_sim.games.builders_biomes.engine.state import (
    ACT_BUILD,
    ACT_BUY,
    ACT_COLLECT,
    ACT_EXPLORE,
    ACT_FIGHT,
    C_ACTION_TYPE,
    C_ACTIONS_DONE,
    C_ACTIONS_USED,
    C_BLOCKS_OWED,
    C_EXTRA,
    C_EXTRA_OWED,
    C_FM_BUYS,
    C_FM_REFIGHT,
    C_HUNGER_DONE,
    C_N_PLAYERS,
    C_PHASE,
    C_ROUNDS_PENDING,
    C_SEAT,
    C_STATUS,
    C_TURN,
    C_TURN_SEAT,
    EV_ACTION,
    EV_END_TURN,
    EV_SPEND_HUNGER,
    HUNGER_TOGETHER,
    OPT_HUNGER,
    OPT_MAX_TURNS,
    PH_BUILD_TILE,
    PH_BUY,
    PH_COLLECT,
    PH_EXPLORE,
    PH_FIGHT_MOB,
    PH_HUNGER,
    PH_OVER,
    PH_TURN,
    PH_WEAPON,
    S_HUNGER_SPENT,
    S_TURNS,
    ST_TURN_LIMIT,
    XP_ITEMS_PLAY,
    log_event,
)


@kernel
def spend_hunger_mob(pub, hid, k, seat):
    """R-TURN-2: return one hunger mob tile to the box for an extra action.

    Which one does not matter for the score (a held hunger mob is worth nothing at the end), so
    the engine returns the one held longest; this is not a policy decision.
    """
    base = P_HELD + seat * MAX_HELD
    n = pub[P_N_HELD + seat]
    for j in range(n):
        tile = pub[base + j]
        if tile_attr(k, TILE_KIND, tile) == TILE_HUNGER_MOB:
            for i in range(j, n - 1):
                pub[base + i] = pub[base + i + 1]
            pub[base + n - 1] = 0
            pub[P_N_HELD + seat] = n - 1
            pub[P_N_HUNGER + seat] -= 1
            pub[stat_at(seat, S_HUNGER_SPENT)] += 1
            log_event(hid, k, seat, EV_SPEND_HUNGER, tile, 0, 0)
            return


@kernel(inline="always")
def hunger_actions(pub, seat):
    """R-TURN-2: one extra action per hunger mob; two with the Farmer's Market item (R-FM-10)."""
    more = pub[ability_at(seat, AB_HUNGER_ACTIONS)]
    return more if more > 0 else 1


@kernel(inline="always")
def hunger_together(k):
    """R-TURN-2 reading ``hunger=together`` (the rulebook): the tiles are returned in one step
    after the main actions; ``one-by-one`` spends one at the start of each extra action."""
    return k[K_OPTS + OPT_HUNGER] == HUNGER_TOGETHER


@kernel(inline="always")
def paid_extra_owed(pub, mask):
    """R-TURN-2: in PH_TURN, extra actions paid for (the hunger mobs are back in the box) and
    not yet taken, with an action to take (``mask``: the legal action types). Ending the turn
    then forgoes them: a player may, but the built-in bots never do (they return only the
    mobs they use; ``engine/play.py``)."""
    return pub[C_PHASE] == PH_TURN and pub[C_EXTRA_OWED] > 0 and mask != 0


@kernel
def return_hunger_mobs(pub, hid, k, seat, n):
    """R-TURN-2 (``hunger=together``): return ``n`` hunger mobs at once for ``n`` extra
    actions. A mob won during those actions cannot pay for more this turn: the decision is
    asked once per turn. Returning none ends the turn."""
    pub[C_HUNGER_DONE] = 1
    for _ in range(n):
        spend_hunger_mob(pub, hid, k, seat)
    pub[C_EXTRA_OWED] = n * hunger_actions(pub, seat)
    pub[C_PHASE] = PH_TURN
    pub[C_SEAT] = seat
    if n == 0:
        end_turn(pub, hid, k)


@kernel
def begin_action(pub, hid, k, seat, action_type):
    """Start carrying out an action type chosen in PH_TURN; returns the phase that follows.

    Under ``one-by-one`` a repeat chosen after the rulebook's two main actions by the owner of
    the three-actions item (R-FM-5: it "may" take a third) is an extra action: the third main
    action is forgone, as a PASS forgoes it under ``together`` (``turn_choices``)."""
    if (pub[C_ACTIONS_USED] >> action_type) & 1 and not hunger_together(k):
        if pub[C_ACTIONS_DONE] >= k[K_RULES + RULE_ACTIONS_PER_TURN]:
            pub[C_ACTIONS_DONE] = actions_per_turn(pub, k, seat)
    extra = pub[C_ACTIONS_DONE] >= actions_per_turn(pub, k, seat)
    if extra:
        if hunger_together(k) or pub[C_EXTRA_OWED] > 0:
            pub[C_EXTRA_OWED] -= 1  # paid for when the tiles were returned
        else:
            spend_hunger_mob(pub, hid, k, seat)
            pub[C_EXTRA_OWED] += hunger_actions(pub, seat) - 1
        pub[C_EXTRA] = 1
    else:
        pub[C_EXTRA] = 0
        pub[C_ACTIONS_USED] |= 1 << action_type
    pub[C_ACTION_TYPE] = action_type
    log_event(hid, k, seat, EV_ACTION, action_type, 1 if extra else 0, 0)
    if action_type == ACT_COLLECT:
        pub[C_BLOCKS_OWED] = k[K_RULES + RULE_BLOCKS_PER_COLLECT]
        if k[K_FM_ON] != 0:
            begin_collect_fm(pub, k, seat)
        return PH_COLLECT
    if action_type == ACT_BUY:
        pub[C_FM_BUYS] = 0
        return PH_BUY
    if action_type == ACT_EXPLORE:
        return PH_EXPLORE
    if action_type == ACT_BUILD:
        return PH_BUILD_TILE
    if action_type == ACT_FIGHT:
        pub[C_FM_REFIGHT] = 0
        return PH_FIGHT_MOB
    return PH_WEAPON


@kernel
def begin_collect_fm(pub, k, seat):
    """R-FM-5: collect 3 blocks with the item; +1 XP per collect action (R-FM-10 reading
    ``fm_collect_xp=action``; ``block`` adds it per block taken, in the collect step)."""
    more = pub[ability_at(seat, AB_COLLECT_BLOCKS)]
    if more > 0:
        pub[C_BLOCKS_OWED] = more
    xp = pub[ability_at(seat, AB_COLLECT_XP)]
    if xp > 0 and k[K_FM_COLLECT_PER_BLOCK] == 0:
        pub[xp_at(seat, XP_ITEMS_PLAY)] += xp


@kernel
def after_main_actions(pub, hid, k, seat):
    """The main actions are over (or none is possible): under ``hunger=together`` a seat
    holding hunger mobs decides how many to return (PH_HUNGER), once per turn; extra actions
    already paid for are chosen in PH_TURN; otherwise the turn ends."""
    if pub[C_EXTRA_OWED] > 0:
        return
    if pub[C_HUNGER_DONE] == 0 and pub[P_N_HUNGER + seat] > 0:
        pub[C_PHASE] = PH_HUNGER
        return
    end_turn(pub, hid, k)


@kernel
def finish_action(pub, hid, k):
    """An action is complete: back to choosing. With the main actions done and no extra
    action left to pay for or to take there is nothing left to decide, so the turn ends."""
    seat = pub[C_TURN_SEAT]
    if pub[C_EXTRA] == 1:
        pub[C_EXTRA] = 0
    else:
        pub[C_ACTIONS_DONE] += 1
    pub[C_PHASE] = PH_TURN
    pub[C_SEAT] = seat
    if pub[C_ACTIONS_DONE] < actions_per_turn(pub, k, seat):
        return
    if hunger_together(k):
        after_main_actions(pub, hid, k, seat)
    elif pub[P_N_HUNGER + seat] == 0 and pub[C_EXTRA_OWED] == 0:
        end_turn(pub, hid, k)


@kernel
def pass_turn(pub, hid, k, seat):
    """PASS in PH_TURN: end the turn. Under ``hunger=together`` a PASS before the main
    actions are done (none is possible) still lets the seat return hunger mobs; a PASS during
    paid extra actions forgoes the rest (the tiles are already back in the box)."""
    main_left = pub[C_ACTIONS_DONE] < actions_per_turn(pub, k, seat)
    if hunger_together(k) and main_left:
        pub[C_ACTIONS_DONE] = actions_per_turn(pub, k, seat)
        after_main_actions(pub, hid, k, seat)
        return
    pub[C_EXTRA_OWED] = 0
    end_turn(pub, hid, k)


@kernel(inline="always")
def _lowest_round(pending):
    if pending & 1:
        return 0
    if pending & 2:
        return 1
    return 2


@kernel
def end_turn(pub, hid, k):
    """R-SCORE-1: rounds triggered this turn are scored now, in the order A, B, C."""
    log_event(hid, k, pub[C_TURN_SEAT], EV_END_TURN, 0, 0, 0)
    pending = pub[C_ROUNDS_PENDING]
    if pending != 0:
        start_round(pub, hid, k, _lowest_round(pending))
    else:
        next_turn(pub, k)


@kernel
def after_round(pub, hid, k, finished_round):
    """A round is fully scored: the game ends after round C (R-END-1); otherwise the next
    pending round, or the next player's turn (R-TURN-3: scoring does not change the order)."""
    if k[K_FM_ON] != 0:
        after_round_fm(pub, hid, k, finished_round)
    if finished_round == 2:
        end_game(pub, hid, k)
    elif pub[C_ROUNDS_PENDING] != 0:
        start_round(pub, hid, k, _lowest_round(pub[C_ROUNDS_PENDING]))
    else:
        next_turn(pub, k)


@kernel
def next_turn(pub, k):
    """R-TURN-3: play passes to the next seat."""
    n = pub[C_N_PLAYERS]
    seat = (pub[C_TURN_SEAT] + 1) % n
    pub[C_TURN_SEAT] = seat
    pub[C_SEAT] = seat
    pub[C_ACTIONS_DONE] = 0
    pub[C_ACTIONS_USED] = 0
    pub[C_EXTRA] = 0
    pub[C_EXTRA_OWED] = 0
    pub[C_HUNGER_DONE] = 0
    pub[C_PHASE] = PH_TURN
    pub[C_TURN] += 1
    pub[stat_at(seat, S_TURNS)] += 1
    if pub[C_TURN] > k[K_OPTS + OPT_MAX_TURNS]:
        pub[C_STATUS] = ST_TURN_LIMIT
        pub[C_PHASE] = PH_OVER
