"""The playthrough files of tests/playthroughs/: which games they tell, and how to write them.

Each setting is one seeded game of one registered game, made through ``bnb_sim.new_game``
and told by :func:`bnb_sim.core.playthrough.render`. ``tests/test_playthroughs.py`` diffs the
text against the file; ``python scripts/regen_playthroughs.py`` writes the files again.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "playthroughs"

# file stem -> (game, new_game keyword arguments, decisions between two full states)
SETTINGS: dict[str, tuple[str, dict, int]] = {
    "builders_biomes_2p": (
        "builders_biomes",
        {
            "seed": 7,
            "game_index": 0,
            "players": 2,
            "policies": ["heuristic", "random"],
            "log": True,
        },
        40,
    ),
    "builders_biomes_4p_beginner": (
        "builders_biomes",
        {
            "seed": 11,
            "game_index": 3,
            "players": 4,
            "policies": ["greedy", "random", "heuristic", "random"],
            "variant": "beginner",
            "log": True,
        },
        60,
    ),
    "heroes_village_2p": (
        "heroes_village",
        {"seed": 3, "game_index": 0, "players": 2, "policies": ["team"], "pets": ["wolf", "cat"]},
        10,
    ),
    "heroes_village_4p_easy": (
        "heroes_village",
        {
            "seed": 5,
            "game_index": 2,
            "players": 4,
            "policies": ["team", "random"],
            "pets": ["horse", "fox", "panda", "llama"],
            "difficulty": "easy",
            "check": True,
        },
        15,
    ),
}


def text_of(name: str) -> str:
    """The playthrough of setting ``name`` as it plays now."""
    import bnb_sim
    from bnb_sim.core.playthrough import render

    game_name, kwargs, every = SETTINGS[name]
    game = bnb_sim.new_game(game=game_name, **kwargs)
    header = {"game": game_name, **{key: repr(value) for key, value in kwargs.items()}}
    return render(game, header, every=every)


def path_of(name: str) -> Path:
    return FOLDER / f"{name}.txt"
