"""Play the runs of ``bnb value`` for a game with a ``studies`` entry
(:mod:`bnb_sim.runner.study_hooks`; the default game, Builders & Biomes, with or without the
Farmer's Market, is one), through that entry.

One free run (every player the same bot) and, per option, one run in which player 0 plays the
same bot with the option forbidden or forced (``BOT+never=OPTION``: engine/restrict.py), both
on the same seed and game indices with rotated seating: the deal, the cube, the draws and the
policies' random streams are shared, so only the restriction differs. The estimator is in
:mod:`bnb_sim.analysis.value`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.errors import BnbError
from bnb_sim.runner.study_hooks import game_name, study_hooks

#: Options that ``--option all-items`` and friends stand for (names from the components).
GROUPS = {
    "all-items": ("buy", "item_names"),
    "all-mobs": ("fight", "mob_names"),
    "all-types": ("build", "building_types"),
    "all-actions": (None, "actions"),
}


def expand_options(words: Sequence[str], components, game: str | None = None) -> list[str]:
    """``--option`` values with the groups (``all-items``, ``all-mobs``, ``all-types``,
    ``all-actions``) expanded from the components of ``game`` (None: the default game);
    duplicates dropped, order kept."""
    out: list[str] = []
    for word in words:
        word = word.strip()
        if word in GROUPS:
            action, source = GROUPS[word]
            if source == "actions":
                expanded = list(study_hooks(game).value_actions(components))
            elif source == "building_types":
                expanded = [f"{action}:{t}" for t in components.values["type"]]
            else:
                names = getattr(components, source)
                if not names:
                    raise BnbError(f"--option {word}: these components have no items "
                                   "(add --expansion farmers-market)")  # fmt: skip
                expanded = [f"{action}:{n}" for n in names]
        else:
            expanded = [word]
        out += [w for w in expanded if w not in out]
    if not out:
        raise BnbError("value: give at least one --option (e.g. buy:crafting_table, fight)")
    return out


def win_shares(seats: pd.DataFrame, player: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(win share, seat)`` of ``player`` per game, in game order (ties share the win)."""
    seats = seats.sort_values(["game", "seat"], kind="stable")
    won = seats["won"].to_numpy(dtype=float)
    game = seats["game"].to_numpy()
    winners = pd.Series(won).groupby(game).transform("sum").to_numpy()
    mine = seats["player"].to_numpy() == player
    share = np.where(winners > 0, won / np.maximum(winners, 1.0), 0.0)
    return share[mine], seats["seat"].to_numpy()[mine]


def run_value(
    options: Sequence[str],
    *,
    policy: str,
    players: int,
    games: int,
    seed: int = 0,
    mode: str = "never",
    opponents: Sequence[str] = (),
    components: Any = None,
    expansion: str | None = None,
    readings: Any = None,
    threads: int | None = None,
    dask: str | None = None,
    say: Callable[[str], None] | None = None,
    yes: bool = False,
    game: str | None = None,
):
    """Value each option for ``policy`` (:class:`~bnb_sim.analysis.value.ValueResult`) in
    ``game`` (a game with a ``studies`` entry; None: the default game).

    ``opponents`` (default: ``policy`` in every other seat) play unrestricted in both runs.
    Every input (the options' names included) is checked before a game is played."""
    from bnb_sim.analysis.value import MODES, ValueResult, option_value
    from bnb_sim.runner.budget import confirm_games
    from bnb_sim.runner.simulate import simulate

    if mode not in MODES:
        raise BnbError(f"value: --mode must be never or always, got {mode!r}")
    hooks = study_hooks(game)
    rivals = list(opponents) or [policy]
    field = [policy] + [rivals[i % len(rivals)] for i in range(players - 1)]
    base_config = hooks.make_config(
        players, field, seed=seed, components=components, readings=readings,
        expansion=expansion,
    )  # fmt: skip
    comps = base_config.components
    words = expand_options(options, comps, game)
    specs = {}
    for word in words:
        spec = hooks.restricted_spec(policy, word, mode)
        hooks.make_config(
            players, [spec, *field[1:]], seed=seed, components=comps, readings=readings
        )  # fmt: skip  (names checked before any game)
        specs[word] = spec
    total = games * (len(words) + 1)
    confirm_games(total, "value", yes=yes)

    def one_run(spec: str, what: str):
        if say is not None:
            say(f"value: {what} ({games:,} games)")
        seats = simulate(
            games, players, [spec, *field[1:]], seed, components=comps, readings=readings,
            threads=threads, dask=dask, yes=True, game=game,
        )  # fmt: skip
        return win_shares(seats)

    start = time.perf_counter()
    free, seat_of = one_run(policy, f"free run of {policy}")
    values = []
    for i, (word, spec) in enumerate(specs.items(), start=1):
        restricted, seats_r = one_run(spec, f"option {i}/{len(specs)}: {mode} {word}")
        if not np.array_equal(seat_of, seats_r):  # same game indices, same rotation
            raise BnbError("value: the free and restricted runs seated the player differently")
        values.append(option_value(word, mode, free, restricted, seat_of))
    setup = {
        "expansion": comps.expansion,
        "opponents": field[1:],
        "readings": base_config.readings.to_dict(),
        "components": comps.files,
    }  # fmt: skip
    return ValueResult(
        game=game_name(game),
        players=players,
        policy=policy,
        seed=seed,
        n_games=games,
        setup=setup,
        options=values,
        wall_s=time.perf_counter() - start,
    )
