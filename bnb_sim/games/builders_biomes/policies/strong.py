"""The ``strong`` bot: the heuristic's one-step evaluation with learned, stage-dependent weights.

The heuristic (``onestep.py``) values every legal decision by the change it makes to a weighted
evaluation of the seat's position. ``strong`` keeps that evaluation and its code, and changes
what the weights can express (the weight vector is a model file's data, ``kinds.STRONG_*``):

* **stages**: one weight vector per stage of the game, chosen by the rounds scored so far
  (none, A, A and B). What a block, a weapon or a revealed tile is worth changes as the game
  nears its end (R-SCORE-1, R-END-1);
* **action biases**: at the turn decision (R-TURN-1) a bias per action type is added to the
  value of the best decision of that type;
* **pacing** (R-SCORE-1: emptying a layer triggers its round): taking a block of a layer whose
  round is still to come brings that round nearer, worth the seat's lead in it (own best score
  now minus the best opponent's) times ``pace_near / (1 + blocks the layer keeps)``, plus
  ``pace_last_two`` times the lead when 1 or 2 blocks stay (the next collect can end it). The
  heuristic's ``trigger`` term still values the last block.

The weights were found by self-play against a field (``strong_train.py``); with the
heuristic's weights in every stage and the other terms 0, ``strong`` plays exactly like
``heuristic`` (a test checks it), except in a game that has run far longer than any normal
one (``STALL_TURNS_PER_PLAYER``), where it collects whenever it may so that the game ends.
Everything reads ``pub`` (the seat's observation) and the static arrays only, like the
heuristic; ties are broken from the seat's policy stream.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.components.arrays import RULE_MIN_EXPOSED_SIDES
from bnb_sim.games.builders_biomes.engine.bits import popcount
from bnb_sim.games.builders_biomes.engine.collect import collectable_now
from bnb_sim.games.builders_biomes.engine.cube import collectable_bits
from bnb_sim.games.builders_biomes.engine.layout import (
    K_ADJ_STACKS,
    K_OPTS,
    K_RULES,
    P_POS,
    P_VIS_BLOCK,
    WILD,
    get_occ,
)
from bnb_sim.games.builders_biomes.engine.market import actions_per_turn
from bnb_sim.games.builders_biomes.engine.restrict import allowed_stacks
from bnb_sim.games.builders_biomes.engine.state import (
    ACT_BUILD,
    ACT_BUY,
    ACT_COLLECT,
    ACT_EXPLORE,
    ACT_FIGHT,
    ACT_WEAPON,
    C_ACTIONS_DONE,
    C_CHANGES,
    C_N_PLAYERS,
    C_PHASE,
    C_ROUNDS_DONE,
    C_ROUNDS_PENDING,
    C_TURN,
    C_UP_BUILDINGS,
    C_UP_MOBS,
    HUNGER_TOGETHER,
    N_ACTION_TYPES,
    OPT_HUNGER,
    PASS,
    PH_COLLECT,
    PH_TURN,
)
from bnb_sim.games.builders_biomes.policies.fight_values import weapon_value
from bnb_sim.games.builders_biomes.policies.fm_policy import best_buy, buy_slots
from bnb_sim.games.builders_biomes.policies.kinds import (
    STRONG_BIAS0,
    STRONG_PACE0,
    STRONG_STAGE_SIZE,
    W,
)
from bnb_sim.games.builders_biomes.policies.onestep import (
    _affordable,
    best_adjacent,
    best_point,
    choose_onestep,
    prepare_stack_values,
)
from bnb_sim.games.builders_biomes.policies.onestep_layout import (
    MEM_BLOCK_SCRATCH,
    MEM_BLOCK_STAMP,
    MEM_BLOCK_VALUE,
    NEG,
)
from bnb_sim.games.builders_biomes.policies.onestep_values import (
    _low_u64,
    _offer,
    block_values,
    lone_blocks,
    pick_best,
    round_lead,
)

W_BLOCK_BASE = W["block_base"]
W_TRIGGER = W["trigger"]
W_EXTRA_THRESHOLD = W["extra_threshold"]
PACE_NEAR = STRONG_PACE0
PACE_LAST_TWO = STRONG_PACE0 + 1
# Nothing in the rules forces a player to collect blocks (explore and a lost fight make a
# turn), and weights that hardly collect can meet others that do not either: the game would
# never end. Past this many turns per player (a game of the shipped data lasts about 25) the
# bot collects whenever it may, so the cube empties and the game ends (R-SCORE-1).
STALL_TURNS_PER_PLAYER = 50

# policy memory: after the one-step evaluation's cache (onestep_layout.MEM_*, below 810) and
# below priority_layout.MEM_BOT (1024), where the batch kernel reads a priority-list bot's rule hits
MEM_LEAD = 1000  # 3: the seat's lead in each round (this state)
MEM_LEFT = 1004  # 3: blocks left in each layer whose round is still to come (-1: none)
MEM_PACE_STAMP = 1008  # pub[C_CHANGES] + 1 when the two above were filled


@kernel(inline="always")
def stage_of(pub):
    """0 before round A, 1 after one scored round, 2 after two (R-SCORE-1)."""
    return min(popcount(np.uint64(pub[C_ROUNDS_DONE] & 7)), 2)


@kernel
def fill_pacing(pub, k, seat, mem):
    """Blocks left and the seat's lead in each layer whose round is not triggered yet
    (kept for the state: the decisions of one collect action read them again)."""
    stamp = float(pub[C_CHANGES] + 1)
    if mem[MEM_PACE_STAMP] == stamp:
        return
    occ = get_occ(pub)
    flags = pub[C_ROUNDS_DONE] | pub[C_ROUNDS_PENDING]
    for layer in range(3):
        if (flags >> layer) & 1:
            mem[MEM_LEFT + layer] = -1.0
            mem[MEM_LEAD + layer] = 0.0
            continue
        mem[MEM_LEFT + layer] = popcount((occ >> np.uint64(16 * layer)) & np.uint64(0xFFFF))
        mem[MEM_LEAD + layer] = round_lead(pub, k, seat, layer)
    mem[MEM_PACE_STAMP] = stamp


@kernel(inline="always")
def pace_value(mem, ws, layer, taken_before):
    """Pacing term of taking one block of ``layer`` when ``taken_before`` blocks of it are
    already counted as taken in this action."""
    if layer > 2:
        return 0.0
    left = mem[MEM_LEFT + layer]
    if left < 0.0:
        return 0.0
    after = left - 1.0 - taken_before
    if after <= 0.0:
        return 0.0  # the last block: the heuristic's trigger term
    lead = mem[MEM_LEAD + layer]
    value = ws[PACE_NEAR] * lead / (1.0 + after)
    if after <= 2.0:
        value += ws[PACE_LAST_TWO] * lead
    return value


@kernel(inline="always")
def take_value(pub, k, seat, ws, mem, values, pos, lone, taken_layer):
    """The heuristic's value of taking the block at ``pos`` plus its pacing term."""
    shown = pub[P_VIS_BLOCK + pos]
    value = values[shown] if shown >= 0 else ws[W_BLOCK_BASE]
    layer = pos // 16
    if (lone >> np.uint64(pos)) & np.uint64(1):
        value += ws[W_TRIGGER] * round_lead(pub, k, seat, layer)
    return value + pace_value(mem, ws, layer, 1.0 if layer == taken_layer else 0.0)


