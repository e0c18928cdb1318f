"""The estimates of a balance sweep (:func:`analyse_sweep`): per variant, the paired per-seed
differences against the baseline (win share and XP per policy, each XP source and the game
length) with Student t intervals, and win rates with Wilson intervals, gathered in a
:class:`SweepResult`. The design is described in :mod:`bnb_sim.analysis.sweep`. Any
competitive game's rows serve: the parts whose columns its rows lack (XP and its sources,
fights, the game length) are empty tables, decided by the data, never by the game's name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from bnb_sim.analysis import tables
from bnb_sim.analysis.names import display_names, rename_frame
from bnb_sim.analysis.stats import mean_ci, paired_difference
from bnb_sim.analysis.sweep_fairness import (
    analyse_fairness,
)
from bnb_sim.analysis.sweep_variants import Variant

SEAT_COLUMNS_NEEDED = ("game", "seat", "policy", "won", "xp")


@dataclass
class SweepResult:
    variants: list[Variant]
    policies: list[str]
    players: int
    games: int
    seed: int
    win_rates: pd.DataFrame  # variant, policy, k, n, rate, lo, hi
    win_effects: pd.DataFrame  # variant, policy, mean_diff, lo, hi, n, p_value
    xp: pd.DataFrame  # variant, policy, mean, lo, hi, n
    xp_effects: pd.DataFrame  # variant, policy, mean_diff, lo, hi, n, p_value
    xp_sources: pd.DataFrame  # index variant, columns xp_* (mean per player and game)
    source_effects: pd.DataFrame  # variant, source, mean_diff, lo, hi, n, p_value
    fights: pd.DataFrame  # variant, mob, attempts, k, n, rate, lo, hi
    length: pd.DataFrame  # variant, mean, lo, hi, n, mean_diff, d_lo, d_hi
    ties: pd.DataFrame  # variant, k, n, rate, lo, hi
    fairness: pd.DataFrame = field(default_factory=pd.DataFrame)  # see sweep_fairness
    fairness_changes: pd.DataFrame = field(default_factory=pd.DataFrame)
    mode: str = "grid"
    params: dict = field(default_factory=dict)
    name: str | None = None

    def __repr__(self) -> str:
        names = ", ".join(v.name for v in self.variants)
        return (
            f"<SweepResult {len(self.variants)} variants ({names}); policies "
            f"{', '.join(self.policies)}; {self.players} players, {self.games:,} games each>"
        )


def _per_game_policy(seats: pd.DataFrame, column: str, policies: Sequence[str]) -> pd.DataFrame:
    """Per game (rows, sorted) and policy (columns): the mean of ``column`` over its seats."""
    values = seats[column].to_numpy(dtype=float)
    frame = pd.DataFrame(
        {"game": seats["game"].to_numpy(), "policy": seats["policy"].astype(str), "v": values}
    )
    wide = frame.pivot_table(index="game", columns="policy", values="v", aggfunc="mean")
    return wide.reindex(columns=list(policies)).sort_index()


def _per_game(seats: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    frame = seats[["game", *columns]].astype({c: float for c in columns})
    return frame.groupby("game", sort=True)[list(columns)].mean()


def _aligned(a: pd.DataFrame | pd.Series, b: pd.DataFrame | pd.Series):
    index = a.index.intersection(b.index)
    return a.loc[index], b.loc[index]


def _turns(games: pd.DataFrame) -> pd.Series:
    return games.set_index("game")["turns"].astype(float).sort_index()


def _length_row(variant: str, games: pd.DataFrame, base_turns, paired: bool, confidence) -> dict:
    """A variant's game length (turns per game) and, ``paired``, its change per seed."""
    turns = _turns(games)
    row = {"variant": variant, **mean_ci(turns.to_numpy(), confidence)}
    if paired:
        a, b = _aligned(turns, base_turns)
        diff = paired_difference(a, b, confidence)
        row.update(mean_diff=diff["mean_diff"], d_lo=diff["lo"], d_hi=diff["hi"])
    return row


