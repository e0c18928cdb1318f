#!/usr/bin/env python3
"""Where the time of a Heroes of the Village game goes: CPU cycles per game by step.

    python scripts/profile_hotv.py [--policy team] [--players 4] [--games 20000]

It replays the loop of :func:`bnb_sim.games.heroes_village.play.run_game` with the cycle
counter (``llvm.readcyclecounter``, ``rdtsc`` on x86) read around each step, one thread, on
the games of ``--seed 1``: set-up, free laying (R-HV-3), the legal mask, the policy's
decision and applying it (by the kind of decision). Counts include ~20 cycles of counter
overhead per step. Then it measures games/s of the batch kernel at 1 and all threads and
prints a fingerprint (SHA-1) of the kernel's output rows, so an optimisation can show that it
changed no game. Prints nothing useful on CPUs without a cycle counter (the counter reads 0).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from bnb_sim._jit import numba
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village.bots import B_SIZE, decide
from bnb_sim.games.heroes_village.components import load_components
from bnb_sim.games.heroes_village.engine import apply_action, free_lay, legal_mask, setup_game
from bnb_sim.games.heroes_village.runner import make_config, pet_codes, play_arrays

STEPS = ("setup", "free lay", "legal", "decide", "apply")
KINDS = ("explore", "collect", "fight", "build", "discard", "pick", "pass or stop")


@intrinsic
def cycles(typingctx):
    """The CPU's cycle counter."""

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return types.int64(), codegen


@numba.njit(_nrt=False)
def decision_kind(a):
    if a < L.A_COLLECT:
        return 0
    if a < L.A_FIGHT:
        return 1
    if a < L.A_BUILD:
        return 2
    if a < L.A_DISCARD:
        return 3
    if a < L.A_PICK:
        return 4
    if a < L.A_PASS:
        return 5
    return 6


@numba.njit(_nrt=False)
def timed_game(s, k, kf, kinds, params, plugins, pets, rng, mask, buf, obs, mem, master, game,
               n_players, log, out, counts):  # fmt: skip
    """``run_game`` with ``out[step, kind] += cycles`` and ``counts[kind] += 1``."""
    t0 = cycles()
    setup_game(s, k, rng, pets, master, game, n_players, log)
    out[0, 0] += cycles() - t0
    while s[L.S_PHASE] != L.PH_OVER:
        if s[L.S_TURN] >= k[L.K_MAX_TURNS]:
            return
        t0 = cycles()
        if s[L.S_PHASE] == L.PH_ACTION:
            free_lay(s, k, log)
        t1 = cycles()
        legal_mask(s, k, mask)
        t2 = cycles()
        seat = s[L.S_SEAT]
        a = decide(kinds[seat], params[seat], plugins[seat], s, k, kf, mask, rng, seat, buf, obs,
                   mem[seat])  # fmt: skip
        t3 = cycles()
        apply_action(s, k, rng, a, log)
        t4 = cycles()
        kind = decision_kind(a)
        out[1, kind] += t1 - t0
        out[2, kind] += t2 - t1
        out[3, kind] += t3 - t2
        out[4, kind] += t4 - t3
        counts[kind] += 1


def profile(config, games: int):
    """Cycles per game ``[step, decision kind]`` and decisions per game by kind."""
    k, kf, kinds, params, plugins = config.arrays()
    team = pet_codes(config.teams[0])
    out = np.zeros((len(STEPS), len(KINDS)), np.int64)
    counts = np.zeros(len(KINDS), np.int64)
    s = np.zeros(L.S_SIZE, np.int64)
    rng = np.zeros((L.N_STREAMS, 4), np.uint64)
    mask = np.zeros(L.N_ACTIONS, np.bool_)
    buf = np.zeros(B_SIZE, np.float64)
    obs = np.zeros(1, np.int64)
    mem = np.zeros((L.MAX_PLAYERS, L.PLUGIN_MEM))
    log = np.zeros((0, L.LOG_WIDTH), np.int64)
    for game in range(-3, games):  # three games to compile, not counted
        target, tally = (out, counts) if game >= 0 else (out.copy(), counts.copy())
        timed_game(s, k, kf, kinds, params, plugins, team, rng, mask, buf, obs, mem,
                   config.master, max(game, 0), config.n_players, log, target, tally)  # fmt: skip
    return out / games, counts / games


def fingerprint(config, games: int) -> str:
    """SHA-1 of the batch kernel's output rows for games 0 .. games-1 of every pet team."""
    digest = hashlib.sha1()
    for team in config.teams:
        seat_out, game_out = play_arrays(config, team, 0, games)
        digest.update(seat_out.tobytes())
        digest.update(game_out.tobytes())
    return digest.hexdigest()


def speed(config, threads: int, seconds: float = 2.0) -> tuple[float, float]:
    """``(games per wall second, games per CPU second)`` of the batch kernel, best of 3.

    On a shared machine the CPU seconds (all threads of this process) are the steadier
    figure: time the process waits for a core does not count."""
    team = config.teams[0]
    play_arrays(config, team, 0, 200, threads)
    n = 20_000
    t = time.perf_counter()
    play_arrays(config, team, 0, n, threads)
    n = max(n, int(n * seconds / (time.perf_counter() - t)))
    wall, cpu = float("inf"), float("inf")
    for r in range(3):
        t, c = time.perf_counter(), time.process_time()
        play_arrays(config, team, (r + 1) * n, n, threads)
        wall = min(wall, time.perf_counter() - t)
        cpu = min(cpu, time.process_time() - c)
    return n / wall, n / cpu


def show_profile(config, args) -> None:
    per_game, counts = profile(config, args.games)
    print(f"{args.games:,} games, {args.players} x {args.policy}, cycles per game (seed 1)")
    print(f"{'decision':<10}{'n/game':>8}" + "".join(f"{s:>10}" for s in STEPS[1:]))
    for j, name in enumerate(KINDS):
        if counts[j] > 0:
            print(f"{name:<10}{counts[j]:>8.1f}" + "".join(f"{v:>10,.0f}" for v in per_game[1:, j]))
    total = per_game[1:].sum(axis=1)
    print(f"{'total':<10}{counts.sum():>8.1f}" + "".join(f"{v:>10,.0f}" for v in total))
    print(f"set-up {per_game[0, 0]:,.0f}; all steps {per_game.sum():,.0f} cycles per game")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policy", default="team")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--no-speed", action="store_true", help="only the profile and hash")
    parser.add_argument("--no-profile", action="store_true", help="only the hash and speed")
    args = parser.parse_args()
    comps = load_components()
    config = make_config(comps, args.players, [args.policy], None, seed=1)
    if not args.no_profile:
        show_profile(config, args)
    check = make_config(comps, 3, ["team", "random"], "all", seed=7)
    print(f"fingerprint (3 players, team+random, 20 pet teams, 2,000 games): "
          f"{fingerprint(check, 2000)}")  # fmt: skip
    if args.no_speed:
        return
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    for threads in sorted({1, int(numba.config.NUMBA_NUM_THREADS)}):
        gps, per_cpu = speed(config, threads)
        print(f"batch kernel, {threads} thread(s): {gps:,.0f} games/s, {per_cpu:,.0f} games "
              f"per CPU second (load average {load:.1f})")  # fmt: skip


if __name__ == "__main__":
    main()
