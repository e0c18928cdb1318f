"""Tune the Heroes of the Village team bot's weights by CMA-ES and write a ``strong`` model
(how the shipped model was made; for a model of your own use ``bnb train --game hotv``).

    python scripts/tune_hotv_team.py [--players 3] [--games 2000] [--generations 40]
        [--teams 4] [--seed 1] [--out model.toml]

How the shipped model ``bnb_sim/data/strong/heroes_village.toml`` was made (its [training]
table records the command). Each candidate is the team bot's default weights times a factor
per weight (CMA-ES over the factors: start 1, step 0.3, bounds 0..5, ``cmaes.CMA`` with
``--seed``, 12 candidates a generation). A candidate's score is its team win rate over
``--teams`` pet teams drawn per generation (``numpy.random.default_rng(0)``) x ``--games``
games, every candidate of a generation on the same teams and game indices (common random
numbers); generation g plays indices from 1,000,000 + g x games, master seed 100, normal
difficulty, one building drawn from each level. The answer is the mean of the last search
distribution; check it on fresh games with ``bnb compare --game hotv strong:OUT team``.
The same arguments give the same file. The search is the training core of
``bnb train --game hotv`` (``bnb_sim/games/heroes_village/strong_train.py``) run with the
streams above instead of streams derived from one seed.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np

FIRST_INDEX = 1_000_000  # search games; the checks in the docs play other master seeds
MASTER_SEED = 100
POPULATION = 12


def tune(args: argparse.Namespace) -> tuple[np.ndarray, list[str]]:
    """The shipped model's search, run by the package's training core
    (``bnb_sim.games.heroes_village.strong_train``, the core of ``bnb train --game hotv``)
    with this script's own streams: CMA-ES seed ``--seed``, teams drawn by
    ``default_rng(0)``, games from index 1,000,000 of master seed 100, no final check."""
    from bnb_sim.games.heroes_village.strong_train import plan_training, train_team

    per_generation = POPULATION * args.teams * args.games
    plan = plan_training(players=args.players, seed=args.seed, deals=args.games,
                         teams=args.teams, population=POPULATION, check_deals=0,
                         games=per_generation * args.generations)  # fmt: skip
    plan = replace(plan, cma_seed=args.seed, team_seed=0, master_seed=MASTER_SEED,
                   first_index=FIRST_INDEX)  # fmt: skip
    log = []

    def show(info: dict) -> None:
        line = (f"gen {info['generation'] - 1} best {info['best']:.4f} median "
                f"{info['median']:.4f} {info['elapsed']:.0f}s")  # fmt: skip
        print(line, flush=True)
        log.append(line)

    result = train_team(plan, progress=show)
    return np.array(result.model.weights), log


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--games", type=int, default=2000, help="games per candidate and team")
    parser.add_argument("--generations", type=int, default=40)
    parser.add_argument("--teams", type=int, default=4, help="pet teams per generation")
    parser.add_argument("--seed", type=int, default=1, help="the CMA-ES seed")
    parser.add_argument("--out", default=None, help="write the model file here")
    args = parser.parse_args()
    weights, _ = tune(args)
    from bnb_sim.games.heroes_village.policies import TEAM_WEIGHTS

    print({name: float(w) for name, w in zip(TEAM_WEIGHTS, weights, strict=True)})
    if args.out:
        from bnb_sim.games.heroes_village.strong_model import TeamModel, write_model

        command = (f"python scripts/tune_hotv_team.py --players {args.players} --games "
                   f"{args.games} --generations {args.generations} --teams {args.teams} "
                   f"--seed {args.seed}")  # fmt: skip
        training = {"method": "CMA-ES over factors of the team bot's default weights",
                    "command": command, "players": args.players,
                    "games": POPULATION * args.generations * args.teams * args.games}  # fmt: skip
        write_model(TeamModel(tuple(float(w) for w in weights), training), args.out)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
