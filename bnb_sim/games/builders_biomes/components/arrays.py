"""The contract between the component loader and the kernels: plain numpy arrays.

:class:`ComponentArrays` is a namedtuple of arrays, so numba passes it into nopython code as
a struct (no jitclass, no globals). The loader fills it; the kernels only read it. Every
number of the game reaches the rules code through here.

Index conventions
-----------------
* Characteristics: 0 biome, 1 material, 2 type; each has exactly 4 values, in the order the
  component file lists them.
* Blocks: index 0..3 are the four materials in characteristic order; index 4 is the wild
  block (emerald, R-CUBE-3).
* Weapon token types: the order of the ``[weapons.*]`` tables in the file.
* Tiles: one entry per physical tile (copies expanded), buildings first then mobs, each in
  file order. Tile ids index these arrays.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

N_CHARACTERISTICS = 3
N_VALUES = 4
N_BLOCK_TYPES = 5
WILD_BLOCK = 4
N_BOARD_SPACES = 9

CHAR_BIOME = 0
CHAR_MATERIAL = 1
CHAR_TYPE = 2

TILE_BUILDING = 0
TILE_HUNGER_MOB = 1
TILE_BONUS_MOB = 2

# Indices into ComponentArrays.rules (numbers printed in the rule text, kept as data).
RULE_ACTIONS_PER_TURN = 0  # R-TURN-1: two actions
RULE_BLOCKS_PER_COLLECT = 1  # R-CUBE-2: two blocks
RULE_EXPLORE_MAX_STEPS = 2  # R-EXPLORE-1: 0, 1 or 2 steps
RULE_FIGHT_REVEAL = 3  # R-FIGHT-2: reveal 3 tokens
RULE_MIN_EXPOSED_SIDES = 4  # R-CUBE-1: at least two side faces
RULE_XP_TRACK = 5  # R-END-3: 50 spaces
RULE_PLAYERS_MIN = 6  # R-SETUP-1
RULE_PLAYERS_MAX = 7  # R-SETUP-1
RULE_STACK_HEIGHT = 8  # R-SETUP-2: 16 stacks of 4
N_RULES = 9

RULE_KEYS = (
    "actions_per_turn",
    "blocks_per_collect",
    "explore_max_steps",
    "fight_reveal",
    "min_exposed_sides",
    "xp_track",
    "players_min",
    "players_max",
    "stack_height",
)

ComponentArrays = namedtuple(
    "ComponentArrays",
    [
        "rules",  # int64[N_RULES], see RULE_*
        "block_count",  # int64[5]: blocks of each type in the cube (sum 64)
        "tok_hearts",  # int64[T]: hearts when revealed (TNT: 0 unless detonated)
        "tok_extra_reveals",  # int64[T]: further tokens revealed (bow: 1), R-FIGHT-2
        "tok_xp",  # int64[T]: XP gained when revealed (golden hoe: 2), R-FIGHT-3
        "tok_blocks",  # int64[T]: blocks collected when revealed (stone pickaxe: 1), R-FIGHT-3
        "tok_detonate",  # int64[T]: hearts if detonated, then removed (TNT: 5); 0 = cannot
        "tok_start",  # int64[T]: tokens of this type in each player's starting pile
        "tok_table",  # int64[T]: colourless tokens of this type placed on the table
        "tile_kind",  # int64[NT]: TILE_BUILDING, TILE_HUNGER_MOB or TILE_BONUS_MOB
        "tile_biome",  # int64[NT]: biome value 0..3 (buildings), -1 for mobs
        "tile_material",  # int64[NT]: material value 0..3 (buildings), -1 for mobs
        "tile_type",  # int64[NT]: type value 0..3 (buildings), -1 for mobs
        "tile_cost",  # int64[NT, 5]: blocks of each material to pay (wild column 0)
        "tile_xp",  # int64[NT]: XP when built (R-BUILD-3) or when defeated (R-FIGHT-5)
        "tile_hearts",  # int64[NT]: mob hearts, 0 for buildings
        "tile_species",  # int64[NT]: mob species index (file order), -1 for buildings
        "tile_source",  # int64[NT]: building row index (file order) / species for mobs
        "tile_bonus_char",  # int64[NT]: characteristic a bonus mob counts, -1 otherwise
        "tile_bonus_value",  # int64[NT]: value of that characteristic, -1 otherwise
        "tile_bonus_xp",  # int64[NT]: XP per matching space at the end (R-END-1)
        "score_card",  # int64[3, 4]: XP per space for each characteristic value
        "boards",  # int64[NB, 9]: printed biome of each space, row-major
        "group_table",  # int64[512]: largest connected group size per 9-bit mask
    ],
)


def empty_like_sizes(n_tokens: int, n_tiles: int, n_boards: int) -> ComponentArrays:
    """Zero-filled arrays of the right shapes and dtypes (used by loaders and tests)."""
    i64 = np.int64
    return ComponentArrays(
        rules=np.zeros(N_RULES, i64),
        block_count=np.zeros(N_BLOCK_TYPES, i64),
        tok_hearts=np.zeros(n_tokens, i64),
        tok_extra_reveals=np.zeros(n_tokens, i64),
        tok_xp=np.zeros(n_tokens, i64),
        tok_blocks=np.zeros(n_tokens, i64),
        tok_detonate=np.zeros(n_tokens, i64),
        tok_start=np.zeros(n_tokens, i64),
        tok_table=np.zeros(n_tokens, i64),
        tile_kind=np.zeros(n_tiles, i64),
        tile_biome=np.full(n_tiles, -1, i64),
        tile_material=np.full(n_tiles, -1, i64),
        tile_type=np.full(n_tiles, -1, i64),
        tile_cost=np.zeros((n_tiles, N_BLOCK_TYPES), i64),
        tile_xp=np.zeros(n_tiles, i64),
        tile_hearts=np.zeros(n_tiles, i64),
        tile_species=np.full(n_tiles, -1, i64),
        tile_source=np.zeros(n_tiles, i64),
        tile_bonus_char=np.full(n_tiles, -1, i64),
        tile_bonus_value=np.full(n_tiles, -1, i64),
        tile_bonus_xp=np.zeros(n_tiles, i64),
        score_card=np.zeros((N_CHARACTERISTICS, N_VALUES), i64),
        boards=np.zeros((n_boards, N_BOARD_SPACES), i64),
        group_table=np.zeros(512, i64),
    )


def group_table() -> np.ndarray:
    """``table[mask]`` = size of the largest orthogonally connected group of a 9-bit mask.

    Bit ``row * 3 + col`` of the mask is one space of the 3x3 board; diagonal spaces are not
    connected (R-SCORE-2). Built once by flood fill; kernels receive it as an argument.
    """
    table = np.zeros(512, np.int64)
    for mask in range(512):
        seen = 0
        best = 0
        for start in range(9):
            if not (mask >> start) & 1 or (seen >> start) & 1:
                continue
            seen |= 1 << start
            todo, size = [start], 0
            while todo:
                cell = todo.pop()
                size += 1
                row, col = divmod(cell, 3)
                for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
                    nxt = r * 3 + c
                    if 0 <= r < 3 and 0 <= c < 3 and (mask >> nxt) & 1 and not (seen >> nxt) & 1:
                        seen |= 1 << nxt
                        todo.append(nxt)
            best = max(best, size)
        table[mask] = best
    return table
