"""Sensitivity of a finding to the estimated component values (``bnb sensitivity``).

Every estimated value of a component file carries a plausible range (``[[ranges]]``,
:mod:`bnb_sim.estimates`). A sensitivity analysis moves one estimate at a time to each end
of its range (or to each other choice) and measures how far a chosen *finding* moves:

* **Findings** (:data:`FINDINGS`) are functions of a set of games: ``first_player_advantage``,
  ``balance``, ``seat_win_rate:S``, ``team_win_rate``, ``game_length``. Each is computed
  from per-game terms ``ψ_g`` (:func:`per_game`): the finding is their mean (``balance``:
  see below). A game's terms depend only on that game.
* **Paired design.** Every variant plays the same game indices as the baseline (the shipped
  values), so a seed's deal and dice are shared as far as the change lets them be. The
  effect of a variant is the mean of the per-game differences ``d_g = ψ_g(variant) −
  ψ_g(baseline)``, with a Student t 95% interval (:func:`paired_effect`). When no game changed
  (every difference 0) there is no interval and the row says so.
* **Balance** is ``1 − (r_max − r_min)``, a maximum, not a mean. Its per-game terms are
  linearised at the seats that have the highest and lowest rate in that arm
  (``ψ_g = 1 − (won_max,g − won_min,g)``); the paired interval is then the delta-method
  interval of the difference. It is valid when the order of the extreme seats is clear (not
  near a tie of seats); the report says so.
* **Two stages.** *Screening* plays every alternative of every estimate on a few games
  (indices ``0 .. s−1``) and ranks the estimates by the largest end of any of their
  intervals (large or uncertain effects rank high). The top ``k`` are then played again on
  *fresh* games (``s .. s+n−1``) together with the baseline; the final effects and their
  intervals come from those games only, so choosing them by their screening result does not
  bias them (the screening numbers of the chosen ones are biased upwards and are shown only
  as the reason for the choice).
* **Hinges.** A finding *hinges on* an estimate when, on the fresh games, moving it to some
  value in its range moves the finding by more than the finding's own interval: the whole
  95% interval of the effect lies beyond the half-width of the baseline's interval.

Nothing here plays games or imports numba; :mod:`bnb_sim.runner.sensitivity` plays them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.errors import BnbError

__all__ = [
    "FINDINGS",
    "Finding",
    "SensitivityResult",
    "effect_rows",
    "finding_value",
    "hinges",
    "paired_effect",
    "parse_finding",
    "per_game",
    "screen_order",
]

#: finding name -> (description, unit: "pp" for rates, "" for counts)
FINDINGS: dict[str, tuple[str, str]] = {
    "first_player_advantage": ("seat 0's win rate minus the other seats' mean", "pp"),
    "balance": ("1 − (highest seat win rate − lowest)", "pp"),
    "seat_win_rate": ("the win rate of seat S (seat_win_rate:S)", "pp"),
    "team_win_rate": ("how often the players win together (cooperative games)", "pp"),
    "game_length": ("turns per game", ""),
}


@dataclass(frozen=True)
class Finding:
    """A finding: its name and argument (the seat of ``seat_win_rate:S``)."""

    name: str
    seat: int | None = None

    @property
    def label(self) -> str:
        return self.name if self.seat is None else f"{self.name}:{self.seat}"

    @property
    def rate(self) -> bool:
        return FINDINGS[self.name][1] == "pp"

    @property
    def description(self) -> str:
        return FINDINGS[self.name][0]


def parse_finding(text: Any) -> Finding:
    """``"first_player_advantage"`` or ``"seat_win_rate:1"`` -> :class:`Finding`; a bad name
    is a one-line :class:`BnbError` listing the known ones."""
    if not isinstance(text, str) or not text.strip():
        raise BnbError(f"--finding must be one of {', '.join(FINDINGS)}, got {text!r}")
    name, _, arg = text.strip().partition(":")
    if name not in FINDINGS:
        raise BnbError(
            f"--finding: unknown finding {name!r} (known: {', '.join(FINDINGS)}; "
            "seat_win_rate takes a seat: seat_win_rate:0)"
        )
    if name == "seat_win_rate":
        if not arg.isdigit() or int(arg) > 3:
            raise BnbError("--finding seat_win_rate needs a seat from 0 to 3, e.g. seat_win_rate:0")
        return Finding(name, int(arg))
    if arg:
        raise BnbError(f"--finding {name} takes no ':' argument")
    return Finding(name)


def _seat_matrix(seats: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """``(game indices, won[game, seat])`` (a tied win counts for every tied winner)."""
    wide = seats.pivot_table(index="game", columns="seat", values="won", aggfunc="mean")
    wide = wide.sort_index()
    return wide.index.to_numpy(), wide.to_numpy(dtype=float)


def per_game(
    finding: Finding, seats: pd.DataFrame, games: pd.DataFrame, extremes=None
) -> tuple[np.ndarray, np.ndarray]:
    """``(game indices, ψ)``: the finding's per-game terms, in game order (see the module
    docstring). ``extremes`` = ``(high seat, low seat)`` for ``balance`` (default: this set's
    own). A finding the games cannot give is a :class:`BnbError`."""
    name = finding.name
    if name in ("team_win_rate", "game_length"):
        column = "won" if name == "team_win_rate" else "turns"
        if column not in games.columns:
            raise BnbError(
                f"--finding {name}: this game's games have no '{column}' column "
                f"({'a cooperative game has a team win rate' if column == 'won' else ''})"
            )
        ordered = games.sort_values("game")
        return ordered["game"].to_numpy(), ordered[column].to_numpy(dtype=float)
    index, won = _seat_matrix(seats)
    n_seats = won.shape[1]
    if name == "seat_win_rate":
        if finding.seat >= n_seats:
            raise BnbError(f"--finding {finding.label}: the games have {n_seats} seats")
        return index, won[:, finding.seat]
    if n_seats < 2:
        raise BnbError(f"--finding {name}: needs games with at least two seats")
    if name == "first_player_advantage":
        return index, won[:, 0] - won[:, 1:].mean(axis=1)
    high, low = extremes if extremes is not None else balance_extremes(won)
    return index, 1.0 - (won[:, high] - won[:, low])


def balance_extremes(won: np.ndarray) -> tuple[int, int]:
    """The seats with the highest and the lowest win rate (the first of equals)."""
    rates = np.nanmean(won, axis=0)
    return int(np.argmax(rates)), int(np.argmin(rates))


def finding_value(psi: np.ndarray) -> dict[str, Any]:
    """The finding on one set of games: mean of its terms with a t interval."""
    from bnb_sim.analysis.stats_intervals import mean_ci

    ci = mean_ci(psi)
    return {"value": ci["mean"], "lo": ci["lo"], "hi": ci["hi"], "n": ci["n"]}


def paired_effect(variant: np.ndarray, baseline: np.ndarray) -> dict[str, Any]:
    """The effect of a variant: mean of ``variant − baseline`` over the same games, with a
    Student t 95% interval; ``note`` says when there is none (no game changed)."""
    from bnb_sim.analysis.stats_paired import paired_difference

    d = paired_difference(np.asarray(variant, float), np.asarray(baseline, float))
    note = "no game changed" if d["note"] == "all differences equal" else d["note"]
    return {"effect": d["mean_diff"], "lo": d["lo"], "hi": d["hi"], "n": d["n"], "note": note}


def _reach(row: dict) -> float:
    """How far an effect may plausibly reach: the larger end of its interval in absolute
    value (the effect itself when it has no interval)."""
    ends = [row["lo"], row["hi"]] if math.isfinite(row["lo"]) else [row["effect"]]
    return float(max(abs(x) for x in ends))


def screen_order(screen: pd.DataFrame) -> list[str]:
    """Estimate keys by their screening reach, largest first (ties: table order)."""
    if screen.empty:
        return []
    reach = screen.assign(_reach=[_reach(r) for r in screen.to_dict("records")])
    best = reach.groupby("key", sort=False)["_reach"].max()
    return list(best.sort_values(ascending=False, kind="stable").index)


def effect_rows(estimate, arms, baseline: np.ndarray, stage: str) -> list[dict]:
    """One row per alternative of ``estimate``: the finding there and its paired effect.
    ``arms``: ``(value, per-game terms)`` pairs on the baseline's games."""
    rows = []
    for value, psi in arms:
        here = finding_value(psi)
        eff = paired_effect(psi, baseline)
        rows.append(
            {
                "stage": stage,
                "key": estimate.key,
                "shipped": _text(estimate.value),
                "value": _text(value),
                "range": range_text(estimate),
                "reason": estimate.reason,
                "finding": here["value"],
                "finding_lo": here["lo"],
                "finding_hi": here["hi"],
                **eff,
            }
        )
    return rows


