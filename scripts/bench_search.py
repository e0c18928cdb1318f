"""Speed of the search bots: playouts per second, decisions per second, games per second.

    python scripts/bench_search.py [--games 4] [--playouts 2000] [--decisions 20] [--profile]

Prints the machine line (as ``scripts/bench_engine.py``), then, on one core:

* playouts: a determinization of the first decision of a 2-player game plus a rollout to the
  end, per rollout policy (random, heuristic), with CPU cycles per playout;
* decisions: ``mc`` and ``ismcts`` at their default budgets deciding the first turn action
  of a 2-player game (each call draws new determinizations);
* games: whole 2-player games of each default search bot against ``heuristic``;
* with ``--profile``: the cycles of a playout split into its parts (determinization,
  clearing the rollout policy's memory, legality, the rollout policy's decision, applying
  it), with the counter's own cost in each part.
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
from bnb_sim.cli.bench_cmd import machine
from bnb_sim.games.builders_biomes.engine.layout import RNG_POLICY
from bnb_sim.games.builders_biomes.engine.legal import legal_bits
from bnb_sim.games.builders_biomes.engine.play import MEM_SIZE, new_game, play_game
from bnb_sim.games.builders_biomes.engine.state import C_PHASE, C_STATUS, PH_OVER, ST_OK
from bnb_sim.games.builders_biomes.engine.step import apply_action
from bnb_sim.games.builders_biomes.policies.determinize import determinize
from bnb_sim.games.builders_biomes.policies.kinds import SEARCH_ROLLOUT, SEARCH_WEIGHTS
from bnb_sim.games.builders_biomes.policies.search import (
    forget,
    new_search_scratch,
    rollout,
    rollout_action,
    search_decide,
)
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
def _playouts(pub, hid, rng, ft, params, n, scratch):
    spub, shid, srng, wpub, whid, wrng, ks, tmp, smem, _, _, _ = scratch
    rkind = np.int64(params[SEARCH_ROLLOUT])
    rparams = params[SEARCH_WEIGHTS:]
    t0 = cycles()
    for _ in range(n):
        determinize(pub, hid, ks, 0, rng, RNG_POLICY, wpub, whid, wrng, tmp)
        rollout(wpub, whid, wrng, ks, ft, rkind, rparams, smem)
    return cycles() - t0


@numba.njit(_nrt=False)
def _profile(pub, hid, rng, k, ft, params, n, scratch, out):
    """Cycles of each part of ``n`` playouts, summed into ``out``: determinize, forget,
    legality, the rollout policy's decision, applying it; ``out[5]``: rollout steps."""
    _, _, _, wpub, whid, wrng, ks, tmp, smem, _, _, _ = scratch
    rkind = np.int64(params[SEARCH_ROLLOUT])
    rparams = params[SEARCH_WEIGHTS:]
    for _ in range(n):
        t0 = cycles()
        determinize(pub, hid, ks, 0, rng, RNG_POLICY, wpub, whid, wrng, tmp)
        t1 = cycles()
        forget(smem, rkind)
        out[0] += t1 - t0
        out[1] += cycles() - t1
        while wpub[C_PHASE] != PH_OVER and wpub[C_STATUS] == ST_OK:
            t0 = cycles()
            mask, pass_ok = legal_bits(wpub, ks)
            t1 = cycles()
            action = rollout_action(rkind, rparams, wpub, whid, wrng, ks, ft, smem, mask, pass_ok)
            t2 = cycles()
            apply_action(wpub, whid, wrng, ks, action)
            t3 = cycles()
            out[2] += t1 - t0
            out[3] += t2 - t1
            out[4] += t3 - t2
            out[5] += 1


@numba.njit(_nrt=False)
def _decisions(kind, pub, hid, rng, k, ft, params, n, scratch):
    mask, pass_ok = legal_bits(pub, k)
    total = 0
    for _ in range(n):
        total += search_decide(kind, pub, hid, rng, k, ft, params, 0, mask, pass_ok, scratch)
    return total


def _inputs(spec: str, seed: int = 1):
    config = GameConfig.create(2, [spec, "heuristic"], seed=seed)
    return config, config.kernel_inputs


