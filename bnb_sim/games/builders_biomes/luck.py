"""Builders & Biomes for ``bnb luck``: its chance sources and how to play a luck design.

A game draws each chance source from its own stream, seeded from (seed, game index, stream)
(:mod:`bnb_sim.rng`). A luck design fixes one source across a group of consecutive games:
the kernel options ``OPT_FIX_SOURCES`` (which sources) and ``OPT_FIX_GROUP`` (games per group)
make the set-up seed that source from the group instead of the game
(:func:`bnb_sim.rng.stream_game_index`); both are 0 in every ordinary run, so no stored row
changes. The shared side is :mod:`bnb_sim.runner.luck_play`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from bnb_sim.errors import BnbError

#: (key, what it deals, kernel bit): the set-up streams by their stream ids, then the fight
#: draws of every seat together and every seat's policy stream together (engine/state.py)
SOURCES = (
    ("seats", "who starts (the seat draw)", 4),
    ("cube", "which blocks lie where in the cube", 0),
    ("tiles", "the tile deal into the 16 stacks", 1),
    ("tokens", "the weapon tokens on the 16 spots", 2),
    ("boards", "which player board each player gets", 3),
    ("market", "the Farmer's Market items on the market", 5),
    ("fights", "each player's weapon draws in fights", 6),
    ("policy", "the bots' own random choices (tie-breaks, random play)", 7),
)

#: in mirror games the seat only says which player gets the seat that wins the deal
LABEL_SOURCES = ("seats",)
OUTCOMES = {
    "win": "player 1's share of the win (1 won, 1/k in a k-way tie, 0 lost)",
    "margin": "player 1's XP minus the mean XP of the others",
}
DEFAULT_RUNGS = ("random", "greedy", "heuristic")


@dataclass(frozen=True)
class LuckSetup:
    """What every game of a luck study shares (the rung and the fixed source vary)."""

    players: int
    seed: int
    components: object
    readings: object
    outcome: str = "win"

    @property
    def expansion(self):
        return getattr(self.components, "expansion", None)


def make_setup(*, players=None, seed=0, components=None, readings=None, reading=(),
               outcome="win", **_ignored):  # fmt: skip
    """A :class:`LuckSetup` from the command's options (``reading``: ``NAME=VALUE`` texts,
    merged over ``readings``); one clear error for bad input."""
    from bnb_sim.games.builders_biomes import readings as R
    from bnb_sim.games.builders_biomes.components import Components, load_components

    players = 2 if players is None else players
    if reading:
        readings = {**dict(readings or {}), **R.parse_assignments(tuple(reading))}

    if outcome not in OUTCOMES:
        raise BnbError(f"luck: --outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
    if not isinstance(components, Components):
        components = load_components(components)
    if not 2 <= int(players) <= 4:
        raise BnbError(f"luck: players must be between 2 and 4, got {players}")
    setup = LuckSetup(int(players), int(seed), components, readings, outcome)
    _config(setup, ["random"])  # bad readings fail here, before any game
    return setup


def check_rungs(rungs) -> list[str]:
    """The rung labels (each a policy the engine knows, none twice)."""
    from bnb_sim.analysis.tournament_schedule import split_policy_list
    from bnb_sim.games.builders_biomes.policies.registry import check_distinct, parse_policy

    specs = [parse_policy(p) for p in split_policy_list(list(rungs))]
    if not specs:
        raise BnbError("luck: needs at least 1 rung (--rungs A,B,...)")
    check_distinct(specs, "luck")
    return [s.label for s in specs]


def is_search(rung: str) -> bool:
    """Whether a rung is a search bot (``mc``, ``ismcts``): thousands of times slower per
    game than the built-in bots, so a luck design of 10,000 games per source is out of reach
    (``bnb ladder --luck`` leaves such rungs out and says so)."""
    from bnb_sim.games.builders_biomes.policies.kinds import ISMCTS, MC
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy

    return parse_policy(rung).kind in (MC, ISMCTS)


def _config(setup: LuckSetup, policies):
    from bnb_sim.games.builders_biomes.run_config import GameConfig

    return GameConfig.create(
        setup.players,
        list(policies),
        seed=setup.seed,
        components=setup.components,
        readings=setup.readings,
    )


def sources(setup: LuckSetup) -> list[tuple[str, str]]:
    """The sources that can move a game under this set-up: the market only with the
    expansion, the seat draw not under ``seating=fixed``, the boards not under
    ``boards=fixed`` (there they never change)."""
    readings = _config(setup, ["random"]).readings
    out = []
    for key, text, _bit in SOURCES:
        if key == "market" and setup.expansion is None:
            continue
        if key == "seats" and readings["seating"] == "fixed":
            continue
        if key == "boards" and readings["boards"] == "fixed":
            continue
        out.append((key, text))
    return out


def _with_fixed(config, source: str, group: int, others: bool = False):
    """A copy of ``config`` whose games fix ``source`` (or every other source) across groups
    of ``group`` games."""
    from bnb_sim.games.builders_biomes.engine.layout import K_OPTS
    from bnb_sim.games.builders_biomes.engine.state import OPT_FIX_GROUP, OPT_FIX_SOURCES
    from bnb_sim.runner.luck_play import fixed_bits

    k, ft, kinds, params, plugins = config.kernel_inputs
    k = k.copy()
    k[K_OPTS + OPT_FIX_SOURCES] = fixed_bits(SOURCES, source, others)
    k[K_OPTS + OPT_FIX_GROUP] = int(group)
    clone = dataclasses.replace(config)
    clone.__dict__["kernel_inputs"] = (k, ft, kinds, params, plugins)  # the cached_property
    return clone


def _player_results(config, start: int, n: int, threads) -> tuple[np.ndarray, np.ndarray]:
    """``(win share, xp)`` arrays of shape ``(n, players)`` indexed by player (not seat)."""
    from bnb_sim.games.builders_biomes.batch import frames, play_arrays

    seat_out, game_out = play_arrays(config, start, n, threads)
    seats, games = frames(config, start, seat_out, game_out)
    players = config.n_players
    g = seats["game"].to_numpy() - start
    p = seats["player"].to_numpy().astype(np.int64)
    winners = np.maximum(games["winners"].to_numpy(), 1)
    won = np.zeros((n, players))
    xp = np.zeros((n, players))
    won[g, p] = seats["won"].to_numpy() / winners[g]
    xp[g, p] = seats["xp"].to_numpy()
    return won, xp


def play_fixed(setup, rung: str, source: str, groups: int, per_group: int, *, start=0,
               threads=None, others=False) -> np.ndarray:  # fmt: skip
    """Outcomes ``(groups, per_group)`` of mirror games of ``rung`` with ``source`` fixed in
    each group (``others``: every source but ``source`` fixed) on games ``start .. start +
    groups * per_group - 1``."""
    config = _with_fixed(_config(setup, [rung]), source, per_group, others)
    n = int(groups) * int(per_group)
    # a group's fixed source is seeded from its group number, so the design starts on a
    # group boundary: games of one group never straddle two calls
    won, xp = _player_results(config, int(start), n, threads)
    if setup.outcome == "win":
        y = won[:, 0]
    else:
        y = xp[:, 0] - xp[:, 1:].mean(axis=1)
    return y.reshape(int(groups), int(per_group))


def play_pair(setup, lower: str, upper: str, games: int, *, threads=None, start=0) -> dict:
    """Lower against upper rung (players alternate ``lower, upper, ...``; the seating
    reading rotates them over the seats): per game (``start ..``) the mean result per player
    of each rung and the share of the win the lower rung took."""
    config = _config(setup, [lower, upper])
    won, _xp = _player_results(config, int(start), int(games), threads)
    is_upper = np.arange(setup.players) % 2 == 1
    n_upper = int(is_upper.sum())
    return {
        "y_upper": won[:, is_upper].mean(axis=1),
        "y_lower": won[:, ~is_upper].mean(axis=1),
        "weaker": won[:, ~is_upper].sum(axis=1),
        "u": n_upper / setup.players,
        "fair_share": (setup.players - n_upper) / setup.players,
        "unit": "game",
    }


def describe(setup: LuckSetup) -> str:
    """One line naming the set-up in reports."""
    expansion = " with Farmer's Market" if setup.expansion else ""
    return f"Builders & Biomes{expansion}, {setup.players} players, seed {setup.seed}"


def params(setup: LuckSetup) -> dict:
    return {"players": setup.players, "seed": setup.seed, "expansion": setup.expansion,
            "outcome": setup.outcome}  # fmt: skip
