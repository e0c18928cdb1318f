"""The default weapon tokens as hand-built arrays, independent of the component loader
(estimates EST-1 and EST-2 of docs/sources.md), shared by the combat and odds tests."""

import numpy as np

NAMES = [
    "wooden_sword",
    "stone_sword",
    "poisonous_potato",
    "iron_sword",
    "diamond_sword",
    "bow",
    "golden_hoe",
    "stone_pickaxe",
    "tnt",
]
WOOD, STONE, POTATO, IRON, DIAMOND, BOW, HOE, PICKAXE, TNT = range(9)
HEARTS = np.array([1, 2, 0, 3, 4, 1, 1, 1, 0], np.int64)
EXTRA = np.array([0, 0, 0, 0, 0, 1, 0, 0, 0], np.int64)
XP = np.array([0, 0, 0, 0, 0, 0, 2, 0, 0], np.int64)
BLOCKS = np.array([0, 0, 0, 0, 0, 0, 0, 1, 0], np.int64)
DETONATE = np.array([0, 0, 0, 0, 0, 0, 0, 0, 5], np.int64)
TOKENS = (HEARTS, EXTRA, XP, BLOCKS, DETONATE)
START = np.array([1, 1, 3, 0, 0, 0, 0, 0, 0], np.int64)
TABLE = np.array([0, 2, 0, 4, 2, 2, 2, 2, 2], np.int64)
FULL = START + TABLE  # 21 tokens
