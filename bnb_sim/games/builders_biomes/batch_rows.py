"""The batch kernel's output as rows: the per-seat and per-game DataFrames of a block of
Builders & Biomes games (docs/run-format.md), and the error of a game that could not finish.

:mod:`bnb_sim.games.builders_biomes.batch` plays the kernel and turns its output into these
frames; the Game API (:mod:`bnb_sim.games.builders_biomes.game`) writes one game's rows with
the same functions, so both give the same rows. Neither numba nor the engine is imported at
module level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from bnb_sim.columns import STAT_COLUMNS as STATS
from bnb_sim.columns import UNSTORED_STATS, XP_SOURCES
from bnb_sim.errors import BnbError

if TYPE_CHECKING:
    from bnb_sim.games.builders_biomes.run_config import GameConfig

__all__ = ["GameFailed", "frames", "n_rule_hit_columns"]

XP_COLUMNS = list(XP_SOURCES)
STAT_COLUMNS = list(STATS)


class GameFailed(BnbError):
    """A game could not finish (illegal decision, turn limit, broken invariant)."""


def n_rule_hit_columns(config: GameConfig) -> int:
    """Seat columns for the rule hits of priority-list bots: one per rule of the longest bot
    in the run plus one for the fallback; none when no seat is a bot (docs/run-format.md)."""
    from bnb_sim.games.builders_biomes.policies.kinds import BOT

    bots = [p for p in config.policies if p.kind == BOT]
    return max(len(p.rules) for p in bots) + 1 if bots else 0


FM_XP_COLUMNS = ("xp_items_play", "xp_items_end", "xp_farming")
# R-FM-5: the "may" item abilities, how often each was offered and declined (in the order of
# engine/play.py's FM_MAY block)
FM_MAY_COLUMNS = (
    "bed_offered",
    "bed_declined",
    "third_block_offered",
    "third_block_declined",
    "fourth_token_offered",
    "fourth_token_declined",
)


def _fm_columns(comps, seats: dict, seat_out: np.ndarray, at: int) -> None:
    """Farmer's Market seat columns (docs/run-format.md): its XP sources (so that ``xp`` stays
    the sum of the ``xp_*`` columns), purchases, vegetables, the "may" items' decisions, one
    bool per item, laps (R-FM-7)."""
    from bnb_sim.games.builders_biomes.engine import play as P

    for j, name in enumerate(FM_XP_COLUMNS):
        seats[name] = seat_out[:, at + j].astype(np.int32)
    seats["items_bought"] = seat_out[:, at + P.FM_BOUGHT].astype(np.int16)
    seats["vegetables_spent"] = seat_out[:, at + P.FM_SPENT].astype(np.int16)
    seats["vegetables_left"] = seat_out[:, at + P.FM_VEG_LEFT].astype(np.int16)
    for j, name in enumerate(FM_MAY_COLUMNS):
        seats[name] = seat_out[:, at + P.FM_MAY + j].astype(np.int16)
    n_items = len(comps.item_names)
    for i, name in enumerate(comps.item_names):
        seats[f"item_{name}"] = seat_out[:, at + P.FM_ITEMS + i].astype(bool)
    for i, name in enumerate(comps.item_names):
        seats[f"bought_round_{name}"] = seat_out[:, at + P.FM_ITEMS + n_items + i].astype(np.int8)
    seats["laps"] = (seat_out[:, P.SEAT_XP] // comps.rule("xp_track")).astype(np.int16)


def frames(config: GameConfig, start: int, seat_out: np.ndarray, game_out: np.ndarray):
    """Per-seat and per-game DataFrames (docs/run-format.md) from the kernel output."""
    from bnb_sim.games.builders_biomes.engine import play as P

    comps = config.components
    n_players = config.n_players
    n_games = game_out.shape[0]
    games = np.arange(start, start + n_games, dtype=np.int64)
    labels = _policy_column(config, seat_out[:, P.SEAT_PLAYER])
    seats = {
        "game": np.repeat(games, n_players),
        "seat": seat_out[:, P.SEAT_SEAT].astype(np.int8),
        "player": seat_out[:, P.SEAT_PLAYER].astype(np.int8),
        "policy": labels,
        "n_players": np.full(n_games * n_players, n_players, np.int8),
        "board": pd.Categorical.from_codes(seat_out[:, P.SEAT_BOARD], comps.board_names),
        "xp": seat_out[:, P.SEAT_XP].astype(np.int32),
    }
    for j, name in enumerate(XP_COLUMNS):
        seats[name] = seat_out[:, P.SEAT_XP_SOURCES + j].astype(np.int32)
    seats["blocks_left"] = seat_out[:, P.SEAT_BLOCKS_LEFT].astype(np.int16)
    for j, name in enumerate(STAT_COLUMNS):
        column = seat_out[:, P.SEAT_STATS + j]
        if name.startswith("choice_"):
            characteristic = comps.characteristics["abc".index(name[-1])]
            names = list(comps.values[characteristic])
            if name == "choice_c" and comps.expansion is not None:
                names.append("farming")  # R-FM-6
            seats[name] = pd.Categorical.from_codes(column, names)
        elif name not in UNSTORED_STATS:
            seats[name] = column.astype(np.int16)
    seats["rank"] = seat_out[:, P.SEAT_RANK].astype(np.int8)
    seats["won"] = seat_out[:, P.SEAT_WON].astype(bool)
    seats["total_xp_after_a"] = seat_out[:, P.SEAT_XP_AFTER_ROUND].astype(np.int16)
    seats["total_xp_after_b"] = seat_out[:, P.SEAT_XP_AFTER_ROUND + 1].astype(np.int16)
    n_species = len(comps.mob_names)
    for sp, mob in enumerate(comps.mob_names):
        seats[f"fights_{mob}"] = seat_out[:, P.SEAT_SPECIES + sp].astype(np.int16)
        wins = seat_out[:, P.SEAT_SPECIES + n_species + sp].astype(np.int16)
        seats[f"wins_{mob}"] = wins
        seats[f"defeated_{mob}"] = wins
    for v, value in enumerate(comps.values["type"]):
        seats[f"built_{value}"] = seat_out[:, P.SEAT_SPECIES + 2 * n_species + v].astype(np.int16)
    if comps.expansion is not None:
        _fm_columns(comps, seats, seat_out, P.SEAT_SPECIES + 2 * n_species + 4)
    n_hits = n_rule_hit_columns(config)
    base = P.n_seat_columns(n_species, len(comps.item_names))
    for r in range(n_hits - 1):
        seats[f"rule_hits_{r}"] = seat_out[:, base + r].astype(np.int32)
    if n_hits:
        seats["rule_hits_fallback"] = seat_out[:, base + n_hits - 1].astype(np.int32)
    seats_df = pd.DataFrame(seats)
    rotation = game_out[:, P.GAME_ROTATION]
    winner_seat = game_out[:, P.GAME_WINNER_SEAT]
    winner_player = np.where(winner_seat >= 0, (winner_seat + rotation) % n_players, -1)
    games_df = pd.DataFrame(
        {
            "game": games,
            "n_players": np.full(n_games, n_players, np.int8),
            "turns": game_out[:, P.GAME_TURNS].astype(np.int16),
            "round_a_turn": game_out[:, P.GAME_ROUND_TURN].astype(np.int16),
            "round_b_turn": game_out[:, P.GAME_ROUND_TURN + 1].astype(np.int16),
            "round_c_turn": game_out[:, P.GAME_ROUND_TURN + 2].astype(np.int16),
            "winners": game_out[:, P.GAME_WINNERS].astype(np.int8),
            "winner_policy": _labels_or_tie(config, winner_player),
            "first_policy": _policy_column(config, rotation % n_players),
            "cube_blocks_left": game_out[:, P.GAME_CUBE_LEFT].astype(np.int16),
            "tiles_left": game_out[:, P.GAME_TILES_LEFT].astype(np.int16),
            "tokens_left": game_out[:, P.GAME_TOKENS_LEFT].astype(np.int16),
        }
    )
    return seats_df, games_df


def _unique(values):
    return list(dict.fromkeys(values))


def _policy_column(config: GameConfig, players: np.ndarray) -> pd.Categorical:
    categories = _unique(config.labels)
    code_of_player = np.array([categories.index(label) for label in config.labels])
    return pd.Categorical.from_codes(code_of_player[players], categories)


def _labels_or_tie(config: GameConfig, players: np.ndarray) -> pd.Categorical:
    categories = _unique(config.labels) + ["tie"]
    code_of_player = np.array([categories.index(label) for label in config.labels])
    codes = np.where(players >= 0, code_of_player[np.maximum(players, 0)], len(categories) - 1)
    return pd.Categorical.from_codes(codes, categories)
