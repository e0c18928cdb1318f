"""Search bots: flat Monte Carlo (``mc``) and open-loop Information-Set MCTS (``ismcts``).

Both decide in the jitted engine. Every iteration (ismcts) or rollout batch (mc) starts from a
fresh determinization of the true state for the acting seat (:mod:`.determinize`): what the
seat cannot see is re-dealt and every random stream re-seeded from the seat's own policy
stream. A decision is therefore a function of what the seat knows and of its policy stream,
and a game with search bots stays a pure function of (seed, game index).

``mc``: for each legal decision, play ``rollouts`` continuations and keep the best mean
reward. Rollout ``j`` uses the same determinization for every decision (common random
numbers: the decisions are compared on the same deals and the same future draws).

``ismcts``: single-observer ISMCTS with determinization in its open-loop form (Cowling,
Powley and Whitehouse 2012; OpenSpiel's ``ISMCTSBot``): a tree keyed on decision sequences
only, whose nodes are shared by all determinizations; a decision's child is selected by UCT
with *availability* counts (how often the child was legal when its parent was reached) in
place of the parent's visits, one node is added per iteration (the decision the rollout
policy would take first, then untried ones at random), a rollout finishes the game,
and each node keeps a reward sum per seat so that every seat maximises its own reward where
it decides. Below the root, *progressive unpruning* (Chaslot et al. 2008) keeps a node to the
rollout policy's choice until it has ``widen`` visits per further child, so that a small
budget compares the root decisions on continuations played like the rollout policy instead
of spreading over untried replies. The final decision is the most visited root child (ties:
the rollout policy's choice, then the higher mean reward).

Reward of a seat at the end of a rollout: its share of the win (1 / number of winners, rule
R-END-2) plus ``margin`` times its XP lead over the best other seat (a dense signal that
separates "won by 1" from "won by 20").

Scratch (state copies, tree arrays) is allocated once per game by
:func:`new_search_scratch`, never inside the loop.
"""

from __future__ import annotations

import math

import numpy as np

from bnb_sim._jit import kernel, njit
from bnb_sim.games.builders_biomes.engine.bits import kth_set_bit, popcount
from bnb_sim.games.builders_biomes.engine.layout import (
    H_SIZE,
    K_OPTS,
    MAX_SEATS,
    N_STREAM_ROWS,
    P_SIZE,
    RNG_POLICY,
)
from bnb_sim.games.builders_biomes.engine.legal import is_legal, legal_bits
from bnb_sim.games.builders_biomes.engine.observation import prepare_observation
from bnb_sim.games.builders_biomes.engine.scoring import ranks
from bnb_sim.games.builders_biomes.engine.state import (
    C_N_PLAYERS,
    C_PHASE,
    C_SEAT,
    C_STATUS,
    OPT_CHECK,
    OPT_LOG,
    PASS,
    PH_OVER,
    ST_OK,
    xp_total,
)
from bnb_sim.games.builders_biomes.engine.step import apply_action
from bnb_sim.games.builders_biomes.policies.determinize import DET_SCRATCH, determinize
from bnb_sim.games.builders_biomes.policies.kinds import (
    GREEDY,
    HEURISTIC,
    ISMCTS,
    MC,
    RANDOM,
    SEARCH_BUDGET,
    SEARCH_C,
    SEARCH_MARGIN,
    SEARCH_ROLLOUT,
    SEARCH_ROOT,
    SEARCH_WEIGHTS,
    SEARCH_WIDEN,
    STRONG,
)
from bnb_sim.games.builders_biomes.policies.onestep import choose_onestep
from bnb_sim.games.builders_biomes.policies.random_policy import choose_random
from bnb_sim.games.builders_biomes.policies.strong import choose_strong
from bnb_sim.rng import bounded_row

# tree node fields
T_ACTION = 0
T_CHILD = 1  # first child, -1 none
T_NEXT = 2  # next sibling, -1 none
N_TREE_I = 3
F_VISITS = 0
F_AVAIL = 1
F_REWARD = 2  # + seat
N_TREE_F = F_REWARD + MAX_SEATS
MC_ROWS = 65  # mc keeps one reward total per decision (0..64)


