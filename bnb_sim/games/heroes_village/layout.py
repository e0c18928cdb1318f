"""Index constants of the Heroes of the Village arrays (pure Python, no numba).

The engine keeps one game in a flat ``int64`` state array ``s`` and reads the component data
from a flat ``int64`` array ``k`` (and a ``float64`` array ``kf`` of derived odds); this module
names every slot. The constants are fixed sizes of the arrays, not game numbers: every game
number lives in the component file (``bnb_sim/data/heroes_village.toml``) and reaches the
kernels through ``k``.
"""

from __future__ import annotations

# numba-constants: kernels read this module's constants (bnb_sim._jit fingerprints it)

# Block types (R-HV-5). A collecting symbol uses the same ids (wood, sand, stone).
WOOD, SAND, STONE, REDSTONE, DARKNESS = 0, 1, 2, 3, 4
N_BLOCKS = 5
BLOCK_NAMES = ("wood", "sand", "stone", "redstone", "darkness")
NO_SYMBOL = -1

# Pets (R-HV-9); -1 = no pet (tests and baselines).
WOLF, CAT, FOX, PANDA, HORSE, LLAMA = 0, 1, 2, 3, 4, 5
NO_PET = -1
PET_NAMES = ("wolf", "cat", "fox", "panda", "horse", "llama")

# Die faces: a number is its value (>= 0); symbols are negative codes (R-HV-6, R-HV-8, R-HV-11).
FACE_ARROW, FACE_ILLAGER, FACE_BLANK = -1, -2, -3
FACE_CODES = {"arrow": FACE_ARROW, "illager": FACE_ILLAGER, "blank": FACE_BLANK}

# Array capacities (validated by the component loader).
MAX_TILES = 32
MAX_TOKENS = 32
MAX_FACES = 12
MAX_BUILDINGS = 16
MAX_STACKS = 4
MAX_DARK_SPACES = 8
MAX_PLAYERS = 4
MAX_CHOSEN = 4
MAX_VALUE = 10  # fight values 1..9 are accepted
MAX_ROUNDS = 30  # Illager track columns kept per game
MAX_FIGHT_ROLLS = 10  # rules.fight_rolls is validated to at most this
MAX_PANDA = 5  # pets.panda.ignore_illager is validated to at most this

# ---- static data k (int64)
_k = 0


def _slot(size: int = 1) -> int:
    global _k
    at = _k
    _k += size
    return at


K_N_TILES = _slot()
K_N_TOKENS = _slot()
K_N_STACKS = _slot()
K_START = _slot()
K_LAST_SPACE = _slot()
K_N_DARK = _slot()
K_DARK_SPACES = _slot(MAX_DARK_SPACES)
K_ACTIONS = _slot()
K_DRAW = _slot()
K_FIGHT_ROLLS = _slot()
K_REWARD_DRAW = _slot()
K_GEN_SLOTS = _slot()
K_RED_SLOTS = _slot()
K_TO_WIN = _slot()
K_BUILD_PUSH = _slot()
K_MAX_TURNS = _slot()
K_CHECK = _slot()
K_DISCARD_TO_POUCH = _slot()
K_MOBS_REUSED = _slot()
K_PANDA_PER_TURN = _slot()
K_N_FIGHT_FACES = _slot()
K_FIGHT_FACES = _slot(MAX_FACES)
K_N_ILL_FACES = _slot()
K_ILL_FACES = _slot(MAX_FACES)
K_TOTAL = _slot(N_BLOCKS)  # blocks in the box per type
K_POUCH0 = _slot(N_BLOCKS)
K_TILE_SYMBOL = _slot(MAX_TILES)
K_TILE_BACK = _slot(MAX_TILES * N_BLOCKS)
K_TOKEN_VALUE = _slot(MAX_TOKENS)
K_N_BUILDINGS = _slot()
K_BUILDING_COST = _slot(MAX_BUILDINGS * N_BLOCKS)
K_BUILDING_LEVEL = _slot(MAX_BUILDINGS)
K_N_CHOSEN = _slot()
K_CHOSEN = _slot(MAX_CHOSEN)  # a building index, or -(level) - 1 for "one of this level"
K_WOLF_BONUS = _slot()
K_CAT_IGNORE = _slot()
K_FOX_EXTRA = _slot()
K_PANDA_IGNORE = _slot()
K_HORSE_TILES = _slot()
K_LLAMA_SLOTS = _slot()
K_BUILD_SEVERAL = _slot()  # reading build: 1 = one build action may serve several buildings
K_CAT_DRAW = _slot()  # reading cat: 1 = the Cat protects the whole first draw with darkness
K_FREE_NEEDED = _slot()  # reading free_lay: 1 = a stack top counts if available and needed
# luck designs (``bnb luck``): bitmask of the chance sources a group of games shares (bit =
# stream id RNG_SETUP .. RNG_ILLAGERS, FIX_POLICY for every seat's policy stream) and games per
# group; 0 in every ordinary run, which then seeds each stream from the game's own index
K_FIX_SOURCES = _slot()
K_FIX_GROUP = _slot()
K_SIZE = _k

