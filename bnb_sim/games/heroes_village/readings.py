"""Heroes of the Village rule readings: where a reasonable table could read the rules another way.

Each reading has a name, a closed set of values, a default and the rule it interprets. The
values live in the component data's ``[readings]`` table (``bnb_sim/data/heroes_village.toml``),
so a run records them with its components; ``--reading NAME=VALUE`` on ``simulate``, ``play``,
``compare``, ``sweep``, ``tournament`` and ``bench`` sets one for a command, and
``bnb readings --game hotv`` lists them. Every default is the reading of the rule text's own
words; docs/rules-reference.md (Part 3) says why for each.

Pure Python: listing and checking readings never imports numba.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bnb_sim.errors import BnbError


@dataclass(frozen=True)
class Reading:
    """One reading: its values (value -> what it means), default, rule and why the default."""

    name: str
    rule: str
    summary: str
    values: dict[str, str]
    default: str
    why_default: str
    per_player: bool = False  # the shape of ``bnb readings`` (no HotV reading is per player)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "rule": self.rule,
            "summary": self.summary,
            "values": dict(self.values),
            "default": self.default,
            "why_default": self.why_default,
            "per_player": self.per_player,
        }


READINGS: dict[str, Reading] = {
    r.name: r
    for r in (
        Reading(
            "build",
            "R-HV-7",
            "how many buildings one build action may hand blocks in to",
            {
                "several": "one build action hands in to any number of unfinished buildings, "
                "one after the other, and the player decides when to stop",
                "one": "one build action hands in to one building (another building needs "
                "another action)",
            },
            "several",
            "the text has the player go to the village and 'turn in their collected blocks' "
            "for buildings that 'do not need to be completed in any order', with no limit of "
            "one building per action",
        ),
        Reading(
            "cat",
            "R-HV-9",
            "whether a second darkness block in the Cat's protected draw still brings a mob",
            {
                "first-block": "the Cat ignores the first darkness block drawn in a turn; a "
                "second darkness block in the same draw still places the mob",
                "first-draw": "the first draw of a turn that holds darkness places no mob, "
                "however many darkness blocks it holds",
            },
            "first-block",
            "the Cat protects from 'the first darkness block they draw', a count of blocks, "
            "and the collect rule gives a second darkness block of one draw the same effect "
            "as the first (one mob 'even if the player draws multiple darkness blocks')",
        ),
        Reading(
            "free_lay",
            "R-HV-3",
            "when every stack top counts as unusable, so that tiles are laid for free",
            {
                "needed": "a stack top is usable if it shows a block the supply still has and "
                "an unfinished building still needs; while no top is usable, tiles are laid "
                "for free",
                "available": "a stack top is usable if it shows a block the supply still has "
                "(whether anyone needs it or not)",
            },
            "needed",
            "the text lays tiles for free when the tops show blocks 'no longer available or "
            "needed', until a top 'shows blocks that are needed'",
        ),
        Reading(
            "defeated_mobs",
            "R-HV-6",
            "what happens to the token of a defeated mob",
            {
                "removed": "it leaves the game (12 mobs at most per game)",
                "reused": "it goes under the mob pile and may come again",
            },
            "removed",
            "the text says 'the mob token is removed from the world tile' and nothing about "
            "putting it back",
        ),
        Reading(
            "discard_to",
            "R-HV-7",
            "where a discarded block goes",
            {
                "supply": "back to the supply (a laid tile may bring it into the pouch again)",
                "pouch": "into the pouch",
            },
            "supply",
            "the text lets players 'remove blocks from their inventories' and names no place; "
            "the supply is where unused blocks wait",
        ),
        Reading(
            "panda_scope",
            "R-HV-9",
            "the Panda's 'first Illager symbol': of each fight or of each turn",
            {
                "fight": "the first Illager face of each fight is ignored",
                "turn": "the first Illager face of each turn is ignored",
            },
            "fight",
            "the Panda's text speaks of a player rolling 'while fighting a mob': the first "
            "symbol they roll in that fight",
        ),
    )
}


def check_name(name: str) -> Reading:
    """The reading called ``name`` (one line naming the known ones if there is none)."""
    key = name.strip().lower().replace("-", "_")
    if key not in READINGS:
        raise BnbError(
            f"unknown reading {name!r} for Heroes of the Village (known: {', '.join(READINGS)})"
        )
    return READINGS[key]


def check_value(name: str, value) -> str:
    """``value`` of reading ``name`` as its canonical text (one line if it is not a value)."""
    reading = check_name(name)
    text = str(value).strip().lower() if isinstance(value, str) else value
    if text not in reading.values:
        raise BnbError(
            f"reading {reading.name}={value!r}: not a value (choose {', '.join(reading.values)})"
        )
    return text


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """``--reading NAME=VALUE`` items as ``{name: value}`` (a name given twice is refused)."""
    out: dict[str, str] = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise BnbError(f"--reading {item!r}: expected NAME=VALUE, e.g. cat=first-draw")
        reading = check_name(name)
        if reading.name in out:
            raise BnbError(f"--reading {reading.name} is given twice")
        out[reading.name] = check_value(reading.name, value)
    return out


def defaults() -> dict[str, str]:
    return {name: r.default for name, r in READINGS.items()}


def values_of(table: Mapping) -> dict[str, str]:
    """The reading values of a component ``[readings]`` table, in the registry's order."""
    return {name: table[name] for name in READINGS if name in table}


def setting_suffix(values: Mapping[str, str]) -> str:
    """``", reading cat=first-draw"``: the readings of ``values`` that are not the default,
    for the setting line of a study (empty when every reading is the default)."""
    other = [f"{k}={v}" for k, v in values.items() if k in READINGS and v != READINGS[k].default]
    return f", reading {' '.join(other)}" if other else ""
