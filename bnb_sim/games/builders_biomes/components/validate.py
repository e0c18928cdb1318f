"""Validation and normalisation of merged component data (docs/components.md).

:func:`validate` checks every key of a merged component dict (types, ranges, names, totals,
provenance) and returns a *normalised* copy (fields in schema order, collections in file order,
``aliases`` and ``wild`` always present) plus one provenance row per value. The first problem
found raises :class:`~bnb_sim.errors.ComponentError` naming the file the bad key came from, the
dotted key and what is wrong, on one line.

The checks live by responsibility: ``checker.py`` (types, ranges, provenance rows),
``sections.py`` (the base game's sections), ``expansion.py`` (the ``[farmers_market]``
section); this module checks the top level and the totals across sections.

No numpy, no numba: this module is imported by ``bnb components validate``.
"""

from __future__ import annotations

from collections.abc import Mapping

from bnb_sim.games.builders_biomes.components.checker import Checker, Row, kind_of
from bnb_sim.games.builders_biomes.components.expansion import (
    check_vegetable_supply,
    validate_farmers_market,
)
from bnb_sim.games.builders_biomes.components.origins import Origins
from bnb_sim.games.builders_biomes.components.sections import base_sections

SCHEMA_VERSION = 1
GAME = "builders_biomes"
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
TABLE_TOKENS = 16  # one colourless token at each end of every row and column (R-SETUP-2)
N_STACKS = 16  # the 4x4 grid of tile stacks (R-SETUP-2)
MAX_PILE = 64  # start pile + every colourless token


def validate(data: object, origins: Origins) -> tuple[dict, list[Row]]:
    """Check merged component data; return the normalised data and its provenance rows."""
    c = Checker(origins)
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
    out.update(base_sections(c, top))
    if "farmers_market" in top:  # the expansion (components/expansion.py, R-FM-*)
        out["farmers_market"] = validate_farmers_market(c, top["farmers_market"])
        check_vegetable_supply(c, out)
    elif any("vegetables" in b for b in out["buildings"].values()):
        c.fail("buildings", "farm tiles (with vegetables) need the [farmers_market] section")
    _totals(c, out)
    _column_names(c, out)
    return out, c.rows


def _column_names(c: Checker, d: dict) -> None:
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


def _totals(c: Checker, d: dict) -> None:
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