def range_text(estimate) -> str:
    """``1..3``, ``X, A, B`` (names without quotes) or ``6 choices`` (lists of faces)."""
    choices = estimate.choices
    if choices is not None and all(isinstance(c, str) for c in choices):
        return ", ".join(choices)
    return estimate.range_text()


def _text(value: Any) -> str:
    from bnb_sim.jsonsafe import dumps

    return value if isinstance(value, str) else dumps(value)


def hinges(final: pd.DataFrame, half_width: float) -> pd.DataFrame:
    """The rows of ``final`` whose whole effect interval lies beyond ``±half_width`` (the
    baseline finding's own interval): the finding moves by more than its interval there."""
    if final.empty or not math.isfinite(half_width):
        return final.iloc[0:0]
    lo, hi = final["lo"].to_numpy(float), final["hi"].to_numpy(float)
    beyond = np.isfinite(lo) & ((lo > half_width) | (hi < -half_width))
    return final[beyond]


@dataclass
class SensitivityResult:
    """What ``bnb sensitivity`` found; the tables are tidy DataFrames of numbers.

    ``screen``: one row per alternative of every estimate on the screening games (column
    ``selected`` marks the estimates chosen for the second stage). ``final``: one row per
    alternative of the chosen estimates on fresh games. ``ranking``: one row per chosen
    estimate, largest effect first. ``baseline``: the finding on the fresh games as shipped.
    """

    finding: Finding
    game: str
    setup: str
    screen: pd.DataFrame
    final: pd.DataFrame
    ranking: pd.DataFrame
    baseline: dict[str, Any]
    screen_baseline: dict[str, Any]
    screen_games: int
    games: int
    top: int
    seed: int
    estimates: int
    fixed: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def half_width(self) -> float:
        lo, hi = self.baseline["lo"], self.baseline["hi"]
        return (hi - lo) / 2 if math.isfinite(lo) and math.isfinite(hi) else math.nan

    @property
    def hinges(self) -> pd.DataFrame:
        return hinges(self.final, self.half_width)

    @property
    def games_played(self) -> int:
        arms = len(self.screen) + 1
        return arms * self.screen_games + (len(self.final) + 1) * self.games

    def __repr__(self) -> str:
        top = self.ranking["key"].iloc[0] if len(self.ranking) else "none"
        return (
            f"SensitivityResult({self.finding.label}, {self.estimates} estimates screened, "
            f"{len(self.ranking)} confirmed, top: {top})"
        )


