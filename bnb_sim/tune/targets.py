"""What ``bnb tune game`` tunes toward: targets, their estimates, and how they combine.

``--target NAME=GOAL[@WEIGHT]``, repeatable. ``GOAL`` is a number (reach this value), ``max``
or ``min``. Names:

==========================  ===============================================================
``first_player_advantage``  seat 0's win rate minus the mean of the other seats' (delta
                            method interval, :func:`bnb_sim.analysis.stats.first_player_advantage`)
``balance``                 1 − the largest gap between seat win rates (simultaneous
                            95% intervals of the pairwise seat gaps, clustered by game,
                            reaching 1 when equal seats are not ruled out:
                            :func:`bnb_sim.analysis.stats.balance_metric`)
``game_length``             mean turns per game (Student t)
``xp_share:SOURCE``         the share of all XP that comes from SOURCE (``buildings``,
                            ``mobs``, ``hoes``, ``round_a``, ``round_b``, ``round_c``,
                            ``bonus_mobs``); ratio of sums, delta-method interval by game
``win_rate:POLICY``         the win share of a policy of ``--policy`` (wins / its seats
                            per game, ties count for every winner; Student t over games);
                            ``win_rate:N`` names the policy of player N (from 0), for
                            specs that contain ``=``
==========================  ===============================================================

A cooperative game (Heroes of the Village: the players are one team) has team results only:
``win_rate`` (no ``:POLICY``) is the team win rate (Student t over games) and
``game_length`` the mean turns; the seat targets (``first_player_advantage``, ``balance``,
``xp_share``) are refused.

**Combining.** Each target turns its estimate ``e`` into a loss in its own unit: percentage
points for the rates and shares (``first_player_advantage``, ``balance``, ``xp_share``,
``win_rate``; 1 pp = 0.01) and turns for ``game_length``. A value goal costs
``|e − goal| / unit``, ``max`` costs ``−e / unit`` and ``min`` ``+e / unit``. The score the
search maximises is ``−Σ weight · loss`` (weights default to 1), so "1 pp of first-player
advantage" weighs as much as "1 pp of balance" or "one turn of game length". Give a weight
(``balance=max@0.5``) to trade them differently.

Pure Python + numpy/pandas.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bnb_sim.errors import BnbError
from bnb_sim.safe_io import digits

__all__ = [
    "TARGET_NAMES",
    "Target",
    "combined_score",
    "measure",
    "parse_target",
    "per_game",
]

TARGET_NAMES = ("first_player_advantage", "balance", "game_length", "xp_share", "win_rate")
TEAM_TARGETS = ("win_rate", "game_length")  # a cooperative game's: the team's results
PP = 0.01
XP_SHARE_SOURCES = ("buildings", "mobs", "hoes", "round_a", "round_b", "round_c", "bonus_mobs")


@dataclass(frozen=True)
class Target:
    name: str  # one of TARGET_NAMES
    goal: float | str  # a number, "max" or "min"
    weight: float = 1.0
    arg: str | None = None  # the source of xp_share, the policy of win_rate

    @property
    def key(self) -> str:
        return f"{self.name}:{self.arg}" if self.arg else self.name

    @property
    def unit(self) -> float:
        return 1.0 if self.name == "game_length" else PP

    @property
    def unit_name(self) -> str:
        return "turns" if self.name == "game_length" else "pp"

    def loss(self, estimate: float) -> float:
        if not math.isfinite(estimate):
            return math.inf
        if self.goal == "max":
            return -estimate / self.unit
        if self.goal == "min":
            return estimate / self.unit
        return abs(estimate - float(self.goal)) / self.unit

    def describe(self) -> str:
        goal = self.goal if isinstance(self.goal, str) else f"= {self.goal:g}"
        weight = f" (weight {self.weight:g})" if self.weight != 1.0 else ""
        return f"{self.key} {goal}{weight}"

    def to_dict(self) -> dict:
        return {"name": self.name, "arg": self.arg, "goal": self.goal, "weight": self.weight}


def parse_target(text: str, policies: Sequence[str], *, team: bool = False) -> Target:
    """``balance=max``, ``first_player_advantage=0@2``, ``xp_share:mobs=0.3`` -> Target;
    ``team``: a cooperative game's targets (:data:`TEAM_TARGETS`, ``win_rate`` of the team)."""
    raw = str(text).strip()
    name, eq, goal = raw.partition("=")
    name, goal = name.strip(), goal.strip()
    if not eq or not name or not goal:
        raise BnbError(f"tune: --target '{text}': expected NAME=VALUE, NAME=max or NAME=min")
    weight = 1.0
    if "@" in goal:
        goal, _, w = goal.partition("@")
        try:
            weight = float(w)
        except ValueError:
            raise BnbError(f"tune: --target '{text}': weight '{w}' is not a number") from None
        if not (math.isfinite(weight) and weight > 0):
            raise BnbError(f"tune: --target '{text}': the weight must be positive")
        goal = goal.strip()
    base, _, arg = name.partition(":")
    if team and base not in TEAM_TARGETS:
        raise BnbError(
            f"tune: --target '{text}': a cooperative game's targets are the team's: "
            f"{', '.join(TEAM_TARGETS)} (e.g. win_rate=0.5)"
        )
    if team and arg:
        raise BnbError(f"tune: --target '{text}': {base} is the team's; it takes no ':'")
    if base not in TARGET_NAMES:
        raise BnbError(
            f"tune: --target '{text}': unknown target '{base}' (known: {', '.join(TARGET_NAMES)})"
        )
    if base == "xp_share":
        arg = arg.removeprefix("xp_")
        if arg not in XP_SHARE_SOURCES:
            raise BnbError(
                f"tune: --target '{text}': xp_share needs a source, one of "
                f"{', '.join(XP_SHARE_SOURCES)} (e.g. xp_share:mobs=0.3)"
            )
    elif base == "win_rate" and not team:
        player = digits(arg)
        if player is not None and player < len(policies):
            arg = policies[player]  # win_rate:N, the policy of player N (labels with '=')
        if arg not in policies:
            raise BnbError(
                f"tune: --target '{text}': win_rate needs a policy of --policies "
                f"(one of {', '.join(dict.fromkeys(policies))})"
            )
    elif arg:
        raise BnbError(f"tune: --target '{text}': {base} takes no ':' argument")
    if goal in ("max", "min"):
        parsed: float | str = goal
    else:
        try:
            parsed = float(goal)
        except ValueError:
            raise BnbError(
                f"tune: --target '{text}': '{goal}' is not a number, max or min"
            ) from None
        if not math.isfinite(parsed):
            raise BnbError(f"tune: --target '{text}': the goal must be finite")
    return Target(base, parsed, weight, arg or None)


