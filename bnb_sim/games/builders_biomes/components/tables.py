"""The readable tables of ``bnb components show`` (the game's ``component_tables`` hook).

Every value with its provenance: estimated values are marked ``~``, grouped by reason with
their plausible ranges, and the known ones by source. Plain Python: no numba, no numpy.
"""

from __future__ import annotations

import textwrap

EST = "~"  # marks an estimated value in the tables
WIDTH = 100


def render(comps) -> list[str]:
    """The readable tables of ``components show``."""
    data = comps.data
    rows = {r["key"]: r for r in comps.provenance_rows()}

    def v(key: str) -> str:
        row = rows[key]
        return (EST if row["provenance"] == "estimate" else "") + str(row["value"])

    out = [
        data.get("title", data["game"]),
        f"source: {comps.source}   sha256: {comps.content_hash[:16]}   "
        f"values: {len(rows)}, estimated: {comps.n_estimates} (marked {EST})",
        "",
        "Rules",
    ]
    ranges = comps.estimate_ranges()
    out += [f"  {k:<20} {v('rules.' + k):>4}" for k in data["rules"] if _is_value(k)]
    out += ["", "Characteristics"]
    out += [f"  {c:<9} {', '.join(names)}" for c, names in data["characteristics"].items()]
    total = sum(b["count"] for b in data["blocks"].values())
    out += ["", f"Blocks ({total} in the cube)"]
    for name, b in data["blocks"].items():
        wild = "  wild" if b["wild"] else ""
        out.append(f"  {name:<12} {v(f'blocks.{name}.count'):>4}{wild}")

    weapons = data["weapons"]
    fields = (
        ("hearts", "hearts"),
        ("extra_reveals", "extra"),
        ("xp_on_reveal", "xp"),
        ("blocks_on_reveal", "blocks"),
        ("detonate_hearts", "detonate"),
        ("start_count", "start"),
        ("table_count", "table"),
    )
    out += ["", "Weapons (type order)"]
    out.append("   #  name              " + "".join(f"{h:>9}" for _, h in fields) + "  aliases")
    for i, (name, w) in enumerate(weapons.items()):
        cells = "".join(f"{v(f'weapons.{name}.{f}'):>9}" for f, _ in fields)
        out.append(f"  {i:>2}  {name:<18}{cells}  {', '.join(w['aliases'])}")

    out += [
        "",
        f"Mobs ({sum(t['copies'] for m in data['mobs'].values() for t in m['tiles'])} tiles)",
    ]
    for name, m in data["mobs"].items():
        out.append(f"  {name:<12} hearts {v(f'mobs.{name}.hearts')}")
        for i, t in enumerate(m["tiles"]):
            key = f"mobs.{name}.tiles.{i}"
            line = f"    {t['kind']:<7} xp {v(key + '.xp'):>3}   copies {v(key + '.copies'):>3}"
            if t["kind"] == "bonus":
                line += f"   {v(key + '.bonus_xp')} XP per {v(key + '.bonus')}"
            out.append(line)

    buildings = data["buildings"]
    n_tiles = sum(b["copies"] for b in buildings.values())
    out += ["", f"Buildings ({len(buildings)} tables, {n_tiles} tiles)"]
    out.append(
        f"  {'id':<6}{'biome':<14}{'material':<10}{'type':<14}{'cost':<16}{'xp':>4}{'copies':>8}"
        + ("  vegetables" if any("vegetables" in b for b in buildings.values()) else "")
    )
    for bid, b in buildings.items():
        cost = " + ".join(f"{v(f'buildings.{bid}.cost.{m}')} {m}" for m in b["cost"])
        out.append(
            f"  {bid:<6}{b['biome']:<14}{b['material']:<10}{b['type']:<14}{cost:<16}"
            f"{v(f'buildings.{bid}.xp'):>4}{v(f'buildings.{bid}.copies'):>8}"
            + (f"{v(f'buildings.{bid}.vegetables'):>12}" if "vegetables" in b else "")
        )

    out += ["", "Scoring cards (XP per space of the largest group)"]
    for card, s in data["scoring"].items():
        cells = "  ".join(f"{val} {v(f'scoring.{card}.values.{val}')}" for val in s["values"])
        out.append(f"  {card.upper()} {s['characteristic']:<9} {cells}")

    if "farmers_market" in data:
        out += _farmers_market(data["farmers_market"], v)

    out += ["", "Player boards (printed biomes, row by row)"]
    width = max(len(b) for b in data["characteristics"]["biome"]) + 2
    for name, board in data["boards"].items():
        mark = EST if rows[f"boards.{name}.spaces"]["provenance"] == "estimate" else ""
        for r, line in enumerate(board["spaces"]):
            label = f"{mark}{name}" if r == 0 else ""
            out.append(f"  {label:<10}" + "".join(f"{s:<{width}}" for s in line).rstrip())

    out += ["", f"Estimated values ({EST}), by reason"]
    out += _grouped(r for r in rows.values() if r["provenance"] == "estimate")
    out += range_section(ranges)
    out += ["", "Known values, by source"]
    out += _grouped(r for r in rows.values() if r["provenance"] == "known")
    out += ["", "Source keys (docs/sources.md)"]
    out += _legend(r["note"] for r in rows.values())
    return [line.rstrip() for line in out]