@kernel
def best_block(pub, k, seat, mem, ws, candidates, values, rng, row):
    """Best block among ``candidates`` (uint64 bitboard); ties at random."""
    lone = lone_blocks(pub)
    bits = candidates
    while bits:
        pos = _low_u64(bits)
        bits &= bits - np.uint64(1)
        mem[MEM_BLOCK_SCRATCH + pos] = take_value(pub, k, seat, ws, mem, values, pos, lone, -1)
    return pick_best(mem, MEM_BLOCK_SCRATCH, candidates, rng, row, True)


@kernel
def collect_value(pub, k, seat, ws, mem, values):
    """Value of a collect action (R-CUBE-2): the best block, then the best one after it."""
    candidates = collectable_now(pub, k)
    lone = lone_blocks(pub)
    first = NEG
    second = NEG
    first_pos = -1
    bits = candidates
    while bits:
        pos = _low_u64(bits)
        bits &= bits - np.uint64(1)
        value = take_value(pub, k, seat, ws, mem, values, pos, lone, -1)
        if value > first:
            second = first
            first = value
            first_pos = pos
        elif value > second:
            second = value
    if first_pos < 0:
        return NEG
    taken = np.uint64(1) << np.uint64(first_pos)
    sides = k[K_RULES + RULE_MIN_EXPOSED_SIDES]
    exposed = collectable_bits(get_occ(pub) & ~taken, sides) & ~candidates
    while exposed:
        pos = _low_u64(exposed)
        exposed &= exposed - np.uint64(1)
        value = take_value(pub, k, seat, ws, mem, values, pos, lone, first_pos // 16)
        if value > second:
            second = value
    if second == NEG:
        return first
    return first + second


@kernel(inline="always")
def action_value(pub, seat, mem, k, ft, ws, action_type, values, rng, row):
    """Value of the best decision within an action type (stack values filled)."""
    here = k[K_ADJ_STACKS + pub[P_POS + seat]]
    if action_type == ACT_COLLECT:
        return collect_value(pub, k, seat, ws, mem, values)
    if action_type == ACT_EXPLORE:
        value, _ = best_point(pub, seat, mem, k, ws, rng, row, False)
        return value
    if action_type == ACT_BUILD:
        up = allowed_stacks(pub, k, seat, here & pub[C_UP_BUILDINGS], ACT_BUILD)
        stacks = _affordable(pub, k, seat, up)
        value, _ = best_adjacent(pub, seat, mem, stacks, rng, row, False)
        return value
    if action_type == ACT_FIGHT:
        mobs = allowed_stacks(pub, k, seat, here & pub[C_UP_MOBS], ACT_FIGHT)
        value, _ = best_adjacent(pub, seat, mem, mobs, rng, row, False)
        return value
    if action_type == ACT_WEAPON:
        return weapon_value(pub, k, ft, ws)
    return NEG


@kernel
def turn_choice(pub, seat, mem, k, ft, ws, mask, pass_ok, values, rng, row):
    """R-TURN-1/2: the action type with the best value plus its bias; PASS where an extra
    action is not worth taking (as the heuristic decides it)."""
    prepare_stack_values(pub, seat, mem, k, ft, ws, rng, row)
    best = NEG
    choice = -1
    ties = 0
    for a in range(N_ACTION_TYPES):
        if (mask >> np.uint64(a)) & np.uint64(1):
            value = action_value(pub, seat, mem, k, ft, ws, a, values, rng, row)
            value += ws[STRONG_BIAS0 + a]
            best, choice, ties = _offer(best, choice, ties, value, a, rng, row, True)
    if (mask >> np.uint64(ACT_BUY)) & np.uint64(1):  # Farmer's Market (R-FM-4)
        value, _ = best_buy(pub, k, seat, ws, buy_slots(pub, k, seat))
        value += ws[STRONG_BIAS0 + ACT_BUY]
        best, choice, ties = _offer(best, choice, ties, value, ACT_BUY, rng, row, True)
    extra = pub[C_ACTIONS_DONE] >= actions_per_turn(pub, k, seat)
    if extra and pass_ok:
        paid = k[K_OPTS + OPT_HUNGER] == HUNGER_TOGETHER
        if best < (0.0 if paid else ws[W_EXTRA_THRESHOLD]):
            return PASS
    return choice


@kernel
def choose_strong(w, pub, seat, mem, k, ft, mask, pass_ok, rng, row):
    """The decision of the strong bot with model weights ``w`` (``kinds.STRONG_*`` layout).

    The turn and collect decisions use the terms above; every other decision is the
    heuristic's with the weights of the current stage."""
    if mask == np.uint64(0):
        return PASS
    stage = stage_of(pub)
    ws = w[stage * STRONG_STAGE_SIZE : (stage + 1) * STRONG_STAGE_SIZE]
    phase = pub[C_PHASE]
    if phase != PH_TURN and phase != PH_COLLECT:
        return choose_onestep(ws, pub, seat, mem, k, ft, mask, pass_ok, rng, row)
    values = mem[MEM_BLOCK_VALUE : MEM_BLOCK_VALUE + WILD + 1]
    stamp = float(pub[C_CHANGES] + 1)
    if mem[MEM_BLOCK_STAMP] != stamp:
        block_values(pub, k, seat, ws, values)
        mem[MEM_BLOCK_STAMP] = stamp
    fill_pacing(pub, k, seat, mem)
    if phase == PH_COLLECT:
        _, pos = best_block(pub, k, seat, mem, ws, mask, values, rng, row)
        return pos
    stalled = pub[C_TURN] >= STALL_TURNS_PER_PLAYER * pub[C_N_PLAYERS]
    if stalled and (mask >> np.uint64(ACT_COLLECT)) & np.uint64(1):
        return ACT_COLLECT
    return turn_choice(pub, seat, mem, k, ft, ws, mask, pass_ok, values, rng, row)
