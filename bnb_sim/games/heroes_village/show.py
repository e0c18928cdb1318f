"""``bnb components show --game hotv``: the component data as text, estimates marked ~, and
every estimate with its plausible range (docs/components.md, "Ranges")."""

from __future__ import annotations

from bnb_sim.estimates import describe
from bnb_sim.games.heroes_village.describe import block_text

#: the mark of an estimated value (never published for the game)
EST = "~"


def render(comps) -> list[str]:
    d = comps.data
    rows = {r["key"]: r for r in comps.provenance_rows()}

    def mark(key):
        return EST if rows.get(key, {}).get("provenance") == "estimate" else ""

    out = [
        d.get("title", "Heroes of the Village"),
        f"source: {comps.source}   sha256: {comps.content_hash[:16]}   values: {len(rows)}, "
        f"estimated: {comps.n_estimates} (marked {EST})",
        "",
        "Rules: "
        + ", ".join(
            f"{k} {mark('rules.' + k)}{v}"
            for k, v in d["rules"].items()
            if k not in ("provenance", "source", "reason")
        ),  # fmt: skip
        "Readings: "
        + ", ".join(
            f"{k} {mark('readings.' + k)}{v}"
            for k, v in d["readings"].items()
            if k not in ("provenance", "reason")
        ),  # fmt: skip
        "Blocks (box): " + block_text(d["_totals"]),
        "Pouch at the start: " + block_text(d["_pouch"]),
        f"Illager path: start {d['path']['start_normal']} (--difficulty standard) or "
        f"{d['path']['start_easy']} (easy), "
        f"darkness on {d['path']['darkness_spaces']}, last space "
        f"{mark('path.last_space')}{d['path']['last_space']}",
        f"Fight die: {mark('dice.fight.faces')}{d['dice']['fight']['faces']}",
        f"Illagers die: {mark('dice.illagers.faces')}{d['dice']['illagers']['faces']}",
        "",
        "Mobs:",
    ]
    for m in d["mobs"]:
        out.append(f"  {m['name']:<12s} value {mark('mobs.' + m['name'] + '.value')}{m['value']}"
                   f"  x{mark('mobs.' + m['name'] + '.count')}{m['count']}")  # fmt: skip
    tiles_mark = mark("tiles.list.0.symbol")
    out += ["", f"World tiles ({tiles_mark}estimates; keys tiles.list.N.symbol, .back.BLOCK):"]
    for i, t in enumerate(d["tiles"]["list"]):
        symbol, back = t.get("symbol", "none"), block_text(t["_back"])
        out.append(f"  {i:2d} {t.get('terrain', ''):<10s} symbol {tiles_mark}{symbol:<6s} "
                   f"back {tiles_mark}{back}")  # fmt: skip
    out += ["", "Buildings (keys buildings.list.N.cost.BLOCK):"]
    for i, b in enumerate(comps.buildings):
        cost_mark = mark(f"buildings.list.{i}.cost.{next(iter(b['cost']))}")
        out.append(f"  {i} #{b['number']} {b['name']:<12s} level {b['level']}  cost "
                   f"{cost_mark}{block_text(b['_cost'])}")  # fmt: skip
    out += ["", "Pets: " + ", ".join(f"{p} {v}" for p, v in comps.pet_strength.items())]
    est = [r for r in comps.provenance_rows() if r["provenance"] == "estimate"]
    out += ["", "Estimates and their reasons:"]
    seen = set()
    for r in est:
        if r["reason"] in seen:
            continue
        seen.add(r["reason"])
        out.append(f"  {r['key']}: {r['reason']}")
    ranges = comps.estimate_ranges()
    out += ["", f"Plausible ranges of the {len(ranges)} estimates (what a real box could hold)",
            *describe(ranges)]  # fmt: skip
    return out
