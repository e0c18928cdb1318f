"""Built-in policy kinds as data: a kind id plus a float parameter vector (docs/design.md).

Pure Python (no numba), so the CLI can validate ``--policy`` flags without compiling anything.
One compiled kernel serves every parameter setting.
"""

from __future__ import annotations

RANDOM = 0
GREEDY = 1
HEURISTIC = 2
PLUGIN = 3
BOT = 4  # a priority-list bot file (policies/priority.py)

KIND_NAMES = {
    RANDOM: "random",
    GREEDY: "greedy",
    HEURISTIC: "heuristic",
    PLUGIN: "plugin",
    BOT: "bot",
}

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

# ---- search bots (policies/search.py) -------------------------------------------------
# Ids kept apart from the one-step kinds so that other kinds can be added without clashes.
MC = 8
ISMCTS = 9
KIND_NAMES.update({MC: "mc", ISMCTS: "ismcts"})
# Parameter vector of a search bot: budget, exploration constant, rollout kind, reward margin,
# then the rollout policy's weights (a greedy or heuristic weight vector).
SEARCH_BUDGET = 0  # mc: rollouts per legal decision; ismcts: iterations per decision
SEARCH_C = 1  # ismcts: UCT exploration constant
SEARCH_ROLLOUT = 2  # kind id of the rollout policy (random, greedy, heuristic)
SEARCH_MARGIN = 3  # reward per XP of lead, added to the share of the win
SEARCH_WIDEN = 4  # ismcts: visits a node below the root needs per child (0: no unpruning)
# ismcts: iterations per root child (0: the root tries every decision); when set, every node
# adds its children in the rollout policy's order of preference (its prior)
SEARCH_ROOT = 5
SEARCH_WEIGHTS = 6  # rollout weights start here
SEARCH_DEFAULTS = {
    "mc": {"rollouts": 8.0, "rollout": "heuristic", "margin": 0.02},
    "ismcts": {
        "iterations": 64.0,
        "c": 0.7,
        "widen": 8.0,
        "root": 0.0,
        "rollout": "heuristic",
        "margin": 0.02,
    },
}
SEARCH_ROLLOUTS = {"random": RANDOM, "greedy": GREEDY, "heuristic": HEURISTIC}

# ---- the strong bot (policies/strong.py; model files: games/builders_biomes/strong_model.py) ---
# A one-step evaluator like the heuristic's, with one weight vector per game stage (rounds
# scored so far: 0, 1, 2), a bias per action type at the turn decision, and pacing terms for
# the blocks of a layer whose scoring round is still to come. Its weights are data: a model
# file trained by self-play against a field (docs/policies.md, "strong").
STRONG = 5
KIND_NAMES[STRONG] = "strong"
STRONG_STAGES = ("before round A", "after round A", "after round B")
STRONG_BIASES: dict[str, str] = {
    "bias_collect": "added to the value of the collect action at the turn decision",
    "bias_explore": "added to the value of the explore action at the turn decision",
    "bias_build": "added to the value of the build action at the turn decision",
    "bias_fight": "added to the value of the fight action at the turn decision",
    "bias_weapon": "added to the value of the weapon action at the turn decision",
    "bias_buy": "Farmer's Market: added to the value of the buy action at the turn decision",
}
STRONG_PACING: dict[str, str] = {
    "pace_near": (
        "per XP of lead in a round still to come, x 1/(1 + blocks its layer keeps): "
        "taking a block of that layer brings the round nearer"
    ),
    "pace_last_two": (
        "per XP of lead in a round still to come, for a block that leaves 1 or 2 blocks in "
        "its layer (the next collect may trigger the round)"
    ),
}
# Names of the weights of one stage, in the order of the parameter vector.
STRONG_FEATURES = (*HEURISTIC_WEIGHTS, *STRONG_BIASES, *STRONG_PACING)
STRONG_STAGE_SIZE = len(STRONG_FEATURES)
STRONG_BIAS0 = len(HEURISTIC_WEIGHTS)  # first bias within a stage
STRONG_PACE0 = STRONG_BIAS0 + len(STRONG_BIASES)  # first pacing weight within a stage
N_STRONG_PARAMS = STRONG_STAGE_SIZE * len(STRONG_STAGES)
STRONG_FEATURE_SET = "onestep-stages-1"  # bumped whenever the meaning of a weight changes
SEARCH_ROLLOUTS["strong"] = STRONG