# ---- derived odds kf (float64): per pet case (0 plain, 1 wolf, 2 panda) and fight value
KF_CASES = 3
KF_PWIN = 0
KF_TOWARD = KF_CASES * MAX_VALUE  # expected net spaces toward the village during the fight
KF_SIZE = 2 * KF_CASES * MAX_VALUE

# ---- state s (int64)
_k = 0
S_PHASE = _slot()
S_STATUS = _slot()
S_STATUS_INFO = _slot()
S_N_PLAYERS = _slot()
S_SEAT = _slot()
S_TURN = _slot()  # player turns completed
S_ACTIONS_LEFT = _slot()
S_ILLAGER = _slot()
S_ILLAGER_MIN = _slot()
S_BUILT = _slot()
S_WON = _slot()
S_CAT_USED = _slot()
S_PANDA_USED = _slot()
S_PICK_KIND = _slot()
S_MOB_NEXT = _slot()
S_MOBS_SPAWNED = _slot()
S_MOBS_DEFEATED = _slot()
S_TILES_LAID = _slot()
S_FREE_TILES = _slot()
S_FIGHTS_CUT = _slot()
S_ARROWS = _slot()
S_ILLAGER_ROLLS = _slot()  # Illager faces of the Fight die that moved the piece
S_LOST_IN_FIGHT = _slot()
S_DRAWS_EMPTY = _slot()
S_END_BY_DIE = _slot()  # 1 if the game ended on the Illagers die (the turn was complete)
S_FIGHT_TILE = _slot()  # the tile of the fight that waits for a roll-again-or-stop decision
S_FIGHT_ROLLS = _slot()  # rolls that fight has used
S_HORSE_LEFT = _slot()  # tiles the Horse may still add in this explore action
S_FIGHTS_STOPPED = _slot()  # fights stopped by the player after a failed roll
S_SUPPLY = _slot(N_BLOCKS)
S_POUCH = _slot(N_BLOCKS)
S_DRAWN = _slot(N_BLOCKS)  # blocks drawn and waiting for a pick (Fox, fight reward)
S_PATH_DARK = _slot(MAX_DARK_SPACES)  # 1 while the darkness block lies on that space
S_HANDED = _slot(N_BLOCKS)  # blocks handed in to buildings, per type
S_STACK_H = _slot(MAX_STACKS)
S_STACK = _slot(MAX_STACKS * MAX_TILES)
S_TILE_LAID = _slot(MAX_TILES)  # -1 in a stack, else the order it was laid in
S_TILE_MOB = _slot(MAX_TILES)  # -1 no mob, else the token index
S_MOB_PILE = _slot(MAX_TOKENS)  # token indices in draw order
S_CHOSEN = _slot(MAX_CHOSEN)  # building index of each chosen building
S_NEED = _slot(MAX_CHOSEN * N_BLOCKS)  # blocks a chosen building still needs
S_DONE = _slot(MAX_CHOSEN)
S_PET = _slot(MAX_PLAYERS)
S_INV = _slot(MAX_PLAYERS * N_BLOCKS)
S_TRACK = _slot(MAX_ROUNDS)  # Illager space after each round (-1 after the end)

# per-seat statistics (output columns of the players table)
SEAT_STAT_NAMES = (
    "explores",
    "collects",
    "fights",
    "builds",
    "discards",
    "passes",
    "picks",
    "blocks_collected",
    "blocks_handed_in",
    "fights_won",
    "fight_rolls",
    "mobs_spawned",
    "tiles_laid",
    "darkness_ignored",
    "fox_blocks",
    "illager_ignored",
    "fights_stopped",
    "horse_tiles_declined",
    "extra_hand_ins",
)
N_SEAT_STATS = len(SEAT_STAT_NAMES)
(
    T_EXPLORE,
    T_COLLECT,
    T_FIGHT,
    T_BUILD,
    T_DISCARD,
    T_PASS,
    T_PICK,
    T_BLOCKS,
    T_HANDED,
    T_FIGHTS_WON,
    T_ROLLS,
    T_SPAWNED,
    T_TILES,
    T_DARK_IGNORED,
    T_FOX,
    T_ILL_IGNORED,
    T_FIGHTS_STOPPED,
    T_HORSE_DECLINED,
    T_EXTRA_HAND_INS,
) = range(N_SEAT_STATS)
T_FIGHTS_BY_VALUE = N_SEAT_STATS  # fights finished against value v (not cut by the game's end)
T_WINS_BY_VALUE = N_SEAT_STATS + MAX_VALUE
SEAT_STRIDE = N_SEAT_STATS + 2 * MAX_VALUE
S_SEAT_STATS = _slot(MAX_PLAYERS * SEAT_STRIDE)
S_SIZE = _k

