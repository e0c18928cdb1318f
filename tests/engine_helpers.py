"""Set up positions for rule tests by writing into a Game's arrays (``_pub``, ``_hid``).

Every helper keeps the arrays consistent, so that
``bnb_sim.games.builders_biomes.engine.invariants.check_invariants(pub, hid, k)`` still returns 0
afterwards
(:func:`assert_consistent`): blocks taken out of the cube or handed to a supply go through the
"spent" counters (blocks that left the game), tiles placed somewhere are taken out of the
stacks, tokens given to a pile come from the table or from another pile.

Names of blocks, weapons, values and mobs are those of the component file
(``comps.block_names``, ``comps.weapon_names``, ``comps.values[...]``, ``comps.mob_names``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import state as S

COLLECT, EXPLORE, BUILD, FIGHT, WEAPON = range(5)
PASS = S.PASS
CHARS = ("biome", "material", "type")


@lru_cache(maxsize=1)
def default_components():
    from bnb_sim.games.builders_biomes.components import load_components

    return load_components()


def new_game(players=2, policies=("random",), seed=0, game_index=0, **options):
    """A fresh game on the default components (loaded once per test session)."""
    import bnb_sim

    options.setdefault("components", default_components())
    return bnb_sim.new_game(seed, game_index, players, list(policies), **options)


def config(players=2, policies=("random",), seed=0, **options):
    from bnb_sim.games.builders_biomes.run_config import GameConfig

    options.setdefault("components", default_components())
    return GameConfig.create(players, list(policies), seed=seed, **options)


def assert_consistent(game) -> None:
    from bnb_sim.games.builders_biomes.engine.invariants import INVARIANT_MESSAGES, check_invariants

    code = int(check_invariants(game._pub, game._hid, game._k))
    assert code == 0, f"invariant {code}: {INVARIANT_MESSAGES.get(code)}"


# ---- names -------------------------------------------------------------------------------
def comps_of(game):
    return game.config.components


def block(game, name: str) -> int:
    return comps_of(game).block_names.index(name)


def weapon(game, name: str) -> int:
    return comps_of(game).resolve_weapon(name)


def value(game, char: str, name: str) -> int:
    return comps_of(game).values[char].index(name)


def pos(layer: int, row: int, col: int) -> int:
    """Cube position (0-based layer from the top, row, col)."""
    return layer * 16 + row * 4 + col


def point(i: int, j: int) -> int:
    return i * 5 + j


def stack_at(r: int, c: int) -> int:
    """Stack of the inner cell (r, c) of the 6x6 grid (1 <= r, c <= 4)."""
    return (r - 1) * 4 + (c - 1)


def points_next_to_stack(stack: int) -> list[int]:
    r, c = divmod(stack, 4)
    r, c = r + 1, c + 1
    return [point(i, j) for i in (r - 1, r) for j in (c - 1, c)]


# ---- tiles -------------------------------------------------------------------------------
def tile_attr(game, attr: int, tile: int) -> int:
    return int(game._k[L.K_TILE + attr * L.MAX_TILES + tile])


def tiles(game, kind=None, hearts=None, species=None, bonus=None, **chars) -> list[int]:
    """Tile ids matching every criterion. ``kind``: building/hunger/bonus; ``species``: a mob
    name; ``bonus``: (characteristic, value name) of a bonus mob; ``biome=``, ``material=``,
    ``type=``: value names of a building; ``xp=``/``cost=`` exact numbers."""
    comps = comps_of(game)
    kinds = {"building": 0, "hunger": 1, "bonus": 2}
    out = []
    for t in range(int(game._k[L.K_N_TILES])):
        if kind is not None and tile_attr(game, L.TILE_KIND, t) != kinds[kind]:
            continue
        if hearts is not None and tile_attr(game, L.TILE_HEARTS, t) != hearts:
            continue
        if species is not None:
            if tile_attr(game, L.TILE_KIND, t) == 0:
                continue
            if tile_attr(game, L.TILE_SPECIES, t) != comps.mob_names.index(species):
                continue
        if bonus is not None:
            char, name = bonus
            if tile_attr(game, L.TILE_KIND, t) != 2:
                continue
            if tile_attr(game, L.TILE_BONUS_CHAR, t) != CHARS.index(char):
                continue
            if tile_attr(game, L.TILE_BONUS_VALUE, t) != value(game, char, name):
                continue
        ok = True
        for key, wanted in chars.items():
            if key in CHARS:
                attr = L.TILE_BIOME + CHARS.index(key)
                ok = ok and tile_attr(game, attr, t) == value(game, key, wanted)
            elif key == "xp":
                ok = ok and tile_attr(game, L.TILE_XP, t) == wanted
            elif key == "cost":
                ok = ok and sum(tile_cost(game, t)) == wanted
            else:
                raise KeyError(key)
        if ok:
            out.append(t)
    return out


def tile(game, **criteria) -> int:
    found = tiles(game, **criteria)
    assert found, f"no tile matches {criteria}"
    return found[0]


def tile_cost(game, t: int) -> list[int]:
    return [tile_attr(game, L.TILE_COST + b, t) for b in range(L.N_BLOCK_TYPES)]


def stack_tiles(game, stack: int) -> list[int]:
    h = int(game._pub[L.P_STACK_H + stack])
    base = L.H_STACKS + stack * L.MAX_STACK_H
    return [int(x) for x in game._hid[base : base + h]]


def _write_stack(game, stack: int, content: list[int]) -> None:
    base = L.H_STACKS + stack * L.MAX_STACK_H
    game._hid[base : base + L.MAX_STACK_H] = 0
    game._hid[base : base + len(content)] = content
    game._pub[L.P_STACK_H + stack] = len(content)


def _refresh_face_up_masks(game) -> None:
    up_b = up_m = 0
    for s in range(16):
        top = int(game._pub[L.P_TOP_UP + s])
        if top >= 0:
            if tile_attr(game, L.TILE_KIND, top) == 0:
                up_b |= 1 << s
            else:
                up_m |= 1 << s
    game._pub[S.C_UP_BUILDINGS] = up_b
    game._pub[S.C_UP_MOBS] = up_m


def find_in_stacks(game, t: int) -> tuple[int, int]:
    for s in range(16):
        content = stack_tiles(game, s)
        if t in content:
            return s, content.index(t)
    raise AssertionError(f"tile {t} is not in any stack")


def put_on_top(game, stack: int, t: int, face_up: bool = True) -> None:
    """Make tile ``t`` (somewhere in the stacks) the top tile of ``stack``, face-up or down.
    The tile it replaces takes its old place; other stacks keep their face-up state."""
    src, j = find_in_stacks(game, t)
    dst_content = stack_tiles(game, stack)
    assert dst_content, f"stack {stack} is empty"
    src_content = stack_tiles(game, src)
    top_up = [int(x) for x in game._pub[L.P_TOP_UP : L.P_TOP_UP + 16]]
    if src == stack:
        content = src_content
        content[j], content[-1] = content[-1], content[j]
        _write_stack(game, stack, content)
    else:
        displaced = dst_content[-1]
        src_content[j] = displaced
        dst_content[-1] = t
        _write_stack(game, src, src_content)
        _write_stack(game, stack, dst_content)
        if top_up[src] >= 0:  # the source stack's face-up top may have changed
            game._pub[L.P_TOP_UP + src] = src_content[-1]
    game._pub[L.P_TOP_UP + stack] = t if face_up else -1
    _refresh_face_up_masks(game)


def remove_from_stacks(game, t: int) -> None:
    """Take tile ``t`` out of its stack (the caller puts it on a board or in a hand)."""
    s, j = find_in_stacks(game, t)
    content = stack_tiles(game, s)
    was_top = j == len(content) - 1
    del content[j]
    _write_stack(game, s, content)
    if was_top or not content:
        game._pub[L.P_TOP_UP + s] = -1
    _refresh_face_up_masks(game)


def empty_stack(game, stack: int) -> list[int]:
    """Empty ``stack``: its tiles move under the bottom of other stacks (tiles cannot leave
    the game); returns them."""
    moved = stack_tiles(game, stack)
    _write_stack(game, stack, [])
    game._pub[L.P_TOP_UP + stack] = -1
    others = [s for s in range(16) if s != stack]
    for i, t in enumerate(moved):
        s = others[i % len(others)]
        content = stack_tiles(game, s)
        assert len(content) < L.MAX_STACK_H
        _write_stack(game, s, [t] + content)
    _refresh_face_up_masks(game)
    return moved


def give_mob(game, seat: int, t: int) -> None:
    """Seat ``seat`` holds mob tile ``t`` (as if defeated earlier)."""
    remove_from_stacks(game, t)
    n = int(game._pub[L.P_N_HELD + seat])
    game._pub[L.P_HELD + seat * L.MAX_HELD + n] = t
    game._pub[L.P_N_HELD + seat] = n + 1
    if tile_attr(game, L.TILE_KIND, t) == 1:
        game._pub[L.P_N_HUNGER + seat] += 1


def place_building(game, seat: int, space: int, t: int) -> None:
    """Building ``t`` stands on ``space`` of the seat's board (covering what was there)."""
    remove_from_stacks(game, t)
    pub = game._pub
    pub[L.P_BOARD_TOP + seat * 9 + space] = t
    bit = 1 << space
    for c in range(3):
        for v in range(4):
            pub[L.mask_at(seat, c, v)] &= ~bit
        pub[L.mask_at(seat, c, tile_attr(game, L.TILE_BIOME + c, t))] |= bit
    pub[L.stat_at(seat, S.S_BUILDINGS_BUILT)] += 1


