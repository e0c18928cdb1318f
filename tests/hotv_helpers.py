"""Helpers for the Heroes of the Village tests: states built from (modified) component data."""

from __future__ import annotations

import fnmatch

import numpy as np

from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village.components import components_from_dict, default_data


def comps_with(**changes):
    """The default components with ``changes`` applied: ``fight=[...]``, ``illagers=[...]``
    and dotted keys given as ``{"rules.fight_rolls": 3}`` through ``extra``."""
    data = default_data()
    changed = dict(changes.pop("extra", {}))
    if "fight" in changes:
        changed["dice.fight.faces"] = changes.pop("fight")
    if "illagers" in changes:
        changed["dice.illagers.faces"] = changes.pop("illagers")
    assert not changes, changes
    for dotted, value in changed.items():
        table = data
        *path, last = dotted.split(".")
        for part in path:
            table = table[part]
        table[last] = value
    # A test's value is no estimate of the box: the file's plausible range for it (which
    # must hold the value, or the file is refused) goes with it.
    data["ranges"] = [r for r in data.get("ranges", []) if not _covers(r, changed)]
    return components_from_dict(data, "test")


def _covers(rule: dict, changed: dict) -> bool:
    keys = rule["keys"] if isinstance(rule["keys"], list) else [rule["keys"]]
    return any(fnmatch.fnmatchcase(key, pattern) for key in changed for pattern in keys)


class Game:
    """One game's arrays, set up, with direct access to the rules kernels."""

    def __init__(self, comps=None, pets=("wolf", "cat", "fox"), start=9, chosen=(-2, -3, -4),
                 seed=1, index=0, log_rows=0):  # fmt: skip
        self.comps = comps or comps_with()
        self.k, self.kf = self.comps.static_arrays(start, list(chosen), check=True)
        self.s = np.zeros(L.S_SIZE, np.int64)
        self.rng = np.zeros((L.N_STREAMS, 4), np.uint64)
        self.log = np.zeros((log_rows, L.LOG_WIDTH), np.int64)
        self.pets = np.full(L.MAX_PLAYERS, L.NO_PET, np.int64)
        for i, p in enumerate(pets):
            self.pets[i] = L.PET_NAMES.index(p) if p != "none" else L.NO_PET
        from bnb_sim.games.heroes_village.engine import setup_game

        setup_game(self.s, self.k, self.rng, self.pets, np.uint64(seed), index, len(pets), self.log)

    # views
    def pouch(self):
        return list(self.s[L.S_POUCH : L.S_POUCH + L.N_BLOCKS])

    def supply(self):
        return list(self.s[L.S_SUPPLY : L.S_SUPPLY + L.N_BLOCKS])

    def inv(self, seat):
        return list(self.s[L.S_INV + seat * L.N_BLOCKS : L.S_INV + (seat + 1) * L.N_BLOCKS])

    def stat(self, seat, which):
        return int(self.s[L.S_SEAT_STATS + seat * L.SEAT_STRIDE + which])

    def set_pouch(self, counts):
        """Move blocks between supply and pouch so the pouch holds ``counts``."""
        for b in range(L.N_BLOCKS):
            delta = counts[b] - self.s[L.S_POUCH + b]
            self.s[L.S_POUCH + b] += delta
            self.s[L.S_SUPPLY + b] -= delta
        assert min(self.supply()) >= 0

    def give(self, seat, block, n=1):
        self.s[L.S_SUPPLY + block] -= n
        self.s[L.S_INV + seat * L.N_BLOCKS + block] += n
        assert self.s[L.S_SUPPLY + block] >= 0

    def lay(self, symbol):
        """Lay (from its stack, for free) a tile with collecting symbol ``symbol``; its tile id."""
        from bnb_sim.games.heroes_village.engine import lay_tile

        for st in range(int(self.k[L.K_N_STACKS])):
            h = int(self.s[L.S_STACK_H + st])
            for j in range(h):
                tile = int(self.s[L.S_STACK + st * L.MAX_TILES + j])
                if self.k[L.K_TILE_SYMBOL + tile] == symbol:
                    # bring it to the top, then lay it
                    top = L.S_STACK + st * L.MAX_TILES + h - 1
                    here = L.S_STACK + st * L.MAX_TILES + j
                    self.s[here], self.s[top] = self.s[top], self.s[here]
                    lay_tile(self.s, self.k, st, 0, self.log, True)
                    return tile
        raise AssertionError("no such tile left")

    def legal(self):
        from bnb_sim.games.heroes_village.engine import legal_mask

        mask = np.zeros(L.N_ACTIONS, np.bool_)
        legal_mask(self.s, self.k, mask)
        return mask

    def act(self, a):
        from bnb_sim.games.heroes_village.engine import apply_action

        assert self.legal()[a], f"action {a} is not legal"
        apply_action(self.s, self.k, self.rng, a, self.log)
        self.check()

    def fight_on(self, tile):
        """Fight the mob on ``tile`` and roll on after every failed roll (R-HV-6: a full
        fight, as the engine played it before a fight could be stopped)."""
        self.act(L.A_FIGHT + tile)
        while self.s[L.S_PHASE] == L.PH_FIGHT:
            self.act(L.A_FIGHT + tile)

    def check(self):
        from bnb_sim.games.heroes_village.invariants import INVARIANT_MESSAGES, check_invariants

        code = check_invariants(self.s, self.k, False)
        assert code == 0, INVARIANT_MESSAGES[code]

    @property
    def illager(self):
        return int(self.s[L.S_ILLAGER])