@njit(cache=True)
def new_search_scratch(k, kinds, params, n_players, mem_size):
    """Scratch for the search bots of one game: a tuple of arrays (tiny when none searches).

    ``(sample pub, sample hid, sample rng, work pub, work hid, work rng, k without logging,
    int scratch, rollout memory, tree ints, tree floats, path)``.
    """
    searching = False
    nodes = MC_ROWS
    for player in range(n_players):
        if kinds[player] == MC or kinds[player] == ISMCTS:
            searching = True
        if kinds[player] == ISMCTS:
            nodes = max(nodes, np.int64(params[player, SEARCH_BUDGET]) + 2)
    if not searching:
        nodes = 1
    size = 1 if not searching else 0
    if searching:
        ks = k.copy()
        ks[K_OPTS + OPT_LOG] = 0  # rollouts keep no event log and run no invariant checks
        ks[K_OPTS + OPT_CHECK] = 0
    else:  # nothing reads it: spare every game the copy of the static array
        ks = np.zeros(1, np.int64)
    return (
        np.zeros(P_SIZE if searching else size, np.int64),
        np.zeros(H_SIZE if searching else size, np.int64),
        np.zeros((N_STREAM_ROWS, 4), np.uint64),
        np.zeros(P_SIZE if searching else size, np.int64),
        np.zeros(H_SIZE if searching else size, np.int64),
        np.zeros((N_STREAM_ROWS, 4), np.uint64),
        ks,
        np.zeros(DET_SCRATCH + MAX_SEATS, np.int64),
        np.zeros((MAX_SEATS, mem_size if searching else 1), np.float64),
        np.zeros((nodes, N_TREE_I), np.int64),
        np.zeros((nodes, N_TREE_F), np.float64),
        np.zeros(nodes + 1, np.int64),
    )


@kernel(inline="always")
def _copy_state(pub, hid, rng, wpub, whid, wrng):
    for i in range(P_SIZE):
        wpub[i] = pub[i]
    for i in range(H_SIZE):
        whid[i] = hid[i]
    for r in range(N_STREAM_ROWS):
        for w in range(4):
            wrng[r, w] = rng[r, w]


@kernel(inline="always")
def rollout_action(rkind, rparams, pub, hid, rng, k, ft, smem, mask, pass_ok):
    """The rollout policy's decision for the seat to play (never a search: no recursion):
    ``random``, or a one-step bot (``greedy``/``heuristic`` weights, or a ``strong`` model)."""
    seat = pub[C_SEAT]
    if rkind == RANDOM:
        return choose_random(mask, pass_ok, rng, RNG_POLICY + seat)
    prepare_observation(pub, hid, seat)
    if rkind == STRONG:
        return choose_strong(
            rparams, pub, seat, smem[seat], k, ft, mask, pass_ok, rng, RNG_POLICY + seat
        )
    return choose_onestep(
        rparams, pub, seat, smem[seat], k, ft, mask, pass_ok, rng, RNG_POLICY + seat
    )


@kernel
def forget(smem, rkind):
    """Clear the rollout policy's memory before a new sample: the one-step bots cache on
    counters that repeat from one rollout to the next."""
    if rkind == GREEDY or rkind == HEURISTIC or rkind == STRONG:
        for s in range(smem.shape[0]):
            for i in range(smem.shape[1]):
                smem[s, i] = 0.0


@kernel
def rollout(pub, hid, rng, k, ft, rkind, rparams, smem):
    """Play the game in ``(pub, hid, rng)`` to its end with the rollout policy for all seats
    (``smem`` cleared by :func:`forget` when the sample was drawn)."""
    while pub[C_PHASE] != PH_OVER and pub[C_STATUS] == ST_OK:
        mask, pass_ok = legal_bits(pub, k)
        action = rollout_action(rkind, rparams, pub, hid, rng, k, ft, smem, mask, pass_ok)
        if not is_legal(mask, pass_ok, action):
            return
        apply_action(pub, hid, rng, k, action)


@kernel
def seat_reward(pub, seat, margin, rank_buf):
    """Share of the win of ``seat`` plus ``margin`` x its XP lead over the best other seat."""
    n = pub[C_N_PLAYERS]
    ranks(pub, rank_buf)
    winners = 0
    best_other = -1
    for s in range(n):
        if rank_buf[s] == 1:
            winners += 1
        if s != seat:
            best_other = max(best_other, xp_total(pub, s))
    share = 1.0 / winners if rank_buf[seat] == 1 else 0.0
    return share + margin * (xp_total(pub, seat) - best_other)


@kernel(inline="always")
def _nth_legal(mask, pass_ok, index):
    if index == popcount(mask):
        return PASS
    return kth_set_bit(mask, index)


