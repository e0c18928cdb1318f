"""One Heroes of the Village game at a time, in the OpenSpiel spirit, with the methods of the
base game's :class:`bnb_sim.games.builders_biomes.game.Game`::

    import bnb_sim
    game = bnb_sim.new_game(game="hotv", seed=1, players=3, policies=["team"],
                            pets=["wolf", "cat", "fox"])
    while not game.is_over():
        action = game.policy_action()          # or pick any of game.legal_actions()
        game.apply_action(action)              # the events it caused, as dicts
    game.result()                              # one dict per seat (won: the team's result)
    print("\\n".join(game.events()))           # the game told as ``bnb play --game hotv``

A step is one decision of the seat to move, as the engine's own loop takes them: a main
action (explore, collect, fight, build, pass; R-HV-2), a free discard (R-HV-7), or the
optional rest of an action (roll again or stop a fight, R-HV-6; hand in to one more building,
R-HV-7; the Horse's next tile, R-HV-9; which drawn block to keep). Tiles laid for free
(R-HV-3) and the Illagers die at the end of a turn (R-HV-8) are no decisions: they happen
inside the step that leads to them. The players are one team (cooperative), so every seat's
row carries the same ``won``.

The kernels are the batch engine's own (``setup_game``, ``free_lay``, ``legal_mask``,
``decide``, ``apply_action``, ``write_rows``), called in the order its game loop calls them, so
a game played here is identical to game ``game_index`` of a batch (``bnb simulate --game
hotv``) with the same seed, players, policies, pets and options: same decisions, same dice,
same rows (:meth:`HotvGame.result_frames`).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bnb_sim import _args
from bnb_sim.errors import ArgumentTypeError, BnbError, PolicyError, SpecError
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village.describe import EVENT_NAMES, action_text, event_line
from bnb_sim.games.heroes_village.runner import GameFailed, HotvConfig, make_config, pet_codes

if TYPE_CHECKING:
    import pandas as pd

PHASE_NAMES = {
    L.PH_ACTION: "action",
    L.PH_PICK: "pick",
    L.PH_OVER: "over",
    L.PH_FIGHT: "fight",
    L.PH_BUILD: "build",
    L.PH_HORSE: "horse",
}
PHASE_LABELS = {
    "action": "choose an action (explore, collect, fight, build) or discard a block",
    "pick": "keep one of the drawn blocks (or none)",
    "fight": "roll the Fight die again or stop the fight",
    "build": "hand in to one more building or stop",
    "horse": "lay the Horse's next tile or decline it",
    "over": "game over",
}
#: event rows the log holds between two steps (one step writes a few dozen at most)
LOG_ROWS = 4096


class HotvGame:
    """A Heroes of the Village game in progress; wraps the engine's arrays (``s``, ``rng``)."""

    def __init__(self, config: HotvConfig, game_index: int, *, log: bool = True):
        from bnb_sim.games.heroes_village.bots import B_SIZE
        from bnb_sim.games.heroes_village.engine import setup_game
        from bnb_sim.games.heroes_village.policies import PLUGIN

        if not isinstance(config, HotvConfig):
            raise ArgumentTypeError(
                f"config must be a HotvConfig, got {type(config).__name__} (or use new_game)"
            )
        if len(config.teams) != 1:
            raise SpecError("a game has one pet team; give the pets (e.g. wolf,cat,fox), not all")
        self.config = config
        self.game_index = _args.integer(game_index, "game index", 0, 2**62 - 1)
        self.team = tuple(config.teams[0])
        self._k, self._kf, self._kinds, self._params, self._plugins = config.arrays()
        self._s = np.zeros(L.S_SIZE, np.int64)
        self._rng = np.zeros((L.N_STREAMS, 4), np.uint64)
        self._mask = np.zeros(L.N_ACTIONS, np.bool_)
        self._buf = np.zeros(B_SIZE, np.float64)
        any_plugin = bool((self._kinds == PLUGIN).any())
        self._obs = np.zeros(L.S_SIZE if any_plugin else 1, np.int64)
        self._mem = np.zeros((L.MAX_PLAYERS, L.PLUGIN_MEM), np.float64)
        self._log = np.zeros((LOG_ROWS if log else 0, L.LOG_WIDTH), np.int64)
        self.history: list[tuple[int, int, int]] = []  # (seat, phase, action)
        self.log: list[dict] = []  # every event so far, decoded (empty with log=False)
        setup_game(self._s, self._k, self._rng, pet_codes(self.team), config.master,
                   self.game_index, config.n_players, self._log)  # fmt: skip
        self._drain_events()
        self._next_decision()

    # ---- the decision loop of play.run_game, one decision at a time ---------------------
    def _next_decision(self) -> None:
        """What the batch loop does before each decision: the turn limit, the free tiles of
        R-HV-3, the legal decisions of the seat to move."""
        from bnb_sim.games.heroes_village.engine import free_lay, legal_mask

        s, k = self._s, self._k
        if s[L.S_PHASE] == L.PH_OVER:
            self._mask[:] = False
            return
        if s[L.S_TURN] >= k[L.K_MAX_TURNS]:
            s[L.S_STATUS] = L.ST_TURN_LIMIT
            raise GameFailed(f"game {self.game_index} did not end within {k[L.K_MAX_TURNS]} turns")
        if s[L.S_PHASE] == L.PH_ACTION:
            free_lay(s, k, self._log)
        legal_mask(s, k, self._mask)

    def _drain_events(self) -> list[dict]:
        """Move the kernel's event rows into :attr:`log` (decoded); the new ones."""
        n = int(self._log[0, 0]) if self._log.shape[0] else 0
        if n == 0:
            return []
        chosen = self._chosen()
        new = []
        for row in self._log[1 : n + 1].tolist():
            kind, turn, seat, a, b, c = row
            line = event_line(self.config.components, self.config.labels, self.team, chosen, row)
            event = {"turn": turn, "seat": seat, "event": EVENT_NAMES.get(kind, f"event{kind}")}
            new.append({**event, "a": a, "b": b, "c": c, "text": line.strip(), "line": line})
        self._log[0, 0] = 0
        self.log.extend(new)
        return new

    def _chosen(self) -> list[int]:
        return [int(b) for b in self._s[L.S_CHOSEN : L.S_CHOSEN + len(self.config.chosen)]]

    # ---- OpenSpiel-like vocabulary ------------------------------------------------------
    @property
    def n_players(self) -> int:
        return self.config.n_players

    @property
    def current_seat(self) -> int:
        """The seat to decide (seats are players: Heroes of the Village has no rotation)."""
        return int(self._s[L.S_SEAT])

    @property
    def phase(self) -> str:
        return PHASE_NAMES[int(self._s[L.S_PHASE])]

    def _seat(self, seat) -> int:
        return _args.integer(seat, "seat", 0, self.n_players - 1)

    def policy_of_seat(self, seat: int):
        return self.config.seats[self._seat(seat)]

    def pet_of_seat(self, seat: int) -> str:
        return self.team[self._seat(seat)]

    def is_over(self) -> bool:
        return self.phase == "over"

    def legal_action_mask(self) -> np.ndarray:
        """bool[N_ACTIONS]: which decisions are legal now (``layout.A_*`` says what each is)."""
        return self._mask.copy()

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self._mask)]

    def action_to_string(self, action: int) -> str:
        """What ``action`` means now: ``"collect on forest #3 (wood)"``, ``"stop the fight
        (the mob stays)"``..."""
        action = _args.integer(action, "action", 0, L.N_ACTIONS - 1)
        return action_text(self.config.components, self._chosen(), int(self._s[L.S_PHASE]), action)

    def apply_action(self, action: int) -> list[dict]:
        """Carry out a legal decision of the current seat; returns the events it caused (the
        tiles laid for free and the Illagers die that follow it included)."""
        from bnb_sim.games.heroes_village.engine import apply_action

        if self.is_over():
            raise BnbError("the game is over")
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise BnbError(f"an action is an integer, got {action!r}")
        if not 0 <= int(action) < L.N_ACTIONS or not self._mask[int(action)]:
            raise BnbError(
                f"action {action} is not legal in phase '{self.phase}' "
                f"(legal: {self.legal_actions()})"
            )
        self.history.append((self.current_seat, int(self._s[L.S_PHASE]), int(action)))
        apply_action(self._s, self._k, self._rng, int(action), self._log)
        self._check()
        self._next_decision()
        return self._drain_events()

    def _check(self) -> None:
        from bnb_sim.games.heroes_village.invariants import INVARIANT_MESSAGES, check_invariants

        k = self._k
        if k[L.K_CHECK]:
            code = check_invariants(self._s, k, k[L.K_MOBS_REUSED] == 1)
            if code != 0:
                self._s[L.S_STATUS] = L.ST_INVARIANT
                raise GameFailed(
                    f"game {self.game_index}: invariant broken: {INVARIANT_MESSAGES[code]}"
                )

    def policy_action(self) -> int:
        """The decision the current seat's policy makes now (it consumes the seat's random
        stream, as in a batch run)."""
        from bnb_sim.games.heroes_village.bots import decide
        from bnb_sim.plugins import PLUGIN_RAISED

        if self.is_over():
            raise BnbError("the game is over")
        seat = self.current_seat
        is_plugin = self.config.seats[seat].plugin is not None
        before = (self._rng.copy(), self._mem[seat].copy()) if is_plugin else None
        action = decide(self._kinds[seat], self._params[seat], self._plugins[seat], self._s,
                        self._k, self._kf, self._mask.copy(), self._rng, seat, self._buf,
                        self._obs, self._mem[seat])  # fmt: skip
        if is_plugin and action == PLUGIN_RAISED:
            self._rng[:], self._mem[seat] = before
            self._raise_plugin_error(seat)
        if not 0 <= action < L.N_ACTIONS or not self._mask[action]:
            raise PolicyError(
                f"policy '{self.config.seats[seat].label}' (seat {seat}) made an illegal "
                f"decision {action} in game {self.game_index} (phase {self.phase})"
            )
        return int(action)

    def _raise_plugin_error(self, seat: int) -> None:
        """Call the plugin of ``seat`` again from Python on what it raised on: numba re-raises
        the exception there with its message (a cfunc cannot pass it on)."""
        from bnb_sim.games.heroes_village.bots import observe
        from bnb_sim.games.heroes_village.policies import load_plugin
        from bnb_sim.plugins import first_line, plugin_dispatcher

        policy = self.config.seats[seat]
        obs = np.zeros(L.S_SIZE, np.int64)
        observe(self._s, self._k, obs)
        decide = plugin_dispatcher(policy.plugin, load_plugin(policy.plugin))
        where = f"policy plugin '{policy.plugin}' (seat {seat}) in game {self.game_index}"
        try:
            decide(obs, self._mask.copy(), self._k, self._rng[L.RNG_POLICY + seat].copy(),
                   self._params[seat].copy(), self._mem[seat].copy())  # fmt: skip
        except Exception as exc:
            raise PolicyError(f"{where} raised {first_line(exc)}") from None
        raise PolicyError(f"{where} raised an exception inside the kernel")

    def play(self, max_decisions: int = 100_000) -> HotvGame:
        """Let the policies play to the end (or raise after ``max_decisions``)."""
        max_decisions = _args.integer(max_decisions, "max_decisions", 1, 10**8)
        for _ in range(max_decisions):
            if self.is_over():
                return self
            self.apply_action(self.policy_action())
        if self.is_over():
            return self
        raise BnbError(f"game {self.game_index} did not end within {max_decisions} decisions")

    def clone(self) -> HotvGame:
        """An independent copy (state, random streams, plugin memory, history): playing on
        the copy leaves this game as it was; both go on exactly alike."""
        other = copy.copy(self)  # shares the config and the read-only kernel inputs
        for name in ("_s", "_rng", "_mask", "_buf", "_obs", "_mem", "_log"):
            setattr(other, name, getattr(self, name).copy())
        other.history = list(self.history)
        other.log = [dict(e) for e in self.log]
        return other

    # ---- what the table shows -----------------------------------------------------------
    def observation(self, seat: int | None = None) -> np.ndarray:
        """The state as the players see it (``layout.S_*`` slots; face-down tiles and mob
        tokens are -1). The players are one team and hide nothing from each other, so every
        seat sees the same; ``seat`` is checked only."""
        from bnb_sim.games.heroes_village.bots import observe

        if seat is not None:
            self._seat(seat)
        obs = np.zeros(L.S_SIZE, np.int64)
        observe(self._s, self._k, obs)
        return obs

    def events(self) -> list[str]:
        """The game so far as readable lines, as ``bnb play --game hotv`` prints them."""
        if self._log.shape[0] == 0:
            raise BnbError("this game keeps no event log (it was made with log=False)")
        return [e["line"] for e in self.log if e["line"]]

    def summary(self) -> list[str]:
        """The state in a few lines: Illager, buildings, pouch, hands, mobs on the tiles."""
        from bnb_sim.games.heroes_village.describe import block_text, building_text, tile_text

        s, comps = self._s, self.config.components
        chosen = self._chosen()
        laid = [t for t in range(int(self._k[L.K_N_TILES])) if s[L.S_TILE_LAID + t] >= 0]
        lines = [
            f"Illager on space {int(s[L.S_ILLAGER])}; turn {int(s[L.S_TURN]) + 1}; "
            f"buildings complete {int(s[L.S_BUILT])} of {len(chosen)}; "
            f"tiles laid {len(laid)}",
            "  pouch: " + block_text(s[L.S_POUCH : L.S_POUCH + L.N_BLOCKS]),
        ]
        for j in range(len(chosen)):
            need = s[L.S_NEED + j * L.N_BLOCKS : L.S_NEED + (j + 1) * L.N_BLOCKS]
            state = "complete" if s[L.S_DONE + j] else f"needs {block_text(need)}"
            lines.append(f"  {building_text(comps, chosen, j)}: {state}")
        for seat in range(self.n_players):
            hand = s[L.S_INV + seat * L.N_BLOCKS : L.S_INV + (seat + 1) * L.N_BLOCKS]
            lines.append(f"  seat {seat} ({self.team[seat]}) holds {block_text(hand)}")
        mobs = [
            f"{comps.mob_tokens[int(s[L.S_TILE_MOB + t])][0]} on {tile_text(comps, t)}"
            for t in laid
            if s[L.S_TILE_MOB + t] >= 0
        ]
        lines.append("  mobs: " + (", ".join(mobs) if mobs else "none"))
        return lines

    def __repr__(self) -> str:
        where = "over" if self.is_over() else f"seat {self.current_seat} to act: {self.phase}"
        return (
            f"<HotvGame {self.game_index} of seed {self.config.seed}: {self.n_players} players "
            f"({', '.join(self.config.labels)}; pets {', '.join(self.team)}); "
            f"{len(self.history)} decisions, {where}>"
        )

    def __str__(self) -> str:
        lines = [
            f"Heroes of the Village, game {self.game_index} of seed {self.config.seed}, "
            f"{self.n_players} players, {len(self.history)} decisions so far",
            *self.summary(),
        ]
        if self.is_over():
            lines.append("game over: the players " + ("win" if self._s[L.S_WON] else "lose"))
        else:
            legal = ", ".join(f"{a}: {self.action_to_string(a)}" for a in self.legal_actions())
            lines.append(f"seat {self.current_seat} to {PHASE_LABELS[self.phase]}")
            lines.append(f"legal actions: {legal}")
        return "\n".join(lines)

    # ---- the result -----------------------------------------------------------------------
    def result_frames(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """``(seats, games)``: this game's rows of a batch run's two tables, with their
        columns and dtypes (docs/run-format.md); only when the game is over."""
        from bnb_sim.games.heroes_village.play import output_shapes, write_rows
        from bnb_sim.games.heroes_village.runner import frames

        if not self.is_over():
            raise BnbError("the game is not over yet")
        seat_shape, game_shape = output_shapes(1, self.n_players)
        seat_out = np.zeros(seat_shape, np.int64)
        game_out = np.zeros(game_shape, np.int64)
        write_rows(self._s, self._k, game_out[0], seat_out, 0)
        return frames(self.config, self.team, self.game_index, seat_out, game_out)

    def result(self, as_frame: bool = False) -> list[dict] | pd.DataFrame:
        """Per seat: policy, pet, the team's ``won`` and the seat's statistics; only when over.

        A list of one dict per seat; with ``as_frame=True`` the same rows as a DataFrame equal
        to this game's rows of the seats table of ``bnb simulate --game hotv`` (same seed,
        players, policies, pets and options). The game's own row (turns, buildings, Illager,
        mobs): ``result_frames()[1]``."""
        as_frame = _args.boolean(as_frame, "as_frame")
        seats, _ = self.result_frames()
        return seats if as_frame else seats.to_dict("records")


def _pets_text(pets: Any) -> str | None:
    if pets is None or isinstance(pets, str):
        return pets
    if isinstance(pets, Sequence) and all(isinstance(p, str) for p in pets):
        return ",".join(pets)
    raise ArgumentTypeError(f"pets must be pet names (wolf, cat, ...), got {_args.show(pets)}")


def _components(components: Any, readings: Any):
    from bnb_sim.games.heroes_village.components import HotvComponents, load_components
    from bnb_sim.games.heroes_village.readings import parse_assignments

    if not isinstance(components, HotvComponents):
        components = load_components(components)
    if readings is None:
        return components
    if not isinstance(readings, dict):
        raise ArgumentTypeError(f"readings must be a dict, got {_args.show(readings)}")
    items = [f"{name}={value}" for name, value in readings.items()]
    return components.with_readings(parse_assignments(items))


def new_game(
    seed: int = 0,
    game_index: int = 0,
    players: int | None = None,
    policies: Sequence[str] | str = ("team",),
    *,
    pets: Sequence[str] | str | None = None,
    components=None,
    readings: dict[str, str] | None = None,
    difficulty: str = "standard",
    buildings: str | None = None,
    check: bool = False,
    log: bool = True,
) -> HotvGame:
    """A new Heroes of the Village game: the same (seed, game index, players, policies, pets,
    options) always gives the same game, here and in ``bnb simulate --game hotv``.

    ``players``: 2 to 4 (default: as many as ``pets`` names, else 3); ``policies`` per seat
    (repeated when fewer: ``team``, ``random``, ``strong``, ``team:W=V,...``, a plugin);
    ``pets`` in seat order (``["wolf", "cat", "fox"]`` or ``"wolf,cat,fox"``; default the
    first pets of the list); ``components``: component files over the defaults (or loaded
    components); ``readings``: rule readings by name (``{"cat": "first-draw"}``; ``bnb
    readings --game hotv`` lists them); ``difficulty`` and ``buildings`` as on the command
    line; ``check``: test the state's invariants after every decision; ``log``: keep the
    event log (:meth:`HotvGame.events`).
    """
    _args.integer(seed, "seed", 0, 2**63 - 1)
    if players is not None:
        players = _args.integer(players, "players", 1, L.MAX_PLAYERS)
    if isinstance(policies, str):
        policies = [policies]
    if not all(isinstance(p, str) for p in policies):
        raise ArgumentTypeError(f"policies must be strings, got {_args.show(policies)}")
    pets_text = _pets_text(pets)
    if pets_text is not None and pets_text.strip().lower() == "all":
        raise SpecError("pets 'all': a game has one pet team; give the pets (e.g. wolf,cat,fox)")
    config = make_config(
        _components(components, readings), players, list(policies) or ["team"], pets_text,
        difficulty, buildings, int(seed), _args.boolean(check, "check"),
    )  # fmt: skip
    return HotvGame(config, game_index, log=_args.boolean(log, "log"))
