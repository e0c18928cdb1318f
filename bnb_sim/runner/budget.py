"""How many games a command will play, counted before it plays any (pure Python).

Every command that plays games (simulate, tournament, compare, sweep, run) counts its total
here first, with ``math.comb`` and products (never by building the lists), and needs
``--yes`` (``yes=True``) above the same :data:`MAX_GAMES_WITHOUT_YES` as ``simulate``.
"""

from __future__ import annotations

import math

from bnb_sim.errors import BnbError

#: More games than this need ``--yes``: 1e8 four-player games are ~400M rows, hours of work.
MAX_GAMES_WITHOUT_YES = 100_000_000


def confirm_games(total: int, what: str, *, yes: bool = False) -> int:
    """Refuse ``total`` games above :data:`MAX_GAMES_WITHOUT_YES` unless ``yes``."""
    total = int(total)
    if total > MAX_GAMES_WITHOUT_YES and not yes:
        raise BnbError(
            f"{what}: {total:,} games is more than {MAX_GAMES_WITHOUT_YES:,}; "
            "pass --yes (yes=True) if you really mean it"
        )
    return total


def tournament_tables(n_policies: int, players: int) -> int:
    """Tables of a round robin (see ``analysis.tournament.schedule``): combinations without
    repetition when there are enough policies, else with repetition minus the tables where
    one policy plays alone."""
    if n_policies >= players:
        return math.comb(n_policies, players)
    return math.comb(n_policies + players - 1, players) - n_policies


def tournament_games(n_policies: int, players: int, games: int) -> int:
    """Games of a tournament: every table in each of its ``players`` seatings, ``games`` seeds."""
    return tournament_tables(n_policies, players) * players * int(games)


def item_games(spec) -> int:
    """Games an experiment item will play at most (a *Spec of ``analysis.experiment``)."""
    if callable(getattr(spec, "budget", None)):  # an item of another game counts its own
        return int(spec.budget())
    if spec.kind == "tournament":
        return tournament_games(len(spec.policies), spec.players, spec.games)
    if spec.kind == "sweep":
        return len(spec.variants) * int(spec.games)  # the baseline is one of the variants
    if spec.kind == "compare":
        return int(spec.max_games)
    if spec.kind == "tune":
        return int(spec.plan.budget)  # a tuning run never plays more than its budget
    return int(spec.games)


def experiment_games(experiment) -> int:
    """Games of every item of an experiment together."""
    return sum(item_games(spec) for spec in experiment.items)