def rank(final: pd.DataFrame) -> pd.DataFrame:
    """One row per estimate of ``final``: its largest effect (and that row's interval and
    value), the effects at its two extremes (for the tornado plot), largest first."""
    if final.empty:
        return pd.DataFrame(columns=["key", "range", "reason", "largest", "at", "lo", "hi",
                                     "low_effect", "high_effect", "n"])  # fmt: skip
    out = []
    for key, part in final.groupby("key", sort=False):
        biggest = part.loc[part["effect"].abs().idxmax()]
        out.append(
            {
                "key": key,
                "shipped": biggest["shipped"],
                "range": biggest["range"],
                "reason": biggest["reason"],
                "largest": float(biggest["effect"]),
                "at": biggest["value"],
                "lo": float(biggest["lo"]),
                "hi": float(biggest["hi"]),
                "low_effect": float(min(0.0, part["effect"].min())),
                "high_effect": float(max(0.0, part["effect"].max())),
                "n": int(biggest["n"]),
            }
        )
    table = pd.DataFrame(out)
    order = table["largest"].abs().sort_values(ascending=False, kind="stable").index
    return table.loc[order].reset_index(drop=True)


def selected_keys(screen: pd.DataFrame, top: int) -> list[str]:
    """The ``top`` estimates by screening reach that moved at all on the screening games
    (an estimate under which no game changed has nothing to confirm)."""
    moved = screen[screen["note"] != "no game changed"]
    return screen_order(moved)[: max(int(top), 0)]


def check_sizes(screen_games: int, games: int, top: int) -> None:
    if screen_games < 2 or games < 2:
        raise BnbError("sensitivity: --screen-games and --games need at least 2 games each")
    if top < 1:
        raise BnbError("sensitivity: --top must be at least 1")


def pick(estimates: Sequence, patterns: Sequence[str]) -> list:
    """The estimates whose key matches one of ``patterns`` (``*`` for one key part; none:
    all). A pattern that matches nothing is an error naming it."""
    import re

    if not patterns:
        return list(estimates)
    chosen: dict[str, Any] = {}
    for pattern in patterns:
        parts = [re.escape(p).replace(r"\*", "[^.]*") for p in pattern.split(".")]
        rx = re.compile(r"\.".join(parts) + r"(\..*)?\Z")
        found = [e for e in estimates if rx.match(e.key)]
        if not found:
            raise BnbError(
                f"--estimate {pattern}: names no estimated value (see bnb components show)"
            )
        chosen.update((e.key, e) for e in found)
    return [e for e in estimates if e.key in chosen]
