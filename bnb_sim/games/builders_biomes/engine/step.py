"""Apply one legal decision to the state (the engine's ``step``)."""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.engine.build import build
from bnb_sim.games.builders_biomes.engine.collect import collectable_now, take_block
from bnb_sim.games.builders_biomes.engine.explore import explore
from bnb_sim.games.builders_biomes.engine.fight import (
    bow_decision,
    continue_fight,
    resolve_fight,
    reveal_four_decision,
    start_fight,
)
from bnb_sim.games.builders_biomes.engine.layout import (
    K_FM_COLLECT_PER_BLOCK,
    K_FM_ON,
    ability_at,
    may_at,
    xp_at,
)
from bnb_sim.games.builders_biomes.engine.market import (
    AB_COLLECT_XP,
    AB_REFIGHT,
    buy_item,
    buyable_slots,
    place_farmland,
    third_block_optional,
)
from bnb_sim.games.builders_biomes.engine.scoring import score_choice
from bnb_sim.games.builders_biomes.engine.state import (
    C_BLOCKS_OWED,
    C_BUILD_STACK,
    C_CHANGES,
    C_FIGHT_STACK,
    C_FIGHT_TILE,
    C_FM_REFIGHT,
    C_LAST_WIN,
    C_PHASE,
    C_PICKS_OWED,
    C_REVEALS_OWED,
    C_SCORE_ROUND,
    C_SEAT,
    EV_MAY_DECLINED,
    EV_REFIGHT,
    MAY_BED,
    MAY_THIRD_BLOCK,
    PASS,
    PH_BED,
    PH_BOW,
    PH_BUILD_SPACE,
    PH_BUILD_TILE,
    PH_BUY,
    PH_COLLECT,
    PH_EXPLORE,
    PH_FARMLAND,
    PH_FIGHT_MOB,
    PH_HUNGER,
    PH_PICKAXE,
    PH_REVEAL_FOUR,
    PH_SCORE,
    PH_TNT,
    PH_TURN,
    PH_WEAPON,
    XP_ITEMS_PLAY,
    log_event,
)
from bnb_sim.games.builders_biomes.engine.turn import (
    after_round,
    begin_action,
    finish_action,
    pass_turn,
    return_hunger_mobs,
)
from bnb_sim.games.builders_biomes.engine.weapon import take_weapon


@kernel(inline="always")
def _refight_due(pub, k, seat):
    """R-FM-5 (bed): after a lost fight the seat may fight the mob once more."""
    return (
        pub[ability_at(seat, AB_REFIGHT)] > 0
        and pub[C_LAST_WIN] == 0
        and pub[C_FM_REFIGHT] == 0
        and k[K_FM_ON] != 0
    )


@kernel
def _after_fight(pub, hid, k, seat):
    """A fight is resolved: after a loss the bed's owner decides whether to fight the mob a
    second time (PH_BED, R-FM-5: it "may"); otherwise the action is over."""
    if _refight_due(pub, k, seat):
        pub[C_PHASE] = PH_BED
    else:
        finish_action(pub, hid, k)


@kernel
def _bed_decision(pub, hid, rng, k, seat, fight_again):
    """PH_BED: the bed's second fight, the pile reshuffled and revealed again "as per the
    normal rules" (the bed's amount, 3; R-FM-5), or the action ends."""
    pub[may_at(seat, MAY_BED, 0)] += 1
    if not fight_again:
        pub[may_at(seat, MAY_BED, 1)] += 1
        log_event(hid, k, seat, EV_MAY_DECLINED, MAY_BED, 0, 0)
        finish_action(pub, hid, k)
        return
    pub[C_FM_REFIGHT] = 1
    log_event(hid, k, seat, EV_REFIGHT, pub[C_FIGHT_TILE], 0, 0)
    start_fight(pub, hid, k, seat, pub[C_FIGHT_STACK])
    pub[C_REVEALS_OWED] = pub[ability_at(seat, AB_REFIGHT)]
    _fight_goes_on(pub, hid, rng, k, seat)


@kernel
def _fight_goes_on(pub, hid, rng, k, seat):
    phase = continue_fight(pub, hid, rng, k, seat)
    if phase == PH_TURN:
        _after_fight(pub, hid, k, seat)
    else:
        pub[C_PHASE] = phase


@kernel(inline="always")
def _collect_step(pub, hid, k, seat, action):
    """PH_COLLECT: take a block (R-CUBE-2), or decline the collect-3 item's third block
    (PASS, R-FM-5). Inlined, as this code was inside :func:`apply_action` before."""
    if action == PASS:
        pub[may_at(seat, MAY_THIRD_BLOCK, 0)] += 1
        pub[may_at(seat, MAY_THIRD_BLOCK, 1)] += 1
        log_event(hid, k, seat, EV_MAY_DECLINED, MAY_THIRD_BLOCK, 0, 0)
        finish_action(pub, hid, k)
        return
    if k[K_FM_ON] != 0 and third_block_optional(pub, k, seat):
        pub[may_at(seat, MAY_THIRD_BLOCK, 0)] += 1
    take_block(pub, hid, k, seat, action, 0)
    if k[K_FM_COLLECT_PER_BLOCK] != 0:  # R-FM-10 reading fm_collect_xp=block
        pub[xp_at(seat, XP_ITEMS_PLAY)] += pub[ability_at(seat, AB_COLLECT_XP)]
    pub[C_BLOCKS_OWED] -= 1
    if pub[C_BLOCKS_OWED] <= 0 or collectable_now(pub, k) == 0:
        finish_action(pub, hid, k)  # R-CUBE-2: one block if only one was collectable


@kernel(inline="always")
def apply_action(pub, hid, rng, k, action):
    """Carry out ``action`` (already checked legal) for the seat that decides now.

    Inlined into the game loops (see :func:`~.legal.legal_bits`): the entry of
    this dispatcher zeroed a return slot for each of its two dozen call sites on every step.
    """
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
        _collect_step(pub, hid, k, seat, action)
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
        _after_fight(pub, hid, k, seat)
    elif phase == PH_BED:
        _bed_decision(pub, hid, rng, k, seat, action != PASS)
    elif phase == PH_REVEAL_FOUR:
        reveal_four_decision(pub, hid, k, seat, action != PASS)
        _fight_goes_on(pub, hid, rng, k, seat)
    elif phase == PH_FARMLAND:
        place_farmland(pub, hid, k, seat, action)
    elif phase == PH_BUY:
        if action == PASS:
            finish_action(pub, hid, k)
        else:
            buy_item(pub, hid, k, seat, action)
            if buyable_slots(pub, k, seat) == 0:
                finish_action(pub, hid, k)
    elif phase == PH_WEAPON:
        take_weapon(pub, hid, k, seat, action)
        finish_action(pub, hid, k)
    elif phase == PH_SCORE:
        rnd = pub[C_SCORE_ROUND]
        if score_choice(pub, hid, k, seat, action):
            after_round(pub, hid, k, rnd)
