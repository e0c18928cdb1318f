"""Games per second with and without the Farmer's Market expansion, for the same bots, side by
side in one process (the expansion should keep at least 0.6x the base game's games per second).

    python scripts/bench_expansion.py --games 20000 --policy heuristic --policy greedy

Both runs are warmed up first (compilation is not timed), then timed alternately ``--repeat``
times; the median of each and their ratio are reported (alternating keeps the ratio fair
when other work on a shared machine slows both).
"""

from __future__ import annotations

import argparse
import statistics
import time

from bnb_sim.games.builders_biomes.batch import play_arrays
from bnb_sim.games.builders_biomes.run_config import GameConfig


def games_per_second(config: GameConfig, games: int, threads: int) -> float:
    start = time.perf_counter()
    play_arrays(config, 0, games, threads=threads)
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--policy", action="append", default=None)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    policies = args.policy or ["heuristic", "greedy"]
    configs = {
        name: GameConfig.create(args.players, policies, seed=1, expansion=expansion)
        for name, expansion in (("base", None), ("farmers-market", "farmers-market"))
    }
    for config in configs.values():
        play_arrays(config, 0, 50, threads=args.threads)  # compile and warm up
    rates = {name: [] for name in configs}
    for _ in range(args.repeat):
        for name, config in configs.items():
            rates[name].append(games_per_second(config, args.games, args.threads))
    best = {name: statistics.median(values) for name, values in rates.items()}
    for name, rate in best.items():
        print(f"{name:<16} {rate:10.0f} games/s  ({args.players} players, {', '.join(policies)})")
    print(f"ratio            {best['farmers-market'] / best['base']:10.2f}")


if __name__ == "__main__":
    main()