# --------------------------------------------------------------------------------------
# estimates


def _ratio_ci(num: np.ndarray, den: np.ndarray) -> dict:
    """Ratio of sums ``Σnum / Σden`` with a delta-method interval clustered by game."""
    n = int(num.size)
    total = float(den.sum())
    if n == 0 or total == 0:
        return {"value": math.nan, "lo": math.nan, "hi": math.nan, "n": n}
    r = float(num.sum()) / total
    if n < 2:
        return {"value": r, "lo": math.nan, "hi": math.nan, "n": n}
    z = (num - r * den) / (total / n)
    se = float(z.std(ddof=1) / math.sqrt(n))
    return {"value": r, "lo": r - 1.96 * se, "hi": r + 1.96 * se, "n": n}


def _mean(x: np.ndarray) -> dict:
    from bnb_sim.analysis.stats_intervals import mean_ci

    ci = mean_ci(x)
    return {"value": ci["mean"], "lo": ci["lo"], "hi": ci["hi"], "n": ci["n"]}


def _balance_value(seats: pd.DataFrame) -> dict:
    """Balance without its (simulated) simultaneous interval, for the search: the value,
    and ``se``, the plug-in standard error of the top-minus-bottom seat gap (per-game
    differences, top and bottom seats taken as known), enough for a plot's error bar."""
    wide = seats.pivot_table(index="game", columns="seat", values="won", aggfunc="mean")
    wide = wide.astype(float)
    rates = wide.mean(axis=0).to_numpy(dtype=float)
    n = int(wide.shape[0])
    if not rates.size:
        return {"value": math.nan, "lo": math.nan, "hi": math.nan, "n": n, "se": math.nan}
    gap = wide.iloc[:, int(np.argmax(rates))] - wide.iloc[:, int(np.argmin(rates))]
    se = float(gap.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    value = 1.0 - float(rates.max() - rates.min())
    return {"value": value, "lo": math.nan, "hi": math.nan, "n": n, "se": se}


def measure(
    target: Target,
    seats: pd.DataFrame,
    games: pd.DataFrame,
    *,
    intervals: bool = True,
    seed: int = 0,
) -> dict:
    """``{"value", "lo", "hi", "n"}`` of a target on one set of games.

    ``intervals=False`` skips the interval of ``balance`` (the search needs only the value).
    """
    from bnb_sim.analysis import stats

    if target.name == "first_player_advantage":
        fpa = stats.first_player_advantage(seats)
        return {k: fpa[k] for k in ("value", "lo", "hi")} | {"n": fpa["n_games"]}
    if target.name == "balance":
        if not intervals:  # the search needs only the value: 1 - (largest seat-rate gap)
            return _balance_value(seats)
        bal = stats.balance_metric(seats, seed=seed)
        return {k: bal[k] for k in ("value", "lo", "hi")} | {"n": bal["n_games"]}
    if target.name == "game_length":
        return _mean(games.sort_values("game")["turns"].to_numpy(dtype=float))
    if target.name == "xp_share":
        per_game = seats.groupby("game", sort=True)[["xp", f"xp_{target.arg}"]].sum()
        return _ratio_ci(
            per_game[f"xp_{target.arg}"].to_numpy(dtype=float),
            per_game["xp"].to_numpy(dtype=float),
        )
    if target.arg is None:  # win_rate of a cooperative game: the team's
        return _mean(games.sort_values("game")["won"].to_numpy(dtype=float))
    # win_rate: the policy's win share per game (wins / its seats), a mean over games
    rows = seats[seats["policy"].astype(str).to_numpy() == target.arg]
    share = rows.groupby("game", sort=True)["won"].mean().to_numpy(dtype=float)
    return _mean(share)


def per_game(target: Target, seats: pd.DataFrame, games: pd.DataFrame) -> np.ndarray | None:
    """The target's per-game terms, by game index, when its estimate is their mean (for
    paired differences between settings played on the same seeds); None otherwise.

    ``first_player_advantage``: ``won(seat 0) − mean(won(other seats))`` per game (its mean
    is the estimate when every game has every seat); ``game_length``: turns; ``win_rate``:
    the policy's win share. ``balance`` (a maximum) and ``xp_share`` (a ratio of sums) have
    no per-game terms.
    """
    if target.name == "first_player_advantage":
        wide = seats.pivot_table(index="game", columns="seat", values="won", aggfunc="mean")
        wide = wide.sort_index().astype(float)
        if 0 not in wide.columns or wide.shape[1] < 2:
            return None
        others = wide.drop(columns=[0]).mean(axis=1)
        return (wide[0] - others).to_numpy(dtype=float)
    if target.name == "game_length":
        return games.sort_values("game")["turns"].to_numpy(dtype=float)
    if target.name == "win_rate" and target.arg is None:  # the team's result per game
        return games.sort_values("game")["won"].to_numpy(dtype=float)
    if target.name == "win_rate":
        rows = seats[seats["policy"].astype(str).to_numpy() == target.arg]
        return rows.groupby("game", sort=True)["won"].mean().to_numpy(dtype=float)
    return None


def combined_score(targets: Sequence[Target], estimates: dict[str, dict]) -> float:
    """``−Σ weight · loss`` (higher is better)."""
    return -float(sum(t.weight * t.loss(estimates[t.key]["value"]) for t in targets))
