"""A deliberately tiny third game, registered only in the test suite: a dice race.

It proves that a game needs one module implementing :mod:`bnb_sim.core.protocol` and one
registration line (``register_game(GAME)``, in ``tests/conftest.py``) to be served by
``bnb simulate``, ``report``, ``compare``, ``tournament``, ``sweep``, ``tune``, ``run`` and
``play`` (told from its step-by-step game's event log).

Rules: 2-4 players race to ``goal`` points (20). On a turn the player chooses to roll one
die or two; if any die shows 1 the turn scores nothing, else the sum is added. The first
to reach the goal wins. Seats rotate: player ``p`` sits in seat ``(p + g) % P`` in game
``g`` and seat 0 moves first, so seat effects cancel. Policies: ``steady`` (one die),
``bold`` (two dice), ``random`` (either, at random) and ``mix:bold=P`` (two dice with
probability P: the parameter ``bnb tune policy`` searches, through the protocol's
``policy_params`` and ``policy_spec`` hooks). Component files (``--components``) set
``goal`` and ``sides``.

The cooperative variant, the dice team (``DiceTeam``), exercises the shared code's other
branch: the players roll for one team, which wins if its points together reach the goal
within ``2 * players`` turns.

Randomness is a pure function of (seed, game index): one dice stream and one policy
stream per seat (``numpy.random.default_rng([seed, game, seat, stream])``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from bnb_sim.core.protocol import OptionSpec, PolicyParam, ReportSection
from bnb_sim.errors import SpecError
from bnb_sim.toml_files import read_toml

POLICIES = ("steady", "bold", "random")
MIX = "mix"  # mix:bold=P, two dice with probability P (default 0.5)
COMPONENTS = {"goal": 1, "sides": 2}  # component keys and their least values


def mix_share(policy: str) -> float | None:
    """The two-dice probability of a ``mix`` spec (None for another policy); SpecError
    for a bad one."""
    family, _, params = policy.strip().partition(":")
    if family != MIX:
        return None
    name, eq, value = params.partition("=")
    if params and (not eq or name.strip() != "bold"):
        raise SpecError(f"dice race: policy {policy!r}: expected mix:bold=P")
    try:
        share = float(value) if params else 0.5
    except ValueError:
        raise SpecError(f"dice race: policy {policy!r}: {value!r} is not a number") from None
    if not 0.0 <= share <= 1.0:
        raise SpecError(f"dice race: policy {policy!r}: bold must be in [0, 1]")
    return share


DICE, POLICY = 0, 1  # stream numbers
MAX_TURNS = 1000


@dataclass
class DiceConfig:
    n_players: int
    policies: tuple[str, ...]
    seed: int
    goal: int
    sides: int
    game: str = "dice_race"
    team: bool = False

    @property
    def labels(self) -> list[str]:
        return list(self.policies)

    def identity(self) -> dict:
        return {"policies": list(self.policies), "goal": self.goal, "sides": self.sides}


@dataclass
class DiceGame:
    """The step API: ``legal_actions`` (1 or 2 dice), ``apply_action``, ``is_over``..."""

    config: DiceConfig
    index: int
    turn: int = 0
    points: list[int] = field(default_factory=list)
    log: list[str] = field(default_factory=list)

    def __post_init__(self):
        c = self.config
        self.points = [0] * c.n_players
        self.dice = [
            np.random.default_rng([c.seed, self.index, s, DICE]) for s in range(c.n_players)
        ]
        self.choice = [
            np.random.default_rng([c.seed, self.index, s, POLICY]) for s in range(c.n_players)
        ]

    @property
    def current_seat(self) -> int:  # the seat to move
        return self.turn % self.config.n_players

    def player_of_seat(self, seat: int) -> int:
        return (seat - self.index) % self.config.n_players

    def is_over(self) -> bool:
        if self.config.team:
            limit = 2 * self.config.n_players
            return sum(self.points) >= self.config.goal or self.turn >= limit
        return max(self.points) >= self.config.goal or self.turn >= MAX_TURNS

    def legal_actions(self) -> list[int]:
        return [] if self.is_over() else [1, 2]

    def policy_action(self) -> int:
        seat = self.current_seat
        policy = self.config.policies[self.player_of_seat(seat)]
        if policy == "random":
            return int(self.choice[seat].integers(1, 3))
        share = mix_share(policy)
        if share is not None:
            return 2 if self.choice[seat].random() < share else 1
        return 1 if policy == "steady" else 2

    def apply_action(self, action: int) -> list[dict]:
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action} (legal: {self.legal_actions()})")
        seat = self.current_seat
        faces = self.dice[seat].integers(1, self.config.sides + 1, size=action)
        gain = 0 if (faces == 1).any() else int(faces.sum())
        self.points[seat] += gain
        self.turn += 1
        event = {"seat": seat, "dice": faces.tolist(), "gain": gain}
        self.log.append(f"seat {seat} rolls {faces.tolist()}: +{gain} -> {self.points[seat]}")
        return [event]

    def play(self) -> DiceGame:
        while not self.is_over():
            self.apply_action(self.policy_action())
        return self

    def winner(self) -> int:
        """The winning seat (-1: none; the team's games: -1 or 0 for a team win)."""
        if self.config.team:
            return 0 if sum(self.points) >= self.config.goal else -1
        return int(np.argmax(self.points)) if max(self.points) >= self.config.goal else -1

    def won(self, seat: int) -> bool:
        return self.winner() >= 0 if self.config.team else seat == self.winner()

    def result(self) -> list[dict]:
        return [
            {"seat": s, "player": self.player_of_seat(s), "points": p, "won": self.won(s)}
            for s, p in enumerate(self.points)
        ]

    def events(self) -> list[str]:
        return list(self.log)


class DiceRace:
    name = "dice_race"
    title = "Dice race"
    aliases = ("dice",)
    outcome = "competitive"
    default_policy = "steady"
    options = (OptionSpec("goal", "Points to win (default: the components' goal).", kind="int"),)

    def load_components(self, paths) -> dict:
        out = {"goal": 20, "sides": 6}
        for path in paths:  # each file's keys over the ones before
            for key, value in read_toml(path).items():
                if key not in COMPONENTS:
                    raise SpecError(
                        f"{path}: {key}: not a dice race component ({', '.join(COMPONENTS)})"
                    )
                if not isinstance(value, int) or isinstance(value, bool) or value < COMPONENTS[key]:
                    raise SpecError(f"{path}: {key}: a whole number of at least {COMPONENTS[key]}")
                out[key] = value
        return out

    def make_config(self, components, *, players, policies, seed, options) -> DiceConfig:
        policies = list(policies) or [self.default_policy]
        unknown = [p for p in policies if p not in POLICIES and mix_share(p) is None]
        if unknown:
            raise SpecError(f"dice race: unknown policy {unknown[0]!r} ({', '.join(POLICIES)})")
        n = int(players or (len(policies) if len(policies) > 1 else 2))
        if not 2 <= n <= 4:
            raise SpecError(f"dice race: 2 to 4 players, got {n}")
        goal = int(options.get("goal") or components["goal"])
        labels = tuple(policies[p % len(policies)] for p in range(n))
        for key, least in COMPONENTS.items():  # a value set by sweep or tune, checked here
            value = components[key]
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise SpecError(f"dice race: {key} must be a whole number of at least {least}")
        team = self.outcome == "cooperative"
        return DiceConfig(n, labels, int(seed), goal, int(components["sides"]), self.name, team)

    def policy_names(self):
        return (*POLICIES, "mix:bold=0.5")

    def policy_params(self, spec: str):
        """``bnb tune policy``: the two-dice probability of ``mix:bold=P``."""
        share = mix_share(spec)
        if share is None:
            raise SpecError(f"dice race: policy {spec!r} has no parameters to tune (mix:bold=P)")
        return MIX, [PolicyParam("bold", share, 0.0, 1.0)]

    def policy_spec(self, family: str, values) -> str:
        return f"{family}:bold={float(values['bold'])!r}"

    def new_game(self, config: DiceConfig, game_index: int) -> DiceGame:
        return DiceGame(config, int(game_index))

    def play_block(self, config: DiceConfig, start: int, n: int, threads=None):
        seat_rows, game_rows = [], []
        for g in range(start, start + n):
            played = self.new_game(config, g).play()
            for row in played.result():
                policy = config.policies[row["player"]]
                seat_rows.append({"game": g, **row, "policy": policy, "turns": played.turn})
            game_rows.append({"game": g, "n_players": config.n_players,
                              "winner_seat": played.winner(), "turns": played.turn})  # fmt: skip
        seats = pd.DataFrame(seat_rows).astype(
            {"seat": "int8", "player": "int8", "points": "int16", "turns": "int16"}
        )
        games = pd.DataFrame(game_rows).astype(
            {"n_players": "int8", "winner_seat": "int8", "turns": "int16"}
        )
        return seats, games

    def columns(self, config=None):
        seats = {"game": "int64", "seat": "int8", "player": "int8", "policy": "string",
                 "won": "bool", "points": "int16", "turns": "int16"}  # fmt: skip
        games = {"game": "int64", "n_players": "int8", "winner_seat": "int8", "turns": "int16"}
        return seats, games

    def report_sections(self, seats, games, meta):
        turns = games["turns"].to_numpy()
        rows = ({"statistic": "mean turns", "value": f"{turns.mean():.2f}"},
                {"statistic": "longest race", "value": int(turns.max())})  # fmt: skip
        return [ReportSection("Race length", ("Turns until someone reached the goal.",),
                              (("", rows),), {"mean_turns": float(turns.mean())})]  # fmt: skip


class DiceTeam(DiceRace):
    name = "dice_team"
    title = "Dice team"
    aliases = ()
    outcome = "cooperative"


GAME = DiceRace()
TEAM_GAME = DiceTeam()