# a plugin's memory per seat (float64, zeroed at the start of each game)
PLUGIN_MEM = 32

# phases and statuses. PH_FIGHT, PH_BUILD and PH_HORSE are the optional rest of an action
# already counted: roll the Fight die again or stop (R-HV-6), hand in to another building or
# stop (R-HV-7, reading build=several), lay the Horse's next tile or stop (R-HV-9).
PH_ACTION, PH_PICK, PH_OVER, PH_FIGHT, PH_BUILD, PH_HORSE = 0, 1, 2, 3, 4, 5
PICK_NONE, PICK_FOX, PICK_REWARD = 0, 1, 2
ST_OK, ST_ILLEGAL, ST_TURN_LIMIT, ST_INVARIANT = 0, 1, 2, 3

# ---- actions
A_EXPLORE = 0
A_COLLECT = A_EXPLORE + MAX_STACKS
A_FIGHT = A_COLLECT + MAX_TILES
A_BUILD = A_FIGHT + MAX_TILES  # + 2 * chosen building + (1 if darkness is used as wild)
A_DISCARD = A_BUILD + 2 * MAX_CHOSEN  # + block type (free, not an action)
A_PICK = A_DISCARD + N_BLOCKS  # + block type (keep it, during a pick)
A_PICK_NONE = A_PICK + N_BLOCKS
A_PASS = A_PICK_NONE + 1  # only when no action is possible
# In PH_FIGHT, A_FIGHT + the fight's tile rolls again; in PH_BUILD, A_BUILD + ... hands in to
# one more building; in PH_HORSE, A_EXPLORE + stack lays the next tile. A_STOP ends that
# optional rest of the action (stop the fight, end the hand-in, decline the tile).
A_STOP = A_PASS + 1
N_ACTIONS = A_STOP + 1

# ---- random streams per game (R-HV: one per chance source, one per seat's policy)
RNG_SETUP, RNG_POUCH, RNG_FIGHT, RNG_ILLAGERS = 0, 1, 2, 3
RNG_POLICY = 4
FIX_POLICY = RNG_POLICY  # bit of K_FIX_SOURCES that fixes every seat's policy stream
# a stopped or cut fight is rolled to its end for the fight record only, from a stream of its
# own, so the record never moves a die the game uses
RNG_RECORD = RNG_POLICY + MAX_PLAYERS
N_STREAMS = RNG_RECORD + 1

# ---- game output row (int64)
GAME_OUTPUT = (
    "status",
    "won",
    "turns",
    "rounds",
    "buildings_completed",
    "illager_final",
    "illager_min",
    "mobs_spawned",
    "mobs_defeated",
    "tiles_laid",
    "free_tiles",
    "arrows",
    "illager_faces",
    "lost_in_fight",
    "fights_cut",
    "fights_stopped",
    "pouch_left",
    "mobs_on_board",
)
N_GAME_OUT = len(GAME_OUTPUT) + MAX_CHOSEN + MAX_ROUNDS
G_CHOSEN = len(GAME_OUTPUT)
G_TRACK = G_CHOSEN + MAX_CHOSEN

# ---- event log (bnb play): rows of (kind, turn, seat, a, b, c)
LOG_WIDTH = 6
(
    EV_SETUP,
    EV_TURN,
    EV_EXPLORE,
    EV_FREE_TILE,
    EV_COLLECT,
    EV_DRAW,
    EV_MOB,
    EV_FIGHT,
    EV_ROLL,
    EV_DEFEAT,
    EV_BUILD,
    EV_COMPLETE,
    EV_ILLAGER,
    EV_DARK_TO_POUCH,
    EV_DIE,
    EV_PICK,
    EV_DISCARD,
    EV_END,
    EV_FIGHT_STOP,
    EV_HORSE_STOP,
) = range(20)
