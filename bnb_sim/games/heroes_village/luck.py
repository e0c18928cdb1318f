"""Heroes of the Village for ``bnb luck``: its chance sources and how to play a luck design.

Each chance source has its own stream (layout.py: ``RNG_SETUP`` .. ``RNG_ILLAGERS``, one
policy stream per seat). The kernel slots ``K_FIX_SOURCES`` and ``K_FIX_GROUP`` fix one source
across a group of consecutive games (:func:`bnb_sim.rng.stream_game_index`); both are 0 in
every ordinary run, so no stored row changes. The shared side is
:mod:`bnb_sim.runner.luck_play`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bnb_sim.errors import BnbError

#: (key, what it deals, kernel bit): the stream ids of layout.py, FIX_POLICY for every seat's
#: policy stream
SOURCES = (
    ("stacks", "the set-up: tile stacks, mob pile, the buildings drawn", 0),
    ("pouch", "the blocks drawn from the pouch", 1),
    ("dice", "the fight dice", 2),
    ("illager", "the Illager die", 3),
    ("policy", "the bots' own random choices", 4),
)
OUTCOMES = {"win": "the team's win (1 won, 0 lost)"}
DEFAULT_RUNGS = ("random", "team")
PAIR_GAMES_FACTOR = 2  # a deal is played by both teams


@dataclass(frozen=True)
class LuckSetup:
    players: int
    seed: int
    components: object
    pets: str | None = None
    difficulty: str = "standard"
    buildings: str | None = None
    outcome: str = "win"


def make_setup(*, players=None, seed=0, components=None, pets=None, difficulty=None,
               buildings=None, reading=(), outcome="win", **_ignored):  # fmt: skip
    from bnb_sim.games.heroes_village.components_arg import components_arg

    if outcome not in OUTCOMES:
        raise BnbError(f"luck --game hotv: --outcome {outcome!r} is not one of: win")
    if pets == "all":
        raise BnbError("luck --game hotv: give one pet team (simulate --pets all ranks them)")
    comps = components_arg(components, reading)
    players = 3 if players is None else int(players)
    setup = LuckSetup(players, int(seed), comps, pets, difficulty or "standard", buildings)
    _config(setup, ["team"])  # bad players, pets or buildings fail here, before any game
    return setup


def check_rungs(rungs) -> list[str]:
    from bnb_sim.analysis.tournament_schedule import split_policy_list
    from bnb_sim.games.heroes_village.policies import parse_policy

    specs = [parse_policy(p) for p in split_policy_list(list(rungs))]
    if not specs:
        raise BnbError("luck: needs at least 1 rung (--rungs A,B,...)")
    labels = [s.label for s in specs]
    if len(set(labels)) != len(labels):
        raise BnbError(f"luck: a rung is listed twice ({', '.join(labels)})")
    return labels


def _config(setup: LuckSetup, policies):
    from bnb_sim.games.heroes_village.runner import make_config

    return make_config(
        setup.components, setup.players, list(policies), setup.pets, setup.difficulty,
        setup.buildings, setup.seed,
    )  # fmt: skip


def sources(setup: LuckSetup) -> list[tuple[str, str]]:
    return [(key, text) for key, text, _bit in SOURCES]


def _won(config, start: int, n: int, threads) -> np.ndarray:
    from bnb_sim.games.heroes_village.runner import play_arrays

    _seat_out, game_out = play_arrays(config, config.teams[0], start, n, threads)
    from bnb_sim.games.heroes_village import layout as L

    return game_out[:, list(L.GAME_OUTPUT).index("won")].astype(float)


def play_fixed(setup, rung: str, source: str, groups: int, per_group: int, *, start=0,
               threads=None, others=False) -> np.ndarray:  # fmt: skip
    """Team wins ``(groups, per_group)`` with ``source`` (``others``: every source but
    ``source``) fixed in each group."""
    from bnb_sim.games.heroes_village import layout as L
    from bnb_sim.runner.luck_play import fixed_bits

    config = _config(setup, [rung])
    k, kf, kinds, params, plugins = config.arrays()
    k = k.copy()
    k[L.K_FIX_SOURCES] = fixed_bits(SOURCES, source, others)
    k[L.K_FIX_GROUP] = int(per_group)
    config._arrays = (k, kf, kinds, params, plugins)
    n = int(groups) * int(per_group)
    return _won(config, int(start), n, threads).reshape(int(groups), int(per_group))


def play_pair(setup, lower: str, upper: str, games: int, *, threads=None, start=0) -> dict:
    """Both teams on the same deals (game indices ``start ..``): per deal each team's win,
    and the weaker (lower) team's win."""
    y_lower = _won(_config(setup, [lower]), int(start), int(games), threads)
    y_upper = _won(_config(setup, [upper]), int(start), int(games), threads)
    return _pair(y_lower, y_upper)


def join_pairs(parts: list[dict]) -> dict:
    """The :func:`play_pair` of consecutive slices of games as one (``bnb luck --dask``):
    the fair share is the upper team's win rate over all of them."""
    return _pair(np.concatenate([p["y_lower"] for p in parts]),
                 np.concatenate([p["y_upper"] for p in parts]))  # fmt: skip


def _pair(y_lower: np.ndarray, y_upper: np.ndarray) -> dict:
    return {
        "y_upper": y_upper,
        "y_lower": y_lower,
        "weaker": y_lower,
        "u": 0.5,
        "fair_share": float(y_upper.mean()),
        "unit": "deal",
    }


def describe(setup: LuckSetup) -> str:
    from bnb_sim.games.heroes_village.readings import setting_suffix

    team = setup.pets or "the default pets"
    return (
        f"Heroes of the Village, {setup.players} players ({team}), {setup.difficulty}"
        f"{setting_suffix(setup.components.readings)}, seed {setup.seed}"
    )


def params(setup: LuckSetup) -> dict:
    return {"players": setup.players, "seed": setup.seed, "pets": setup.pets,
            "difficulty": setup.difficulty, "buildings": setup.buildings,
            "outcome": setup.outcome}  # fmt: skip
