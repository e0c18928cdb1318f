"""The game-playing side of ``bnb luck``: fixed-source designs at every rung, for any game.

For each rung (every seat plays that policy) and each chance source of the game, one design
of ``groups x per_group`` games fixes the source inside each group and lets the rest vary
(:mod:`bnb_sim.analysis.luck` turns it into a variance share). The designs of different
sources play disjoint game indices (source ``i`` starts at ``i * groups * per_group``), so
their estimates are independent; every rung plays the same indices, so rungs compare on the
same deals. Each pair of adjacent rungs also meets head to head (games ``0 .. pair_games-1``)
for the skill share and how often the weaker rung wins.

A game takes part by declaring the entry point ``luck`` (a module with ``SOURCES``,
``OUTCOMES``, ``DEFAULT_RUNGS``, ``make_setup``, ``check_rungs``, ``sources``, ``play_fixed``,
``play_pair``, ``describe`` and ``params``). Nothing here imports numba at import time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from bnb_sim.errors import BnbError
from bnb_sim.runner.budget import confirm_games

__all__ = ["LuckPlan", "fixed_bits", "luck", "luck_games", "luck_module", "plan_luck", "run_luck"]

DEFAULT_GROUPS = 200
DEFAULT_PER_GROUP = 25


def fixed_bits(sources, source: str, others: bool) -> int:
    """Kernel bits of a design: ``source`` alone, or (``others``) every source but it."""
    bits = {key: 1 << b for key, _t, b in sources}
    if not others:
        return bits[source]
    return sum(bits.values()) & ~bits[source]


def luck_module(game):
    """The game's ``luck`` module (a run hook of its protocol object), or one clear error."""
    module = game.hook("luck")
    if module is None:
        raise BnbError(f"luck: {game.title} has no luck design yet")
    return module


@dataclass
class LuckPlan:
    """A checked luck study: the game's module, its set-up, rungs and design sizes."""

    game: object  # GameSpec
    module: object
    setup: object
    rungs: list[str]
    sources: list[tuple[str, str]]
    groups: int
    per_group: int
    pair_games: int
    n_boot: int = 1000
    threads: int | None = None
    extra: dict = field(default_factory=dict)
    #: ``"local"`` or a Dask scheduler address (checked), None: this process
    dask: str | None = None

    @property
    def design_games(self) -> int:
        return self.groups * self.per_group

    @property
    def designs(self) -> int:
        """Designs played per rung: two per source, less those known by construction."""
        keys = [k for k, _ in self.sources]
        return 2 * len(keys) - sum(k in _labels(self.module) for k in keys)

    @property
    def total_games(self) -> int:
        return luck_games(
            len(self.rungs),
            self.designs,
            self.groups,
            self.per_group,
            self.pair_games,
            getattr(self.module, "PAIR_GAMES_FACTOR", 1),
        )


LABEL_NOTE = ("by construction: every seat plays the same bot, so with every other source "
              "fixed the same seat wins and the seat decides which player that is")  # fmt: skip


def _labels(module) -> tuple[str, ...]:
    """Sources that only relabel players in mirror games (their total share is 1)."""
    return tuple(getattr(module, "LABEL_SOURCES", ()))


def luck_games(n_rungs, n_designs, groups, per_group, pair_games, pair_factor=1) -> int:
    """Games a study plays: ``n_designs`` designs per rung (a source fixed; every source but
    one fixed), a head-to-head per adjacent pair."""
    design = int(n_rungs) * int(n_designs) * int(groups) * int(per_group)
    return design + max(int(n_rungs) - 1, 0) * int(pair_games) * int(pair_factor)


def plan_luck(
    game,
    *,
    rungs=None,
    groups=DEFAULT_GROUPS,
    per_group=DEFAULT_PER_GROUP,
    pair_games=None,
    n_boot=1000,
    threads=None,
    dask=None,
    yes=False,
    **options,
) -> LuckPlan:
    """Check everything (rungs, sizes, the game's options, the Dask address) and confirm the
    budget before any game is played."""
    module = luck_module(game)
    if dask is not None:
        from bnb_sim.runner.dask_backend import check_address

        dask = check_address(dask)
    setup = module.make_setup(**options)
    labels = module.check_rungs(list(rungs) if rungs else list(module.DEFAULT_RUNGS))
    groups, per_group = int(groups), int(per_group)
    if groups < 10:
        raise BnbError(f"luck: --groups must be at least 10 (the bootstrap resamples groups), "
                       f"got {groups}")  # fmt: skip
    if per_group < 2:
        raise BnbError(f"luck: --per-group must be at least 2, got {per_group}")
    pair_games = groups * per_group if pair_games is None else int(pair_games)
    if pair_games < 0 or (len(labels) > 1 and 0 < pair_games < 10):
        raise BnbError(f"luck: --pair-games must be 0 or at least 10, got {pair_games}")
    plan = LuckPlan(game, module, setup, labels, module.sources(setup), groups, per_group,
                    pair_games, int(n_boot), threads, dask=dask)  # fmt: skip
    confirm_games(plan.total_games, "luck", yes=yes)
    return plan


