"""Synthetic run directories with a KNOWN truth, for storage and report tests (no engine).

The frames follow ``docs/run-format.md`` column for column and dtype for dtype, but the
numbers come from a simple random model whose expectations are known exactly:

* Seating rotates: in game ``g`` player ``j`` sits at seat ``(j + g) % N``.
* Winner: one seat per game, drawn with probability proportional to
  ``seat_weight[seat] * strength[policy]``; with probability ``tie_rate`` the next seat
  ``(w + 1) % N`` wins too (a shared win, ``winners == 2``, ``winner_policy == "tie"``).
  With equal strengths seat 0 would win exactly ``0.30 + 0.04 * 0.20 = 0.308``; the default
  strengths (heuristic 1.5, greedy 1.0, random 0.75) make the policies differ as well.
* XP: every ``xp_<source>`` is Poisson with mean ``XP_MEANS[source] * xp_scale[policy]``
  (``xp`` is their sum), independent of winning.
* Fights: ``fights_<mob>`` ~ Poisson(``FIGHT_RATE[mob]``), ``wins_<mob>`` ~
  Binomial(fights, ``FIGHT_WIN[mob]``), ``defeated_<mob> = wins_<mob>``; ``built_<type>`` ~
  Poisson(1.5). All independent of winning, so the win rate given "owns a mob/building" is
  the plain per-seat win rate ``(1 + tie_rate) / N``.
* Scoring choices: ``choice_a/b/c`` are drawn from ``CHOICE_SHARES[policy]`` (the same shares
  for every round) over that round's characteristic values (round C: ``spec.building_types``,
  the shares cut to their number and renormalised).
* Boards rotate independently of seats, so every board wins ``(1 + tie_rate) / N``.

:func:`truth` returns these expectations, computed exactly for the games generated (the
rotation counts included). Tests check that the report's 95% intervals contain them; the
seeds are fixed, so the tests are deterministic.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from bnb_sim.runner.storage import RunWriter

MOBS = ("spider", "zombie", "skeleton", "creeper", "witch", "enderman")
BUILDING_TYPES = ("decoration", "dwelling", "animal_house", "bridge")
CHARACTERISTICS = {
    "a": ("forest", "desert", "mountains", "snowy_tundra"),
    "b": ("wood", "sand", "stone", "obsidian"),
    "c": BUILDING_TYPES,
}
BOARDS = ("red", "blue", "green", "yellow")
XP_MEANS = {
    "xp_buildings": 12.0,
    "xp_mobs": 8.0,
    "xp_hoes": 1.0,
    "xp_round_a": 6.0,
    "xp_round_b": 7.0,
    "xp_round_c": 8.0,
    "xp_bonus_mobs": 4.0,
}
FIGHT_RATE = dict(zip(MOBS, (0.8, 0.6, 0.7, 0.6, 0.4, 0.3), strict=True))
FIGHT_WIN = dict(zip(MOBS, (0.9, 0.75, 0.6, 0.45, 0.35, 0.25), strict=True))
CHOICE_SHARES = {
    "heuristic": (0.4, 0.3, 0.2, 0.1),
    "greedy": (0.1, 0.2, 0.3, 0.4),
    "random": (0.25, 0.25, 0.25, 0.25),
}
ESTIMATED_KEYS = tuple(f"mobs.{m}.hearts" for m in MOBS) + (
    "weapons.iron_sword.hearts",
    "weapons.diamond_sword.hearts",
    "scoring.a.values.forest",
    "boards.red.spaces",
)


@dataclass(frozen=True)
class FakeSpec:
    """What to generate; the defaults make a 4-player run of 4,000 games in 4 parts."""

    n_games: int = 4000
    policies: tuple[str, ...] = ("heuristic", "greedy", "random", "random")
    seat_weight: tuple[float, ...] = (0.30, 0.26, 0.24, 0.20)
    strength: dict[str, float] = field(  # a label not listed: 1.0
        default_factory=lambda: {"heuristic": 1.5, "greedy": 1.0, "random": 0.75}
    )
    xp_scale: dict[str, float] = field(
        default_factory=lambda: {"heuristic": 1.2, "greedy": 1.0, "random": 0.7}
    )
    tie_rate: float = 0.04
    chunk_size: int = 1000
    seed: int = 0
    estimated_values: int = 120  # 0: a run on fully known components (no warning)
    status: str = "complete"
    mobs: tuple[str, ...] = MOBS
    building_types: tuple[str, ...] = BUILDING_TYPES

    @property
    def n_players(self) -> int:
        return len(self.policies)

    def replace(self, **changes) -> FakeSpec:
        return dataclasses.replace(self, **changes)


def _seat_policies(spec: FakeSpec) -> np.ndarray:
    """[rotation, seat] -> player index sitting there."""
    n = spec.n_players
    return (np.arange(n)[None, :] - np.arange(n)[:, None]) % n


def _win_probs(spec: FakeSpec) -> np.ndarray:
    """[rotation, seat] -> probability that the seat is the (first) winner."""
    players = _seat_policies(spec)
    strength = np.array([spec.strength.get(p, 1.0) for p in spec.policies])
    w = np.asarray(spec.seat_weight)[None, :] * strength[players]
    return w / w.sum(axis=1, keepdims=True)


@dataclass
class FakeTruth:
    """Expected values of the statistics the report shows (see the module docstring)."""

    n_games: int
    seat_win: dict[int, float]
    policy_win: dict[str, float]
    policy_seat_win: dict[tuple[str, int], float]
    tie_rate: float
    balance: float  # 1 - largest gap between seat win rates
    overall_seat_row_win: float  # (1 + tie_rate) / N: boards, "owns X" rows
    xp_mean: dict[str, float]
    fight_win: dict[str, float]
    choice_share: dict[str, dict[str, float]]  # policy -> round-a value -> share
    estimated_values: int


def truth(spec: FakeSpec) -> FakeTruth:
    n = spec.n_players
    p = _win_probs(spec)
    p_win = p + spec.tie_rate * np.roll(p, 1, axis=1)  # seat s also wins after s-1 won
    rot_count = np.bincount(np.arange(spec.n_games) % n, minlength=n).astype(float)
    rot_share = rot_count / rot_count.sum()
    seat_win = {s: float(rot_share @ p_win[:, s]) for s in range(n)}
    players = _seat_policies(spec)
    labels = np.asarray(spec.policies)[players]  # [rotation, seat] -> policy label
    policy_win, policy_seat_win = {}, {}
    for label in dict.fromkeys(spec.policies):
        mask = labels == label
        weights = rot_share[:, None] * mask
        policy_win[label] = float((weights * p_win).sum() / weights.sum())
        for s in range(n):
            w = weights[:, s]
            if w.sum() > 0:
                policy_seat_win[(label, s)] = float((w * p_win[:, s]).sum() / w.sum())
    rates = np.array(list(seat_win.values()))
    total = sum(XP_MEANS.values())
    return FakeTruth(
        n_games=spec.n_games,
        seat_win=seat_win,
        policy_win=policy_win,
        policy_seat_win=policy_seat_win,
        tie_rate=spec.tie_rate,
        balance=float(1 - (rates.max() - rates.min())),
        overall_seat_row_win=(1 + spec.tie_rate) / n,
        xp_mean={p: total * spec.xp_scale.get(p, 1.0) for p in dict.fromkeys(spec.policies)},
        fight_win={m: FIGHT_WIN.get(m, 0.5) for m in spec.mobs},
        choice_share={
            p: dict(
                zip(
                    CHARACTERISTICS["a"], CHOICE_SHARES.get(p, CHOICE_SHARES["random"]), strict=True
                )
            )
            for p in dict.fromkeys(spec.policies)
        },
        estimated_values=spec.estimated_values,
    )


def _draw(rng: np.random.Generator, probs: np.ndarray) -> np.ndarray:
    """One categorical draw per row of ``probs`` [rows, k] -> index in 0..k-1."""
    cum = np.cumsum(probs, axis=1)
    u = rng.random(len(probs))[:, None]
    return np.minimum((u > cum).sum(axis=1), probs.shape[1] - 1)


def make_frames(spec: FakeSpec) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``(seats, games)`` frames of the whole run, schema-exact, vectorised."""
    rng = np.random.default_rng(spec.seed)
    n, g = spec.n_players, spec.n_games
    game = np.arange(g, dtype=np.int64)
    rot = game % n
    player = _seat_policies(spec)[rot]  # [game, seat]
    labels = np.asarray(spec.policies, dtype=object)
    policy = labels[player]

    first = _draw(rng, _win_probs(spec)[rot])
    tie = rng.random(g) < spec.tie_rate
    won = np.zeros((g, n), dtype=bool)
    won[game, first] = True
    won[game[tie], (first[tie] + 1) % n] = True
    winners = won.sum(axis=1)
    keys = np.where(won, -1.0, rng.random((g, n)))
    rank = np.empty((g, n), dtype=np.int8)
    np.put_along_axis(rank, np.argsort(keys, axis=1), np.arange(1, n + 1, dtype=np.int8), 1)
    rank[won] = 1

    rows = g * n
    flat_policy = policy.ravel()
    cols: dict[str, np.ndarray] = {
        "game": np.repeat(game, n),
        "seat": np.tile(np.arange(n, dtype=np.int8), g),
        "player": player.ravel().astype(np.int8),
        "policy": flat_policy,
        "n_players": np.full(rows, n, dtype=np.int8),
        "board": np.asarray(BOARDS, dtype=object)[
            ((np.arange(n)[None, :] + (game // n)[:, None]) % n).ravel() % len(BOARDS)
        ],
    }
    xp_scale = np.vectorize(lambda p: spec.xp_scale.get(p, 1.0), otypes=[float])(labels)
    scale = xp_scale[player.ravel()]
    xp_parts = {k: rng.poisson(m * scale).astype(np.int32) for k, m in XP_MEANS.items()}
    cols["xp"] = np.sum(list(xp_parts.values()), axis=0).astype(np.int32)
    cols.update(xp_parts)

    fights = {m: rng.poisson(FIGHT_RATE.get(m, 0.5), rows).astype(np.int16) for m in spec.mobs}
    wins = {m: rng.binomial(fights[m], FIGHT_WIN.get(m, 0.5)).astype(np.int16) for m in spec.mobs}
    built = {t: rng.poisson(1.5, rows).astype(np.int16) for t in spec.building_types}
    built_sum = np.sum(list(built.values()), axis=0)

    def small(lam):
        return rng.poisson(lam, rows).astype(np.int16)

    cols["blocks_left"] = small(3)
    cols["mobs_defeated"] = np.sum(list(wins.values()), axis=0).astype(np.int16)
    cols["buildings_built"] = (built_sum + small(1)).astype(np.int16)
    cols["weapons_taken"] = small(2)
    cols["fights"] = np.sum(list(fights.values()), axis=0).astype(np.int16)
    cols["fights_won"] = cols["mobs_defeated"].copy()
    cols["tnt_detonated"] = small(0.3)
    cols["hunger_spent"] = small(0.8)
    share = np.array([CHOICE_SHARES.get(p, CHOICE_SHARES["random"]) for p in labels])
    for rnd, values in CHARACTERISTICS.items():
        if rnd == "c":  # round C scores building types: follow the spec's types
            values = spec.building_types
        probs = share[:, : len(values)] / share[:, : len(values)].sum(axis=1, keepdims=True)
        pick = _draw(rng, probs[player.ravel()])
        cols[f"choice_{rnd}"] = np.asarray(values, dtype=object)[pick]
    cols["rank"] = rank.ravel()
    cols["won"] = won.ravel()
    # XP totals right after rounds A and B: a share of the XP earned in play, plus the round
    # (derived, no draws, so the other columns and their known truth stay as they were)
    in_play = (xp_parts["xp_buildings"] + xp_parts["xp_mobs"]) // 3
    cols["total_xp_after_a"] = (xp_parts["xp_round_a"] + in_play).astype(np.int16)
    cols["total_xp_after_b"] = (cols["total_xp_after_a"] + xp_parts["xp_round_b"] + in_play).astype(
        np.int16
    )
    per_seat = 12 + rng.poisson(6, g)
    extra = rng.integers(0, n, g)
    turns = per_seat[:, None] + (np.arange(n)[None, :] < extra[:, None])
    cols["turns"] = turns.ravel().astype(np.int16)
    for m in spec.mobs:
        cols[f"fights_{m}"] = fights[m]
        cols[f"wins_{m}"] = wins[m]
    for m in spec.mobs:
        cols[f"defeated_{m}"] = wins[m]
    for t in spec.building_types:
        cols[f"built_{t}"] = built[t]
    seats = pd.DataFrame(cols)

    total_turns = turns.sum(axis=1)
    first_winner_policy = policy[game, first]
    games = pd.DataFrame(
        {
            "game": game,
            "n_players": np.full(g, n, dtype=np.int8),
            "turns": total_turns.astype(np.int16),
            "round_a_turn": (total_turns * 0.3).astype(np.int16),
            "round_b_turn": (total_turns * 0.6).astype(np.int16),
            "round_c_turn": total_turns.astype(np.int16),
            "winners": winners.astype(np.int8),
            "winner_policy": np.where(winners > 1, "tie", first_winner_policy).astype(object),
            "first_policy": policy[:, 0],
            "cube_blocks_left": rng.poisson(4, g).astype(np.int16),
            "tiles_left": rng.poisson(10, g).astype(np.int16),
            "tokens_left": rng.poisson(5, g).astype(np.int16),
        }
    )
    return seats, games


def make_meta(spec: FakeSpec) -> dict:
    """A ``run.json`` dict as ``bnb simulate`` writes it (values are made up)."""
    n_parts = -(-spec.n_games // spec.chunk_size)
    keys = [ESTIMATED_KEYS[i % len(ESTIMATED_KEYS)] for i in range(spec.estimated_values)]
    return {
        "format": 1,
        "kind": "simulate",
        "status": "partial",
        "command": f"bnb simulate --games {spec.n_games} --policies {','.join(spec.policies)}",
        "params": {
            "games": spec.n_games,
            "players": spec.n_players,
            "policies": list(spec.policies),
            "seed": spec.seed,
            "chunk_size": spec.chunk_size,
            "threads": 2,
            "variant": "standard",
            "seating": "rotate",
            "dask": None,
        },
        "components": {
            "source": "default",
            "content_hash": "sha256:fake0123456789abcdef",
            "estimated_values": spec.estimated_values,
            "estimated_keys": list(dict.fromkeys(keys)),
            "data": {},
        },
        "versions": {"bnb_sim": "0.1.0", "python": "3.11", "numba": "fake"},
        "machine": {"platform": "fake", "cpu": "fake", "cores": 2},
        "timing": {"started": "2025-01-01T00:00:00", "finished": "2025-01-01T00:00:10"},
        "parts": n_parts,
    }


def write_fake_run(path: str | Path, spec: FakeSpec | None = None, **changes) -> FakeTruth:
    """Write a fake run directory (through :class:`RunWriter`) and return its truth.

    ``spec.status == "partial"`` leaves the last part out and the status partial.
    """
    spec = (spec or FakeSpec()).replace(**changes)
    seats, games = make_frames(spec)
    meta = make_meta(spec)
    n, cs = spec.n_players, spec.chunk_size
    n_parts = meta["parts"]
    last = n_parts - 1 if spec.status == "partial" else n_parts
    with RunWriter(path) as writer:
        writer.write_meta(meta)
        for k in range(last):
            lo, hi = k * cs, min((k + 1) * cs, spec.n_games)
            writer.write_part(
                k,
                seats.iloc[lo * n : hi * n].reset_index(drop=True),
                games.iloc[lo:hi].reset_index(drop=True),
            )
        if spec.status == "complete":
            writer.finish()
        else:
            writer.flush()
    return truth(spec)
