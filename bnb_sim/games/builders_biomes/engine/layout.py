"""Flat array layouts of the engine: the static array ``k``, and a game's ``pub``, ``hid`` and
``rng`` arrays.

Why flat arrays and not a namedtuple of arrays: numba passes every member of a tuple struct
through every call (and, with its runtime, touched each one's reference count: ~50 ns per
call for a 28-array state against ~1 ns for one array; the kernels now compile without the
runtime, see ``bnb_sim._jit.kernel``). A game takes a few hundred decisions and thousands of
helper calls, so the state is four plain arrays with named offsets instead:

* ``k`` (int64): everything static for a run, the component numbers (``K_*``), the table
  geometry and the run options. Built once in Python
  (:mod:`bnb_sim.games.builders_biomes.engine.static`).
* ``pub`` (int64): what everyone at the table can see (``P_*``): the control record, the cube
  occupancy and the visible blocks, face-up tiles, characters, supplies, boards, held mobs,
  XP, counters. Policies read it (and nothing else of the state).
* ``hid`` (int64): what no player sees (``H_*``): block materials inside the cube, tile order
  in the stacks, token identities on the table, every pile, the fight's remaining tokens,
  and the event log (only when logging).
* ``rng`` (uint64[N_STREAM_ROWS, 4]): the xoshiro256** streams of the seats.

Sizes are fixed maxima (4 seats, 16 token types, 16 mob species, 128 tiles, 8 boards, stacks
of up to 8 tiles); the component loader refuses data beyond them.
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel

MAX_SEATS = 4
MAX_TOKEN_TYPES = 16
MAX_SPECIES = 16
MAX_STACK_H = 8
MAX_TILES = 16 * MAX_STACK_H
MAX_BOARDS = 8
MAX_HELD = 32
N_BLOCK_TYPES = 5
WILD = 4
N_POINTS = 25
MAX_EVENTS = 512

# ---- k: static --------------------------------------------------------------------------
K_RULES = 0  # 16: component rule numbers (RULE_* of components.arrays)
K_OPTS = 16  # 16: run options (OPT_*)
K_N_TOKEN_TYPES = 32
K_N_TILES = 33
K_N_SPECIES = 34
K_N_BOARDS = 35
K_STACK_H = 36
K_FT_HMAX = 37  # largest mob hearts in the policy tables
K_BLOCK_COUNT = 40  # 5
K_TOK = 48  # 7 x 16: per token type hearts, extra reveals, xp, blocks, detonate, start, table
TOK_HEARTS = 0
TOK_EXTRA = 1
TOK_XP = 2
TOK_BLOCKS = 3
TOK_DETONATE = 4
TOK_START = 5
TOK_TABLE = 6
K_PILE_MINS = K_TOK + 7 * MAX_TOKEN_TYPES  # 16: smallest count of each type in any pile
K_PILE_STRIDES = K_PILE_MINS + MAX_TOKEN_TYPES  # 16: mixed-radix strides of pile rows
K_TILE = K_PILE_STRIDES + MAX_TOKEN_TYPES  # tile attributes, attribute-major
TILE_KIND = 0
TILE_BIOME = 1  # characteristics 0..2 are consecutive: biome, material, type
TILE_MATERIAL = 2
TILE_TYPE = 3
TILE_XP = 4
TILE_HEARTS = 5
TILE_SPECIES = 6
TILE_SOURCE = 7
TILE_BONUS_CHAR = 8
TILE_BONUS_VALUE = 9
TILE_BONUS_XP = 10
TILE_COST = 11  # 5 consecutive attributes: cost per block type
N_TILE_ATTRS = TILE_COST + N_BLOCK_TYPES
K_SCORE_CARD = K_TILE + N_TILE_ATTRS * MAX_TILES  # 12: [round/characteristic, value]
K_BOARDS = K_SCORE_CARD + 12  # MAX_BOARDS x 9 printed biomes
K_GROUP = K_BOARDS + MAX_BOARDS * 9  # 512: largest connected group per 9-bit mask
K_ADJ_STACKS = K_GROUP + 512  # 25
K_ADJ_SLOTS = K_ADJ_STACKS + N_POINTS  # 25
K_REACH = K_ADJ_SLOTS + N_POINTS  # 25
K_REACH_STACKS = K_REACH + N_POINTS  # 25: stacks next to any point within reach of a point
# Farmer's Market (R-FM-*): all zero when the expansion is off, so no rule reads it then
K_FM = K_REACH_STACKS + N_POINTS
K_FM_ON = K_FM  # 1 = the expansion is on
K_FM_N_ITEMS = K_FM + 1
K_FM_VEG_TOKENS = K_FM + 2  # R-FM-3: vegetable tokens in the game
K_FM_XP_FARM = K_FM + 3  # R-FM-6: XP per farming space in round C
K_FM_MARKET = K_FM + 4  # 3: marketplace spaces of the letters X, A, B (R-FM-8)
K_FM_FARMLAND = K_FM + 7  # 4: spaces and vegetables per space of side "2", then side "3-4"
K_FM_NEW_FARM_FILLED = K_FM + 11  # R-FM-9 reading fm_new_farm: 1 = a new farm starts filled
K_FM_COLLECT_PER_BLOCK = K_FM + 12  # R-FM-10 reading fm_collect_xp: 1 = per block
K_FM_FOREST = K_FM + 13  # biome value of forest (R-FM-3: the farmland sits on forest)
K_FM_EMPTY_BUY = K_FM + 14  # R-FM-4 reading fm_empty_buy: 1 = a buy may end buying nothing
K_FM_BUILDINGS_ONLY = K_FM + 15  # R-FM-5 reading fm_end_structures: 1 = farmland not counted
K_FM_COVERED_LOST = K_FM + 16  # R-FM-9 reading fm_covered_vegetables: 1 = they leave the game
K_FM_BED_ITEM_REVEAL = K_FM + 17  # R-FM-5 reading fm_bed_reveal: 1 = reveal-4 applies to it
K_FM_REACH_ITEM = K_FM + 24  # 25: points within reach with the explore_steps item
MAX_ITEMS = 32
MAX_MARKET = 24
N_ABILITIES = 18
K_FM_ITEM = K_FM_REACH_ITEM + N_POINTS  # 4 x MAX_ITEMS: cost, letter, ability, amount
FM_COST = 0
FM_LETTER = 1
FM_ABILITY = 2
FM_AMOUNT = 3
K_FM_TILE_VEG = K_FM_ITEM + 4 * MAX_ITEMS  # MAX_TILES: vegetable spaces of each tile (farms)
# The engine's own copy of the tile attributes, tile-major (one tile's attributes share two
# cache lines; attribute-major, the copy plugins see at K_TILE, spreads them over 16). Aligned
# to 8 entries (64 bytes) from the array's start.
K_TILE_ROWS = (K_FM_TILE_VEG + MAX_TILES + 7) // 8 * 8
# Restricted play (``never``/``always`` lists of a policy, engine/restrict.py): a flag, then per
# player (not seat: the seats rotate) bit sets over action types, items, mob species and
# building types. All 0 leaves every game exactly as without it.
K_RESTRICT = K_TILE_ROWS + MAX_TILES * N_TILE_ATTRS
K_RESTRICT_ON = K_RESTRICT  # 1 when any player has a restriction
K_RESTRICT_PLAYERS = K_RESTRICT + 1  # MAX_SEATS x RESTRICT_SIZE
RX_NEVER_TYPES = 0  # action types (ACT_*) never taken
RX_ALWAYS_TYPES = 1  # action types taken whenever legal
RX_NEVER_ITEMS = 2  # Farmer's Market items never bought (bit = item index)
RX_ALWAYS_ITEMS = 3
RX_NEVER_MOBS = 4  # mob species never fought (bit = species index)
RX_ALWAYS_MOBS = 5
RX_NEVER_BUILD = 6  # building types never built (bit = value of the characteristic "type")
RX_ALWAYS_BUILD = 7
RESTRICT_SIZE = 8
K_SIZE = K_RESTRICT_PLAYERS + MAX_SEATS * RESTRICT_SIZE

# ---- pub: public state --------------------------------------------------------------------
P_CTL = 0  # 64: control record, C_* below
P_OCC = 64  # cube occupancy bitboard (uint64 bit pattern)
P_VIS_BLOCK = 65  # 64: block type of visible blocks, -1 empty, -2 hidden
P_STACK_H = P_VIS_BLOCK + 64  # 16
P_TOP_UP = P_STACK_H + 16  # 16: face-up top tile, -1 face-down or empty
P_POS = P_TOP_UP + 16  # 4
P_BOARD_ID = P_POS + MAX_SEATS  # 4
P_SUPPLY = P_BOARD_ID + MAX_SEATS  # 4 x 5
P_BOARD_TOP = P_SUPPLY + MAX_SEATS * N_BLOCK_TYPES  # 4 x 9
P_BOARD_MASK = P_BOARD_TOP + MAX_SEATS * 9  # 4 x 3 x 4: 9-bit masks of spaces per value
P_N_HELD = P_BOARD_MASK + MAX_SEATS * 12  # 4
P_N_HUNGER = P_N_HELD + MAX_SEATS  # 4
P_HELD = P_N_HUNGER + MAX_SEATS  # 4 x MAX_HELD mob tiles held
P_XP = P_HELD + MAX_SEATS * MAX_HELD  # 4 x 8 XP by source
N_XP_SLOTS = 8
P_STATS = P_XP + MAX_SEATS * N_XP_SLOTS  # 4 x 16 counters
N_STAT_SLOTS = 16
P_SPECIES_FIGHTS = P_STATS + MAX_SEATS * N_STAT_SLOTS  # 4 x 16
P_SPECIES_WINS = P_SPECIES_FIGHTS + MAX_SEATS * MAX_SPECIES  # 4 x 16
P_FIGHT_REVEALED = P_SPECIES_WINS + MAX_SEATS * MAX_SPECIES  # 16
P_OWN_PILE = P_FIGHT_REVEALED + MAX_TOKEN_TYPES  # 16: the deciding seat's own pile
# Farmer's Market (R-FM-*): zero and unused when the expansion is off
P_FM = P_OWN_PILE + MAX_TOKEN_TYPES
P_FM_MARKET = P_FM  # MAX_MARKET: face-up item on each marketplace space, -1 none/face-down
P_FM_MARKET_UP = P_FM_MARKET + MAX_MARKET  # bitmask of face-up marketplace spaces
P_FM_SUPPLY = P_FM_MARKET_UP + 1  # vegetables in the supply
P_FM_OWNED = P_FM_SUPPLY + 1  # 4: bitmask of the items each seat bought
P_FM_ABIL = P_FM_OWNED + MAX_SEATS  # 4 x N_ABILITIES: amount of each ability a seat owns
P_FM_CAP = P_FM_ABIL + MAX_SEATS * N_ABILITIES  # 4 x 9: capacity of the visible farm structure
P_FM_VEG = P_FM_CAP + MAX_SEATS * 9  # 4 x 9: vegetables on each space
P_FM_FARMLAND = P_FM_VEG + MAX_SEATS * 9  # 4: space of the starting farmland, -1 before
P_FM_BOUGHT = P_FM_FARMLAND + MAX_SEATS  # 4: items bought
P_FM_SPENT = P_FM_BOUGHT + MAX_SEATS  # 4: vegetables paid
P_FM_BUY_ROUND = P_FM_SPENT + MAX_SEATS  # MAX_ITEMS: rounds scored when bought, -1 not bought
P_FM_XP_END = P_FM_BUY_ROUND + MAX_ITEMS  # 4: XP of end-game items (R-FM-5)
P_FM_XP_FARMING = P_FM_XP_END + MAX_SEATS  # 4: XP of farming chosen in round C (R-FM-6)
# 4 x 3 x 2: per seat and "may" ability (MAY_* of state.py) how often it was offered, declined
P_FM_MAY = P_FM_XP_FARMING + MAX_SEATS
P_FM_BURIED = P_FM_MAY + MAX_SEATS * 6  # vegetables under covering tiles (fm_covered_vegetables)
P_SIZE = P_FM_BURIED + 1

# ---- hid: hidden state ----------------------------------------------------------------
H_BLOCK = 0  # 64: block type at each position, -1 empty
H_STACKS = 64  # 16 x MAX_STACK_H tile ids, index 0 the bottom
H_TOK_SLOT = H_STACKS + 16 * MAX_STACK_H  # 16: token type on each spot, -1 taken
H_PILE = H_TOK_SLOT + 16  # 4 x 16 pile contents
H_FIGHT_LEFT = H_PILE + MAX_SEATS * MAX_TOKEN_TYPES  # 16
H_FM_MARKET = H_FIGHT_LEFT + MAX_TOKEN_TYPES  # 24: Farmer's Market items dealt, -1 bought
H_N_EVENTS = H_FM_MARKET + 24
H_EVENTS = H_N_EVENTS + 1  # MAX_EVENTS x 5 when logging
H_SIZE = H_EVENTS
H_SIZE_LOGGING = H_EVENTS + MAX_EVENTS * 5

# ---- rng rows ---------------------------------------------------------------------------
RNG_COMBAT = 0  # + seat
RNG_POLICY = MAX_SEATS  # + seat
N_STREAM_ROWS = 2 * MAX_SEATS


# ---- accessors (inlined; they only name the arithmetic) ---------------------------------
@kernel(inline="always")
def get_occ(pub):
    return np.uint64(pub[P_OCC])


@kernel(inline="always")
def set_occ(pub, bits):
    pub[P_OCC] = np.int64(bits)


@kernel(inline="always")
def tile_attr(k, attr, tile):
    return k[K_TILE_ROWS + tile * N_TILE_ATTRS + attr]


@kernel(inline="always")
def tile_char(k, char, tile):
    """Value (0..3) of characteristic ``char`` (0 biome, 1 material, 2 type) of a building."""
    return k[K_TILE_ROWS + tile * N_TILE_ATTRS + TILE_BIOME + char]


@kernel(inline="always")
def tile_cost(k, tile, block):
    return k[K_TILE_ROWS + tile * N_TILE_ATTRS + TILE_COST + block]


@kernel(inline="always")
def tok_attr(k, attr, t):
    return k[K_TOK + attr * MAX_TOKEN_TYPES + t]


@kernel(inline="always")
def mask_at(seat, char, value):
    """Offset of the board mask of (seat, characteristic, value) in ``pub``."""
    return P_BOARD_MASK + seat * 12 + char * 4 + value


@kernel(inline="always")
def supply_at(seat, block):
    return P_SUPPLY + seat * N_BLOCK_TYPES + block


@kernel(inline="always")
def xp_at(seat, source):
    return P_XP + seat * N_XP_SLOTS + source


@kernel(inline="always")
def stat_at(seat, stat):
    return P_STATS + seat * N_STAT_SLOTS + stat


@kernel(inline="always")
def fm_item(k, attr, item):
    return k[K_FM_ITEM + attr * MAX_ITEMS + item]


@kernel(inline="always")
def ability_at(seat, ability):
    """Offset in ``pub`` of the amount of an item ability (R-FM-5) the seat owns; 0 = none."""
    return P_FM_ABIL + seat * N_ABILITIES + ability


@kernel(inline="always")
def veg_at(seat, space):
    return P_FM_VEG + seat * 9 + space


@kernel(inline="always")
def cap_at(seat, space):
    return P_FM_CAP + seat * 9 + space


@kernel(inline="always")
def may_at(seat, may, declined):
    """Offset in ``pub`` of how often a "may" ability (R-FM-5) was offered to the seat, or
    (``declined`` = 1) declined by it."""
    return P_FM_MAY + seat * 6 + may * 2 + declined


@kernel(inline="always")
def pile_at(seat, t):
    return H_PILE + seat * MAX_TOKEN_TYPES + t
