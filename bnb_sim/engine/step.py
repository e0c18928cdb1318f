"""Apply one legal decision to the state (the engine's ``step``)."""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.engine.build import build
from bnb_sim.engine.collect import collectable_now, take_block
from bnb_sim.engine.explore import explore
from bnb_sim.engine.fight import bow_decision, continue_fight, resolve_fight, start_fight
from bnb_sim.engine.scoring import score_choice
from bnb_sim.engine.state import (
    C_BLOCKS_OWED,
    C_BUILD_STACK,
    C_CHANGES,
    C_PHASE,
    C_PICKS_OWED,
    C_SCORE_ROUND,
    C_SEAT,
    PASS,
    PH_BOW,
    PH_BUILD_SPACE,
    PH_BUILD_TILE,
    PH_COLLECT,
    PH_EXPLORE,
    PH_FIGHT_MOB,
    PH_HUNGER,
    PH_PICKAXE,
    PH_SCORE,
    PH_TNT,
    PH_TURN,
    PH_WEAPON,
)
from bnb_sim.engine.turn import (
    after_round,
    begin_action,
    finish_action,
    pass_turn,
    return_hunger_mobs,
)
from bnb_sim.engine.weapon import take_weapon


@kernel
def _fight_goes_on(pub, hid, rng, k, seat):
    phase = continue_fight(pub, hid, rng, k, seat)
    if phase == PH_TURN:
        finish_action(pub, hid, k)
    else:
        pub[C_PHASE] = phase


@kernel
def apply_action(pub, hid, rng, k, action):
    """Carry out ``action`` (already checked legal) for the seat that decides now."""
    phase = pub[C_PHASE]
    seat = pub[C_SEAT]
    if not (phase == PH_BUILD_TILE or (phase == PH_TURN and action != PASS)):
        pub[C_CHANGES] += 1  # choosing an action type or a tile alone changes nothing yet
    if phase == PH_TURN:
        if action == PASS:
            pass_turn(pub, hid, k, seat)
        else:
            pub[C_PHASE] = begin_action(pub, hid, k, seat, action)
    elif phase == PH_COLLECT:
        take_block(pub, hid, k, seat, action, 0)
        pub[C_BLOCKS_OWED] -= 1
        if pub[C_BLOCKS_OWED] <= 0 or collectable_now(pub, k) == 0:
            finish_action(pub, hid, k)  # R-CUBE-2: one block if only one was collectable
    elif phase == PH_EXPLORE:
        explore(pub, hid, k, seat, action)
        finish_action(pub, hid, k)
    elif phase == PH_BUILD_TILE:
        pub[C_BUILD_STACK] = action
        pub[C_PHASE] = PH_BUILD_SPACE
    elif phase == PH_BUILD_SPACE:
        build(pub, hid, k, seat, pub[C_BUILD_STACK], action)
        finish_action(pub, hid, k)
    elif phase == PH_FIGHT_MOB:
        start_fight(pub, hid, k, seat, action)
        _fight_goes_on(pub, hid, rng, k, seat)
    elif phase == PH_PICKAXE:
        if action != PASS:
            take_block(pub, hid, k, seat, action, 1)
        pub[C_PICKS_OWED] -= 1
        _fight_goes_on(pub, hid, rng, k, seat)
    elif phase == PH_BOW:
        bow_decision(pub, hid, k, seat, action != PASS)
        _fight_goes_on(pub, hid, rng, k, seat)
    elif phase == PH_HUNGER:
        return_hunger_mobs(pub, hid, k, seat, action)
    elif phase == PH_TNT:
        resolve_fight(pub, hid, k, seat, action)
        finish_action(pub, hid, k)
    elif phase == PH_WEAPON:
        take_weapon(pub, hid, k, seat, action)
        finish_action(pub, hid, k)
    elif phase == PH_SCORE:
        rnd = pub[C_SCORE_ROUND]
        if score_choice(pub, hid, k, seat, action):
            after_round(pub, hid, k, rnd)