def playouts(rollout_policy: str, n: int) -> dict:
    config, (k, ft, kinds, params, _) = _inputs(f"mc:rollout={rollout_policy}")
    pub, hid, rng = new_game(k, np.uint64(config.master), 0, 2)
    scratch = new_search_scratch(k, kinds, params, 2, MEM_SIZE)
    _playouts(pub, hid, rng, ft, params[0], 5, scratch)  # compile
    t0 = time.perf_counter()
    cyc = _playouts(pub, hid, rng, ft, params[0], n, scratch)
    elapsed = time.perf_counter() - t0
    return {"per_s": n / elapsed, "cycles": cyc / n}


PARTS = ("determinize", "forget", "legality", "rollout decision", "apply action")


def profile(rollout_policy: str, n: int) -> dict:
    """Cycles per playout of each part of it, and rollout steps per playout."""
    config, (k, ft, kinds, params, _) = _inputs(f"mc:rollout={rollout_policy}")
    pub, hid, rng = new_game(k, np.uint64(config.master), 0, 2)
    scratch = new_search_scratch(k, kinds, params, 2, MEM_SIZE)
    out = np.zeros(6, np.int64)
    _profile(pub, hid, rng, k, ft, params[0], 2, scratch, out)  # compile
    out[:] = 0
    _profile(pub, hid, rng, k, ft, params[0], n, scratch, out)
    parts = {name: out[i] / n for i, name in enumerate(PARTS)}
    return {"parts": parts, "steps": out[5] / n}


def decisions(spec: str, n: int) -> dict:
    config, (k, ft, kinds, params, _) = _inputs(spec)
    pub, hid, rng = new_game(k, np.uint64(config.master), 0, 2)
    scratch = new_search_scratch(k, kinds, params, 2, MEM_SIZE)
    _decisions(kinds[0], pub, hid, rng, k, ft, params[0], 1, scratch)  # compile
    t0 = time.perf_counter()
    _decisions(kinds[0], pub, hid, rng, k, ft, params[0], n, scratch)
    return {"per_s": n / (time.perf_counter() - t0)}


def games(spec: str, n: int) -> dict:
    config, (k, ft, kinds, params, plugins) = _inputs(spec)
    master = np.uint64(config.master)
    stop = np.zeros(1, np.int64)  # never set: the games run to their end
    play_game(k, ft, kinds, params, plugins, master, 0, 2, stop)  # compile
    t0, c0 = time.perf_counter(), time.process_time()
    for g in range(n):
        play_game(k, ft, kinds, params, plugins, master, g, 2, stop)
    # CPU time as well: on a shared machine the wall clock also counts other jobs' turns
    return {"per_s": n / (time.perf_counter() - t0), "per_cpu_s": n / (time.process_time() - c0)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--playouts", type=int, default=2000)
    parser.add_argument("--decisions", type=int, default=20)
    parser.add_argument(
        "--profile", action="store_true", help="also split a playout's cycles into its parts"
    )
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    m = machine()
    print(f"machine: {m['platform']}; {m['cpu']}; {m['cores']} cores ({m['cores_usable']} usable)")
    for policy in ("random", "heuristic"):
        r = playouts(policy, args.playouts)
        print(
            f"playout (determinize + {policy} rollout, 2 players, from the first decision): "
            f"{r['per_s']:,.0f}/s, {r['cycles']:,.0f} cycles"
        )
    if args.profile:
        for policy in ("random", "heuristic"):
            r = profile(policy, args.playouts)
            total = sum(r["parts"].values())
            shares = ", ".join(
                f"{name} {cyc:,.0f} ({cyc / total:.0%})" for name, cyc in r["parts"].items()
            )
            print(
                f"profile ({policy} rollouts): {total:,.0f} cycles per playout of "
                f"{r['steps']:.0f} steps: {shares}"
            )
    for spec in ("mc", "ismcts"):
        r = decisions(spec, args.decisions)
        print(f"decision ({spec}, default budget, first turn action): {r['per_s']:,.1f}/s")
    for spec in ("mc", "ismcts"):
        r = games(spec, args.games)
        print(
            f"2-player game ({spec} vs heuristic, one core): {r['per_s']:.2f} games/s, "
            f"{r['per_cpu_s']:.2f} games per CPU second"
        )


if __name__ == "__main__":
    main()
