"""The game-playing side of ``bnb sensitivity`` (the statistics: :mod:`bnb_sim.analysis.
sensitivity`).

A game takes part through a *set-up* (:class:`Setup`): its components (which list their
estimates with ranges and move one with ``with_estimate``), a description of the games, and
``play(components, start, n) -> (seats, games)``, the games ``start .. start+n-1`` of the
same table under other component values. A game declares the entry point
``sensitivity_setup`` (the keywords :func:`make_setup` passes on; Builders & Biomes':
:func:`bnb_sim.games.builders_biomes.sensitivity.setup`).

The games of a variant are a pure function of (seed, game index, components), so the
screening games ``0 .. s-1`` and the fresh games ``s .. s+n-1`` are the same for every
variant of the same seed: the design is paired, and the result never depends on threads.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bnb_sim.errors import BnbError, ComponentError
from bnb_sim.feedback import expect_games, games_played
from bnb_sim.runner.budget import confirm_games

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["Setup", "make_setup", "planned_games", "run_sensitivity"]

Progress = Callable[[str], None] | None
DEFAULT_SCREEN_GAMES = 500
DEFAULT_GAMES = 10_000
DEFAULT_TOP = 8


@dataclass
class Setup:
    """A table of one game whose games can be replayed under other component values."""

    game: str  # the game's title
    components: Any
    describe: str  # "3 players, heuristic in every seat, Farmer's Market"
    play: Callable[[Any, int, int], tuple[pd.DataFrame, pd.DataFrame]]
    params: dict[str, Any] = field(default_factory=dict)
    #: True when ``play`` reports its games to the progress meter itself
    reports_games: bool = False
    #: the Dask connection ``play`` uses (``dask=``), closed when the run ends
    blocks: Any = None

    def close(self) -> None:
        """Close the Dask connection, if any (a later ``play`` opens it again)."""
        if self.blocks is not None:
            self.blocks.close()


def make_setup(game=None, **kw) -> Setup:
    """The set-up of ``game`` (a GameSpec or name; None: the default game), made by its
    ``sensitivity_setup`` entry."""
    from bnb_sim.games import get_game

    spec = game if hasattr(game, "entry") else get_game(game)
    build = spec.entry("sensitivity_setup")
    if build is None:
        raise BnbError(f"sensitivity: {spec.title} declares no sensitivity set-up")
    return build(**kw)


def planned_games(n_alternatives: int, screen_games: int, games: int, top_alternatives: int) -> int:
    """The most games a run plays: every alternative and the baseline on the screening
    games, then the chosen estimates' alternatives and the baseline on the fresh games."""
    return (n_alternatives + 1) * int(screen_games) + (top_alternatives + 1) * int(games)


def _say(progress: Progress, text: str) -> None:
    if progress is not None:
        progress(text)


def run_sensitivity(
    finding: str,
    setup: Setup,
    *,
    screen_games: int = DEFAULT_SCREEN_GAMES,
    games: int = DEFAULT_GAMES,
    top: int = DEFAULT_TOP,
    estimates: Sequence[str] = (),
    progress: Progress = None,
    yes: bool = False,
):
    """Screen every estimate (or those ``estimates`` patterns name) on ``screen_games``
    games, then play the ``top`` with the largest screening reach on ``games`` fresh games;
    returns a :class:`~bnb_sim.analysis.sensitivity.SensitivityResult`."""

    from bnb_sim.analysis import sensitivity as S

    target = S.parse_finding(finding)
    S.check_sizes(screen_games, games, top)
    chosen = S.pick(setup.components.estimate_ranges(), estimates)
    movable = [e for e in chosen if e.has_range and not e.fixed]
    if not movable:
        raise BnbError("sensitivity: no estimate with a range to move (see bnb components show)")
    widest = sorted((len(e.alternatives()) for e in movable), reverse=True)[: int(top)]
    n_alt = sum(len(e.alternatives()) for e in movable)
    confirm_games(planned_games(n_alt, screen_games, games, sum(widest)), "sensitivity", yes=yes)
    try:
        return _run(target, setup, chosen, movable, n_alt, screen_games, games, top, estimates,
                    progress)  # fmt: skip
    finally:
        setup.close()


def _run(target, setup, chosen, movable, n_alt, screen_games, games, top, estimates, progress):
    import pandas as pd

    from bnb_sim.analysis import sensitivity as S

    started = time.perf_counter()

    def terms(comps, start: int, n: int, extremes=None) -> np.ndarray:
        seats, games_df = setup.play(comps, start, n)
        if not setup.reports_games:
            games_played(n)
        return S.per_game(target, seats, games_df, extremes)[1]

    _say(progress, f"screening {len(movable)} estimates ({n_alt} values) on "
                   f"{screen_games:,} games each: {setup.describe}")  # fmt: skip
    expect_games((n_alt + 1) * int(screen_games))
    base = terms(setup.components, 0, screen_games)
    rows, skipped = [], []
    for est in movable:
        arms = _arms(est, setup, terms, 0, screen_games, skipped)
        rows += S.effect_rows(est, arms, base, "screen")
    screen = pd.DataFrame(rows)
    keys = S.selected_keys(screen, top)
    screen["selected"] = screen["key"].isin(keys)
    screen["screen_rank"] = screen["key"].map(
        {k: i + 1 for i, k in enumerate(S.screen_order(screen))}
    )
    by_key = {e.key: e for e in movable}
    n_final = sum(len(by_key[k].alternatives()) for k in keys)
    _say(progress, f"confirming the {len(keys)} largest on {games:,} fresh games each")
    expect_games((n_final + 1) * int(games))
    base2 = terms(setup.components, screen_games, games)
    final_rows = []
    for i, key in enumerate(keys):
        _say(progress, f"  [{i + 1}/{len(keys)}] {key}")
        arms = _arms(by_key[key], setup, terms, screen_games, games, skipped)
        final_rows += S.effect_rows(by_key[key], arms, base2, "final")
    final = pd.DataFrame(final_rows, columns=screen.columns.drop(["selected", "screen_rank"]))
    return S.SensitivityResult(
        finding=target,
        game=setup.game,
        setup=setup.describe,
        screen=screen,
        final=final,
        ranking=S.rank(final),
        baseline=S.finding_value(base2),
        screen_baseline=S.finding_value(base),
        screen_games=int(screen_games),
        games=int(games),
        top=int(top),
        seed=int(setup.params.get("seed", 0)),
        estimates=len(movable),
        fixed=[e.key for e in chosen if not (e.has_range and not e.fixed)],
        params={
            **setup.params,
            "finding": target.label,
            "screen_games": int(screen_games),
            "games": int(games),
            "top": int(top),
            "estimates": list(estimates),
            "skipped": skipped,
        },  # fmt: skip
        seconds=time.perf_counter() - started,
    )


def _arms(est, setup: Setup, terms, start: int, n: int, skipped: list) -> dict:
    """``[(value, per-game terms)]`` for every alternative of ``est`` (a value may be a
    list: a die's faces); an alternative the component checks refuse (a combination the
    rules forbid) is skipped and listed."""
    out = []
    for value in est.alternatives():
        try:
            comps = setup.components.with_estimate(est.key, value)
        except ComponentError as exc:
            skipped.append({"key": est.key, "value": value, "why": str(exc)})
            continue
        out.append((value, terms(comps, start, n)))
    return out
