"""Tune the Heroes of the Village team bot's weights by CMA-ES and write a ``strong`` model.

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
The same arguments give the same file.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

FIRST_INDEX = 1_000_000  # search games; the checks in the docs play other master seeds
MASTER_SEED = 100
POPULATION = 12


def win_flags(config, weights, team, start, n, players):
    """Won flags of games start .. start + n - 1 with the team bot's ``weights`` in every seat."""
    from bnb_sim.games.heroes_village.play import output_shapes, play_batch
    from bnb_sim.games.heroes_village.policies import TEAM
    from bnb_sim.games.heroes_village.runner import pet_codes

    k, kf, _, _, plugins = config.arrays()
    kinds = np.full(players, TEAM, np.int64)
    params = np.tile(np.asarray(weights, np.float64), (players, 1))
    seat_shape, game_shape = output_shapes(n, players)
    seat_out = np.zeros(seat_shape, np.int64)
    game_out = np.zeros(game_shape, np.int64)
    play_batch(k, kf, kinds, params, plugins, pet_codes(team), config.master, int(start),
               players, seat_out, game_out)  # fmt: skip
    return game_out[:, 1].copy()


def tune(args: argparse.Namespace) -> tuple[np.ndarray, list[str]]:
    from cmaes import CMA

    from bnb_sim.games.heroes_village import layout as L
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.policies import TEAM_DEFAULTS
    from bnb_sim.games.heroes_village.runner import make_config

    players, n = args.players, args.games
    config = make_config(load_components(), players, ["team"], "all", "normal", None, MASTER_SEED)
    teams = list(itertools.combinations(L.PET_NAMES, players))
    defaults = np.array(TEAM_DEFAULTS)
    bounds = np.tile([0.0, 5.0], (len(defaults), 1))
    opt = CMA(mean=np.ones(len(defaults)), sigma=0.3, bounds=bounds, seed=args.seed,
              population_size=POPULATION)  # fmt: skip
    draw = np.random.default_rng(0)
    log = []
    for g in range(args.generations):
        clock = time.time()
        factors = [opt.ask() for _ in range(opt.population_size)]
        chosen = [teams[i] for i in draw.choice(len(teams), args.teams, replace=False)]
        start = FIRST_INDEX + g * n
        scores = [
            np.mean([win_flags(config, defaults * x, t, start, n, players).mean() for t in chosen])
            for x in factors
        ]
        opt.tell([(x, -s) for x, s in zip(factors, scores, strict=True)])
        line = (f"gen {g} best {max(scores):.4f} mean {np.mean(scores):.4f} "
                f"{time.time() - clock:.0f}s m={np.round(opt.mean, 2).tolist()}")  # fmt: skip
        print(line, flush=True)
        log.append(line)
    return np.round(defaults * opt.mean, 4), log


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
