"""The vocabulary of priority-list bots (``bot:FILE.toml``) and the layout of a compiled bot.

A bot file is compiled (:mod:`bnb_sim.games.builders_biomes.policies.priority_compile`) into one
float64 parameter
vector that the single interpreter kernel (:mod:`bnb_sim.games.builders_biomes.policies.priority`)
reads, so a new
bot file is new data, never new machine code. Pure Python (no numba): the CLI validates a bot
file without compiling anything.

Parameter vector of a bot::

    [0, N_PARAMS)                 weights of the fallback policy (greedy/heuristic weights)
    B_FALLBACK                    fallback policy kind (RANDOM, GREEDY or HEURISTIC)
    B_N_RULES                     number of rules
    B_PHASES + 2 * phase (+1)     first rule of the phase, number of rules of the phase
    B_RULES + RULE_SIZE * r       rule r: see R_* below

Policy memory of a bot seat (float64, zeroed at game start; the fallback's own cache lives
below ``MEM_BOT``): per rule its hit count and its cap counters, then the fallback count and
the rule that decided last (-1: the fallback).
"""

from __future__ import annotations

from bnb_sim.games.builders_biomes.policies.kinds import N_PARAMS

MAX_RULES = 64
MAX_CONDS = 6
# The program follows the fallback's weights (N_PARAMS of them: derived, so a new heuristic
# weight moves the program instead of overlapping it).
B_FALLBACK = N_PARAMS
B_N_RULES = N_PARAMS + 1
B_PHASES = N_PARAMS + 2
N_PHASES = 17
B_RULES = B_PHASES + 2 * N_PHASES + 6
R_CHOICE = 0
R_PHASE = 1
R_N_CONDS = 2
R_CAP_GAME = 3  # -1: no cap
R_CAP_TURN = 4
R_CAP_ROUND = 5
R_CONDS = 8  # MAX_CONDS x (condition id, lo, hi, unused)
COND_SIZE = 4
RULE_SIZE = R_CONDS + COND_SIZE * MAX_CONDS  # 32
PROGRAM_SIZE = B_RULES + RULE_SIZE * MAX_RULES

MEM_BOT = 1024  # below: the one-step evaluation's cache (onestep_layout.MEM_*)
MEM_HITS = MEM_BOT  # + rule
MEM_USED_GAME = MEM_BOT + MAX_RULES  # + rule
MEM_USED_TURN = MEM_BOT + 2 * MAX_RULES  # + rule
MEM_TURN_STAMP = MEM_BOT + 3 * MAX_RULES  # + rule: turn counter + 1 of the count above
MEM_USED_ROUND = MEM_BOT + 4 * MAX_RULES  # + rule
MEM_ROUND_STAMP = MEM_BOT + 5 * MAX_RULES  # + rule: scored rounds + 1 of the count above
MEM_FALLBACK_HITS = MEM_BOT + 6 * MAX_RULES
MEM_LAST_RULE = MEM_FALLBACK_HITS + 1
MEM_BOT_END = MEM_LAST_RULE + 1

# Decision kinds: file key -> engine phase (engine.state PH_*), with what the action means.
PHASES: dict[str, tuple[int, str]] = {
    "turn": (0, "which action to take next (or end the turn)"),
    "blocks": (1, "which block to collect"),
    "movement": (2, "where to explore to"),
    "building": (3, "which face-up building to build"),
    "space": (4, "where on the board to place the building"),
    "fight": (5, "which mob to fight"),
    "pickaxe": (6, "which block a stone pickaxe takes (or none, where optional)"),
    "tnt": (7, "how many revealed TNT to detonate"),
    "weapon": (8, "which token spot to take a weapon from"),
    "scoring": (9, "which characteristic value scores in the round"),
    "hunger": (11, "how many hunger mobs to return for extra actions"),
    "bow": (12, "whether to reveal the bow's extra token"),
    "bed": (15, "Farmer's Market bed: whether to fight the mob a second time after a loss"),
    "reveal_four": (16, "Farmer's Market reveal 4: whether to reveal the item's extra token"),
}
PHASE_OF_INDEX = {phase: name for name, (phase, _) in PHASES.items()}

