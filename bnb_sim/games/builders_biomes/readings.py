"""Rule readings: the places where a reasonable player could read the rules another way.

Each reading has a name, a closed set of values, a default and the rule it interprets. A run
is played under one value of every reading; :class:`Readings` holds them (validated, with
defaults filled in), the CLI sets them with ``--reading NAME=VALUE`` and the Python API with
``readings={"hunger": "one-by-one"}``. Older flags (``--variant``, ``--seating``,
``--fixed-seats``, ``--pickaxe``) are aliases of readings.

Pure Python: ``bnb readings`` and the CLI's validation never import numba.
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
    per_player: bool = False  # a comma list gives one value per player

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
            "hunger",
            "R-TURN-2",
            "when hunger mob tiles are returned for extra actions",
            {
                "together": "after the two actions the player returns any number of hunger "
                "tiles in one step, one extra action each; a mob won during an extra action "
                "cannot pay for another extra action this turn",
                "one-by-one": "one tile per extra action, each after seeing the result of the "
                "last, so a mob won in an extra action can pay for the next",
            },
            "together",
            "the rulebook returns the tiles in one step ('then return as many as you like; "
            "for each returned tile you may take one extra action')",
        ),
        Reading(
            "bonus_biomes",
            "R-END-1",
            "whether a biome bonus mob counts the printed biomes of uncovered board spaces",
            {
                "visible": "every space showing the biome counts: buildings and uncovered "
                "printed biomes (as round A counts them)",
                "built": "only buildings of that biome count",
            },
            "visible",
            "a space's biome is what it shows (R-BUILD-4), and the only scoring the rulebook "
            "spells out for biomes (round A) counts uncovered printed biomes",
        ),
        Reading(
            "bow",
            "R-FIGHT-2",
            "whether the extra reveal after a bow is taken without asking",
            {
                "always": "every revealed bow reveals one more token",
                "choose": "after each revealed bow the player decides whether to reveal one "
                "more (it matters with pickaxe=mandatory, when a pickaxe block can hurt)",
            },
            "always",
            "the extra reveal never hurts unless a revealed pickaxe forces a block, so players "
            "take it; 'choose' is there for the mandatory-pickaxe reading",
        ),
        Reading(
            "pickaxe",
            "R-FIGHT-3",
            "whether the block of a revealed stone pickaxe may be declined",
            {
                "optional": "the player may decline the block",
                "mandatory": "the block must be taken when one is collectable",
            },
            "optional",
            "the pickaxe 'lets' the player collect a block, and taking one can trigger a "
            "scoring round at a bad moment",
        ),
        Reading(
            "boards",
            "R-SETUP-4",
            "which player board (colour) each player gets",
            {
                "random": "boards are dealt at random from the game's set-up stream",
                "fixed": "player i gets board i (the board travels with the player when seats "
                "rotate, so board and seat effects can be told apart)",
            },
            "random",
            "players pick colours freely, so over many games every board is equally likely",
        ),
        Reading(
            "seating",
            "R-SETUP-4",
            "who starts",
            {
                "rotate": "game g starts with player g mod n, so every player sits in every "
                "seat equally often",
                "random": "the starting player is drawn from the game's set-up stream",
                "fixed": "player i always sits in seat i",
            },
            "rotate",
            "the rulebook draws the starting player at random; rotating gives every player each "
            "seat equally often, so seat effects cancel exactly instead of on average",
        ),
        Reading(
            "variant",
            "R-SCORE-4",
            "how scoring rounds count spaces, per player",
            {
                "standard": "the largest orthogonally connected group scores",
                "beginner": "every space showing the value scores",
            },
            "standard",
            "the beginner rule is an option of the rulebook; one value per player (for "
            "example beginner,standard) mixes them as the rulebook allows",
            per_player=True,
        ),
        Reading(
            "fm_new_farm",
            "R-FM-9",
            "Farmer's Market: whether a newly built farming structure starts with vegetables",
            {
                "empty": "a new farm tile is empty until the next refill (after round A or B)",
                "filled": "a new farm tile is filled from the supply when it is built",
            },
            "empty",
            "the rules name only the refills after rounds A and B as the times vegetables "
            "are placed; filling at build time is not stated",
        ),
        Reading(
            "fm_collect_xp",
            "R-FM-10",
            "Farmer's Market: the item giving one XP while collecting blocks",
            {
                "action": "+1 XP per collect-blocks action",
                "block": "+1 XP per block collected",
            },
            "action",
            "the item text gives 'one experience point while collecting blocks', one point "
            "for the action; per block would make it the only item worth more with a second item",
        ),
        Reading(
            "fm_empty_buy",
            "R-FM-4",
            "Farmer's Market: whether a buy action may end without buying anything",
            {
                "forbidden": "a buy action buys at least one item; it is legal only when an "
                "item is affordable",
                "allowed": "a buy action may end with no purchase (it still uses the action)",
            },
            "forbidden",
            "the texts describe buying as paying for an item and taking it; an action that "
            "buys nothing is in neither text",
        ),
        Reading(
            "fm_end_structures",
            "R-FM-5",
            "Farmer's Market: whether the starting farmland counts for the item scoring two "
            "XP per structure built",
            {
                "farmland-counts": "the starting farmland counts while it is visible (top "
                "structure of its space), like every building tile",
                "buildings-only": "only building tiles count",
            },
            "farmland-counts",
            "the texts call the farmland a 'farmland structure' placed on the board, and the "
            "item counts 'each structure ... on their player board; only the top structure is "
            "counted'",
        ),
        Reading(
            "fm_covered_vegetables",
            "R-FM-9",
            "Farmer's Market: what happens to the vegetables on a farming structure covered "
            "by a new building",
            {
                "supply": "they go back to the supply (the pile of vegetable tokens)",
                "lost": "they stay under the covering tile, out of the game",
            },
            "supply",
            "the texts do not say; tokens can hardly stay under a tile, and every other "
            "vegetable that leaves a structure goes back to the pile",
        ),
        Reading(
            "fm_bed_reveal",
            "R-FM-5",
            "Farmer's Market: how many tokens the bed's second fight reveals for the owner of "
            "the reveal-4 item",
            {
                "three": "three, as the bed's text says ('three are revealed as per the normal "
                "rules'); the reveal-4 item serves the first fight",
                "item": "the reveal-4 item applies to the second fight too (it may reveal four)",
            },
            "three",
            "the bed's text names the number: 'three are revealed as per the normal rules'",
        ),
    )
}

#: Older options that are aliases of a reading: option (Python keyword or CLI flag) -> reading.
ALIASES = {
    "variant": "variant",
    "seating": "seating",
    "pickaxe": "pickaxe",
    "--variant": "variant",
    "--seating": "seating",
    "--fixed-seats": "seating",
    "--pickaxe": "pickaxe",
}


def _choices(reading: Reading) -> str:
    return " | ".join(reading.values)


def check_name(name: str) -> Reading:
    reading = READINGS.get(name)
    if reading is None:
        raise BnbError(f"unknown reading '{name}'; readings: {', '.join(READINGS)}")
    return reading


def check_value(name: str, value, players: int | None = None) -> str:
    """The canonical text of ``value`` for reading ``name`` (BnbError with the choices)."""
    reading = check_name(name)
    if isinstance(value, list | tuple):
        value = ",".join(str(v) for v in value)
    if not isinstance(value, str):
        raise BnbError(f"reading {name}: expected one of {_choices(reading)}, got {value!r}")
    parts = [p.strip() for p in value.split(",")] if reading.per_player else [value.strip()]
    for part in parts:
        if part not in reading.values:
            extra = ", or one value per player separated by commas" if reading.per_player else ""
            raise BnbError(f"reading {name}: '{part}' is not one of {_choices(reading)}{extra}")
    if len(parts) > 1:
        if players is not None and len(parts) != players:
            raise BnbError(
                f"reading {name}: {len(parts)} values for {players} players "
                "(give one value, or one per player)"
            )
        if len(set(parts)) == 1:
            return parts[0]
    return ",".join(parts)


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """``["hunger=one-by-one", ...]`` (``--reading``) -> ``{name: value}``; repeats of one
    name must agree."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = str(item).partition("=")
        name = name.strip()
        if not sep or not name or not value.strip():
            raise BnbError(f"--reading expects NAME=VALUE, got '{item}'; readings: "
                           f"{', '.join(READINGS)}")  # fmt: skip
        check_name(name)
        value = check_value(name, value)
        if name in out and out[name] != value:
            raise BnbError(f"reading {name} given twice: '{out[name]}' and '{value}'")
        out[name] = value
    return out