def printed_biomes(game, seat: int) -> list[int]:
    board = int(game._pub[L.P_BOARD_ID + seat])
    return [int(x) for x in game._k[L.K_BOARDS + board * 9 : L.K_BOARDS + board * 9 + 9]]


def fill_board(game, seat: int, tiles9: list[int]) -> None:
    for space, t in enumerate(tiles9):
        place_building(game, seat, space, t)


# ---- cube and blocks -----------------------------------------------------------------------
def occupancy(game) -> np.ndarray:
    occ = np.uint64(game._pub[L.P_OCC])
    return np.array([(int(occ) >> p) & 1 == 1 for p in range(64)])


def _refresh_cube(game) -> None:
    from bnb_sim.games.builders_biomes.engine.cube import visible_bits

    blocks = game._hid[L.H_BLOCK : L.H_BLOCK + 64]
    occ = 0
    for p in range(64):
        if blocks[p] >= 0:
            occ |= 1 << p
    game._pub[L.P_OCC] = np.array([occ], np.uint64).view(np.int64)[0]
    vis = int(visible_bits(np.uint64(occ)))
    for p in range(64):
        if blocks[p] < 0:
            game._pub[L.P_VIS_BLOCK + p] = -1
        elif (vis >> p) & 1:
            game._pub[L.P_VIS_BLOCK + p] = blocks[p]
        else:
            game._pub[L.P_VIS_BLOCK + p] = -2


