"""CPU seconds per game of several policies, measured side by side in one run.

    python scripts/time_per_game.py "ismcts:iterations=128" "ismcts:iterations=8,rollout=strong"
        [--players 2] [--opponent heuristic] [--games 4] [--blocks 4] [--seed 100]

Each policy plays ``--games`` games in seat order against ``--opponent`` (the seats rotate),
on one engine thread, in ``--blocks`` blocks that alternate the order of the policies (so a
change of machine load falls on all of them alike). Block b plays seed ``--seed`` + b for
every policy: the same deals. The kernels are loaded before the clock starts. Prints each
block and, at the end, every policy's CPU seconds per game and its ratio to the first policy:
the "time per game" of docs/policies.md ("Search with it"). CPU time (``time.process_time``)
rather than wall time, because the development machine is shared.
"""

from __future__ import annotations

import argparse
import time


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("policies", nargs="+")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--games", type=int, default=4, help="games per policy and block")
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args(argv)

    from bnb_sim import simulate

    def play(spec: str, n: int, seed: int) -> None:
        others = [args.opponent] * (args.players - 1)
        simulate(n, args.players, [spec, *others], seed=seed, threads=1)

    for spec in args.policies:  # load (or compile) the kernels before timing
        play(spec, 1, 999_999)
    total = dict.fromkeys(args.policies, 0.0)
    for block in range(args.blocks):
        order = args.policies if block % 2 == 0 else args.policies[::-1]
        for spec in order:
            start = time.process_time()
            play(spec, args.games, args.seed + block)
            spent = time.process_time() - start
            total[spec] += spent
            print(f"block {block} {spec}: {spent / args.games:.3f} CPU-s per game", flush=True)
    first = total[args.policies[0]]
    n = args.blocks * args.games
    for spec in args.policies:
        print(f"{spec}: {total[spec] / n:.3f} CPU-s per game over {n} games, "
              f"{total[spec] / first:.3f} x {args.policies[0]}")  # fmt: skip
    return {spec: total[spec] / n for spec in args.policies}


if __name__ == "__main__":
    main()