@kernel
def mc_decide(pub, hid, rng, k, ft, params, seat, mask, pass_ok, scratch):
    """Flat Monte Carlo: the legal decision with the best mean rollout reward."""
    spub, shid, srng, wpub, whid, wrng, ks, tmp, smem, _, tree_f, _ = scratch
    row = RNG_POLICY + seat
    n_legal = popcount(mask) + (1 if pass_ok else 0)
    rkind = np.int64(params[SEARCH_ROLLOUT])
    rparams = params[SEARCH_WEIGHTS:]
    margin = params[SEARCH_MARGIN]
    rank_buf = tmp[DET_SCRATCH:]
    for i in range(n_legal):
        tree_f[i, 0] = 0.0
    rollouts = max(np.int64(params[SEARCH_BUDGET]), 1)
    for _ in range(rollouts):
        determinize(pub, hid, ks, seat, rng, row, spub, shid, srng, tmp)
        for i in range(n_legal):
            _copy_state(spub, shid, srng, wpub, whid, wrng)
            apply_action(wpub, whid, wrng, ks, _nth_legal(mask, pass_ok, i))
            forget(smem, rkind)
            rollout(wpub, whid, wrng, ks, ft, rkind, rparams, smem)
            tree_f[i, 0] += seat_reward(wpub, seat, margin, rank_buf)
    best = 0
    for i in range(1, n_legal):
        if tree_f[i, 0] > tree_f[best, 0]:
            best = i
    return _nth_legal(mask, pass_ok, best)


@kernel(inline="always")
def _uct_child(tree_i, tree_f, node, lmask, lpass, mover, c):
    """UCT over the children of ``node`` legal now (their availability counted): the best
    child (-1 none), the bits of the legal children, whether PASS is one, and their number."""
    tried = np.uint64(0)
    tried_pass = False
    n_tried = 0
    best = -1
    best_value = -np.inf
    child = tree_i[node, T_CHILD]
    while child >= 0:
        action = tree_i[child, T_ACTION]
        if is_legal(lmask, lpass, action):
            if action == PASS:
                tried_pass = True
            else:
                tried |= np.uint64(1) << np.uint64(action)
            n_tried += 1
            tree_f[child, F_AVAIL] += 1.0
            visits = tree_f[child, F_VISITS]
            value = tree_f[child, F_REWARD + mover] / visits + c * math.sqrt(
                math.log(tree_f[child, F_AVAIL]) / visits
            )
            if value > best_value:
                best_value = value
                best = child
        child = tree_i[child, T_NEXT]
    return best, tried, tried_pass, n_tried


@kernel(inline="always")
def _add_child(tree_i, tree_f, node, new, action):
    tree_i[new, T_ACTION] = action
    tree_i[new, T_CHILD] = -1
    tree_i[new, T_NEXT] = tree_i[node, T_CHILD]
    tree_i[node, T_CHILD] = new
    tree_f[new, F_VISITS] = 0.0
    tree_f[new, F_AVAIL] = 1.0
    for s in range(MAX_SEATS):
        tree_f[new, F_REWARD + s] = 0.0


@kernel(inline="always")
def _may_widen(tree_f, node, n_tried, widen, root, done):
    """Progressive unpruning below the root: a node holds one child per ``widen`` visits
    (the rollout policy's choice first), so that a small budget follows the rollout policy
    below the root instead of spreading over untried replies. The root tries every decision,
    or with ``root`` > 0 holds one child per ``root`` iterations (``done`` so far)."""
    if n_tried == 0:
        return True
    if node == 0:
        return root <= 0.0 or n_tried < 1 + np.int64(done / root)
    if widen <= 0.0:
        return True
    return n_tried < 1 + np.int64(tree_f[node, F_VISITS] / widen)


