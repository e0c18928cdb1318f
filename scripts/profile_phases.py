#!/usr/bin/env python3
"""Where the time of a game goes: CPU cycles per game by phase, for legality, the policy's
decision and applying it.

    python scripts/profile_phases.py [--policy heuristic] [--players 4] [--games 5000]

It replays the loop of :func:`bnb_sim.games.builders_biomes.engine.play.play_out` with the cycle
counter
(``llvm.readcyclecounter``, i.e. ``rdtsc`` on x86) read around each step, one thread, on the
same games as ``bnb simulate --seed 1``. Counts include ~20 cycles of counter overhead per
step. Use it before optimising: the numbers tell which phase and which step to look at (the
measurements behind ``bnb_sim._jit.kernel`` came from this loop). Prints nothing useful on
CPUs without a cycle counter (the counter reads 0).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from bnb_sim._jit import numba
from bnb_sim.games.builders_biomes.engine import state as S
from bnb_sim.games.builders_biomes.engine.layout import P_SIZE
from bnb_sim.games.builders_biomes.engine.legal import legal_bits
from bnb_sim.games.builders_biomes.engine.play import MEM_SIZE, new_game, seat_decision
from bnb_sim.games.builders_biomes.engine.step import apply_action
from bnb_sim.games.builders_biomes.policies.search import new_search_scratch
from bnb_sim.games.builders_biomes.run_config import GameConfig


@intrinsic
def cycles(typingctx):
    """The CPU's cycle counter."""

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return types.int64(), codegen


@numba.njit(_nrt=False)
def timed_loop(pub, hid, rng, k, ft, kinds, params, plugins, mem, obs_buf, legal_buf, search, out):
    """``play_out`` with ``out[step, phase] += cycles`` (steps: legal, decide, apply) and
    ``out[3, phase] += 1`` (decisions)."""
    while pub[S.C_PHASE] != S.PH_OVER:
        phase = pub[S.C_PHASE]
        t0 = cycles()
        mask, pass_ok = legal_bits(pub, k)
        t1 = cycles()
        action = seat_decision(
            pub,
            hid,
            rng,
            k,
            ft,
            kinds,
            params,
            plugins,
            mem,
            obs_buf,
            legal_buf,
            mask,
            pass_ok,
            search,
        )
        t2 = cycles()
        apply_action(pub, hid, rng, k, action)
        t3 = cycles()
        out[0, phase] += t1 - t0
        out[1, phase] += t2 - t1
        out[2, phase] += t3 - t2
        out[3, phase] += 1


def profile(policy: str, players: int, games: int, seed: int = 1) -> np.ndarray:
    """Cycles per game, ``[step, phase]`` (steps: legal, decide, apply; row 3: decisions)."""
    config = GameConfig.create(players, [policy], seed=seed)
    k, ft, kinds, params, plugins = config.kernel_inputs
    out = np.zeros((4, len(S.PHASE_NAMES)), np.int64)
    obs_buf = np.zeros(P_SIZE, np.int64)
    legal_buf = np.zeros(S.N_ACTIONS, np.bool_)
    for game in range(-3, games):  # three games to compile, not counted
        pub, hid, rng = new_game(k, np.uint64(config.master), max(game, 0), players)
        mem = np.zeros((players, MEM_SIZE))
        target = out if game >= 0 else np.zeros_like(out)
        search = new_search_scratch(k, kinds, params, players, MEM_SIZE)
        timed_loop(
            pub, hid, rng, k, ft, kinds, params, plugins, mem, obs_buf, legal_buf, search, target
        )
    return out / max(games, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policy", default="heuristic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=5000)
    args = parser.parse_args()
    t0 = time.perf_counter()
    per_game = profile(args.policy, args.players, args.games)
    print(f"{args.games} games of {args.players} x {args.policy}, cycles per game")
    print(f"{'phase':<12}{'legal':>10}{'decide':>10}{'apply':>10}{'decisions':>11}")
    for phase, name in enumerate(S.PHASE_NAMES):
        row = per_game[:3, phase]
        if row.sum() > 0:
            cells = "".join(f"{v:>10,.0f}" for v in row)
            print(f"{name:<12}{cells}{per_game[3, phase]:>11,.1f}")
    cells = "".join(f"{v:>10,.0f}" for v in per_game[:3].sum(axis=1))
    print(f"{'total':<12}{cells}{per_game[3].sum():>11,.1f}")
    cycles = per_game[:3].sum()
    print(
        f"all steps: {cycles:,.0f} cycles per game, {cycles / per_game[3].sum():,.0f} per "
        f"decision ({time.perf_counter() - t0:.1f} s)"
    )


if __name__ == "__main__":
    main()
