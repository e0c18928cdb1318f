"""The one-step bots' constants: the index of each weight and the layout of their memory.

No kernels here: the weights' indices (``W_*``, in the order of ``kinds.HEURISTIC_WEIGHTS``)
and the slots of the per-seat policy memory (``MEM_*``) that ``onestep_values.py`` and
``onestep.py`` fill, and that the strong and priority-list bots keep clear of
(``strong.MEM_LEAD``, ``priority_layout.MEM_BOT``).
"""

from __future__ import annotations

# weight indices (must match kinds.HEURISTIC_WEIGHTS order; a test checks it)
W_XP = 0
W_BOARD = 1
W_BONUS_MOB = 2
W_HUNGER_MOB = 3
W_BLOCK_NEED = 4
W_BLOCK_WILD = 5
W_BLOCK_BASE = 6
W_WEAPON = 7
W_REVEAL = 8
W_POSITION = 9
W_TRIGGER = 10
W_TNT = 11
W_EXTRA_THRESHOLD = 12
W_FM_ITEM = 13  # Farmer's Market (policies/fm_policy.py)
W_FM_VEGETABLE = 14

# policy memory layout (float64[MEM_SIZE] per seat, zeroed at game start): best placement of
# each tile, valid while the seat's board, scored rounds and held mobs are unchanged.
MEM_PLACE_VALUE = 0  # + tile
MEM_PLACE_SPACE = 128  # + tile
MEM_PLACE_OK = 256  # + tile: the version the entry was computed for
MEM_TILE_LIMIT = 128
MEM_STACK_VALUE = 384  # + stack: value of the face-up tile there (per state, see MEM_STAMP)
MEM_BLOCK_VALUE = 400  # + block type: value of one more block (per state)
MEM_STAMP = 410  # pub[C_CHANGES] + 1 when the two tables above were filled
MEM_SPACE_ORDER = 420  # 9: this game's order of trying board spaces (random tie-break)
MEM_READY = 430  # 1 once MEM_SPACE_ORDER is drawn
MEM_TABLE_VERSION = 431  # the _version the placement table was filled for
MEM_TABLE = 512  # 9 x 3 x 4: board-value change per (space, characteristic, value)
MEM_POINT_VALUE = 704  # 25: value of exploring to each reachable point (per state)
MEM_POINT_STAMP = 729  # pub[C_CHANGES] + 1 when MEM_POINT_VALUE was filled
MEM_BLOCK_STAMP = 730  # pub[C_CHANGES] + 1 when MEM_BLOCK_VALUE was filled
MEM_BLOCK_SCRATCH = 736  # 64: value of taking each candidate block (scratch)
MEM_ROUND_POINTS = 800  # 4: points of each value in one round (scratch)
FAR_MISSING = 2  # buildings lacking more blocks than this count for nothing in a position
NEG = -1.0e18
EPS = 1e-9
