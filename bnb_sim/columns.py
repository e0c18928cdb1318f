"""Names shared by the engine's output, the run files and the reports (pure Python).

The order of ``XP_SOURCES`` is the engine's order of XP sources (``XP_*`` in
``bnb_sim.games.builders_biomes.engine.state``); the rules behind them: R-BUILD-3, R-FIGHT-5,
R-FIGHT-3, R-SCORE-2
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

# Per-seat counters in the engine's order (``S_*`` of
# ``bnb_sim.games.builders_biomes.engine.state``).
STAT_COLUMNS = (
    "mobs_defeated",
    "buildings_built",
    "weapons_taken",
    "fights",
    "fights_won",
    "tnt_detonated",
    "hunger_spent",
    "turns",
    "choice_a",
    "choice_b",
    "choice_c",
    "blocks_collected",
    "bonus_mobs_held",
)
#: Counters the engine keeps for the bots but the run files do not store.
UNSTORED_STATS = ("blocks_collected", "bonus_mobs_held")

#: The fixed columns of the ``seats`` table, in file order (docs/run-format.md).
SEAT_FIXED_COLUMNS = (
    "game",
    "seat",
    "player",
    "policy",
    "n_players",
    "board",
    "xp",
    *XP_SOURCES,
    "blocks_left",
    *(name for name in STAT_COLUMNS if name not in UNSTORED_STATS),
    "rank",
    "won",
    "total_xp_after_a",
    "total_xp_after_b",
)
#: Per mob species ``X``: ``fights_X``, ``wins_X``, ``defeated_X``; per building type ``T``:
#: ``built_T`` (names from the component file).
SPECIES_PREFIXES = ("fights_", "wins_", "defeated_")
BUILT_PREFIX = "built_"


def seat_columns(mobs, building_types) -> list[str]:
    """Every column of the ``seats`` table for these mob species and building types, in order
    (duplicates kept: :func:`column_collisions` reports them)."""
    names = list(SEAT_FIXED_COLUMNS)
    for mob in mobs:
        names += [f"{prefix}{mob}" for prefix in SPECIES_PREFIXES]
    names += [f"{BUILT_PREFIX}{value}" for value in building_types]
    return names


def column_collisions(mobs, building_types) -> list[tuple[str, str, str]]:
    """``(kind, name, column)`` for every mob species or building type whose column would
    overwrite another column of the ``seats`` table (a fixed one or a generated one)."""
    owner = {name: "a fixed column" for name in SEAT_FIXED_COLUMNS}
    found = []
    generated = [(("mob", m), f"{p}{m}") for m in mobs for p in SPECIES_PREFIXES]
    generated += [(("building type", t), f"{BUILT_PREFIX}{t}") for t in building_types]
    for (kind, name), column in generated:
        if column in owner:
            found.append((kind, name, f"'{column}', already {owner[column]}"))
        else:
            owner[column] = f"the column of {kind} '{name}'"
    return found
