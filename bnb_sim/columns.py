"""Names shared by the engine's output, the run files and the reports (pure Python).

The order of ``XP_SOURCES`` is the engine's order of XP sources (``XP_*`` in
``bnb_sim.engine.state``); the rules behind them: R-BUILD-3, R-FIGHT-5, R-FIGHT-3, R-SCORE-2
(rounds A, B, C) and R-END-1.
"""

XP_SOURCES = (
    "xp_buildings",
    "xp_mobs",
    "xp_hoes",
    "xp_round_a",
    "xp_round_b",
    "xp_round_c",
    "xp_bonus_mobs",
)
