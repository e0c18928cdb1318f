"""The Farmer's Market expansion's component data (R-FM-1 .. R-FM-10, docs/components.md).

The expansion is an override file, ``data/farmers_market.toml``, merged over the base game's
data when a run asks for ``expansion="farmers-market"``: it raises ``rules.stack_height`` to 5,
adds the 16 farm building tiles (buildings with a ``vegetables`` capacity) and the
``[farmers_market]`` section checked here (vegetables, farmland sides, marketplace spaces, the
18 item tiles). A user's own override files are applied on top, so a box's printed values
replace the estimates.

No numpy, no numba: imported by ``bnb components``.
"""

from __future__ import annotations

from pathlib import Path

from bnb_sim.errors import ComponentError
from bnb_sim.games.builders_biomes.components.checker import NOTE_KEYS

FARMERS_MARKET = "farmers-market"
EXPANSIONS = {FARMERS_MARKET: Path(__file__).resolve().parents[3] / "data" / "farmers_market.toml"}
EXPANSION_LABELS = {FARMERS_MARKET: "farmers_market.toml (expansion)"}

LETTERS = ("X", "A", "B")  # R-FM-2: face-up at the start, after round A, after round B
# R-FM-5: the abilities the engine knows, in the order of its ability ids (engine/market.py).
# ``amount`` is the ability's number (steps, XP, blocks, reveals, actions); "-" = unused.
ABILITIES = (
    "none",  # the bell (R-FM-5 counts it as an item; it has no ability of its own)
    "explore_steps",  # move 0..amount spaces when exploring
    "wild_blocks",  # any block counts as emerald when building
    "lightning_xp",  # +amount XP whenever XP comes from a lightning icon
    "refight",  # after a lost fight the player may reshuffle and reveal amount (3) again
    "collect_xp",  # +amount XP per collect action (or per block: reading fm_collect_xp)
    "hunger_actions",  # each hunger mob traded in gives amount extra actions
    "explore_unlimited",  # any number of spaces when exploring
    "collect_blocks",  # the player may collect amount blocks instead of 2
    "cheaper_buildings",  # every building costs amount block(s) less
    "fight_reveal",  # the player may reveal amount weapons instead of 3
    "actions_per_turn",  # amount different actions per turn
    "end_blocks",  # end: amount XP per block in supply
    "end_buildings",  # end: amount XP per building on the board (top tiles)
    "end_mobs",  # end: amount XP per defeated mob owned
    "end_farmland",  # end: amount XP per visible farming structure
    "end_items",  # end: amount XP per item bought (this one included)
    "end_flat",  # end: amount XP
)
MAX_ITEMS = 32  # items owned are a bitmask of one int64 word per seat
MAX_VEGETABLE_SPACES = 8
FIELDS = (
    "vegetable_tokens",
    "xp_per_farming_space",
    "market_x",
    "market_a",
    "market_b",
    "lap_counters",
)
RANGES = {
    "vegetable_tokens": (1, 256),
    "xp_per_farming_space": (0, 100),
    "market_x": (0, 8),
    "market_a": (0, 8),
    "market_b": (0, 8),
    "lap_counters": (0, 64),
}
SIDES = ("side_2", "side_3_4")


def expansion_path(name: str) -> Path:
    if name not in EXPANSIONS:
        known = ", ".join(EXPANSIONS)
        raise ComponentError("--expansion", "", f"unknown expansion {name!r} (known: {known})")
    return EXPANSIONS[name]


def validate_farmers_market(c, value: object) -> dict:
    """Check the ``[farmers_market]`` section; ``c`` is the validator's checker."""
    key = "farmers_market"
    tbl = c.table(value, key)
    c.keys(tbl, key, FIELDS + ("farmland", "items", "provenance"), NOTE_KEYS[1:])
    out: dict = {f: c.integer(tbl[f], f"{key}.{f}", *RANGES[f]) for f in FIELDS}
    out.update(c.provenance(tbl, key, [(f, f"{key}.{f}", out[f]) for f in FIELDS], FIELDS))
    farmland = c.table(tbl["farmland"], f"{key}.farmland")
    c.keys(farmland, f"{key}.farmland", SIDES)
    out["farmland"] = {}
    for side in SIDES:
        sk = f"{key}.farmland.{side}"
        s = c.table(farmland[side], sk)
        c.keys(s, sk, ("spaces", "vegetables_per_space", "provenance"), NOTE_KEYS[1:])
        row = {
            "spaces": c.integer(s["spaces"], f"{sk}.spaces", 1, MAX_VEGETABLE_SPACES),
            "vegetables_per_space": c.integer(
                s["vegetables_per_space"], f"{sk}.vegetables_per_space", 1, 8
            ),
        }
        entries = [(f, f"{sk}.{f}", v) for f, v in row.items()]
        row.update(c.provenance(s, sk, entries, tuple(row)))
        out["farmland"][side] = row
    items = c.rows_of(tbl["items"], f"{key}.items", "item tile")
    if len(items) > MAX_ITEMS:
        c.fail(f"{key}.items", f"{len(items)} items, at most {MAX_ITEMS}")
    out["items"] = {}
    for name, raw in items.items():
        ik = f"{key}.items.{name}"
        t = c.table(raw, ik)
        fields = ("cost", "letter", "ability", "amount")
        c.keys(t, ik, fields + ("provenance",), NOTE_KEYS[1:])
        row = {
            "cost": c.integer(t["cost"], f"{ik}.cost", 0, 64),
            "letter": c.choice(t["letter"], f"{ik}.letter", list(LETTERS), "letter"),
            "ability": c.choice(t["ability"], f"{ik}.ability", list(ABILITIES), "ability"),
            "amount": c.integer(t["amount"], f"{ik}.amount", 0, 100),
        }
        entries = [(f, f"{ik}.{f}", row[f]) for f in fields]
        row.update(c.provenance(t, ik, entries, fields))
        out["items"][name] = row
    for letter in LETTERS:
        spaces = out[f"market_{letter.lower()}"]
        have = sum(1 for it in out["items"].values() if it["letter"] == letter)
        if have < spaces:
            c.fail(
                f"{key}.items",
                f"{have} items lettered {letter} for {key}.market_{letter.lower()} = {spaces} "
                "marketplace spaces (R-FM-8: one tile on each space)",
                blame=[f"{key}.market_{letter.lower()}"],
            )
    return out


def check_vegetable_supply(c, d: dict) -> None:
    """The starting farmlands of the most players must fit in the vegetable supply."""
    fm = d["farmers_market"]
    most = d["rules"]["players_max"]
    side = fm["farmland"]["side_2" if most == 2 else "side_3_4"]
    need = most * side["spaces"] * side["vegetables_per_space"]
    two = fm["farmland"]["side_2"]
    need = max(need, 2 * two["spaces"] * two["vegetables_per_space"])
    if need > fm["vegetable_tokens"]:
        c.fail(
            "farmers_market.vegetable_tokens",
            f"{fm['vegetable_tokens']} tokens cannot fill {need} starting farmland spaces",
            blame=["farmers_market.farmland"],
        )