# Choices: name -> (id, phases it is valid in (None: all), description).
CHOICES: dict[str, tuple[int, tuple[str, ...] | None, str]] = {
    "best": (0, None, "the fallback policy's decision"),
    "random": (1, None, "uniformly random among the legal decisions"),
    "collect": (2, ("turn",), "take a collect action"),
    "explore": (3, ("turn",), "take an explore action"),
    "build": (4, ("turn",), "take a build action"),
    "fight": (5, ("turn",), "take a fight action"),
    "weapon": (6, ("turn",), "take a weapon action"),
    "end": (7, ("turn", "hunger"), "end the turn (turn: when allowed; hunger: return none)"),
    "needed": (8, ("blocks", "pickaxe"), "the block type most lacking for a building in reach"),
    "emerald": (9, ("blocks", "pickaxe"), "an emerald"),
    "skip": (
        10,
        ("pickaxe", "bow", "blocks", "bed", "reveal_four"),
        "decline: a pickaxe's block where optional, a bow's extra reveal, the collect-3 "
        "item's third block, the bed's second fight, the reveal-4 item's extra token",
    ),
    "toward_building": (
        11,
        ("movement",),
        "a point next to the affordable (else least-missing) face-up building",
    ),
    "toward_mob": (12, ("movement",), "a point next to the likeliest mob to beat"),
    "reveal": (
        13,
        ("movement", "bow", "reveal_four"),
        "movement: the point next to most face-down stacks; bow, reveal_four: take the reveal",
    ),
    "stay": (14, ("movement",), "do not move"),
    "most_xp": (15, ("building", "fight"), "the tile worth most XP"),
    "cheapest": (16, ("building",), "the building costing fewest blocks"),
    "likeliest": (17, ("fight",), "the mob with the highest win probability"),
    "hunger_mob": (18, ("fight",), "a hunger mob (likeliest first)"),
    "bonus_mob": (19, ("fight",), "a bonus mob (likeliest first)"),
    "none": (20, ("tnt",), "detonate no TNT"),
    "all": (21, ("tnt", "hunger"), "detonate every revealed TNT / return every hunger mob"),
    "one": (22, ("tnt", "hunger"), "exactly one"),
    "finish_layer": (
        23,
        ("blocks", "pickaxe"),
        "a block from the highest cube layer that still has blocks (emptying a layer "
        "triggers its scoring round, R-SCORE-1)",
    ),
    "fight_again": (24, ("bed",), "fight the mob a second time (the bed)"),
}
CHOICE_NAMES = {cid: name for name, (cid, _, _) in CHOICES.items()}

# Conditions: name -> (id, integer-valued, smallest, largest, description).
BIG = 1.0e9
CONDITIONS: dict[str, tuple[int, bool, float, float, str]] = {
    "xp": (0, True, -BIG, BIG, "own XP so far"),
    "xp_lead": (1, True, -BIG, BIG, "own XP minus the best opponent's XP"),
    "rounds_scored": (2, True, 0, 3, "scoring rounds scored so far (0..3)"),
    "turn": (3, True, 0, BIG, "own turns started so far (this one included)"),
    "game_turn": (4, True, 0, BIG, "turns started so far by all seats"),
    "actions_done": (5, True, 0, BIG, "main actions completed in this turn"),
    "extra_action": (6, True, 0, 1, "1 while deciding an extra (hunger-mob) action"),
    "supply": (7, True, 0, BIG, "own blocks, all types"),
    "emeralds": (8, True, 0, BIG, "own emeralds"),
    "missing_blocks": (
        9,
        True,
        0,
        BIG,
        "fewest blocks missing for a face-up building within reach (0: one is affordable; "
        "99 when none is within reach)",
    ),
    "buildings_in_reach": (10, True, 0, 16, "face-up buildings next to a point within reach"),
    "affordable_buildings": (11, True, 0, 16, "face-up buildings next to you that you can pay"),
    "mobs_in_reach": (12, True, 0, 16, "face-up mobs next to a point within reach"),
    "mobs_adjacent": (13, True, 0, 16, "face-up mobs next to you (fightable now)"),
    "win_prob": (
        14,
        False,
        0.0,
        1.0,
        "exact win probability of the fight at hand with your pile (during a fight: that "
        "mob; otherwise: the likeliest mob next to you; 0 when none)",
    ),
    "pile": (15, True, 0, BIG, "tokens in your own pile"),
    "hunger_mobs": (16, True, 0, BIG, "hunger mobs you hold"),
    "bonus_mobs": (17, True, 0, BIG, "bonus mobs you hold"),
    "buildings_built": (18, True, 0, BIG, "buildings you have built"),
    "fights": (19, True, 0, BIG, "fights you have fought"),
    "weapons_taken": (20, True, 0, BIG, "weapons you have taken"),
    "face_down_in_reach": (21, True, 0, 16, "stacks showing no tile next to a point in reach"),
    "hearts_needed": (22, True, -BIG, BIG, "during a fight: mob hearts minus revealed hearts"),
    "tnt_revealed": (23, True, 0, BIG, "during a fight: revealed TNT that could be detonated"),
    "tiles_left": (24, True, 0, BIG, "tiles left in all stacks"),
    "layer_blocks_left": (
        25,
        True,
        0,
        16,
        "blocks left in the highest cube layer that still has any (0: the cube is empty)",
    ),
}
CONDITION_NAMES = {cid: name for name, (cid, *_rest) in CONDITIONS.items()}
CAPS = {
    "max_per_game": (R_CAP_GAME, "the rule decides at most N times per game"),
    "max_per_turn": (R_CAP_TURN, "at most N times per own turn"),
    "max_per_round": (R_CAP_ROUND, "at most N times between two scoring rounds"),
}
