"""Game state vocabulary of Builders & Biomes: phases, actions, control fields, counters.

The state itself is four flat arrays (``pub``, ``hid``, ``rng`` and the static ``k``; see
``layout.py``). ``pub`` is what everyone at the table can see; hidden information (block
materials inside the cube, tile order, token identities on the table, the piles, random
streams) lives in ``hid`` and ``rng``, which policies never receive: a policy cannot peek by
accident.

Decisions
---------
Every decision is one integer ``action`` in ``[0, N_ACTIONS)``; its meaning depends on the
phase (``ctl[C_PHASE]``). Index 64 (``PASS``) means "end the turn" or "decline".

==================  ==========================================  ======================
phase               action                                      rules
==================  ==========================================  ======================
PH_TURN             0 collect, 1 explore, 2 build, 3 fight,     R-TURN-1, R-TURN-2
                    4 weapon; PASS ends the turn
PH_COLLECT          cube position 0..63 of a collectable block  R-CUBE-1, R-CUBE-2
PH_EXPLORE          crossing point 0..24 to move to             R-EXPLORE-1
PH_BUILD_TILE       stack 0..15 holding the building            R-BUILD-1
PH_BUILD_SPACE      board space 0..8                            R-BUILD-2
PH_FIGHT_MOB        stack 0..15 holding the mob                 R-FIGHT-1
PH_PICKAXE          cube position 0..63, or PASS                R-FIGHT-3
PH_TNT              number of revealed TNT to detonate          R-FIGHT-4
PH_WEAPON           token spot 0..15                            R-WEAPON-1
PH_SCORE            characteristic value 0..3                   R-SCORE-2
PH_HUNGER           number of hunger mobs to return (0 ends     R-TURN-2 (reading
                    the turn)                                   ``hunger=together``)
PH_BOW              0 reveal the bow's extra token; PASS        R-FIGHT-2 (reading
                    declines it                                 ``bow=choose``)
PH_FARMLAND         board space 0..8 (a forest)                 R-FM-3
PH_BUY              marketplace space; PASS ends the buying     R-FM-4
                    (once something was bought)
PH_BED              0 fight the mob again; PASS declines        R-FM-5 (the bed)
PH_REVEAL_FOUR      0 reveal the item's extra token; PASS       R-FM-5 (reveal 4)
                    declines it
==================  ==========================================  ======================

With the collect-3 item of the Farmer's Market, PASS in PH_COLLECT declines the third block
(R-FM-5: the player "may" collect three).
"""

from __future__ import annotations

import numpy as np

from bnb_sim._jit import kernel, njit
from bnb_sim.games.builders_biomes.engine.layout import (
    H_EVENTS,
    H_N_EVENTS,
    H_SIZE,
    H_SIZE_LOGGING,
    K_OPTS,
    MAX_EVENTS,
    N_BLOCK_TYPES,
    N_STREAM_ROWS,
    P_FM_XP_END,
    P_FM_XP_FARMING,
    P_SIZE,
    supply_at,
    xp_at,
)

# ---- actions -------------------------------------------------------------------------
N_ACTIONS = 65
PASS = 64
ACT_COLLECT = 0
ACT_EXPLORE = 1
ACT_BUILD = 2
ACT_FIGHT = 3
ACT_WEAPON = 4
ACT_BUY = 5  # Farmer's Market only (R-FM-4)
N_ACTION_TYPES = 5  # of the base game
ACTION_TYPE_NAMES = ("collect", "explore", "build", "fight", "weapon")

