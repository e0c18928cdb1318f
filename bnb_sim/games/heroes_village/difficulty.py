"""The difficulty levels of Heroes of the Village, as the box offers them (R-HV-10;
docs/heroes-of-the-village.md, "Difficulty: what the box offers").

The box has two difficulty levers. The Illager piece starts on one of two spaces of its path,
9 or 11 (the rule summaries: "place the Illager figure on spot 9 or 11"; the start space
"depends on the chosen difficulty"): 9 is the set-up the reviews describe ("only 9 steps
away"), 11 the easier one. And the nine building cards come in three levels (a lower number
is easier), three of which are chosen (``--buildings``). The rule sheet's own names for the
two starts are not published: bnb-sim calls them ``standard`` and ``easy`` (an estimate of
the wording, not of a value). ``normal``, the name it used before, still means ``standard``.
"""

from __future__ import annotations

from bnb_sim.errors import SpecError

# name -> the key of its start space in the component file's [path] table
DIFFICULTIES = {"standard": "start_normal", "easy": "start_easy"}
ALIASES = {"normal": "standard"}  # old names that still work
CHOICES = (*DIFFICULTIES, *ALIASES)
DEFAULT = "standard"


def canonical(name: str | None) -> str:
    """The difficulty's name (``normal`` -> ``standard``); None is the default."""
    if name is None:
        return DEFAULT
    if isinstance(name, str):
        key = name.strip().lower()
        key = ALIASES.get(key, key)
        if key in DIFFICULTIES:
            return key
    raise SpecError(
        f"--difficulty {name!r}: choose standard (the Illager starts on space 9) or easy "
        "(on 11); normal is an old name of standard"
    )


def start_key(name: str) -> str:
    """The ``[path]`` key that holds this difficulty's start space."""
    return DIFFICULTIES[canonical(name)]
