"""One game at a time, in the OpenSpiel spirit: new game, legal actions, apply, is over, result.

    from bnb_sim import new_game
    game = new_game(seed=1, game_index=0, players=2, policies=["heuristic", "random"])
    while not game.is_over():
        action = game.policy_action()          # or pick any of game.legal_actions()
        game.apply_action(action)
    game.result()                              # one dict per seat
    game.result(as_frame=True)                 # the same rows as simulate()'s DataFrame

The kernels are the batch engine's own (``legal_bits``, ``seat_decision``, ``apply_action``), so a
game played here is identical to game ``game_index`` of a batch with the same seed, players
and policies. Hidden information stays hidden unless you ask for it (:meth:`Game.reveal`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bnb_sim import _args
from bnb_sim.errors import ArgumentTypeError, BnbError, PolicyError
from bnb_sim.games.builders_biomes.run_config import GameConfig

if TYPE_CHECKING:
    import pandas as pd

PHASE_LABELS = {
    "turn": "choose an action (or end the turn)",
    "collect": "take a block",
    "explore": "move to a crossing point",
    "build_tile": "choose a building to build",
    "build_space": "choose a board space",
    "fight_mob": "choose a mob to fight",
    "pickaxe": "stone pickaxe: take a block (or decline)",
    "tnt": "how many TNT to detonate",
    "weapon": "choose a weapon token",
    "score": "choose the value to score",
    "over": "game over",
    "hunger": "how many hunger mobs to return for extra actions",
    "bow": "bow: reveal one more token (0) or decline (PASS)",
    "farmland": "where the starting farmland goes",
    "buy": "which item to buy (PASS ends the buying once one is bought)",
    "bed": "bed: fight the mob a second time (0) or decline (PASS)",
    "reveal_four": "reveal 4: reveal the item's extra token (0) or decline (PASS)",
}


class Game:
    """A game in progress; wraps the engine's arrays (``pub``, ``hid``, ``rng``, ``k``)."""

    def __init__(self, config: GameConfig, game_index: int):
        from bnb_sim.games.builders_biomes.engine.play import MEM_SIZE
        from bnb_sim.games.builders_biomes.engine.play import new_game as kernel_new_game

        if not isinstance(config, GameConfig):
            raise ArgumentTypeError(
                f"config must be a GameConfig, got {type(config).__name__} (or use new_game)"
            )
        _args.integer(game_index, "game index", 0, 2**62 - 1)
        self.config = config
        self.game_index = int(game_index)
        self._k, self._ft, self._kinds, self._params, self._plugins = config.kernel_inputs
        self._pub, self._hid, self._rng = kernel_new_game(
            self._k, config.master, self.game_index, config.n_players
        )
        self._mem = np.zeros((config.n_players, MEM_SIZE), np.float64)
        from bnb_sim.games.builders_biomes.policies.search import new_search_scratch

        self._search = new_search_scratch(
            self._k, self._kinds, self._params, config.n_players, MEM_SIZE
        )
        self.history: list[tuple[int, int, int]] = []  # (seat, phase, action)
        self.log: list[dict] = []  # decoded events when config.log is on
        # priority-list bots: which rule made each of their decisions (docs/bots.md)
        self.rule_log: list[dict] = []

    def __repr__(self) -> str:
        policies = ", ".join(p.label for p in self.config.policies)
        where = "over" if self.is_over() else f"seat {self.current_seat} to act: {self.phase}"
        return (
            f"<Game {self.game_index} of seed {self.config.seed}: {self.n_players} players "
            f"({policies}); {len(self.history)} decisions, {where}; XP {self.xp()}>"
        )

    def __str__(self) -> str:
        """The state in a few lines: who plays what, XP, whose turn, and what they may do."""
        lines = [
            f"Game {self.game_index} of seed {self.config.seed}, {self.n_players} players, "
            f"{len(self.history)} decisions so far"
        ]
        xp = self.xp()
        for seat in range(self.n_players):
            mark = "*" if not self.is_over() and seat == self.current_seat else " "
            lines.append(
                f" {mark} seat {seat}  {self.policy_of_seat(seat).label:<16s} {xp[seat]:3d} XP"
            )
        if self.is_over():
            winners = [row["seat"] for row in self.result() if row["won"]]
            lines.append(f"game over: seat(s) {', '.join(map(str, winners))} won")
        else:
            legal = ", ".join(f"{a}: {self.action_to_string(a)}" for a in self.legal_actions())
            lines.append(f"seat {self.current_seat} to {PHASE_LABELS.get(self.phase, self.phase)}")
            lines.append(f"legal actions: {legal}")
        return "\n".join(lines)

    def clone(self) -> Game:
        """An independent copy of the game (state, random streams, bots' memory, history):
        playing on the copy leaves this game as it was; both go on exactly alike."""
        import copy

        other = copy.copy(self)  # shares the config and the read-only kernel inputs
        other._pub, other._hid, other._rng = self._pub.copy(), self._hid.copy(), self._rng.copy()
        other._mem = self._mem.copy()
        other._search = copy.deepcopy(self._search)
        other.history, other.log = list(self.history), [dict(e) for e in self.log]
        other.rule_log = [dict(e) for e in self.rule_log]
        return other

    def action_to_string(self, action: int) -> str:
        """What ``action`` means in the current phase (``legal_actions()`` are bare ints):
        ``"take block at b3"``, ``"space 5"``, ``"end the turn"``..."""
        from bnb_sim.games.builders_biomes.describe import describe_action
        from bnb_sim.games.builders_biomes.engine.state import N_ACTIONS

        return describe_action(self, _args.integer(action, "action", 0, N_ACTIONS - 1))

    # ---- OpenSpiel-like vocabulary ------------------------------------------------
    @property
    def n_players(self) -> int:
        return self.config.n_players

    @property
    def current_seat(self) -> int:
        from bnb_sim.games.builders_biomes.engine.state import C_SEAT

        return int(self._pub[C_SEAT])

    @property
    def phase(self) -> str:
        from bnb_sim.games.builders_biomes.engine.state import C_PHASE, PHASE_NAMES

        return PHASE_NAMES[int(self._pub[C_PHASE])]

    def _seat(self, seat) -> int:
        """A seat number checked against the table (kernels index arrays by it unchecked)."""
        return _args.integer(seat, "seat", 0, self.n_players - 1)

    def player_of_seat(self, seat: int) -> int:
        from bnb_sim.games.builders_biomes.engine.state import C_ROTATION

        return (self._seat(seat) + int(self._pub[C_ROTATION])) % self.n_players

    def policy_of_seat(self, seat: int):
        return self.config.policies[self.player_of_seat(seat)]

    def is_over(self) -> bool:
        return self.phase == "over"

    def legal_action_mask(self) -> np.ndarray:
        """bool[65]: which actions are legal now (65th = PASS)."""
        from bnb_sim.games.builders_biomes.engine.legal import legal_action_mask

        if self.is_over():
            return np.zeros(65, bool)
        return legal_action_mask(self._pub, self._k)

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_action_mask())]

    def apply_action(self, action: int) -> list[dict]:
        """Carry out a legal action for the current seat; returns the events it caused."""
        from bnb_sim.games.builders_biomes.engine.state import C_PHASE
        from bnb_sim.games.builders_biomes.engine.step import apply_action

        if self.is_over():
            raise BnbError("the game is over")
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise BnbError(f"an action is an integer, got {action!r}")
        mask = self.legal_action_mask()
        if not 0 <= int(action) < mask.shape[0] or not mask[int(action)]:
            raise BnbError(
                f"action {action} is not legal in phase '{self.phase}' "
                f"(legal: {self.legal_actions()})"
            )
        self.history.append((self.current_seat, int(self._pub[C_PHASE]), int(action)))
        apply_action(self._pub, self._hid, self._rng, self._k, int(action))
        self._check()
        return self._drain_events()

    def _drain_events(self) -> list[dict]:
        """Move the kernel's event buffer into :attr:`log` (decoded)."""
        from bnb_sim.games.builders_biomes.describe import decode_event
        from bnb_sim.games.builders_biomes.engine.layout import H_EVENTS, H_N_EVENTS

        if not self.config.log:
            return []
        n = int(self._hid[H_N_EVENTS])
        raw = self._hid[H_EVENTS : H_EVENTS + 5 * n].reshape(n, 5).tolist()
        self._hid[H_N_EVENTS] = 0
        new = [decode_event(self, *row) for row in raw]
        self.log.extend(new)
        return new

    def policy_action(self) -> int:
        """The decision the current seat's policy makes now (consumes its random stream, as
        in a batch run)."""
        from bnb_sim.games.builders_biomes.engine.legal import is_legal, legal_bits
        from bnb_sim.games.builders_biomes.engine.play import decision_kernel
        from bnb_sim.games.builders_biomes.engine.state import N_ACTIONS, P_SIZE
        from bnb_sim.games.builders_biomes.policies.kinds import PLUGIN
        from bnb_sim.plugins import PLUGIN_RAISED

        if self.is_over():
            raise BnbError("the game is over")
        seat = self.current_seat
        player = self.player_of_seat(seat)
        mask, pass_ok = legal_bits(self._pub, self._k)
        mask = np.uint64(mask)  # numba hands a uint64 back as a Python int
        is_plugin = self.config.policies[player].kind == PLUGIN
        # a plugin may raise: keep what it can change, to replay the call from Python
        before = (self._rng.copy(), self._mem[seat].copy()) if is_plugin else None
        obs_buf, legal_buf = np.zeros(P_SIZE, np.int64), np.zeros(N_ACTIONS, np.bool_)
        action = decision_kernel(self._kinds, self._k)(
            self._pub,
            self._hid,
            self._rng,
            self._k,
            self._ft,
            self._kinds,
            self._params,
            self._plugins,
            self._mem,
            obs_buf,
            legal_buf,
            mask,
            pass_ok,
            self._search,
        )
        if is_plugin and action == PLUGIN_RAISED:
            self._rng[:], self._mem[seat] = before
            self._raise_plugin_error(seat, player, obs_buf, legal_buf)
        if not is_legal(mask, pass_ok, action):
            raise PolicyError(
                f"policy '{self.config.policies[player].label}' (seat {seat}) made an illegal "
                f"decision {action} in game {self.game_index} (phase {self.phase})"
            )
        self._log_rule(seat, int(action))
        return int(action)

    def _raise_plugin_error(self, seat, player, obs_buf, legal_buf) -> None:
        """Call the plugin of ``seat`` again, from Python, on the inputs it raised on: numba
        re-raises the exception there with its message (a cfunc cannot pass it on)."""
        from bnb_sim.games.builders_biomes.engine.layout import RNG_POLICY
        from bnb_sim.games.builders_biomes.engine.state import P_SIZE
        from bnb_sim.games.builders_biomes.policies.registry import load_plugin
        from bnb_sim.plugins import first_line, plugin_dispatcher

        spec = self.config.policies[player]
        decide = plugin_dispatcher(spec.plugin, load_plugin(spec.plugin))
        obs_buf[:] = self._pub[:P_SIZE]  # the plugin may have written into its copy
        where = f"policy plugin '{spec.plugin}' (policy '{spec.label}', seat {seat})"
        try:
            decide(
                obs_buf,
                legal_buf,
                self._k,
                self._rng[RNG_POLICY + seat],
                self._params[player],
                self._mem[seat],
            )
        except Exception as exc:
            raise PolicyError(
                f"{where} raised {first_line(exc)} in game {self.game_index} (phase {self.phase})"
            ) from None
        raise PolicyError(
            f"{where} raised an exception in game {self.game_index} (phase {self.phase}); "
            "called again from Python it did not (does it keep state between calls?)"
        )

    def _log_rule(self, seat: int, action: int) -> None:
        """For a priority-list bot: the rule that decided (or ``fallback``)."""
        from bnb_sim.games.builders_biomes.policies.kinds import BOT
        from bnb_sim.games.builders_biomes.policies.priority_layout import MEM_LAST_RULE

        spec = self.policy_of_seat(seat)
        if spec.kind != BOT:
            return
        from bnb_sim.games.builders_biomes.engine.state import C_ROUNDS_DONE, C_TURN

        r = int(self._mem[seat, MEM_LAST_RULE])
        self.rule_log.append(
            {
                "seat": seat,
                "turn": int(self._pub[C_TURN]),
                "rounds_scored": int(self._pub[C_ROUNDS_DONE]).bit_count(),
                "phase": self.phase,
                "action": action,
                "rule": spec.rules[r] if r >= 0 else "fallback",
            }
        )

    def rule_hits(self) -> dict[int, dict[str, int]]:
        """Per bot seat: how many decisions each rule (and the fallback) made so far."""
        from collections import Counter

        totals: dict[int, Counter] = {}
        for entry in self.rule_log:
            totals.setdefault(entry["seat"], Counter())[entry["rule"]] += 1
        return {seat: dict(counts) for seat, counts in totals.items()}

    def play(self, max_decisions: int = 100_000, *, on_interrupt=None) -> Game:
        """Let the policies play to the end.

        Ctrl-C works even inside a long decision (a search bot with a large budget, a stuck
        plugin; :func:`bnb_sim.interruptible.run_interruptible`): the first one stops the game
        after the decision in progress (``on_interrupt()`` is called then) and raises
        ``KeyboardInterrupt``; a second one raises at once, and the game must not be used
        again (its decision goes on in the background until the process ends)."""
        from bnb_sim.interruptible import run_interruptible

        max_decisions = _args.integer(max_decisions, "max_decisions", 1, 10**8)

        def decisions(stop) -> Game:
            for _ in range(max_decisions):
                if self.is_over():
                    return self
                if stop.is_set():
                    raise KeyboardInterrupt
                self.apply_action(self.policy_action())
            raise BnbError(f"game {self.game_index} did not end within {max_decisions} decisions")

        return run_interruptible(decisions, on_first=on_interrupt)

    def _check(self) -> None:
        from bnb_sim.games.builders_biomes.batch_rows import GameFailed
        from bnb_sim.games.builders_biomes.engine.invariants import (
            INVARIANT_MESSAGES,
            check_invariants,
        )
        from bnb_sim.games.builders_biomes.engine.state import C_STATUS, ST_TURN_LIMIT

        if int(self._pub[C_STATUS]) == ST_TURN_LIMIT:
            raise GameFailed(
                f"game {self.game_index} did not end within {self.config.max_turns} turns"
            )
        if self.config.check:
            code = check_invariants(self._pub, self._hid, self._k)
            if code:
                raise GameFailed(
                    f"game {self.game_index}: invariant broken: {INVARIANT_MESSAGES[code]}"
                )

    # ---- what the table shows ------------------------------------------------------
    def observation(self, seat: int | None = None) -> np.ndarray:
        """The flat observation of ``seat`` (default: the current seat), as a policy sees it."""
        from bnb_sim.games.builders_biomes.engine.observation import prepare_observation

        seat = self.current_seat if seat is None else self._seat(seat)
        pub = self._pub.copy()
        prepare_observation(pub, self._hid, seat)
        return pub

    def xp(self) -> list[int]:
        from bnb_sim.games.builders_biomes.engine.layout import P_FM_XP_END, P_FM_XP_FARMING
        from bnb_sim.games.builders_biomes.engine.state import N_XP_ALL, xp_at

        pub = self._pub
        return [
            int(sum(pub[xp_at(s, j)] for j in range(N_XP_ALL)))
            + int(pub[P_FM_XP_END + s] + pub[P_FM_XP_FARMING + s])
            for s in range(self.n_players)
        ]

    def result(self, as_frame: bool = False) -> list[dict] | pd.DataFrame:
        """Per seat: policy, XP by source, blocks, rank, won (R-END-2). Only when over.

        A list of one dict per seat; with ``as_frame=True`` the same rows as a DataFrame with
        the columns and dtypes of :func:`bnb_sim.simulate`'s frame (``docs/run-format.md``):
        they equal the rows of this game in ``simulate`` with the same seed, players,
        policies and options (``seats[seats["game"] == game.game_index]``, index reset).
        """
        as_frame = _args.boolean(as_frame, "as_frame")
        seats, _ = self.result_frames()
        if as_frame:
            return seats
        return seats.to_dict("records")

    def result_frames(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """``(seats, games)``: this game's rows of :func:`bnb_sim.simulate`'s two tables (the
        seats table's rows are :meth:`result` as a frame); only when the game is over."""
        from bnb_sim.games.builders_biomes.batch_rows import frames, n_rule_hit_columns
        from bnb_sim.games.builders_biomes.engine.play import (
            N_GAME_COLUMNS,
            n_seat_columns,
            write_rows,
        )
        from bnb_sim.games.builders_biomes.policies.priority_layout import (
            MEM_FALLBACK_HITS,
            MEM_HITS,
        )

        if not self.is_over():
            raise BnbError("the game is not over yet")
        n = self.n_players
        comps = self.config.components
        base = n_seat_columns(len(comps.mob_names), len(comps.item_names))
        n_hits = n_rule_hit_columns(self.config)
        seat_out = np.zeros((n, base + n_hits), np.int64)
        game_out = np.zeros((1, N_GAME_COLUMNS), np.int64)
        write_rows(self._pub, self._hid, self._k, 0, seat_out, game_out)
        if n_hits:  # the batch kernel's write_rule_hits, for the seats of this game
            seat_out[:, base : base + n_hits - 1] = self._mem[:, MEM_HITS : MEM_HITS + n_hits - 1]
            seat_out[:, base + n_hits - 1] = self._mem[:, MEM_FALLBACK_HITS]
        return frames(self.config, self.game_index, seat_out, game_out)

    def events(self) -> list[str]:
        """The game so far as readable lines, grouped by turn, as ``bnb play`` prints them
        (needs the event log: ``new_game(..., log=True)``)."""
        from bnb_sim.games.builders_biomes.describe import turn_log

        if not self.config.log:
            raise BnbError("this game keeps no event log: make it with new_game(..., log=True)")
        return turn_log(self, self.log)

    def table(self) -> dict:
        """The table as plain data, for pictures (:mod:`bnb_sim.analysis.render`) and JSON.

        ``seats``: per seat its policy, board name, XP (total and by source), blocks left, rank,
        won, mobs held, and ``spaces``: the 3x3 board row by row, each space with its printed
        biome and its top building (id, biome, material, type; None when empty, R-BUILD-4).
        ``cube``: the four layers (layer 1 = top, R-SETUP-3), each a 4x4 grid of block names
        (None where the block is gone) with the count of blocks left. The cube shows every
        block's material, hidden or not, so it is meant for a finished game.
        """
        from bnb_sim.games.builders_biomes.engine import layout as L

        comps = self.config.components
        data = comps.data
        biomes, blocks = comps.values["biome"], comps.block_names
        boards = comps.board_names
        xp_columns = [
            "xp_buildings", "xp_mobs", "xp_hoes", "xp_round_a", "xp_round_b", "xp_round_c",
            "xp_bonus_mobs",
        ]  # fmt: skip
        rows = {int(r["seat"]): r for r in self.result()} if self.is_over() else {}
        supply = self._pub[L.P_SUPPLY : L.P_SUPPLY + L.MAX_SEATS * L.N_BLOCK_TYPES]
        seats = []
        for seat in range(self.n_players):
            board_id = int(self._pub[L.P_BOARD_ID + seat])
            spaces = []
            for space in range(9):
                printed = biomes[int(self._k[L.K_BOARDS + board_id * 9 + space])]
                top = int(self._pub[L.P_BOARD_TOP + seat * 9 + space])
                building = None
                if top >= 0:
                    bid = comps._tiles[top][0]
                    b = data["buildings"][bid]
                    building = {
                        "id": bid, "biome": b["biome"], "material": b["material"],
                        "type": b["type"],
                    }  # fmt: skip
                spaces.append({"printed": printed, "building": building})
            held = [
                comps.tile_label(int(self._pub[L.P_HELD + seat * L.MAX_HELD + i]))
                for i in range(int(self._pub[L.P_N_HELD + seat]))
            ]
            row = rows.get(seat, {})
            xp_by = {c[3:]: int(row[c]) for c in xp_columns if c in row}
            seats.append(
                {
                    "seat": seat,
                    "policy": self.policy_of_seat(seat).label,
                    "board": boards[board_id],
                    "xp": sum(xp_by.values()) if xp_by else self.xp()[seat],
                    "xp_by_source": xp_by,
                    "blocks_left": int(
                        row.get(
                            "blocks_left", supply[seat * L.N_BLOCK_TYPES :][: L.N_BLOCK_TYPES].sum()
                        )
                    ),
                    "rank": int(row["rank"]) if "rank" in row else None,
                    "won": bool(row.get("won", False)),
                    "mobs": held,
                    "spaces": [spaces[r * 3 : r * 3 + 3] for r in range(3)],
                }
            )
        cube = self._hid[L.H_BLOCK : L.H_BLOCK + 64].reshape(4, 4, 4)
        layers = []
        for layer in range(4):
            grid = [[blocks[v] if v >= 0 else None for v in map(int, row)] for row in cube[layer]]
            left = int((cube[layer] >= 0).sum())
            layers.append({"layer": layer + 1, "blocks": grid, "left": left})
        return {
            "title": f"seed {self.config.seed}, game {self.game_index}",
            "over": self.is_over(),
            "seats": seats,
            "cube": layers,
            "biomes": list(biomes),
            "materials": list(comps.values["material"]),
            "blocks": list(blocks),
        }

    def reveal(self) -> dict:
        """Hidden information (for debugging and tests; a policy never sees this)."""
        from bnb_sim.games.builders_biomes.engine import layout as L

        return {
            "blocks": self._hid[L.H_BLOCK : L.H_BLOCK + 64].reshape(4, 4, 4).copy(),
            "stacks": self._hid[L.H_STACKS : L.H_STACKS + 16 * L.MAX_STACK_H]
            .reshape(16, L.MAX_STACK_H)
            .copy(),
            "tokens": self._hid[L.H_TOK_SLOT : L.H_TOK_SLOT + 16].copy(),
            "piles": self._hid[L.H_PILE : L.H_PILE + L.MAX_SEATS * L.MAX_TOKEN_TYPES]
            .reshape(L.MAX_SEATS, L.MAX_TOKEN_TYPES)[: self.n_players]
            .copy(),
        }


def new_game(
    seed: int = 0,
    game_index: int = 0,
    players: int = 2,
    policies=("random",),
    *,
    components=None,
    readings=None,
    variant: str | None = None,
    seating: str | None = None,
    log: bool = False,
    check: bool = False,
    **options,
) -> Game:
    """A new game: the same (seed, game index, players, policies, options) always gives the
    same game, here and inside any batch run. ``readings``: rule readings by name
    (``{"hunger": "one-by-one"}``; ``bnb readings`` lists them); ``variant``, ``seating`` and
    ``pickaxe`` are aliases of the readings of those names."""
    config = GameConfig.create(
        players,
        policies,
        seed=seed,
        components=components,
        readings=readings,
        variant=variant,
        seating=seating,
        log=log,
        check=check,
        **options,
    )
    return Game(config, game_index)