@dataclass(frozen=True)
class Readings:
    """One value of every reading (defaults filled in). Hashable and picklable.

    Build with :func:`resolve` (validates, merges aliases); read with ``readings["hunger"]``
    or the helpers below.
    """

    items: tuple[tuple[str, str], ...] = tuple((n, r.default) for n, r in READINGS.items())

    def __getitem__(self, name: str) -> str:
        return dict(self.items)[name]

    def to_dict(self) -> dict[str, str]:
        return dict(self.items)

    def non_default(self) -> dict[str, str]:
        return {n: v for n, v in self.items if v != READINGS[n].default}

    def per_player(self, name: str, players: int) -> list[str]:
        """The value of a per-player reading for each of ``players`` players."""
        value = self[name]
        parts = value.split(",")
        return parts * players if len(parts) == 1 else parts

    def check_players(self, players: int) -> None:
        for name, value in self.items:
            check_value(name, value, players)

    def describe(self) -> str:
        """``hunger=together, bonus_biomes=visible, ...`` (every reading, in order)."""
        return ", ".join(f"{n}={v}" for n, v in self.items)


DEFAULT = Readings()


def resolve(
    readings: Mapping[str, object] | Readings | None = None,
    *,
    aliases: Mapping[str, object] | None = None,
    players: int | None = None,
) -> Readings:
    """Validated :class:`Readings` from ``readings`` (name -> value) and alias options.

    ``aliases``: alias option (a key of :data:`ALIASES`: ``variant``, ``--fixed-seats``, ...)
    -> value, or None where the option was not given. An alias and a reading that name the
    same reading must agree, else BnbError (one line).
    """
    if isinstance(readings, Readings):
        given = readings.to_dict()
        explicit: set[str] = set()
    else:
        if readings is not None and not isinstance(readings, Mapping):
            raise BnbError(f"readings must be a mapping of name to value, got {readings!r}")
        given = {}
        for name, value in (readings or {}).items():
            given[str(name)] = check_value(str(name), value, players)
        explicit = set(given)
    for option, value in (aliases or {}).items():
        if value is None:
            continue
        name = ALIASES[option]
        value = check_value(name, value, players)
        if name in explicit and given[name] != value:
            raise BnbError(
                f"{option} ({name}={value}) conflicts with reading {name}={given[name]}; "
                "give only one of them"
            )
        given[name] = value
    values = {n: r.default for n, r in READINGS.items()}
    values.update(given)
    out = Readings(tuple((n, values[n]) for n in READINGS))
    if players is not None:
        out.check_players(players)
    return out


def table_rows() -> list[dict]:
    """One row per reading for ``bnb readings``."""
    return [r.to_dict() for r in READINGS.values()]