# ---- phases --------------------------------------------------------------------------
PH_TURN = 0
PH_COLLECT = 1
PH_EXPLORE = 2
PH_BUILD_TILE = 3
PH_BUILD_SPACE = 4
PH_FIGHT_MOB = 5
PH_PICKAXE = 6
PH_TNT = 7
PH_WEAPON = 8
PH_SCORE = 9
PH_OVER = 10
PH_HUNGER = 11
PH_BOW = 12
PH_FARMLAND = 13  # Farmer's Market: board space 0..8 (a forest) for the farmland, R-FM-3
PH_BUY = 14  # Farmer's Market: marketplace space to buy from, PASS ends buying, R-FM-4
PH_BED = 15  # Farmer's Market: 0 fights the mob a second time after a loss, PASS declines
PH_REVEAL_FOUR = 16  # Farmer's Market: 0 reveals the reveal-4 item's extra token, PASS declines
PHASE_NAMES = (
    "turn",
    "collect",
    "explore",
    "build_tile",
    "build_space",
    "fight_mob",
    "pickaxe",
    "tnt",
    "weapon",
    "score",
    "over",
    "hunger",
    "bow",
    "farmland",
    "buy",
    "bed",
    "reveal_four",
)

# ---- the control record: pub[C_*] (P_CTL = 0) ----------------------------------------
C_PHASE = 0  # PH_*
C_SEAT = 1  # seat that decides now
C_TURN_SEAT = 2  # seat whose turn it is
C_N_PLAYERS = 3
C_ACTIONS_DONE = 4  # main actions completed this turn (R-TURN-1)
C_ACTIONS_USED = 5  # bitmask of action types used as main actions this turn
C_EXTRA = 6  # 1 while an extra action (paid with a hunger mob) is running
C_BLOCKS_OWED = 7  # blocks still to take in the current collect action
C_BUILD_STACK = 8  # stack chosen in PH_BUILD_TILE
C_FIGHT_STACK = 9  # stack of the mob being fought
C_REVEALS_OWED = 10  # tokens still to reveal in the fight (R-FIGHT-2)
C_FIGHT_HEARTS = 11  # hearts of the revealed tokens, TNT excluded
C_FIGHT_TNT = 12  # revealed tokens that could be detonated
C_PICKS_OWED = 13  # blocks owed by revealed stone pickaxes (R-FIGHT-3)
C_ROUNDS_PENDING = 14  # bitmask of rounds triggered this turn (R-SCORE-1)
C_ROUNDS_DONE = 15  # bitmask of rounds scored
C_SCORE_ROUND = 16  # round being scored (0 A, 1 B, 2 C)
C_SCORE_STEP = 17  # players who have scored in this round
C_TURN = 18  # turns started so far (all seats)
C_ROUND_TURN = 19  # 19, 20, 21: turn in which round A, B, C was triggered
C_STATUS = 22  # 0 ok; ST_* error codes
C_STATUS_INFO = 23  # detail for the error (the illegal action, ...)
C_ROTATION = 24  # seat s is played by player (s + rotation) % n
C_FIGHT_TILE = 25  # tile being fought (public: it is face-up)
C_LAST_WIN = 26  # 1 if the last fight was won
C_GAME_INDEX = 27
C_UP_BUILDINGS = 28  # bitmask of stacks whose face-up top tile is a building
C_UP_MOBS = 29  # bitmask of stacks whose face-up top tile is a mob
C_TOKENS = 30  # bitmask of token spots that still hold a token
C_ACTION_TYPE = 31  # action type being carried out
C_SPENT = 32  # 32..36: blocks of each type paid for buildings (they left the game)
C_XP_SEEN = 37  # 37..40: each seat's XP at the last invariant check
C_CHANGES = 41  # counts decisions that changed the table (bots cache evaluations on it)
C_BEGINNER_SEATS = 42  # bitmask of seats that score by the beginner rule (R-SCORE-4)
C_EXTRA_OWED = 43  # extra actions paid for and not yet taken (R-TURN-2, hunger=together)
C_HUNGER_DONE = 44  # 1 once the seat has decided how many hunger mobs to return this turn
C_BOW_OFFERS = 45  # extra reveals a bow offers that the player has not decided on (bow=choose)
C_FM_PLACED = 46  # Farmer's Market: farmlands placed so far (R-FM-3)
C_FM_REFIGHT = 47  # Farmer's Market: 1 once the bed's second fight was used in this fight
C_FM_BUYS = 48  # Farmer's Market: items bought in the current buy action (R-FM-4)
C_FM_REVEAL_OFFER = 49  # Farmer's Market: 1 while the reveal-4 item's extra reveal is to offer
N_CTL = 50
# Beyond N_CTL: engine bookkeeping for the run files only, outside the observation, so no
# policy can see it (and no decision depends on it).
C_XP_AFTER_ROUND = 56  # 56..59 round A, 60..63 round B: each seat's XP right after the round

