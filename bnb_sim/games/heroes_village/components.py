"""Heroes of the Village component data: reading, validation with provenance, static arrays.

The defaults live in ``bnb_sim/data/heroes_village.toml``. A user file is merged over them
(tables key by key; arrays and plain values replace), so an override may hold only the values
it changes, for example ``[dice.fight] faces = [4, 5, 6, "blank", "arrow", "illager"]``.
Every problem raises :class:`~bnb_sim.errors.ComponentError` naming the file, the key and the
problem. Pure Python and numpy: nothing here imports numba.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bnb_sim.errors import ComponentError
from bnb_sim.estimates import RANGE_FIELDS, Domain, Estimate
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village import ranges as R
from bnb_sim.games.heroes_village.keys import WHAT, check_keys
from bnb_sim.games.heroes_village.readings import READINGS as _READINGS
from bnb_sim.safe_io import digits
from bnb_sim.toml_files import read_toml

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "data" / "heroes_village.toml"
DEFAULT_LABEL = "heroes_village.toml (default)"
SECTIONS = (
    "rules",
    "readings",
    "blocks",
    "pouch",
    "path",
    "dice",
    "mobs",
    "tiles",
    "buildings",
    "pets",
)
PROVENANCES = ("known", "estimate")
# the readings (bnb_sim.games.heroes_village.readings) and their values
READINGS = {name: tuple(r.values) for name, r in _READINGS.items()}
RULE_LIMITS = {
    "actions_per_turn": (1, 6),
    "blocks_per_collect": (1, 10),
    "fight_rolls": (1, L.MAX_FIGHT_ROLLS),
    "reward_draw": (0, 10),
    "general_slots": (0, 10),
    "redstone_slots": (0, 10),
    "buildings_to_win": (1, L.MAX_CHOSEN),
    "building_push": (0, 5),
    "stacks": (1, L.MAX_STACKS),
    "players_min": (1, L.MAX_PLAYERS),
    "players_max": (1, L.MAX_PLAYERS),
}
PET_KEYS = {
    "wolf": "fight_bonus",
    "cat": "ignore_darkness",
    "fox": "extra_block",
    "panda": "ignore_illager",
    "horse": "tiles_per_explore",
    "llama": "extra_slots",
}


def _merge(base: dict, override: dict, origins: dict, idx: int, path: str = "") -> None:
    """Merge ``override`` (file ``idx``) into ``base``; ``origins`` records which file last
    changed each key (a range applies only to the value it was written for)."""
    restated = "provenance" in override
    if restated:
        base.pop("source", None)
        base.pop("reason", None)
    for key, value in override.items():
        old = base.get(key)
        sub = f"{path}.{key}" if path else str(key)
        if isinstance(old, dict) and isinstance(value, dict) and key != "provenance":
            _merge(old, value, origins, idx, sub)
        else:
            if not (old == value and type(old) is type(value)):  # restating changes nothing
                origins[sub] = idx
            base[key] = copy.deepcopy(value)


class _Check:
    """Validation helpers that raise ComponentError with the file and the key."""

    def __init__(self, label: str):
        self.label = label
        self.domains: dict[str, Domain] = {}  # what is accepted at each key (for ranges)

    def fail(self, key: str, problem: str):
        raise ComponentError(self.label, key, problem)

    def table(self, data: dict, key: str) -> dict:
        value = data.get(key)
        if not isinstance(value, dict):
            self.fail(key, "missing table" if value is None else "must be a table")
        return value

    def int(self, table: dict, path: str, key: str, lo: int, hi: int) -> int:
        value = table.get(key)
        full = f"{path}.{key}"
        if value is None:
            self.fail(full, "missing")
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(full, f"must be an integer, not {type(value).__name__} {value!r}")
        if not lo <= value <= hi:
            self.fail(full, f"{value} is out of range ({lo} to {hi})")
        self.domains[full.replace("[", ".").replace("]", "")] = Domain(lo, hi)
        return value

    def provenance(self, table: dict, path: str, keys: Iterable[str]) -> dict[str, str]:
        """Provenance per value key: a string for the whole table or a table per key."""
        prov = table.get("provenance")
        keys = list(keys)
        if isinstance(prov, str):
            out = {k: prov for k in keys}
        elif isinstance(prov, dict):
            missing = [k for k in keys if k not in prov]
            if missing:
                self.fail(f"{path}.provenance", f"no provenance for {missing[0]!r}")
            out = {k: prov[k] for k in keys}
        else:
            self.fail(f"{path}.provenance", 'missing ("known" or "estimate", or a table)')
        for k, v in out.items():
            if v not in PROVENANCES:
                self.fail(f"{path}.provenance", f"{k}: {v!r} is not 'known' or 'estimate'")
        if "known" in out.values() and not table.get("source"):
            self.fail(f"{path}.source", "a known value needs a source")
        if "estimate" in out.values() and not table.get("reason"):
            self.fail(f"{path}.reason", "an estimated value needs a reason")
        return out

    def blocks(self, value: Any, path: str, allowed=L.BLOCK_NAMES, lo: int = 0) -> list[int]:
        if not isinstance(value, dict):
            self.fail(path, "must be a table of block counts")
        counts = [0] * L.N_BLOCKS
        for name, _n in value.items():
            if name in ("provenance", "source", "reason"):
                continue
            if name not in allowed:
                self.fail(f"{path}.{name}", f"unknown block (expected one of {', '.join(allowed)})")
            counts[L.BLOCK_NAMES.index(name)] = self.int(value, path, name, lo, 99)
        return counts


def _faces(c: _Check, dice: dict, name: str, numbers: bool) -> list[int]:
    path = f"dice.{name}"
    table = dice.get(name)
    if not isinstance(table, dict):
        c.fail(path, "missing table")
    faces = table.get("faces")
    if not isinstance(faces, list) or not 1 <= len(faces) <= L.MAX_FACES:
        c.fail(f"{path}.faces", f"must be a list of 1 to {L.MAX_FACES} faces")
    codes = []
    for i, face in enumerate(faces):
        if isinstance(face, bool) or not isinstance(face, (int, str)):
            c.fail(f"{path}.faces[{i}]", f"{face!r}: expected an integer or a symbol")
        if isinstance(face, int):
            if not numbers:
                c.fail(f"{path}.faces[{i}]", "the Illagers die has no numbers")
            if not 0 <= face < L.MAX_VALUE:
                c.fail(f"{path}.faces[{i}]", f"{face} is out of range (0 to {L.MAX_VALUE - 1})")
            codes.append(face)
        elif face in L.FACE_CODES:
            codes.append(L.FACE_CODES[face])
        else:
            c.fail(f"{path}.faces[{i}]", f"unknown symbol {face!r} (arrow, illager, blank)")
    c.provenance(table, path, ["faces"])
    return codes


@dataclass
class HotvComponents:
    """Validated Heroes of the Village data, its provenance and its sources."""

    data: dict
    source: str
    rows: list[dict] = field(default_factory=list)
    domains: dict[str, Domain] = field(default_factory=dict, repr=False)
    ranges: list = field(default_factory=list, repr=False)  # [[ranges]] of the files
    origins: dict[str, int] = field(default_factory=dict, repr=False)  # key -> file index

    @property
    def content_hash(self) -> str:
        text = json.dumps(self.data, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def n_estimates(self) -> int:
        return sum(1 for r in self.rows if r["provenance"] == "estimate")

    def provenance_rows(self) -> list[dict]:
        return list(self.rows)

    def estimates(self) -> list[dict]:
        """The provenance rows of estimated values."""
        return [r for r in self.rows if r["provenance"] == "estimate"]

    @property
    def files(self) -> list[str]:
        """The component files merged over the defaults, in order (from ``source``)."""
        return self.source.split(" + ")[1:]

    # convenient views
    @property
    def fight_faces(self) -> list[int]:
        return self.data["_fight_codes"]

    @property
    def illager_faces(self) -> list[int]:
        return self.data["_illager_codes"]

    @property
    def mob_tokens(self) -> list[tuple[str, int]]:
        return [(m["name"], m["value"]) for m in self.data["mobs"] for _ in range(m["count"])]

    @property
    def mob_values(self) -> list[int]:
        return sorted({v for _, v in self.mob_tokens})

    @property
    def buildings(self) -> list[dict]:
        return self.data["buildings"]["list"]

    @property
    def pet_strength(self) -> dict[str, int]:
        return {pet: self.data["pets"][pet][key] for pet, key in PET_KEYS.items()}

    def estimate_ranges(self) -> list[Estimate]:
        """Every estimated value with its plausible range and reason (docs/components.md,
        "Ranges"); keys are the paths ``--set`` takes."""
        return R.estimate_ranges(self)

    def with_estimate(self, key: str, value: object) -> HotvComponents:
        """A copy with the estimate at ``key`` moved to ``value`` (inside its range)."""
        return R.with_estimate(self, key, value, _validate)

    def to_json_dict(self) -> dict:
        out = {k: v for k, v in self.data.items() if not k.startswith("_")}
        ranges = {e.key: e.row_fields() for e in self.estimate_ranges()}
        rows = [r | ranges.get(r["key"], {}) for r in self.rows]
        return {"source": self.source, "sha256": self.content_hash, "data": out,
                "provenance": rows}  # fmt: skip

    def static_arrays(
        self, start: int, chosen: list[int], check: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(k, kf)`` for the kernels (:func:`~.static.static_arrays`)."""
        from bnb_sim.games.heroes_village.static import static_arrays

        return static_arrays(self, start, chosen, check)

    @property
    def readings(self) -> dict[str, str]:
        """The rule readings of these components (``bnb readings --game hotv``), by name."""
        from bnb_sim.games.heroes_village.readings import values_of

        return values_of(self.data["readings"])

    def with_readings(self, given: dict[str, str]) -> HotvComponents:
        """These components with the readings ``given`` (``--reading NAME=VALUE``, checked)
        set in their ``[readings]`` table; ``self`` when ``given`` is empty."""
        if not given:
            return self
        data = {k: copy.deepcopy(v) for k, v in self.data.items() if not k.startswith("_")}
        data["readings"].update(given)
        out = _validate(data, self.source.split(" + ")[-1])
        out.source = self.source
        later = 1 + max([0, *self.origins.values(), *(r.file_index for r in self.ranges)])
        out.ranges = list(self.ranges)  # a reading set on purpose drops its range
        out.origins = {**self.origins, **{f"readings.{k}": later for k in given}}
        return out


