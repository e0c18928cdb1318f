"""The base game's sections of the component data: rules, characteristics, blocks, weapons,
mobs, buildings, scoring and boards (docs/components.md).

Each ``_<section>`` function checks its section with the :class:`~.checker.Checker` and returns
it normalised (fields in schema order, collections in file order, ``aliases`` and ``wild``
always present); :func:`base_sections` runs them in schema order.

No numpy, no numba: imported by ``bnb components validate``.
"""

from __future__ import annotations

from bnb_sim.estimates import Domain
from bnb_sim.games.builders_biomes.components.checker import (
    MAX_ROWS,
    NOTE_KEYS,
    Checker,
    kind_of,
)
from bnb_sim.toml_files import clean

CHARACTERISTICS = ("biome", "material", "type")
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
ROUND_CHARACTERISTIC = {"a": "biome", "b": "material", "c": "type"}  # R-SCORE-1
BOARD_SIZE = 3


def base_sections(c: Checker, top: dict) -> dict:
    """Check the base game's sections of ``top``, in schema order; return them normalised."""
    out: dict = {"rules": _rules(c, top["rules"])}
    values = _characteristics(c, top["characteristics"])
    out["characteristics"] = values
    out["blocks"] = _blocks(c, top["blocks"], values)
    out["weapons"] = _weapons(c, top["weapons"])
    out["mobs"] = _mobs(c, top["mobs"], values)
    out["buildings"] = _buildings(c, top["buildings"], values)
    out["scoring"] = _scoring(c, top["scoring"], values)
    out["boards"] = _boards(c, top["boards"], values)
    return out


def _rules(c: Checker, value: object) -> dict:
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


def _characteristics(c: Checker, value: object) -> dict:
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


def _blocks(c: Checker, value: object, values: dict) -> dict:
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


def _weapons(c: Checker, value: object) -> dict:
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


def _target(c: Checker, value: object, key: str, values: dict) -> str:
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


def _mobs(c: Checker, value: object, values: dict) -> dict:
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


def _mob_tile(c: Checker, raw: object, key: str, values: dict) -> dict:
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


def _buildings(c: Checker, value: object, values: dict) -> dict:
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


def _scoring(c: Checker, value: object, values: dict) -> dict:
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


def _boards(c: Checker, value: object, values: dict) -> dict:
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
