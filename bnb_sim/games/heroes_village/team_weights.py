"""The named weights of the Heroes of the Village team bot, in parameter-vector order: the
value the bot puts on one unit of the thing named, in "needed blocks" (R-HV-6, R-HV-7 where
cited). The policies (:mod:`bnb_sim.games.heroes_village.policies`) build the kernel's weight
positions from them; the strong bot's model files (:mod:`.strong_model`) name them."""

from __future__ import annotations

TEAM_WEIGHTS: dict[str, tuple[float, str]] = {
    "block": (1.0, "a collected block that a chosen building still needs"),
    "redstone": (1.5, "a collected redstone that a chosen building still needs"),
    "hand_in": (1.2, "each block handed in to a building"),
    "complete": (4.0, "completing a building (the Illager moves back, R-HV-7)"),
    "dark_keep": (0.6, "keeping a darkness block as a wild for later instead of spending it"),
    "explore": (0.4, "each needed block a laid tile brings into the pouch"),
    "explore_base": (0.35, "laying a tile at all (a new collecting site, more blocks)"),
    "mob": (0.8, "the chance that collecting spawns a mob"),
    "fight": (0.6, "defeating a mob (the site is free again, a reward block)"),
    "illager": (1.5, "each space the Illager is expected to move toward the village"),
    "discard": (0.05, "discarding a block no building needs while the slots are full"),
    "urgency": (0.15, "extra weight on completing per space the Illager is closer than its start"),
    "lose": (12.0, "the game lost by a Fight-die Illager face (R-HV-6: a fight may be stopped)"),
}