def _validate(data: dict, label: str) -> HotvComponents:
    c = _Check(label)
    rows: list[dict] = []

    def row(key, value, prov, table):
        rows.append(
            {
                "key": key,
                "value": value,
                "provenance": prov,
                "source": table.get("source", ""),
                "reason": table.get("reason", "") if prov == "estimate" else "",
            }
        )

    for section in SECTIONS:
        if section not in data:
            c.fail(section, "missing section")
    unknown = [k for k in data if k not in (*SECTIONS, "schema", "game", "title")]
    if unknown:
        c.fail(unknown[0], "unknown section")
    rules = c.table(data, "rules")
    limits = RULE_LIMITS
    prov = c.provenance(rules, "rules", limits)
    for key, (lo, hi) in limits.items():
        row(f"rules.{key}", c.int(rules, "rules", key, lo, hi), prov[key], rules)
    if rules["players_min"] > rules["players_max"]:
        c.fail("rules.players_min", "is larger than players_max")

    readings = c.table(data, "readings")
    prov = c.provenance(readings, "readings", [*READINGS, "max_turns"])
    for key, allowed in READINGS.items():
        value = readings.get(key)
        if value not in allowed:
            c.fail(f"readings.{key}", f"{value!r} is not one of {', '.join(allowed)}")
        c.domains[f"readings.{key}"] = Domain(options=tuple(allowed))
        row(f"readings.{key}", value, prov[key], readings)
    row(
        "readings.max_turns",
        c.int(readings, "readings", "max_turns", 1, 100_000),
        prov["max_turns"],
        readings,
    )

    blocks = c.table(data, "blocks")
    totals = c.blocks(blocks, "blocks")
    prov = c.provenance(blocks, "blocks", [b for b in L.BLOCK_NAMES if b in blocks])
    for b, n in zip(L.BLOCK_NAMES, totals, strict=True):
        if b in blocks:
            row(f"blocks.{b}", n, prov[b], blocks)
    pouch = c.table(data, "pouch")
    start_pouch = c.blocks(pouch, "pouch")
    prov = c.provenance(pouch, "pouch", [b for b in L.BLOCK_NAMES if b in pouch])
    for b, n in zip(L.BLOCK_NAMES, start_pouch, strict=True):
        if b in pouch:
            row(f"pouch.{b}", n, prov[b], pouch)

    path = c.table(data, "path")
    prov = c.provenance(
        path, "path", ["start_normal", "start_easy", "darkness_spaces", "last_space"]
    )
    last = c.int(path, "path", "last_space", 1, 99)
    for key in ("start_normal", "start_easy"):
        row(f"path.{key}", c.int(path, "path", key, 1, last), prov[key], path)
    row("path.last_space", last, prov["last_space"], path)
    spaces = path.get("darkness_spaces")
    if not isinstance(spaces, list) or len(spaces) > L.MAX_DARK_SPACES:
        c.fail("path.darkness_spaces", f"must be a list of at most {L.MAX_DARK_SPACES} spaces")
    for i, s in enumerate(spaces):
        if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= last:
            c.fail(f"path.darkness_spaces[{i}]", f"{s!r} is not a space from 1 to {last}")
    if len(set(spaces)) != len(spaces):
        c.fail("path.darkness_spaces", "a space appears twice")
    row("path.darkness_spaces", spaces, prov["darkness_spaces"], path)

    dice = data.get("dice")
    if not isinstance(dice, dict):
        c.fail("dice", "must be a table with [dice.fight] and [dice.illagers]")
    fight = _faces(c, dice, "fight", numbers=True)
    illagers = _faces(c, dice, "illagers", numbers=False)
    for name in ("fight", "illagers"):
        c.domains[f"dice.{name}.faces"] = R.faces_domain(numbers=name == "fight")
        p = c.provenance(dice[name], f"dice.{name}", ["faces"])["faces"]
        row(f"dice.{name}.faces", dice[name]["faces"], p, dice[name])

    mobs = data.get("mobs")
    if not isinstance(mobs, list) or not mobs:
        c.fail("mobs", "must be a list of [[mobs]] tables")
    for i, mob in enumerate(mobs):
        key = f"mobs[{i}]"
        if not isinstance(mob, dict):
            c.fail(key, "must be a table")
        if not isinstance(mob.get("name"), str) or not mob["name"]:
            c.fail(f"{key}.name", "missing name")
        key = f"mobs.{mob['name']}"
        c.int(mob, key, "value", 1, L.MAX_VALUE - 1)
        c.int(mob, key, "count", 0, L.MAX_TOKENS)
        p = c.provenance(mob, key, ["value", "count"])
        row(f"{key}.value", mob["value"], p["value"], mob)
        row(f"{key}.count", mob["count"], p["count"], mob)
    n_tokens = sum(m["count"] for m in mobs)
    if not 0 < n_tokens <= L.MAX_TOKENS:
        c.fail("mobs", f"{n_tokens} tokens in all (1 to {L.MAX_TOKENS} accepted)")

    tiles_table = c.table(data, "tiles")
    tiles = tiles_table.get("list")
    if not isinstance(tiles, list) or not 0 < len(tiles) <= L.MAX_TILES:
        c.fail("tiles.list", f"must be a list of 1 to {L.MAX_TILES} tiles")
    tprov = c.provenance(tiles_table, "tiles", ["list"])["list"]
    for i, tile in enumerate(tiles):
        key = f"tiles.list[{i}]"
        if not isinstance(tile, dict):
            c.fail(key, "must be a table")
        symbol = tile.get("symbol", "none")
        if symbol not in ("wood", "sand", "stone", "none"):
            c.fail(f"{key}.symbol", f"{symbol!r} is not wood, sand, stone or none")
        tile["_symbol"] = L.NO_SYMBOL if symbol == "none" else L.BLOCK_NAMES.index(symbol)
        tile["_back"] = c.blocks(tile.get("back", {}), f"{key}.back")
        if sum(tile["_back"]) < 1:
            c.fail(f"{key}.back", "a tile back shows at least one block")
        c.domains[f"tiles.list.{i}.symbol"] = Domain(options=("wood", "sand", "stone", "none"))
        row(f"tiles.list.{i}.symbol", symbol, tprov, tiles_table)
        for b, n in tile["back"].items():  # each block printed on the back: a value
            row(f"tiles.list.{i}.back.{b}", n, tprov, tiles_table)
    n_stacks = rules["stacks"]
    if len(tiles) % n_stacks:
        c.fail("tiles.list", f"{len(tiles)} tiles do not split into {n_stacks} equal stacks")

    btable = c.table(data, "buildings")
    blist = btable.get("list")
    if not isinstance(blist, list) or not 0 < len(blist) <= L.MAX_BUILDINGS:
        c.fail("buildings.list", f"must be a list of 1 to {L.MAX_BUILDINGS} buildings")
    bprov = c.provenance(btable, "buildings", ["level", "cost"])
    numbers = set()
    for i, b in enumerate(blist):
        key = f"buildings.list[{i}]"
        if not isinstance(b, dict):
            c.fail(key, "must be a table")
        number = c.int(b, key, "number", 1, 99)
        if number in numbers:
            c.fail(f"{key}.number", f"building number {number} appears twice")
        numbers.add(number)
        b.setdefault("name", f"building {number}")
        c.int(b, key, "level", 1, 9)
        b["_cost"] = c.blocks(b.get("cost"), f"{key}.cost")
        if sum(b["_cost"]) < 1:
            c.fail(f"{key}.cost", "a building costs at least one block")
        for block, n in b["cost"].items():
            row(f"buildings.list.{i}.cost.{block}", n, bprov["cost"], btable)
    row("buildings.levels", sorted({b["level"] for b in blist}), bprov["level"], btable)
    choice = btable.get("default_choice", "level:1,2,3")
    data["_default_choice"] = choice

    pets = c.table(data, "pets")
    pprov = c.provenance(pets, "pets", PET_KEYS)
    for pet, key in PET_KEYS.items():
        t = pets.get(pet)
        if not isinstance(t, dict):
            c.fail(f"pets.{pet}", "missing table")
        c.int(t, f"pets.{pet}", key, 0, L.MAX_PANDA if pet == "panda" else 5)
        row(f"pets.{pet}.{key}", t[key], pprov[pet], pets)

    # conservation of the 25 blocks (R-HV-10)
    on_path = [0, 0, 0, 0, len(spaces)]
    for b in range(L.N_BLOCKS):
        if start_pouch[b] + on_path[b] > totals[b]:
            c.fail(
                f"blocks.{L.BLOCK_NAMES[b]}",
                f"{totals[b]} in the box, but the pouch and the path start with "
                f"{start_pouch[b] + on_path[b]}",
            )
    data["_totals"] = totals
    data["_pouch"] = start_pouch
    data["_fight_codes"] = fight
    data["_illager_codes"] = illagers
    return HotvComponents(data=data, source=label, rows=rows, domains=c.domains)