def luck_rungs(game, rungs) -> tuple[list[str], list[str]]:
    """``(kept, left_out)``: the ladder's rungs a luck design can afford (a game's luck module
    may declare ``is_search(rung)`` for rungs too slow for it) and those it leaves out."""
    module = luck_module(game)
    slow = getattr(module, "is_search", lambda _rung: False)
    kept = [r for r in rungs if not slow(r)]
    return kept, [r for r in rungs if slow(r)]


def run_luck(plan: LuckPlan, *, progress=None):
    """Play every design of ``plan`` and estimate the shares; a
    :class:`~bnb_sim.analysis.luck_report.LuckResult`. With ``plan.dask`` the designs play
    in slices on Dask workers (:mod:`bnb_sim.runner.luck_dask`): the same numbers."""
    if plan.dask is None:
        return _run_luck(plan, plan.module, progress)
    from bnb_sim.runner.luck_dask import LuckDask

    player = LuckDask(plan.module, plan.dask, plan.threads)
    try:
        return _run_luck(plan, player, progress)
    finally:
        player.close()


def _run_luck(plan: LuckPlan, player, progress):
    """:func:`run_luck` with ``player`` playing the designs (the module or its Dask side)."""
    from bnb_sim.analysis.luck import (
        group_share,
        known_share,
        rest_share,
        skill_share,
        total_share,
    )
    from bnb_sim.analysis.luck_report import LuckResult

    rng = np.random.default_rng(plan.setup.seed)
    module, setup = plan.module, plan.setup
    rows, totals, rests, seconds = {}, {}, {}, {}
    for rung in plan.rungs:
        shares, whole = [], []
        start_rung = time.perf_counter()
        for i, (source, _text) in enumerate(plan.sources):
            if progress is not None:
                then = "" if source in _labels(module) else f", then all but {source} fixed"
                progress(f"  {rung}: {source} fixed{then}, in {plan.groups} groups of "
                         f"{plan.per_group}")  # fmt: skip
            size = (plan.groups, plan.per_group)
            y = player.play_fixed(setup, rung, source, *size, start=2 * i * plan.design_games,
                                  threads=plan.threads)  # fmt: skip
            shares.append(group_share(source, y, n_boot=plan.n_boot, rng=rng))
            if source in _labels(module):  # mirror games: only which player it is changes
                whole.append(known_share(source, 1.0, LABEL_NOTE))
                continue
            y = player.play_fixed(setup, rung, source, *size, others=True, threads=plan.threads,
                                  start=(2 * i + 1) * plan.design_games)  # fmt: skip
            whole.append(total_share(source, y, n_boot=plan.n_boot, rng=rng))
        rows[rung] = shares
        totals[rung] = whole
        rests[rung] = rest_share(shares)
        seconds[rung] = time.perf_counter() - start_rung
    pairs = []
    if plan.pair_games > 0:
        for lower, upper in zip(plan.rungs, plan.rungs[1:], strict=False):
            if progress is not None:
                progress(f"  {upper} vs {lower}: {plan.pair_games} head-to-head games")
            d = player.play_pair(setup, lower, upper, plan.pair_games, threads=plan.threads)
            pairs.append(
                skill_share(
                    lower,
                    upper,
                    d["y_upper"],
                    d["y_lower"],
                    d["u"],
                    d["weaker"],
                    d["fair_share"],
                    n_boot=plan.n_boot,
                    rng=rng,
                )  # fmt: skip
            )
            pairs[-1].unit = d["unit"]
    return LuckResult(
        game=plan.game.name,
        title=module.describe(setup),
        rungs=plan.rungs,
        sources=plan.sources,
        shares=rows,
        totals=totals,
        rest=rests,
        pairs=pairs,
        groups=plan.groups,
        per_group=plan.per_group,
        pair_games=plan.pair_games,
        n_boot=plan.n_boot,
        outcome=(setup.outcome, module.OUTCOMES[setup.outcome]),
        seconds=seconds,
        params={
            **module.params(setup),
            "rungs": plan.rungs,
            "groups": plan.groups,
            "per_group": plan.per_group,
            "pair_games": plan.pair_games,
            "bootstrap": plan.n_boot,
            "game": plan.game.name,
        },  # fmt: skip
        total_games=plan.total_games,
    )


def luck(game=None, *, progress=None, **options):
    """Python API of ``bnb luck``: plan and play a luck study, return its
    :class:`~bnb_sim.analysis.luck_report.LuckResult` (``.table()`` is a DataFrame).

    ``game`` is a name (``"hotv"``) or None for Builders & Biomes; ``options`` are those of
    the command: ``rungs`` (a list), ``players``, ``outcome``, ``groups``, ``per_group``,
    ``pair_games``, ``n_boot``, ``threads``, ``seed``, ``components``, ``readings`` (a dict;
    Builders & Biomes) or ``reading`` (``NAME=VALUE`` texts), ``pets``, ``difficulty``,
    ``buildings`` (Heroes of the Village), ``dask`` (``"local"`` or a scheduler address: the
    same numbers, played on Dask workers), ``yes``.
    """
    from bnb_sim.games import get_game

    spec = game if hasattr(game, "entry") else get_game(game)
    return run_luck(plan_luck(spec, **options), progress=progress)
