"""The winner's curse of ``bnb tune game``: the answer's Δ vs the baseline on the games that
chose it (the re-evaluation) against its Δ on fresh games (the confirmation), both against a
truth from many more fresh games.

R tunings (seeds 1..R) of two mob values toward a first-player advantage of 0 (2 players,
heuristic and greedy). For every tuning whose answer is not the baseline: the answer's
first-player-advantage Δ vs the baseline in the re-evaluation and in the confirmation; the
truth is the paired Δ of the same two settings on ``TRUTH`` fresh games (another seed).
Prints the mean bias of each and how often each 95% interval covers the truth.

    python scripts/tune_game_selection_bias.py 12 4000 10000
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

PARAMS = ["mobs.enderman.hearts=4..8", "mobs.witch.hearts=3..7"]
TARGETS = ["first_player_advantage=0", "balance=max"]
POLICIES = ["heuristic", "greedy"]
KEY = "first_player_advantage"


def main(argv: list[str]) -> None:
    from bnb_sim.tune.game_tune import plan_game_tune, play_point, run_game_tune

    runs = int(argv[0]) if argv else 12
    budget = int(argv[1]) if len(argv) > 1 else 4000
    truth_games = int(argv[2]) if len(argv) > 2 else 10_000
    t0 = time.perf_counter()
    rows, truths = [], {}
    for seed in range(1, runs + 1):
        plan = plan_game_tune(params=PARAMS, targets=TARGETS, players=2, policies=POLICIES,
                              budget=budget, seed=seed)  # fmt: skip
        with tempfile.TemporaryDirectory() as tmp:
            result = run_game_tune(plan, Path(tmp) / "t")
        final = result["final"]
        if final["answer_is_baseline"]:
            continue
        answer = result["best"]
        key = plan.space.point_key(answer)
        if key not in truths:
            terms = []
            for point in (answer, plan.baseline()):
                out = play_point(plan, point, 987_654_321, 0, truth_games, intervals=True)
                terms.append(np.asarray(out["per_game"][KEY], dtype=float))
            truths[key] = float(np.mean(terms[0] - terms[1]))
        chosen = result["reeval"][result["winner"]]["vs_baseline"][KEY]
        rows.append((key, truths[key], chosen, final["vs_baseline"][KEY]))
    seconds = time.perf_counter() - t0
    print(f"{runs} tunings, budget {budget:,}, truth from {truth_games:,} fresh paired games; "
          f"{len(rows)} answers differ from the baseline; {seconds:.0f} s")  # fmt: skip
    for label, idx in (("re-evaluation (chose the answer)", 2), ("confirmation (fresh)", 3)):
        bias = [100 * (r[idx]["mean_diff"] - r[1]) for r in rows]
        cover = sum(r[idx]["lo"] <= r[1] <= r[idx]["hi"] for r in rows)
        half = np.mean([100 * (r[idx]["hi"] - r[idx]["lo"]) / 2 for r in rows])
        print(f"  {label:34s} mean Δ − truth {np.mean(bias):+.2f} pp (sd "
              f"{np.std(bias, ddof=1):.2f}), covers {cover}/{len(rows)}, mean half-width "
              f"{half:.2f} pp")  # fmt: skip
    for key, truth, chosen, fresh in rows:
        print(f"    {key}: truth {100 * truth:+.2f}, chosen {100 * chosen['mean_diff']:+.2f}, "
              f"fresh {100 * fresh['mean_diff']:+.2f}")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