def analyse_sweep(
    variants: Sequence[Variant],
    frames: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]],
    *,
    policies: Sequence[str],
    players: int,
    games: int,
    seed: int = 0,
    mode: str = "grid",
    params: dict | None = None,
    name: str | None = None,
    confidence: float = 0.95,
) -> SweepResult:
    """Tables of a sweep: ``frames[variant.name] = (seats, games)``, baseline first.
    Policies given by a file are shown by their names (:mod:`bnb_sim.analysis.names`)."""
    names = [v.name for v in variants]
    base_name = next(v.name for v in variants if v.baseline)
    shown = display_names(policies)
    if any(k != v for k, v in shown.items()):
        frames = {
            key: (rename_frame(seats, shown), rename_frame(games_, shown))
            for key, (seats, games_) in frames.items()
        }
        params = {**(params or {}), "policy_names": {v: k for k, v in shown.items() if k != v}}
    policies = list(dict.fromkeys(shown[str(p)] for p in policies))
    win_rows, effect_rows, xp_rows, xp_effect_rows = [], [], [], []
    source_rows, fight_frames, length_rows, tie_rows = [], [], [], []
    base_seats, base_games = frames[base_name]
    has_xp = "xp" in base_seats.columns  # rows without XP (another game's): no XP tables
    has_turns = "turns" in base_games.columns
    base_win = _per_game_policy(base_seats, "won", policies)
    base_xp = _per_game_policy(base_seats, "xp", policies) if has_xp else None
    sources = tables.xp_sources(base_seats.columns)
    base_sources = _per_game(base_seats, sources) if sources else None
    base_turns = _turns(base_games) if has_turns else None
    source_means = {}
    for variant in names:
        seats, games_df = frames[variant]
        rates = tables.win_rates(seats, "policy", policies)
        rates.insert(0, "variant", variant)
        win_rows.append(rates)
        win = _per_game_policy(seats, "won", policies)
        xp = _per_game_policy(seats, "xp", policies) if has_xp else None
        for policy in policies:
            if has_xp:
                ci = mean_ci(xp[policy].to_numpy(), confidence)
                xp_rows.append({"variant": variant, "policy": policy, **ci})
            if variant != base_name:
                a, b = _aligned(win[policy], base_win[policy])
                # a win share is in [0, 1], so a difference is in [-1, 1]: when no seed
                # changed, that bounds how often one could (no zero-width interval)
                diff = paired_difference(a, b, confidence, bounds=(-1.0, 1.0))
                effect_rows.append({"variant": variant, "policy": policy, **diff})
            if variant != base_name and has_xp:
                a, b = _aligned(xp[policy], base_xp[policy])
                xp_effect_rows.append(
                    {"variant": variant, "policy": policy, **paired_difference(a, b, confidence)}
                )
        if sources:
            per_game = _per_game(seats, sources)
            source_means[variant] = per_game.mean(axis=0)
            if variant != base_name:
                for source in [*sources, "total"]:
                    if source == "total":
                        a, b = _aligned(per_game.sum(axis=1), base_sources.sum(axis=1))
                    else:
                        a, b = _aligned(per_game[source], base_sources[source])
                    source_rows.append(
                        {"variant": variant, "source": source, **paired_difference(a, b)}
                    )
        fights = tables.fights_by_mob(seats)
        fights.insert(0, "variant", variant)
        fight_frames.append(fights)
        if has_turns:
            paired = variant != base_name
            length_rows.append(_length_row(variant, games_df, base_turns, paired, confidence))
        ties = tables.tie_rate(games_df, seats)
        tie_rows.append({"variant": variant, **ties.to_dict()})
    xp_sources = pd.DataFrame(source_means).T.reindex(names) if source_means else pd.DataFrame()
    xp_sources.index.name = "variant"
    fairness, fairness_changes = analyse_fairness(names, base_name, frames, confidence)
    return SweepResult(
        variants=list(variants),
        policies=policies,
        players=int(players),
        games=int(games),
        seed=int(seed),
        win_rates=pd.concat(win_rows, ignore_index=True),
        win_effects=pd.DataFrame(effect_rows),
        xp=pd.DataFrame(xp_rows),
        xp_effects=pd.DataFrame(xp_effect_rows),
        xp_sources=xp_sources,
        source_effects=pd.DataFrame(source_rows),
        fights=pd.concat(fight_frames, ignore_index=True),
        length=pd.DataFrame(length_rows),
        ties=pd.DataFrame(tie_rows),
        fairness=fairness,
        fairness_changes=fairness_changes,
        mode=mode,
        params=dict(params or {}),
        name=name,
    )
