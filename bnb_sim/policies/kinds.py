"""Built-in policy kinds as data: a kind id plus a float parameter vector (docs/design.md).

Pure Python (no numba), so the CLI can validate ``--policy`` flags without compiling anything.
One compiled kernel serves every parameter setting.
"""

from __future__ import annotations

RANDOM = 0
GREEDY = 1
HEURISTIC = 2
PLUGIN = 3

KIND_NAMES = {RANDOM: "random", GREEDY: "greedy", HEURISTIC: "heuristic", PLUGIN: "plugin"}

# Named weights of the heuristic evaluation (order = position in the parameter vector).
# Each is the value, in XP, the bot puts on one unit of the thing named.
HEURISTIC_WEIGHTS: dict[str, tuple[float, str]] = {
    "xp": (1.0, "XP gained now (buildings, mobs, hoes)"),
    "board": (1.0, "change in the best score the board can make in the rounds still to come"),
    "bonus_mob": (1.0, "end-game value of a bonus mob at the current board"),
    "hunger_mob": (2.0, "holding a hunger mob (one extra action later)"),
    "block_need": (0.5, "a block that pays for part of a face-up building the bot cannot afford"),
    "block_wild": (0.7, "an emerald (pays for anything)"),
    "block_base": (0.15, "any block (flexibility and the R-END-2 tie-break)"),
    "weapon": (1.0, "gain in expected mob XP per fight from a stronger pile"),
    "reveal": (0.4, "each face-down stack an explore would turn up"),
    "position": (0.5, "the best build or fight waiting next to where the bot moves"),
    "trigger": (
        0.25,
        "per XP of lead (own best minus opponents' best) in a round the bot triggers",
    ),
    "tnt": (1.5, "keeping a TNT token for later fights (cost of detonating one)"),
    "extra_threshold": (0.5, "least value an action must have to spend a hunger mob on it"),
    "fm_item": (1.0, "Farmer's Market: each XP an item is expected to bring"),
    "fm_vegetable": (0.8, "Farmer's Market: each vegetable kept (it buys an item later)"),
}
HEURISTIC_DEFAULTS = [default for default, _ in HEURISTIC_WEIGHTS.values()]
N_PARAMS = max(len(HEURISTIC_WEIGHTS), 1)

# Greedy: XP now plus the change in board value; nothing for potential (blocks, weapons, moves).
GREEDY_PARAMS = {
    "xp": 1.0,
    "board": 1.0,
    "bonus_mob": 1.0,
    "hunger_mob": 0.0,
    "block_need": 0.01,
    "block_wild": 0.01,
    "block_base": 0.0,
    "weapon": 0.0,
    "reveal": 0.0,
    "position": 0.0,
    "trigger": 0.0,
    "tnt": 0.0,
    "extra_threshold": 0.0,
    "fm_item": 1.0,
    "fm_vegetable": 0.0,
}

W = {name: index for index, name in enumerate(HEURISTIC_WEIGHTS)}
