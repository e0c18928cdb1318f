"""What each pet is worth to the team (docs/experiments.md): the ``value_study`` entry that
``bnb value --game hotv`` and ``bnb_sim.value(game="hotv")`` play.

A pet's value is the team's win rate with the pet minus the same team with the pet replaced,
paired on the game index. Every team of distinct pets plays the same game indices (``--pets
all``: the same tiles, mobs, draws and dice), and for game index ``g``::

    v_g(X) = mean over teams T that hold X of won(T, g)
             - mean over teams U without X of won(U, g)

Played over every team, the second mean is exactly the mean over (T, Y) of ``won(T - X + Y,
g)``: each team without X arises from ``players`` teams with X by replacing X with one of its
pets. So ``v(X)`` is the worth of X against the average other pet with the same partners, the
cleanest of the designs (forbidding a pet's power would need an engine switch per power, and
would measure a pet that does nothing, which no box has). The estimator and its interval are
those of :mod:`bnb_sim.analysis.value` (a t interval on the per-game differences).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from bnb_sim.errors import BnbError, SpecError


def pet_options(options, pet_names) -> list[str]:
    """``--option`` values (``fox``, ``pet:fox``, ``all-pets``) -> pet names in order."""
    out: list[str] = []
    for raw in options:
        word = raw.strip().lower()
        word = word[4:] if word.startswith("pet:") else word
        names = list(pet_names) if word in ("all-pets", "all") else [word]
        for name in names:
            if name not in pet_names:
                import difflib

                close = difflib.get_close_matches(name, list(pet_names), n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                raise SpecError(
                    f"value --game hotv: --option {raw!r}: not a pet{hint} (pets: "
                    f"{', '.join(pet_names)}, or all-pets)"
                )
            if name not in out:
                out.append(name)
    if not out:
        raise SpecError("value --game hotv: give --option PET or --option all-pets")
    return out


def pet_values(won_by_team: dict[str, np.ndarray], pets: list[str], players: int):
    """``{pet: (with, without)}`` per-game mean wins of teams with and without each pet."""
    out = {}
    for pet in pets:
        has = [t for t in won_by_team if pet in t.split(",")]
        lacks = [t for t in won_by_team if pet not in t.split(",")]
        if not has or not lacks:
            raise BnbError(f"value --game hotv: {players} players leave no team without {pet}")
        with_pet = np.mean([won_by_team[t] for t in has], axis=0)
        without = np.mean([won_by_team[t] for t in lacks], axis=0)
        out[pet] = (with_pet, without)
    return out


def play_values(
    options, *, policy="team", players=2, games=4000, seed=0, components=None, reading=(),
    difficulty=None, buildings=None, threads=None, yes=False, say=None, mode="never",
    opponents=(), dask=None, blocks=None, plan_only=False, **unknown: Any,
):  # fmt: skip
    """Each pet's worth to the team (``options``: ``pet:NAME``, ``NAME`` or ``all-pets``),
    checked before any game is played; a :class:`~bnb_sim.analysis.value.ValueResult`.
    With ``plan_only`` it checks everything and returns the games it would play (an
    experiment file's ``[[value]]`` item, read before anything plays)."""
    from bnb_sim.games.heroes_village import layout as L
    from bnb_sim.games.heroes_village.components_arg import components_arg
    from bnb_sim.games.heroes_village.runner import make_config

    if unknown:
        raise BnbError(f"value --game hotv: {', '.join(sorted(unknown))} is not an option here "
                       "(pets are what it values; difficulty, buildings apply)")  # fmt: skip
    if mode != "never":
        raise BnbError("value --game hotv: a pet is valued against its replacement (--mode never)")
    if opponents:
        raise BnbError("value --game hotv: the players are a team; --opponent does not apply")
    if not options:
        raise BnbError("value: give at least one --option (e.g. --option all-pets)")
    spec = policy or "team"
    chosen = pet_options(options, L.PET_NAMES)
    comps = components_arg(components, reading)
    config = make_config(comps, players, [spec], "all", difficulty or "standard", buildings,
                         seed)  # fmt: skip
    labels = [",".join(team) for team in config.teams]  # every pet valued needs a team without
    pet_values({label: np.zeros(1) for label in labels}, chosen, players)
    if plan_only:
        return games * len(config.teams)
    return _play(chosen, spec, comps, config, players=players, games=games, seed=seed,
                 threads=threads, yes=yes, say=say, dask=dask, blocks=blocks)  # fmt: skip


def _play(chosen, spec, comps, config, *, players, games, seed, threads, yes, say, dask,
          blocks):  # fmt: skip
    """The games of :func:`play_values` (checked there) and the pets' values. The
    ``value_study`` entry point: ``bnb value --game hotv`` (the shared command),
    ``bnb_sim.value(game="hotv", ...)`` and ``[[value]]`` items play it."""
    from bnb_sim.analysis.value import ValueResult, option_value
    from bnb_sim.games.heroes_village.runner import play_block
    from bnb_sim.runner.budget import confirm_games
    from bnb_sim.runner.dask_blocks import open_blocks

    if blocks is None:  # the command opens them before its report folder (a bad address)
        blocks = open_blocks(dask, threads)
    confirm_games(games * len(config.teams), "value --game hotv", yes=yes)
    if say is not None:
        say(f"value: {len(config.teams)} pet teams x {games:,} games")
    start = time.perf_counter()
    if blocks is None:
        _seats, frame = play_block(config, 0, games, threads)
    else:  # the chunks on Dask workers: the same rows
        with blocks:
            _seats, frame = blocks.play(config, 0, games, report=False)
    frame = frame.sort_values(["pets", "game"], kind="stable")
    won = {str(team): grp["won"].to_numpy(dtype=float)
           for team, grp in frame.groupby("pets", observed=True)}  # fmt: skip
    values = []
    zeros = np.zeros(games, np.int64)
    for pet, (with_pet, without) in pet_values(won, chosen, players).items():
        values.append(option_value(f"pet:{pet}", "replaced", with_pet, without, zeros))
    result = ValueResult(
        game="heroes_village", players=int(players), policy=spec, seed=int(seed),
        n_games=int(games), outcome="team win rate", options=values,
        setup={"difficulty": config.difficulty, "buildings": config.buildings,
               "teams": len(config.teams), "design": "pet replaced by each other pet",
               "readings": comps.readings},  # as the first game's value study records them
        wall_s=time.perf_counter() - start,
    )  # fmt: skip
    return result