def set_cube(game, keep) -> None:
    """Keep only the positions in ``keep`` (iterable of positions, or a bool[64]/[4,4,4]);
    the other blocks leave the game (spent)."""
    keep_arr = np.asarray(keep)
    if keep_arr.dtype == bool:
        keep_set = set(np.flatnonzero(keep_arr.reshape(64)).tolist())
    else:
        keep_set = {int(p) for p in keep_arr.reshape(-1)}
    for p in range(64):
        b = int(game._hid[L.H_BLOCK + p])
        if b >= 0 and p not in keep_set:
            game._hid[L.H_BLOCK + p] = -1
            game._pub[S.C_SPENT + b] += 1
    _refresh_cube(game)


def set_material(game, p: int, material: int) -> None:
    """Block at ``p`` becomes ``material``; another block (in the cube, else the spent pool)
    changes the other way, so counts stay right."""
    old = int(game._hid[L.H_BLOCK + p])
    assert old >= 0, f"no block at {p}"
    if old != material:
        for q in range(63, -1, -1):
            if q != p and int(game._hid[L.H_BLOCK + q]) == material:
                game._hid[L.H_BLOCK + q] = old
                break
        else:
            assert game._pub[S.C_SPENT + material] > 0, "no such block left to swap with"
            game._pub[S.C_SPENT + material] -= 1
            game._pub[S.C_SPENT + old] += 1
        game._hid[L.H_BLOCK + p] = material
    _refresh_cube(game)


def set_supply(game, seat: int, counts) -> None:
    """The seat's supply becomes ``counts`` (5 numbers, or {block name: n}); blocks come from
    the spent pool, else from the bottom of the cube (hidden blocks first)."""
    if isinstance(counts, dict):
        wanted = [0] * L.N_BLOCK_TYPES
        for name, n in counts.items():
            wanted[block(game, name)] = n
    else:
        wanted = list(counts)
    for b in range(L.N_BLOCK_TYPES):
        at = L.supply_at(seat, b)
        diff = wanted[b] - int(game._pub[at])
        while diff > 0:
            if game._pub[S.C_SPENT + b] > 0:
                game._pub[S.C_SPENT + b] -= 1
            else:
                hidden = [p for p in range(63, -1, -1) if game._hid[L.H_BLOCK + p] == b]
                hidden.sort(key=lambda q: game._pub[L.P_VIS_BLOCK + q] != -2)
                assert hidden, f"no {b} block left for the supply"
                game._hid[L.H_BLOCK + hidden[0]] = -1
            game._pub[at] += 1
            diff -= 1
        if diff < 0:
            game._pub[at] += diff
            game._pub[S.C_SPENT + b] -= diff
    _refresh_cube(game)


def supply(game, seat: int) -> list[int]:
    return [int(game._pub[L.supply_at(seat, b)]) for b in range(L.N_BLOCK_TYPES)]


# ---- characters, piles, tokens -----------------------------------------------------------
def set_position(game, seat: int, p: int) -> None:
    game._pub[L.P_POS + seat] = p


def pile(game, seat: int) -> list[int]:
    n = int(game._k[L.K_N_TOKEN_TYPES])
    return [int(game._hid[L.pile_at(seat, t)]) for t in range(n)]