def range_section(ranges) -> list[str]:
    """Every estimate with its plausible range (low..high or the choices), by reason."""
    from bnb_sim.estimates import describe

    missing = sum(not e.has_range for e in ranges)
    note = f"; {missing} without one" if missing else ""
    return [
        "",
        f"Plausible ranges of the {len(ranges)} estimates{note} (what a real box could hold)",
        *describe(ranges, WIDTH),
    ]


def _farmers_market(fm: dict, v) -> list[str]:
    """The expansion's tables (R-FM-*): counts, farmland sides, the 18 item tiles."""
    key = "farmers_market"
    out = ["", "Farmer's Market"]
    from bnb_sim.games.builders_biomes.components.expansion import FIELDS

    for f in FIELDS:
        out.append(f"  {f:<22} {v(f'{key}.{f}'):>4}")
    for side in fm["farmland"]:
        sk = f"{key}.farmland.{side}"
        out.append(
            f"  farmland {side:<13} {v(sk + '.spaces')} spaces x "
            f"{v(sk + '.vegetables_per_space')} vegetables"
        )
    out += ["", f"Items ({len(fm['items'])} tiles)"]
    out.append(f"  {'name':<16}{'cost':>5}{'letter':>8}  {'ability':<20}{'amount':>7}")
    for name in fm["items"]:
        ik = f"{key}.items.{name}"
        out.append(
            f"  {name:<16}{v(ik + '.cost'):>5}{v(ik + '.letter'):>8}  "
            f"{v(ik + '.ability'):<20}{v(ik + '.amount'):>7}"
        )
    return out


def _legend(notes) -> list[str]:
    from bnb_sim.sources import legend

    pairs = legend(notes)
    if not pairs:
        return ["  (none cited)"]
    width = max(len(key) for key, _ in pairs) + 2
    out = []
    for key, meaning in pairs:
        out += textwrap.wrap(
            meaning, WIDTH, initial_indent=f"  {key:<{width}}", subsequent_indent=" " * (width + 2)
        )
    return out


def _is_value(key: str) -> bool:
    return key not in ("provenance", "source", "reason")


def _grouped(rows) -> list[str]:
    groups: dict[str, list[str]] = {}
    for r in rows:
        groups.setdefault(r["note"], []).append(r["key"])
    out = []
    for note, keys in groups.items():
        shown = ", ".join(keys[:3]) + (f", and {len(keys) - 3} more" if len(keys) > 3 else "")
        count = f"{len(keys)} value{'s' if len(keys) != 1 else ''}: {shown}"
        out += textwrap.wrap(note, WIDTH, initial_indent="  - ", subsequent_indent="    ")
        out += textwrap.wrap(count, WIDTH, initial_indent=" " * 6, subsequent_indent=" " * 8)
    return out or ["  (none)"]