def load_components(paths: str | os.PathLike | Iterable | None = None) -> HotvComponents:
    """The defaults, with each file in ``paths`` merged over them in order."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = list(paths or [])
    ranges: list = []
    origins: dict[str, int] = {}
    data = read_toml(DEFAULT_PATH)
    labels = [DEFAULT_LABEL]
    label = DEFAULT_LABEL
    check_keys(data, DEFAULT_LABEL, SCHEMA)
    data = R.take_ranges(data, DEFAULT_LABEL, 0, ranges)
    for p in paths:
        label = os.fspath(p)
        override = read_toml(p)
        if override.get("game", "heroes_village") != "heroes_village":
            raise ComponentError(label, "game", f"{override['game']!r} is not heroes_village")
        check_keys(override, label, SCHEMA)  # a misspelt key is refused, never dropped
        override = R.take_ranges(override, label, len(labels), ranges)
        _merge(data, override, origins, len(labels))
        labels.append(label)
    comps = _validate(data, label)
    comps.source = " + ".join(labels)
    comps.ranges, comps.origins = ranges, origins
    comps.estimate_ranges()  # checks every range now: a bad one is refused at load
    return comps


def components_from_dict(data: dict, name: str = "<dict>") -> HotvComponents:
    """Validate a complete data dict (tests, the API, sweep variants); keys starting with
    ``_`` are values the validator derives, and are ignored here."""
    check_keys(data, name, SCHEMA, derived_ok=True)
    ranges: list = []
    comps = _validate(R.take_ranges(copy.deepcopy(data), name, 0, ranges), name)
    comps.ranges = ranges
    comps.estimate_ranges()  # checks every range now: a bad one is refused at load
    return comps


_META = ("provenance", "source", "reason")
# Every key a component file may hold, table by table (``keys.check_keys``): a table maps
# each key to its own schema (a dict), to None (a plain value), or to ("list", schema) for
# an array of tables; "provenance" may be a string or a table over the table's own keys.
_BLOCKS = {name: None for name in (*L.BLOCK_NAMES, *_META)} | {WHAT: "block"}
_DIE = {"faces": None, **dict.fromkeys(_META)}
SCHEMA: dict = {
    "schema": None,
    "game": None,
    "title": None,
    "rules": dict.fromkeys((*RULE_LIMITS, *_META)),
    "readings": dict.fromkeys((*READINGS, "max_turns", *_META)),
    "blocks": _BLOCKS,
    "pouch": _BLOCKS,
    "path": dict.fromkeys(("start_normal", "start_easy", "darkness_spaces", "last_space", *_META)),
    "dice": {"fight": _DIE, "illagers": _DIE},
    "mobs": ("list", dict.fromkeys(("name", "value", "count", *_META))),
    "tiles": {
        "list": ("list", {"terrain": None, "symbol": None, "back": _BLOCKS}),
        **dict.fromkeys(_META),
    },  # fmt: skip
    "buildings": {
        "list": ("list", {"number": None, "name": None, "level": None, "cost": _BLOCKS}),
        "default_choice": None,
        **dict.fromkeys(_META),
    },
    "pets": {**{pet: {key: None} for pet, key in PET_KEYS.items()}, **dict.fromkeys(_META)},
    "ranges": ("list", dict.fromkeys(RANGE_FIELDS)),  # plausible ranges (bnb_sim.estimates)
}


def default_data() -> dict:
    return read_toml(DEFAULT_PATH)


def parse_buildings(text: str | None, comps: HotvComponents) -> list[int]:
    """``"level:1,2,3"`` (one drawn per game from each level) or ``"1,5,9"`` (numbers) as the
    ``chosen`` codes of :meth:`HotvComponents.static_arrays`."""
    from bnb_sim.errors import SpecError

    text = (text or comps.data["_default_choice"]).strip()
    to_win = comps.data["rules"]["buildings_to_win"]
    blist = comps.buildings
    if text.startswith("level:"):
        items = text[len("level:") :].split(",")
        levels = {b["level"] for b in blist}
        out = []
        for item in items:
            level = digits(item.strip())
            if level not in levels:
                raise SpecError(
                    f"--buildings {text!r}: {item!r} is not a level (levels: "
                    f"{', '.join(map(str, sorted(levels)))})"
                )
            out.append(-level - 1)
    else:
        by_number = {b["number"]: i for i, b in enumerate(blist)}
        out = []
        for item in text.split(","):
            number = digits(item.strip())
            if number not in by_number:
                raise SpecError(
                    f"--buildings {text!r}: {item!r} is not a building number "
                    f"(1 to {max(by_number)}) or use level:1,2,3"
                )
            if by_number[number] in out:
                raise SpecError(f"--buildings {text!r}: building {item} is chosen twice")
            out.append(by_number[number])
    if len(out) != to_win:
        raise SpecError(f"--buildings {text!r}: choose {to_win} buildings, not {len(out)}")
    for code in set(out):
        if code < 0:
            level = -code - 1
            available = sum(1 for b in blist if b["level"] == level)
            if out.count(code) > available:
                raise SpecError(f"--buildings {text!r}: level {level} has only {available}")
    return out