ST_OK = 0
ST_TURN_LIMIT = 1
ST_ILLEGAL_ACTION = 2
ST_INVARIANT = 3
ST_STUCK = 4
ST_STOPPED = 5  # the run was asked to stop (Ctrl-C, SIGTERM) before the game ended

# ---- XP sources (columns of xp) ------------------------------------------------------
XP_BUILDINGS = 0
XP_MOBS = 1
XP_HOES = 2
XP_ROUND_A = 3  # +1 round B, +2 round C
XP_BONUS_MOBS = 6
N_XP = 7  # of the base game (run-file columns)
# Farmer's Market: items' XP during play (jukebox, collect XP), R-FM-5; the expansion's other
# two sources (end-game items, farming in round C) are P_FM_XP_END / P_FM_XP_FARMING.
XP_ITEMS_PLAY = 7
N_XP_ALL = 8

# ---- per-seat counters (columns of stats) -------------------------------------------
S_MOBS_DEFEATED = 0
S_BUILDINGS_BUILT = 1
S_WEAPONS_TAKEN = 2
S_FIGHTS = 3
S_FIGHTS_WON = 4
S_TNT = 5
S_HUNGER_SPENT = 6
S_TURNS = 7
S_CHOICE = 8  # 8, 9, 10: value chosen in round A, B, C (-1 before)
S_BLOCKS_COLLECTED = 11
S_BONUS_MOBS = 12  # bonus mob tiles held (they are never given back)
N_STATS = 13

# ---- random streams: fixed ids so that any game replays from (seed, game index) ------
STREAM_CUBE = 0
STREAM_TILES = 1
STREAM_TOKENS = 2
STREAM_BOARDS = 3
STREAM_SEATS = 4
STREAM_MARKET = 5  # Farmer's Market: the item tiles (a stream of its own: base games unchanged)
STREAM_COMBAT = 16  # + seat: the seat's shuffles and draws
STREAM_POLICY = 32  # + seat: the seat's policy choices

# ---- seating of players (R-SETUP-4) -------------------------------------------------
SEATING_FIXED = 0  # player i sits at seat i
SEATING_ROTATE = 1  # game g: seat s is played by player (s + g) % n (balanced)
SEATING_RANDOM = 2  # a random starting player from the setup stream (the rulebook)

# ---- run options: k[K_OPTS + OPT_*] (rule readings and engine switches) ------------
OPT_BEGINNER = 0  # R-SCORE-4: bitmask of the players (not seats) who score by the beginner rule
OPT_PICKAXE_OPTIONAL = 1  # R-FIGHT-3 "lets": 1 = the player may decline the block
OPT_MAX_TURNS = 2  # safety bound; hitting it is an error naming the game
OPT_SEATING = 3  # SEATING_*
OPT_LOG = 4  # 1 = record events (for `bnb play`)
OPT_CHECK = 5  # 1 = run the invariant checker after every decision
OPT_HUNGER = 6  # R-TURN-2: HUNGER_TOGETHER or HUNGER_ONE_BY_ONE
OPT_BONUS_BUILT = 7  # R-END-1: 1 = biome bonuses count buildings only (bonus_biomes=built)
OPT_BOW_CHOOSE = 8  # R-FIGHT-2: 1 = the extra reveal of a bow is the player's decision
OPT_BOARDS_FIXED = 9  # R-SETUP-4: 1 = player i gets board i (boards=fixed)
OPT_FIX_SOURCES = 10  # luck designs: bitmask of chance sources (FIX_*) shared by a group
OPT_FIX_GROUP = 11  # luck designs: games per group (0 = off: every source is the game's own)
N_OPTS = 12

