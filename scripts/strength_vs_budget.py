"""Strength of a search bot against its budget: win rate with 95% intervals vs playouts.

    python scripts/strength_vs_budget.py [--bot ismcts] [--budgets 8,16,32,64,128]
        [--players 2] [--opponent heuristic] [--pairs 100] [--seed 7] [--threads N]
        [--out reports/strength]

For every budget the bot (``ismcts:iterations=B`` or ``mc:rollouts=B``) plays the project's
paired comparison (``bnb compare``) against the opponent on the same seeds:

* 2 players: head to head, every seed twice with the seats swapped;
* 3-4 players: one seat among ``players - 1`` opponents, the opponent itself taking that seat
  on the same seed as the reference (the seat rotates with the game index).

Each budget plays ``pairs`` seeds (``2 x pairs`` games), so every point has the same n. The
folder gets ``strength.csv`` (one row per budget: n, the bot's win rate with its Wilson
interval clustered by seed, the reference's, the paired difference with its t interval and
the games per second of that budget) and ``strength.png`` (left: the win rates; right: the
difference with the zero line of no advantage). The x axis is the budget per decision:
playouts for ``ismcts`` (one per iteration), rollouts per legal decision for ``mc``.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import time

import pandas as pd

BUDGET_KEY = {"ismcts": "iterations", "mc": "rollouts"}
X_LABEL = {
    "ismcts": "iterations per decision (one playout each)",
    "mc": "rollouts per legal decision",
}


def measure(bot: str, budget: int, args: argparse.Namespace) -> dict:
    """One paired comparison of ``bot`` at ``budget`` against the opponent."""
    from bnb_sim.runner.experiments import run_compare

    spec = f"{bot}:{BUDGET_KEY[bot]}={budget}"
    opponents = [args.opponent] * (args.players - 1) if args.players > 2 else []
    t0 = time.perf_counter()
    result = run_compare(
        spec,
        args.opponent,
        opponents=opponents,
        players=args.players,
        precision=1e-9,  # never reached: every budget plays the same number of seeds
        max_games=2 * args.pairs,
        seed=args.seed,
        threads=args.threads,
        yes=True,
    )
    elapsed = time.perf_counter() - t0
    a, b, d = result.rates["a"], result.rates["b"], result.difference
    return {
        "bot": spec,
        "budget": budget,
        "players": args.players,
        "opponent": args.opponent,
        "seeds": result.n_pairs,
        "games": result.n_games,
        "win_rate": a["rate"],
        "win_lo": a["lo"],
        "win_hi": a["hi"],
        "reference_win_rate": b["rate"],
        "reference_lo": b["lo"],
        "reference_hi": b["hi"],
        "difference": d["mean_diff"],
        "difference_lo": d["lo"],
        "difference_hi": d["hi"],
        "games_per_s": result.n_games / elapsed if elapsed > 0 else math.nan,
    }


def plot(table: pd.DataFrame, path: pathlib.Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    x = table["budget"]
    bot = table["bot"].iloc[0].split(":")[0]
    opponent = table["opponent"].iloc[0]
    reference = f"{opponent} in its place" if table["players"].iloc[0] > 2 else opponent
    for column, lo, hi, label in (
        ("win_rate", "win_lo", "win_hi", bot),
        ("reference_win_rate", "reference_lo", "reference_hi", reference),
    ):
        err = [table[column] - table[lo], table[hi] - table[column]]
        left.errorbar(x, table[column], yerr=err, marker="o", capsize=3, label=label)
    left.set_ylabel("win rate (95% interval)")
    left.legend()
    diff = table["difference"]
    err = [diff - table["difference_lo"], table["difference_hi"] - diff]
    right.errorbar(x, diff, yerr=err, marker="o", capsize=3, color="C2")
    right.axhline(0.0, color="grey", linestyle="--", linewidth=1)
    right.set_ylabel("paired difference of win rates (95% interval)")
    for axis in (left, right):
        axis.set_xscale("log", base=2)
        axis.set_xticks(list(x), [str(b) for b in x])
        axis.set_xlabel(X_LABEL[bot])
        axis.grid(alpha=0.3)
    n = int(table["seeds"].min())
    fig.suptitle(f"{title} (n = {n} seeds per budget)")
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", choices=sorted(BUDGET_KEY), default="ismcts")
    parser.add_argument("--budgets", default="8,16,32,64,128")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--pairs", type=int, default=100, help="seeds per budget")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("reports/strength"))
    args = parser.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",")]
    if args.pairs < 2 or any(b < 1 for b in budgets):
        parser.error("--pairs must be at least 2 and every budget at least 1")
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for budget in budgets:
        row = measure(args.bot, budget, args)
        rows.append(row)
        print(
            f"{row['bot']}: win rate {row['win_rate']:.3f} [{row['win_lo']:.3f}, "
            f"{row['win_hi']:.3f}], difference {row['difference']:+.3f} "
            f"[{row['difference_lo']:+.3f}, {row['difference_hi']:+.3f}], "
            f"n = {row['seeds']} seeds, {row['games_per_s']:.2f} games/s",
            flush=True,
        )
        table = pd.DataFrame(rows)
        table.to_csv(args.out / "strength.csv", index=False)  # kept after every budget
        title = f"{args.bot} vs {args.opponent}, {args.players} players"
        plot(table, args.out / "strength.png", title)
    print(f"wrote {args.out / 'strength.csv'} and {args.out / 'strength.png'}")


if __name__ == "__main__":
    main()
