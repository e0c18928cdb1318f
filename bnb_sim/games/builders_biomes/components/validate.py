"""Validation and normalisation of merged component data (docs/components.md).

:func:`validate` checks every key of a merged component dict (types, ranges, names, totals,
provenance) and returns a *normalised* copy (fields in schema order, collections in file order,
``aliases`` and ``wild`` always present) plus one provenance row per value. The first problem
found raises :class:`~bnb_sim.errors.ComponentError` naming the file the bad key came from, the
dotted key and what is wrong, on one line.

No numpy, no numba: this module is imported by ``bnb components validate``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bnb_sim.errors import ComponentError
from bnb_sim.estimates import Domain
from bnb_sim.games.builders_biomes.components.origins import Origins
from bnb_sim.toml_files import clean

SCHEMA_VERSION = 1
GAME = "builders_biomes"
CHARACTERISTICS = ("biome", "material", "type")
SECTIONS = (
    "rules",
    "characteristics",
    "blocks",
    "weapons",
    "mobs",
    "buildings",
    "scoring",
    "boards",
)
TOP_KEYS = ("schema", "game", "title") + SECTIONS

# Numbers printed in the rule text (order = arrays.RULE_KEYS) and their allowed ranges.
RULE_RANGES = {
    "actions_per_turn": (1, 5),  # five actions exist; the turn takes that many different ones
    "blocks_per_collect": (1, 64),
    "explore_max_steps": (0, 8),
    "fight_reveal": (1, 64),
    "min_exposed_sides": (0, 4),  # and at most CORNER_SIDES (see _rules)
    "xp_track": (1, 1000),
    "players_min": (2, 4),
    "players_max": (2, 4),  # four player colours, four start positions of the engine
    "stack_height": (1, 16),
}
WEAPON_FIELDS = {
    "hearts": (0, 64),
    "extra_reveals": (0, 64),
    "xp_on_reveal": (0, 100),
    "blocks_on_reveal": (0, 64),
    "detonate_hearts": (0, 64),
    "start_count": (0, 64),
    "table_count": (0, 64),
}
MOB_HEARTS = (1, 64)
# Side faces of a corner block of a full square layer (geometry, not a game number): the most
# any block of the full top layer shows, so a larger min_exposed_sides lets no block be taken
# (R-CUBE-1) and no game end.
CORNER_SIDES = 2
XP_RANGE = (0, 100)
COPIES_RANGE = (0, 64)
COST_RANGE = (1, 64)
SCORE_RANGE = (0, 100)
N_VALUES = 4
CUBE_BLOCKS = 64  # the 4x4x4 cube (R-SETUP-3)
TABLE_TOKENS = 16  # one colourless token at each end of every row and column (R-SETUP-2)
N_STACKS = 16  # the 4x4 grid of tile stacks (R-SETUP-2)
MAX_PILE = 64  # start pile + every colourless token
ROUND_CHARACTERISTIC = {"a": "biome", "b": "material", "c": "type"}  # R-SCORE-1
BOARD_SIZE = 3
MAX_ROWS = 1000  # weapons, mobs, buildings or boards per file
MAX_NOTE = 500
PROVENANCE_KINDS = ("known", "estimate")
NOTE_KEYS = ("provenance", "source", "reason")
NAME_RE = re.compile(r"[a-z0-9][a-z0-9_]{0,39}\Z")
NAME_RULE = "lower-case letters, digits and _, at most 40 characters"


def kind_of(value: object) -> str:
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int):
        return f"an integer ({value})" if abs(value) < 10**12 else "an integer"
    if isinstance(value, float):
        return f"a float ({value!r})"
    if isinstance(value, str):
        return f"a string ({clean(repr(value), 40)})"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


@dataclass
class Row:
    """One value with its provenance; ``table``/``label`` say where the label lives."""

    key: str
    value: object
    provenance: str
    note: str
    table: str
    label: str
    domain: Domain | None = None  # what the validator accepts here (for ranges)

    def public(self) -> dict:
        return {
            "key": self.key,
            "value": self.value,
            "provenance": self.provenance,
            "note": self.note,
        }


class _Checker:
    def __init__(self, origins: Origins):
        self.origins = origins
        self.rows: list[Row] = []
        self.domains: dict[str, Domain] = {}

    # -- failure ---------------------------------------------------------------------------
    def fail(self, key: str, problem: str, blame: Iterable[str] = (), file: str | None = None):
        where = file if file is not None else self.origins.file_for(key, blame)
        raise ComponentError(clean(where, 300), clean(key), clean(problem, 400))

    # -- primitive checks ------------------------------------------------------------------
    def table(self, value: object, key: str) -> dict:
        if not isinstance(value, dict):
            self.fail(key, f"must be a table, got {kind_of(value)}")
        for k in value:
            if not isinstance(k, str):
                self.fail(key, f"has a key that is not a string ({kind_of(k)})")
        return value

    def keys(self, tbl: dict, key: str, required: Iterable[str], optional: Iterable[str] = ()):
        required = tuple(required)
        allowed = required + tuple(optional)
        for k in tbl:
            if k not in allowed:
                self.fail(join(key, k), f"unknown key (allowed here: {', '.join(allowed)})")
        for k in required:
            if k not in tbl:
                self.fail(join(key, k), "missing (required)")

    def integer(self, value: object, key: str, lo: int, hi: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"must be an integer, got {kind_of(value)}")
        if not lo <= value <= hi:
            shown = value if abs(value) < 10**12 else "a huge number"
            self.fail(key, f"must be between {lo} and {hi}, got {shown}")
        self.domains[key] = Domain(lo, hi)
        return value

    def string(self, value: object, key: str, limit: int = MAX_NOTE) -> str:
        if not isinstance(value, str):
            self.fail(key, f"must be a string, got {kind_of(value)}")
        if "\n" in value or "\r" in value:
            self.fail(key, "must be one line")
        if not value.strip():
            self.fail(key, "must not be empty")
        if len(value) > limit:
            self.fail(key, f"longer than {limit} characters")
        return value

    def name(self, value: object, key: str) -> str:
        if not isinstance(value, str):
            self.fail(key, f"must be a string, got {kind_of(value)}")
        if not NAME_RE.match(value):
            self.fail(key, f"invalid name {clean(repr(value), 50)} (use {NAME_RULE})")
        return value

    def row_name(self, name: str, key: str) -> None:
        if not NAME_RE.match(name):
            self.fail(key, f"invalid name (table names use {NAME_RULE})")

    def rows_of(self, value: object, key: str, what: str) -> dict:
        tbl = self.table(value, key)
        if not tbl:
            self.fail(key, f"needs at least one {what}")
        if len(tbl) > MAX_ROWS:
            self.fail(key, f"more than {MAX_ROWS} tables")
        for name in tbl:
            self.row_name(name, join(key, name))
        return tbl

    def choice(self, value: object, key: str, options: list[str], what: str) -> str:
        if not isinstance(value, str):
            self.fail(key, f"must be a string, got {kind_of(value)}")
        if value not in options:
            self.fail(key, f"unknown {what} {clean(repr(value), 50)} (known: {', '.join(options)})")
        self.domains[key] = Domain(options=tuple(options))
        return value

    # -- provenance ------------------------------------------------------------------------
    def provenance(
        self,
        tbl: dict,
        path: str,
        entries: list[tuple[str, str, object]],
        value_keys: Iterable[str],
    ) -> dict:
        """Check the provenance keys of ``tbl`` and record one row per value.

        ``entries`` lists (label, row key, value); several rows may share a label (a building's
        cost per material). Returns the normalised provenance/source/reason keys.
        """
        labels = list(dict.fromkeys(label for label, _, _ in entries))
        prov_key = join(path, "provenance")
        if "provenance" not in tbl:
            self.fail(
                prov_key,
                'missing: every table of values needs provenance = "known" (with source) '
                'or "estimate" (with reason), or a table labelling each value',
            )
        prov = tbl["provenance"]
        if isinstance(prov, str):
            if prov not in PROVENANCE_KINDS:
                self.fail(prov_key, f'must be "known" or "estimate", got {clean(repr(prov), 40)}')
            per = {label: prov for label in labels}
        elif isinstance(prov, dict):
            for label, kind in prov.items():
                if label not in labels:
                    self.fail(
                        join(prov_key, label),
                        f"labels a value this table does not have (values: {', '.join(labels)})",
                    )
                if kind not in PROVENANCE_KINDS:
                    self.fail(
                        join(prov_key, label), f'must be "known" or "estimate", got {kind_of(kind)}'
                    )
            for label in labels:
                if label not in prov:
                    self.fail(
                        prov_key, f"does not label '{label}' (label every value of the table)"
                    )
            per = {label: prov[label] for label in labels}
        else:
            self.fail(
                prov_key, f'must be "known", "estimate" or a table of those, got {kind_of(prov)}'
            )
        pending = self.origins.unrestated.get(path)
        if pending is not None:
            idx, changed = pending
            changed_values = [k for k in changed if k in set(value_keys)]
            if changed_values:
                self.fail(
                    prov_key,
                    f"the override changes {', '.join(changed_values)} but does not restate "
                    "provenance (give provenance with source or reason for the new values)",
                    file=self.origins.files[idx],
                )
        notes = {}
        for note_key, kind in (("source", "known"), ("reason", "estimate")):
            wanted = [label for label in labels if per[label] == kind]
            key = join(path, note_key)
            note = tbl.get(note_key)
            if not wanted:
                if note is not None:
                    self.fail(key, f'given, but no value of this table is "{kind}"')
                continue
            if note is None:
                self.fail(key, f'missing: required because a value of this table is "{kind}"')
            if isinstance(note, dict):
                for label, text in note.items():
                    if label not in wanted:
                        self.fail(join(key, label), f'is not a "{kind}" value of this table')
                    self.string(text, join(key, label))
                for label in wanted:
                    if label not in note:
                        self.fail(key, f"has no entry for '{label}'")
                notes[note_key] = {label: note[label] for label in wanted}
            else:
                notes[note_key] = self.string(note, key)
        for label, row_key, value in entries:
            kind = per[label]
            note = notes["source" if kind == "known" else "reason"]
            text = note[label] if isinstance(note, dict) else note
            self.rows.append(
                Row(row_key, value, kind, text, path, label, self.domains.get(row_key))
            )
        out = {"provenance": dict(per) if isinstance(prov, dict) else prov}
        out.update(notes)
        return out


def validate(data: object, origins: Origins) -> tuple[dict, list[Row]]:
    """Check merged component data; return the normalised data and its provenance rows."""
    c = _Checker(origins)
    top = c.table(data, "")
    c.keys(top, "", TOP_KEYS[:2] + SECTIONS, ("title", "farmers_market"))
    schema = c.integer(top["schema"], "schema", -(2**63), 2**63)
    if schema != SCHEMA_VERSION:
        c.fail(
            "schema", f"unsupported format version {schema} (this bnb-sim reads {SCHEMA_VERSION})"
        )
    game = top["game"]
    if game != GAME:
        c.fail("game", f"must be {GAME!r} (the rules module that reads it), got {kind_of(game)}")
    out: dict = {"schema": schema, "game": game}
    if "title" in top:
        out["title"] = c.string(top["title"], "title", 200)
    out["rules"] = _rules(c, top["rules"])
    values = _characteristics(c, top["characteristics"])
    out["characteristics"] = values
    out["blocks"] = _blocks(c, top["blocks"], values)
    out["weapons"] = _weapons(c, top["weapons"])
    out["mobs"] = _mobs(c, top["mobs"], values)
    out["buildings"] = _buildings(c, top["buildings"], values)
    out["scoring"] = _scoring(c, top["scoring"], values)
    out["boards"] = _boards(c, top["boards"], values)
    if "farmers_market" in top:  # the expansion (components/expansion.py, R-FM-*)
        from bnb_sim.games.builders_biomes.components.expansion import (
            check_vegetable_supply,
            validate_farmers_market,
        )

        out["farmers_market"] = validate_farmers_market(c, top["farmers_market"])
        check_vegetable_supply(c, out)
    elif any("vegetables" in b for b in out["buildings"].values()):
        c.fail("buildings", "farm tiles (with vegetables) need the [farmers_market] section")
    _totals(c, out)
    _column_names(c, out)
    return out, c.rows


def _column_names(c: _Checker, d: dict) -> None:
    """Mob species and building types name columns of the run files (``fights_X``,
    ``built_T``, bnb_sim.columns); refuse a name whose column would overwrite another."""
    from bnb_sim.columns import column_collisions

    types = d["characteristics"]["type"]
    for kind, name, column in column_collisions(list(d["mobs"]), types):
        key = f"mobs.{name}" if kind == "mob" else f"characteristics.type.{types.index(name)}"
        c.fail(
            key,
            f"{kind} name '{name}' would make the run-file column {column}; choose another name",
        )


def _rules(c: _Checker, value: object) -> dict:
    tbl = c.table(value, "rules")
    c.keys(tbl, "rules", tuple(RULE_RANGES) + ("provenance",), ("source", "reason"))
    out = {k: c.integer(tbl[k], f"rules.{k}", lo, hi) for k, (lo, hi) in RULE_RANGES.items()}
    if out["min_exposed_sides"] > CORNER_SIDES:
        c.fail(
            "rules.min_exposed_sides",
            f"is {out['min_exposed_sides']}, but a corner block of the full top layer has only "
            f"{CORNER_SIDES} exposed sides: no block could ever be collected and no game could "
            f"end (R-CUBE-1); use 0 to {CORNER_SIDES}",
        )
    if out["players_min"] > out["players_max"]:
        c.fail(
            "rules.players_min",
            f"is {out['players_min']}, more than rules.players_max ({out['players_max']})",
            blame=["rules.players_max"],
        )
    entries = [(k, f"rules.{k}", v) for k, v in out.items()]
    out.update(c.provenance(tbl, "rules", entries, RULE_RANGES))
    return out


def _characteristics(c: _Checker, value: object) -> dict:
    tbl = c.table(value, "characteristics")
    c.keys(tbl, "characteristics", CHARACTERISTICS)
    out: dict = {}
    seen: dict[str, str] = {}
    for char in CHARACTERISTICS:
        key = f"characteristics.{char}"
        names = tbl[char]
        if not isinstance(names, list):
            c.fail(key, f"must be an array of {N_VALUES} names, got {kind_of(names)}")
        if len(names) != N_VALUES:
            c.fail(key, f"must list exactly {N_VALUES} values, got {len(names)}")
        for i, name in enumerate(names):
            c.name(name, f"{key}.{i}")
            if name in seen:
                c.fail(f"{key}.{i}", f"value '{name}' appears twice (also in {seen[name]})")
            seen[name] = char
        out[char] = list(names)
    return out


def _blocks(c: _Checker, value: object, values: dict) -> dict:
    materials = values["material"]
    tbl = c.rows_of(value, "blocks", "block type")
    parsed = {}
    wild_name = None
    for name, raw in tbl.items():
        key = f"blocks.{name}"
        b = c.table(raw, key)
        c.keys(b, key, ("count", "provenance"), ("wild", "source", "reason"))
        count = c.integer(b["count"], f"{key}.count", 0, CUBE_BLOCKS)
        wild = b.get("wild", False)
        if not isinstance(wild, bool):
            c.fail(f"{key}.wild", f"must be true or false, got {kind_of(wild)}")
        if name in materials:
            if wild:
                c.fail(f"{key}.wild", "a material's block cannot be wild (the wild block is extra)")
        elif not wild:
            c.fail(
                key,
                f"is not a material ({', '.join(materials)}) and not wild: "
                "fix the name or set wild = true",
            )
        elif wild_name is not None:
            c.fail(
                f"{key}.wild", f"a second wild block (already '{wild_name}'); exactly one is wild"
            )
        else:
            wild_name = name
        parsed[name] = (b, count, wild)
    for m in materials:
        if m not in parsed:
            c.fail(f"blocks.{m}", "missing: every material needs a block table")
    if wild_name is None:
        c.fail("blocks", "no wild block: one extra block table needs wild = true (R-CUBE-3)")
    out = {}
    for name in [*materials, wild_name]:
        b, count, wild = parsed[name]
        key = f"blocks.{name}"
        row = {"count": count, "wild": wild}
        row.update(c.provenance(b, key, [("count", f"{key}.count", count)], ("count",)))
        out[name] = row
    total = sum(r["count"] for r in out.values())
    if total != CUBE_BLOCKS:
        c.fail("blocks", f"counts sum to {total}, must be {CUBE_BLOCKS} (the 4x4x4 cube)")
    return out


def _weapons(c: _Checker, value: object) -> dict:
    tbl = c.rows_of(value, "weapons", "weapon type")
    out = {}
    taken: dict[str, str] = {name: name for name in tbl}
    for name, raw in tbl.items():
        key = f"weapons.{name}"
        w = c.table(raw, key)
        c.keys(w, key, tuple(WEAPON_FIELDS) + ("provenance",), ("aliases",) + NOTE_KEYS[1:])
        row: dict = {
            f: c.integer(w[f], f"{key}.{f}", lo, hi) for f, (lo, hi) in WEAPON_FIELDS.items()
        }
        aliases = w.get("aliases", [])
        if not isinstance(aliases, list):
            c.fail(f"{key}.aliases", f"must be an array of names, got {kind_of(aliases)}")
        for i, alias in enumerate(aliases):
            akey = f"{key}.aliases.{i}"
            c.name(alias, akey)
            if alias in taken:
                other = taken[alias]
                what = "the weapon type" if other == alias else f"an alias of '{other}'"
                c.fail(akey, f"alias '{alias}' is already {what}")
            taken[alias] = name
        row["aliases"] = list(aliases)
        entries = [(f, f"{key}.{f}", row[f]) for f in WEAPON_FIELDS]
        row.update(c.provenance(w, key, entries, WEAPON_FIELDS))
        out[name] = row
    return out


def _target(c: _Checker, value: object, key: str, values: dict) -> str:
    if not isinstance(value, str):
        c.fail(key, f'must be a string "characteristic.value", got {kind_of(value)}')
    char, dot, val = value.partition(".")
    if not dot or char not in values:
        c.fail(
            key,
            f'must be "characteristic.value" with a characteristic of '
            f"{', '.join(CHARACTERISTICS)}, got {clean(repr(value), 50)}",
        )
    if val not in values[char]:
        c.fail(key, f"unknown {char} {clean(repr(val), 40)} (known: {', '.join(values[char])})")
    c.domains[key] = Domain(
        options=tuple(f"{ch}.{v}" for ch in CHARACTERISTICS for v in values[ch])
    )
    return value


def _mobs(c: _Checker, value: object, values: dict) -> dict:
    tbl = c.rows_of(value, "mobs", "mob species")
    out = {}
    for name, raw in tbl.items():
        key = f"mobs.{name}"
        m = c.table(raw, key)
        c.keys(m, key, ("hearts", "tiles", "provenance"), NOTE_KEYS[1:])
        hearts = c.integer(m["hearts"], f"{key}.hearts", *MOB_HEARTS)
        tiles = m["tiles"]
        if not isinstance(tiles, list):
            c.fail(
                f"{key}.tiles",
                f"must be an array of tables ([[{key}.tiles]]), got {kind_of(tiles)}",
            )
        if not tiles:
            c.fail(f"{key}.tiles", "needs at least one tile variant")
        if len(tiles) > MAX_ROWS:
            c.fail(f"{key}.tiles", f"more than {MAX_ROWS} variants")
        row: dict = {"hearts": hearts}
        row.update(c.provenance(m, key, [("hearts", f"{key}.hearts", hearts)], ("hearts",)))
        row["tiles"] = [_mob_tile(c, t, f"{key}.tiles.{i}", values) for i, t in enumerate(tiles)]
        out[name] = row
    return out


def _mob_tile(c: _Checker, raw: object, key: str, values: dict) -> dict:
    t = c.table(raw, key)
    bonus_fields = ("bonus", "bonus_xp")
    c.keys(t, key, ("kind", "xp", "copies", "provenance"), bonus_fields + NOTE_KEYS[1:])
    kind = c.choice(t["kind"], f"{key}.kind", ["hunger", "bonus"], "kind")
    row: dict = {
        "kind": kind,
        "xp": c.integer(t["xp"], f"{key}.xp", *XP_RANGE),
        "copies": c.integer(t["copies"], f"{key}.copies", *COPIES_RANGE),
    }
    if kind == "bonus":
        for f in bonus_fields:
            if f not in t:
                c.fail(f"{key}.{f}", "missing (required on bonus tiles)")
        row["bonus"] = _target(c, t["bonus"], f"{key}.bonus", values)
        row["bonus_xp"] = c.integer(t["bonus_xp"], f"{key}.bonus_xp", *XP_RANGE)
    else:
        for f in bonus_fields:
            if f in t:
                c.fail(f"{key}.{f}", 'only bonus tiles (kind = "bonus") have this key')
    entries = [(f, f"{key}.{f}", v) for f, v in row.items() if f != "kind"]
    row.update(c.provenance(t, key, entries, ()))
    return row


def _buildings(c: _Checker, value: object, values: dict) -> dict:
    tbl = c.rows_of(value, "buildings", "building tile")
    materials = values["material"]
    out = {}
    for name, raw in tbl.items():
        key = f"buildings.{name}"
        b = c.table(raw, key)
        fields = ("biome", "material", "type", "cost", "xp", "copies")
        c.keys(b, key, fields + ("provenance",), ("vegetables",) + NOTE_KEYS[1:])
        row: dict = {
            char: c.choice(b[char], f"{key}.{char}", values[char], char) for char in CHARACTERISTICS
        }
        cost = c.table(b["cost"], f"{key}.cost")
        if not cost:
            c.fail(f"{key}.cost", "is empty (give blocks per material, e.g. { wood = 3 })")
        for m in cost:
            if m not in materials:
                c.fail(f"{key}.cost.{m}", f"not a material (materials: {', '.join(materials)})")
        row["cost"] = {
            m: c.integer(cost[m], f"{key}.cost.{m}", *COST_RANGE) for m in materials if m in cost
        }
        row["xp"] = c.integer(b["xp"], f"{key}.xp", *XP_RANGE)
        row["copies"] = c.integer(b["copies"], f"{key}.copies", *COPIES_RANGE)
        entries = [("cost", f"{key}.cost.{m}", n) for m, n in row["cost"].items()]
        entries += [("xp", f"{key}.xp", row["xp"]), ("copies", f"{key}.copies", row["copies"])]
        if "vegetables" in b:  # a farm tile of the expansion: its vegetable spaces (R-FM-3)
            row["vegetables"] = c.integer(b["vegetables"], f"{key}.vegetables", 1, 8)
            entries.append(("vegetables", f"{key}.vegetables", row["vegetables"]))
            fields = fields + ("vegetables",)
        row.update(c.provenance(b, key, entries, fields))
        out[name] = row
    return out


def _scoring(c: _Checker, value: object, values: dict) -> dict:
    tbl = c.table(value, "scoring")
    c.keys(tbl, "scoring", tuple(ROUND_CHARACTERISTIC))
    out = {}
    for card, char in ROUND_CHARACTERISTIC.items():
        key = f"scoring.{card}"
        s = c.table(tbl[card], key)
        c.keys(s, key, ("characteristic", "values", "provenance"), NOTE_KEYS[1:])
        got = s["characteristic"]
        if got != char:
            c.fail(
                f"{key}.characteristic",
                f"round {card.upper()} scores '{char}' (R-SCORE-1), got {kind_of(got)}",
            )
        vals = c.table(s["values"], f"{key}.values")
        c.keys(vals, f"{key}.values", values[char])
        row: dict = {
            "characteristic": char,
            "values": {
                v: c.integer(vals[v], f"{key}.values.{v}", *SCORE_RANGE) for v in values[char]
            },
        }
        entries = [(v, f"{key}.values.{v}", n) for v, n in row["values"].items()]
        row.update(c.provenance(s, key, entries, ("values",)))
        out[card] = row
    return out


def _boards(c: _Checker, value: object, values: dict) -> dict:
    tbl = c.rows_of(value, "boards", "player board")
    biomes = values["biome"]
    out = {}
    for name, raw in tbl.items():
        key = f"boards.{name}"
        b = c.table(raw, key)
        c.keys(b, key, ("spaces", "provenance"), NOTE_KEYS[1:])
        spaces = b["spaces"]
        shape = f"must be {BOARD_SIZE} rows of {BOARD_SIZE} biome names"
        if not isinstance(spaces, list) or len(spaces) != BOARD_SIZE:
            c.fail(f"{key}.spaces", f"{shape}, got {kind_of(spaces)}")
        for r, line in enumerate(spaces):
            if not isinstance(line, list) or len(line) != BOARD_SIZE:
                c.fail(f"{key}.spaces.{r}", f"{shape}; this row is {kind_of(line)}")
            for col, biome in enumerate(line):
                c.choice(biome, f"{key}.spaces.{r}.{col}", biomes, "biome")
        c.domains[f"{key}.spaces"] = Domain(check=_board_check(biomes))
        row: dict = {"spaces": [list(line) for line in spaces]}
        row.update(c.provenance(b, key, [("spaces", f"{key}.spaces", row["spaces"])], ("spaces",)))
        out[name] = row
    return out


def _board_check(biomes: list[str]):
    def check(spaces: object) -> str | None:
        rows = spaces if isinstance(spaces, list) and len(spaces) == BOARD_SIZE else []
        if len(rows) == BOARD_SIZE and all(
            isinstance(r, list) and len(r) == BOARD_SIZE and all(s in biomes for s in r)
            for r in rows
        ):
            return None
        return f"a board is {BOARD_SIZE} rows of {BOARD_SIZE} biomes ({', '.join(biomes)})"

    return check


def _totals(c: _Checker, d: dict) -> None:
    rules = d["rules"]
    weapons = d["weapons"]
    table = sum(w["table_count"] for w in weapons.values())
    if table != TABLE_TOKENS:
        c.fail(
            "weapons",
            f"table_count sums to {table}, must be {TABLE_TOKENS} "
            "(one colourless token at each end of every row and column, R-SETUP-2)",
        )
    start = sum(w["start_count"] for w in weapons.values())
    if start == 0:
        c.fail("weapons", "start_count sums to 0: each player's starting pile needs a token")
    if start + table > MAX_PILE:
        c.fail(
            "weapons",
            f"start pile ({start}) + colourless tokens ({table}) = {start + table}, "
            f"more than the {MAX_PILE} tokens a pile can hold",
        )
    n_mob = sum(t["copies"] for m in d["mobs"].values() for t in m["tiles"])
    n_building = sum(b["copies"] for b in d["buildings"].values())
    if n_mob == 0:
        c.fail("mobs", "no mob tile (every copies is 0)")
    if n_building == 0:
        c.fail("buildings", "no building tile (every copies is 0)")
    want = N_STACKS * rules["stack_height"]
    if n_mob + n_building != want:
        c.fail(
            "buildings",
            f"{n_building} building tiles + {n_mob} mob tiles = {n_mob + n_building}, "
            f"must be 16 stacks x rules.stack_height ({rules['stack_height']}) = {want}",
            blame=["mobs", "rules.stack_height"],
        )
    if len(d["boards"]) < rules["players_max"]:
        c.fail(
            "boards",
            f"{len(d['boards'])} boards for up to rules.players_max = {rules['players_max']} "
            "players (one board per player)",
            blame=["rules.players_max"],
        )


def is_complete(data: Mapping) -> bool:
    """A file with every data section is a complete file; anything else is an override."""
    return all(section in data for section in SECTIONS)