# chance sources a luck design can fix (bits of OPT_FIX_SOURCES): the set-up streams by their
# own ids (STREAM_CUBE .. STREAM_MARKET, STREAM_SEATS also fixes a rotated seating), then every
# seat's fight draws together and every seat's policy stream together
FIX_COMBAT = 6
FIX_POLICY = 7

# ---- the "may" abilities of Farmer's Market items (R-FM-5): the player decides -----------
MAY_BED = 0  # the bed's second fight after a loss
MAY_THIRD_BLOCK = 1  # the collect-3 item's third block
MAY_FOURTH_TOKEN = 2  # the reveal-4 item's extra token
N_MAY = 3

# ---- hunger mobs (R-TURN-2) -----------------------------------------------------------
HUNGER_TOGETHER = 0  # the rulebook: return any number in one step after the two actions
HUNGER_ONE_BY_ONE = 1  # one tile per extra action, each after seeing the last one's result


# ---- events (OPT_LOG) ---------------------------------------------------------------
EV_ACTION = 1  # a: action type, b: 1 if extra
EV_TAKE_BLOCK = 2  # a: position, b: block type, c: 1 if by pickaxe
EV_MOVE = 3  # a: from point, b: to point
EV_REVEAL_TILE = 4  # a: stack, b: tile
EV_BUILD = 5  # a: tile, b: space, c: xp
EV_FIGHT = 6  # a: stack, b: tile
EV_TOKEN = 7  # a: token type revealed
EV_HOE = 8  # a: xp
EV_TNT = 9  # a: number detonated, b: hearts added
EV_FIGHT_END = 10  # a: 1 won, b: hearts total, c: mob hearts
EV_WEAPON = 11  # a: spot, b: token type
EV_SPEND_HUNGER = 12  # a: tile
EV_END_TURN = 13
EV_ROUND = 14  # a: round
EV_SCORE = 15  # a: round, b: value, c: xp
EV_BONUS = 16  # a: tile, b: xp
EV_GAME_OVER = 17
EV_TRIGGER = 18  # a: round triggered (layer emptied)
EV_BOW_DECLINED = 19  # a: reveals declined (bow=choose)
EV_FARMLAND = 20  # a: space
EV_BUY = 21  # a: item, b: vegetables paid
EV_MARKET = 22  # a: letter revealed (0 X, 1 A, 2 B)
EV_REFILL = 23  # a: vegetables added
EV_REFIGHT = 24  # a: mob tile fought again (bed)
EV_MAY_DECLINED = 25  # a: MAY_* (a "may" item ability the player declined, R-FM-5)


@njit(cache=True)
def new_game_arrays(k):
    """Fresh ``pub``, ``hid`` and ``rng`` arrays for one game (set up by ``setup.py``)."""
    hid_size = H_SIZE_LOGGING if k[K_OPTS + OPT_LOG] != 0 else H_SIZE
    pub = np.zeros(P_SIZE, np.int64)
    hid = np.zeros(hid_size, np.int64)
    rng = np.zeros((N_STREAM_ROWS, 4), np.uint64)
    return pub, hid, rng


@kernel(inline="always")
def log_event(hid, k, seat, kind, a, b, c):
    """Record an event when logging is on (``bnb play``); a no-op in batch runs."""
    if k[K_OPTS + OPT_LOG] == 0:
        return
    n = hid[H_N_EVENTS]
    if n < MAX_EVENTS:
        base = H_EVENTS + 5 * n
        hid[base] = seat
        hid[base + 1] = kind
        hid[base + 2] = a
        hid[base + 3] = b
        hid[base + 4] = c
        hid[H_N_EVENTS] = n + 1


@kernel(inline="always")
def xp_total(pub, seat):
    total = 0
    for source in range(N_XP_ALL):  # slot 7 (the expansion's) is 0 in base games
        total += pub[xp_at(seat, source)]
    return total + pub[P_FM_XP_END + seat] + pub[P_FM_XP_FARMING + seat]


@kernel(inline="always")
def supply_total(pub, seat):
    total = 0
    for block in range(N_BLOCK_TYPES):
        total += pub[supply_at(seat, block)]
    return total