def set_pile(game, seat: int, counts: dict) -> None:
    """The seat's pile becomes ``{weapon name: count}`` (others 0). Extra tokens come from the
    table, else from other piles; tokens given up go to the next seat's pile.

    Piles without the start tokens are fine for the rules, but never occur in play, and the
    greedy/heuristic odds tables only cover piles that can occur: keep the start tokens when
    a built-in bot decides."""
    n_types = int(game._k[L.K_N_TOKEN_TYPES])
    n_seats = game.n_players
    wanted = [0] * n_types
    for name, count in counts.items():
        wanted[weapon(game, name)] = count
    other = (seat + 1) % n_seats
    for t in range(n_types):
        here = L.pile_at(seat, t)
        diff = wanted[t] - int(game._hid[here])
        while diff > 0:
            slots = [s for s in range(16) if game._hid[L.H_TOK_SLOT + s] == t]
            if slots:
                game._hid[L.H_TOK_SLOT + slots[0]] = -1
                game._pub[S.C_TOKENS] &= ~(1 << slots[0])
            else:
                donors = [s for s in range(n_seats) if s != seat and game._hid[L.pile_at(s, t)] > 0]
                assert donors, f"no token of type {t} left to give"
                game._hid[L.pile_at(donors[0], t)] -= 1
            game._hid[here] += 1
            diff -= 1
        if diff < 0:
            game._hid[here] += diff
            game._hid[L.pile_at(other, t)] -= diff


def set_turn(game, seat: int) -> None:
    """Start of ``seat``'s turn (no action taken yet)."""
    pub = game._pub
    pub[S.C_TURN_SEAT] = seat
    pub[S.C_SEAT] = seat
    pub[S.C_PHASE] = S.PH_TURN
    pub[S.C_ACTIONS_DONE] = 0
    pub[S.C_ACTIONS_USED] = 0
    pub[S.C_EXTRA] = 0


def mark_rounds_done(game, rounds: int) -> None:
    """Rounds A.. (``rounds`` of them) were scored in earlier turns."""
    for r in range(rounds):
        game._pub[S.C_ROUNDS_DONE] |= 1 << r
        game._pub[S.C_ROUND_TURN + r] = max(int(game._pub[S.C_TURN]) - 1, 0)


# ---- actions -----------------------------------------------------------------------------
def play(game, *actions) -> list[dict]:
    events = []
    for a in actions:
        events.extend(game.apply_action(int(a)))
    return events


def fight(game, stack: int, tnt="optimal", pickaxe="first", bed=True, reveal=True) -> list[dict]:
    """From the turn phase: fight the mob on ``stack`` to the end. ``tnt``: a number, or
    "optimal" (as few as needed to turn a loss into a win, else none); ``pickaxe``: "first"
    (the lowest collectable position) or "pass"; ``bed`` / ``reveal``: whether the Farmer's
    Market's bed fights again and the reveal-4 item's extra token is taken (R-FM-5)."""
    events = play(game, FIGHT, stack)
    while game.phase in ("pickaxe", "tnt", "bed", "reveal_four"):
        legal = game.legal_actions()
        if game.phase == "pickaxe":
            if pickaxe == "pass" and PASS in legal:
                events += play(game, PASS)
            else:
                events += play(game, legal[0])
        elif game.phase == "bed":
            events += play(game, 0 if bed else PASS)
        elif game.phase == "reveal_four":
            events += play(game, 0 if reveal else PASS)
        else:
            events += play(game, optimal_tnt(game) if tnt == "optimal" else tnt)
    return events


def optimal_tnt(game) -> int:
    pub = game._pub
    mob = tile_attr(game, L.TILE_HEARTS, int(pub[S.C_FIGHT_TILE]))
    need = mob - int(pub[S.C_FIGHT_HEARTS])
    if need <= 0:
        return 0
    k = game._k
    gain = max(
        int(k[L.K_TOK + L.TOK_DETONATE * L.MAX_TOKEN_TYPES + t])
        - int(k[L.K_TOK + L.TOK_HEARTS * L.MAX_TOKEN_TYPES + t])
        for t in range(int(k[L.K_N_TOKEN_TYPES]))
    )
    n = -(-need // gain)
    return n if n <= int(pub[S.C_FIGHT_TNT]) else 0


def xp_by_source(game, seat: int) -> list[int]:
    return [int(game._pub[L.xp_at(seat, j)]) for j in range(S.N_XP)]


def collect_first(game, n: int = 2) -> list[dict]:
    """Take the lowest collectable position ``n`` times (while the collect phase lasts)."""
    events = []
    for _ in range(n):
        if game.phase != "collect":
            break
        events += play(game, game.legal_actions()[0])
    return events
