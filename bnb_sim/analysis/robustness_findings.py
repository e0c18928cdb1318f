"""The headline findings of a Builders & Biomes run as :class:`FindingSample` objects, one rung
at a time (``bnb robustness``; :mod:`bnb_sim.analysis.robustness` pairs them across rungs).

Each finding is the number the run report prints (docs/statistics.md), with its per-game
influence (the delta-method terms, clustered by game):

* ``win_rate_seat_S``: seat ``S``'s win rate (ties count for every tied winner); reference
  the fair share 1/players;
* ``policy_win_rate`` (with ``--policy``): the policy's win rate in one seat against the rung's
  bot in the others, the seats rotating; reference 1/players;
* ``first_player_advantage``: seat 0's win rate minus the mean of the others' (as
  :func:`bnb_sim.analysis.stats.first_player_advantage`); reference 0;
* ``balance``: 1 minus the largest gap between seat win rates, linearised at the seats that
  are furthest apart at that rung (near balance the pair is not identified: the note says so);
* ``game_length``: mean turns per game (all players);
* ``item_effect_NAME`` (Farmer's Market): the win rate of player results that bought the item
  minus that of those that did not: a correlation (a bot buys by its own estimate), as in the
  run report's items section; only where at least :data:`MIN_ROWS` results bought it and as
  many did not.

Nothing here imports numba.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnb_sim.analysis.robustness import FindingSample, mean_sample, ratio_sample
from bnb_sim.analysis.stats_seats import _game_seat_matrix

__all__ = ["MIN_ROWS", "bnb_findings", "item_findings", "policy_finding", "seat_findings"]

#: an item effect needs this many buying and as many non-buying player results at a rung
MIN_ROWS = 50

ITEM_NOTE = "correlation: buyers against non-buyers (a bot buys by its own estimate)"


def _games(seats: pd.DataFrame) -> np.ndarray:
    return np.unique(seats["game"].to_numpy())


def seat_findings(seats: pd.DataFrame) -> list[FindingSample]:
    """Seat win rates, the first-player advantage and the balance of one rung's games."""
    y, m, labels = _game_seat_matrix(seats)
    games = _games(seats)
    n_seats = len(labels)
    out: list[FindingSample] = []
    if n_seats < 2:
        return out
    fair = 1.0 / n_seats
    psi_seats = []
    for i, s in enumerate(labels):
        sample = ratio_sample(
            f"win_rate_seat_{int(s)}", f"Win rate of seat {int(s)}" + (" (starts)" if s == 0
            else ""), "rate", games, y[:, i], m[:, i], reference=fair,
        )  # fmt: skip
        psi_seats.append(sample.influence)
        out.append(sample)
    rates = np.array([s.value for s in out])
    psi = np.column_stack(psi_seats)
    if 0 in set(int(s) for s in labels):
        zero = list(labels).index(0)
        coef = np.full(n_seats, -1.0 / (n_seats - 1))
        coef[zero] = 1.0
        out.insert(0, FindingSample(
            "first_player_advantage", "First-player advantage", "pp", float(coef @ rates),
            games, psi @ coef, reference=0.0,
        ))  # fmt: skip
    top, bottom = int(np.argmax(rates)), int(np.argmin(rates))
    order = np.sort(rates)
    note = ""
    if n_seats > 2 and (order[-1] - order[-2] < 0.01 or order[1] - order[0] < 0.01):
        note = "balance: two seats within 1 pp of the top or bottom (the gap's seats are unsure)"
    out.insert(1, FindingSample(
        "balance", "Balance (1 - largest seat gap)", "mean", float(1.0 - (rates[top]
        - rates[bottom])), games, -(psi[:, top] - psi[:, bottom]), note=note,
    ))  # fmt: skip
    return out


def policy_finding(seats: pd.DataFrame, policy: str, players: int) -> FindingSample:
    """Player 0's win rate per game (``policy`` against the rung's bot, seats rotating)."""
    mine = seats[seats["player"] == 0].sort_values("game")
    return mean_sample(
        "policy_win_rate", f"Win rate of {policy} against the rung's bot", "rate",
        mine["game"].to_numpy(), mine["won"].to_numpy(float), reference=1.0 / int(players),
    )  # fmt: skip


def length_finding(games_df: pd.DataFrame, column: str = "turns", unit: str = "turns"):
    """Mean game length (one value per game)."""
    frame = games_df.sort_values("game")
    return mean_sample(
        "game_length", f"Game length ({unit} per game)", "mean",
        frame["game"].to_numpy(), frame[column].to_numpy(float), unit=unit,
    )  # fmt: skip


def item_findings(seats: pd.DataFrame, min_rows: int = MIN_ROWS) -> list[FindingSample]:
    """Farmer's Market items (``item_NAME`` columns): buyers' win rate minus non-buyers'."""
    names = [c[5:] for c in seats.columns if c.startswith("item_") and len(c) > 5]
    if not names:
        return []
    codes, games = pd.factorize(seats["game"], sort=True)
    won = seats["won"].astype(float).to_numpy()
    out = []
    for name in names:
        bought = seats[f"item_{name}"].to_numpy() != 0
        if bought.sum() < min_rows or (~bought).sum() < min_rows:
            continue
        parts = []
        for mask in (bought, ~bought):
            num = np.bincount(codes, weights=won * mask, minlength=len(games))
            den = np.bincount(codes, weights=mask.astype(float), minlength=len(games))
            parts.append(ratio_sample("", "", "rate", games, num, den))
        buyers, others = parts
        out.append(FindingSample(
            f"item_effect_{name}", f"Item {name}: buyers minus non-buyers", "pp",
            buyers.value - others.value, np.asarray(games), buyers.influence
            - others.influence, reference=0.0, note=ITEM_NOTE, group="items",
        ))  # fmt: skip
    return out


def bnb_findings(seats: pd.DataFrame, games_df: pd.DataFrame) -> list[FindingSample]:
    """Every headline finding of one rung of Builders & Biomes games."""
    return [*seat_findings(seats), length_finding(games_df), *item_findings(seats)]
