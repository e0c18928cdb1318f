"""Speed of the search bots: playouts per second, decisions per second, games per second.

    python scripts/bench_search.py [--games 4] [--playouts 2000] [--decisions 20]

Prints the machine line (as ``scripts/bench_engine.py``), then, on one core:

* playouts: a determinization of the first decision of a 2-player game plus a rollout to the
  end, per rollout policy (random, heuristic), with CPU cycles per playout;
* decisions: ``mc`` and ``ismcts`` at their default budgets deciding the first turn action
  of a 2-player game (each call draws new determinizations);
* games: whole 2-player games of each default search bot against ``heuristic``.
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
from bnb_sim.engine.layout import RNG_POLICY
from bnb_sim.engine.legal import legal_bits
from bnb_sim.engine.play import MEM_SIZE, new_game, play_game
from bnb_sim.policies.determinize import determinize
from bnb_sim.policies.kinds import SEARCH_ROLLOUT, SEARCH_WEIGHTS
from bnb_sim.policies.search import new_search_scratch, rollout, search_decide
from bnb_sim.runner.config import GameConfig


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
    play_game(k, ft, kinds, params, plugins, master, 0, 2)  # compile
    t0 = time.perf_counter()
    for g in range(n):
        play_game(k, ft, kinds, params, plugins, master, g, 2)
    return {"per_s": n / (time.perf_counter() - t0)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--playouts", type=int, default=2000)
    parser.add_argument("--decisions", type=int, default=20)
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
    for spec in ("mc", "ismcts"):
        r = decisions(spec, args.decisions)
        print(f"decision ({spec}, default budget, first turn action): {r['per_s']:,.1f}/s")
    for spec in ("mc", "ismcts"):
        r = games(spec, args.games)
        print(f"2-player game ({spec} vs heuristic, one core): {r['per_s']:.2f} games/s")


if __name__ == "__main__":
    main()
