"""Replication check of the Heroes of the Village report's pooled team win rate.

R independent runs (seeds 1..R) of N game indices with ``--pets all``: every index is played
by every pet team on the same draws. For each run it takes the interval the report prints
(``overview_section``: clustered by game index) and, for comparison, the Wilson interval on
rows (what the report printed before it was clustered), and counts how often each covers the
mean of the R run rates (the best available truth). It also prints the spread of the run
rates against the mean standard errors each interval implies.

    python scripts/hotv_pooled_coverage.py 30 400 normal 3

Defaults: 30 runs, 400 indices, difficulty normal, 3 players, policy team.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np


def main(argv: list[str]) -> None:
    from bnb_sim.analysis.stats import Rate
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.report import overview_section
    from bnb_sim.games.heroes_village.runner import make_config, play_block

    runs = int(argv[0]) if argv else 30
    indices = int(argv[1]) if len(argv) > 1 else 400
    difficulty = argv[2] if len(argv) > 2 else "normal"
    players = int(argv[3]) if len(argv) > 3 else 3
    comps = load_components()
    t0 = time.perf_counter()
    report, rows, rates = [], [], []
    for seed in range(1, runs + 1):
        config = make_config(comps, players, ["team"], "all", difficulty, None, seed)
        games = play_block(config, 0, indices)[1]
        meta = {"params": {"players": players, "difficulty": difficulty, "seed": seed}}
        printed = overview_section(games, meta).summary["win_rate"]
        report.append((printed["lo"], printed["hi"]))
        naive = Rate.from_bools(games["won"])
        rows.append((naive.lo, naive.hi))
        rates.append(printed["rate"])
    truth = float(np.mean(rates))
    sd = float(np.std(rates, ddof=1))
    teams = len(make_config(comps, players, ["team"], "all", difficulty, None, 1).teams)
    print(f"{runs} runs x {indices} game indices x {teams} pet teams, {players} players, "
          f"{difficulty}; {time.perf_counter() - t0:.0f} s")  # fmt: skip
    print(f"mean of the run rates {100 * truth:.2f}%, sd between runs {100 * sd:.3f} pp")
    for label, cis in (("report (clustered by game index)", report),
                       ("Wilson on rows (before)", rows)):  # fmt: skip
        covered = sum(lo <= truth <= hi for lo, hi in cis)
        se = float(np.mean([(hi - lo) / (2 * 1.959964) for lo, hi in cis]))
        print(f"  {label:34s} covers {covered}/{runs}; mean se {100 * se:.3f} pp "
              f"(sd / se = {sd / se:.2f})")  # fmt: skip
    # with R runs the mean of the rates is itself uncertain: sd/sqrt(R)
    print(f"  (the mean of the runs has sd {100 * sd / math.sqrt(runs):.3f} pp)")


if __name__ == "__main__":
    main(sys.argv[1:])