@kernel
def ismcts_decide(pub, hid, rng, k, ft, params, seat, mask, pass_ok, scratch):
    """Open-loop ISMCTS with UCT on availability counts and progressive unpruning below the
    root; the most visited root decision."""
    _, _, _, wpub, whid, wrng, ks, tmp, smem, tree_i, tree_f, path = scratch
    row = RNG_POLICY + seat
    rkind = np.int64(params[SEARCH_ROLLOUT])
    rparams = params[SEARCH_WEIGHTS:]
    margin = params[SEARCH_MARGIN]
    c = params[SEARCH_C]
    widen = params[SEARCH_WIDEN]
    root = params[SEARCH_ROOT]
    rank_buf = tmp[DET_SCRATCH:]
    max_nodes = tree_i.shape[0]
    iterations = min(max(np.int64(params[SEARCH_BUDGET]), 1), max_nodes - 1)
    tree_i[0, T_CHILD] = -1
    tree_i[0, T_NEXT] = -1
    n_nodes = 1
    for done in range(iterations):
        determinize(pub, hid, ks, seat, rng, row, wpub, whid, wrng, tmp)
        forget(smem, rkind)
        node = 0
        depth = 0
        path[0] = 0
        while wpub[C_PHASE] != PH_OVER and wpub[C_STATUS] == ST_OK:
            lmask, lpass = legal_bits(wpub, ks)
            mover = wpub[C_SEAT]
            best, tried, tried_pass, n_tried = _uct_child(
                tree_i, tree_f, node, lmask, lpass, mover, c
            )
            untried = lmask & ~tried
            untried_pass = lpass and not tried_pass
            n_untried = popcount(untried) + (1 if untried_pass else 0)
            if (
                n_untried > 0
                and n_nodes < max_nodes
                and _may_widen(tree_f, node, n_tried, widen, root, done)
            ):
                # the rollout policy's own choice is tried first (so that a node's first
                # visits measure it played well, as mc does), then the others at random; with
                # ``root`` its best untried decision each time (its order of preference, where
                # its choice heeds the mask), then the others at random
                if root > 0.0:
                    action = rollout_action(
                        rkind, rparams, wpub, whid, wrng, ks, ft, smem, untried, untried_pass
                    )
                else:
                    action = rollout_action(
                        rkind, rparams, wpub, whid, wrng, ks, ft, smem, lmask, lpass
                    )
                if not is_legal(untried, untried_pass, action):
                    pick = bounded_row(rng, row, n_untried) if n_untried > 1 else 0
                    action = _nth_legal(untried, untried_pass, pick)
                new = n_nodes
                n_nodes += 1
                _add_child(tree_i, tree_f, node, new, action)
                apply_action(wpub, whid, wrng, ks, action)
                depth += 1
                path[depth] = new
                break
            if best < 0:
                break
            apply_action(wpub, whid, wrng, ks, tree_i[best, T_ACTION])
            node = best
            depth += 1
            path[depth] = node
        rollout(wpub, whid, wrng, ks, ft, rkind, rparams, smem)
        n = wpub[C_N_PLAYERS]
        for s in range(n):
            reward = seat_reward(wpub, s, margin, rank_buf)
            for d in range(1, depth + 1):
                tree_f[path[d], F_REWARD + s] += reward
        for d in range(1, depth + 1):
            tree_f[path[d], F_VISITS] += 1.0
    return _final_decision(tree_i, tree_f, mask, pass_ok, seat)


@kernel(inline="always")
def _better_root_child(tree_i, tree_f, child, best, seat):
    """Whether root ``child`` beats ``best``: more visits; on equal visits the rollout
    policy's own choice (node 1, the first one expanded), then the higher mean reward, then
    the lower action. A budget below the number of legal decisions leaves ties at one visit
    each; they go to the rollout policy instead of to the lowest action."""
    if best < 0:
        return True
    visits, best_visits = tree_f[child, F_VISITS], tree_f[best, F_VISITS]
    if visits != best_visits:
        return visits > best_visits
    if child == 1 or best == 1:
        return child == 1
    if visits > 0.0:
        mean = tree_f[child, F_REWARD + seat] / visits
        best_mean = tree_f[best, F_REWARD + seat] / visits
        if mean != best_mean:
            return mean > best_mean
    return tree_i[child, T_ACTION] < tree_i[best, T_ACTION]


@kernel
def _final_decision(tree_i, tree_f, mask, pass_ok, seat):
    """The decision of the search: the best legal root child (:func:`_better_root_child`)."""
    best = -1
    child = tree_i[0, T_CHILD]
    while child >= 0:
        if is_legal(mask, pass_ok, tree_i[child, T_ACTION]):
            if _better_root_child(tree_i, tree_f, child, best, seat):
                best = child
        child = tree_i[child, T_NEXT]
    if best < 0:
        return _nth_legal(mask, pass_ok, 0)
    return tree_i[best, T_ACTION]


@kernel
def search_decide(kind, pub, hid, rng, k, ft, params, seat, mask, pass_ok, scratch):
    """The decision of a search bot for ``seat``; a forced decision is taken without search."""
    n_legal = popcount(mask) + (1 if pass_ok else 0)
    if n_legal <= 1:
        return _nth_legal(mask, pass_ok, 0) if n_legal == 1 else -1
    if kind == MC:
        return mc_decide(pub, hid, rng, k, ft, params, seat, mask, pass_ok, scratch)
    return ismcts_decide(pub, hid, rng, k, ft, params, seat, mask, pass_ok, scratch)
