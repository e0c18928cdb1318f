#!/usr/bin/env python3
"""Generate the 44 estimated building tiles of the default component file.

The printed list of Builders & Biomes building tiles has never been published (see
docs/sources.md). The default file ships an *estimate* made by this script (estimate EST-4
of docs/sources.md):

* 44 tiles, 11 per biome and 11 per type; materials in proportion to the block supply:
  wood 12, sand 11, stone 11, obsidian 10;
* each tile costs blocks of its own material only; costs 1 x6, 2 x10, 3 x12, 4 x8, 5 x5, 6 x3;
* immediate XP (the lightning icon, R-BUILD-3) = cost - 3 for costs of 4 or more, else 0.

Balance: every biome x type pair occurs 2 or 3 times (3 everywhere except a random permutation
of 2s, which makes the rows and columns sum to 11), and materials and costs are spread evenly
over biomes, types and each other. A seeded local search (swaps of material or cost between
two tiles, accepted when the imbalance score does not grow) minimises the squared deviation of
every pair count from its expectation plus the deviation of the cost total per biome, type and
material. Everything is deterministic for a given ``SEED``.

Usage::

    python scripts/gen_default_buildings.py          # print the [buildings] table (TOML)

The output was pasted into ``bnb_sim/data/builders_biomes.toml``;
``tests/test_components.py`` checks that the file still matches it. The TOML file is the
artefact: to use the real tiles of a box, edit that file (or an override), not this script.
"""

from __future__ import annotations

import random
from collections import Counter

SEED = 2019  # the game's publication year
ITERATIONS = 4000

BIOMES = ("forest", "desert", "mountains", "snowy_tundra")
MATERIALS = ("wood", "sand", "stone", "obsidian")
TYPES = ("decoration", "dwelling", "animal_house", "bridge")
MATERIAL_TILES = {"wood": 12, "sand": 11, "stone": 11, "obsidian": 10}
COST_TILES = {1: 6, 2: 10, 3: 12, 4: 8, 5: 5, 6: 3}
REASON = "EST-4: tile list unpublished; made by scripts/gen_default_buildings.py"


def immediate_xp(cost: int) -> int:
    """XP printed with the lightning icon: only on the expensive tiles."""
    return cost - 3 if cost >= 4 else 0


def _imbalance(tiles, materials, costs) -> float:
    """Squared deviation of pair counts and cost totals from a perfectly even spread."""
    n = len(tiles)
    biome_n = Counter(b for b, _ in tiles)
    type_n = Counter(t for _, t in tiles)
    mat_n = Counter(materials)
    cost_n = Counter(costs)
    score = 0.0
    for first, first_n, second, second_n in (
        ([b for b, _ in tiles], biome_n, materials, mat_n),
        ([t for _, t in tiles], type_n, materials, mat_n),
        ([b for b, _ in tiles], biome_n, costs, cost_n),
        ([t for _, t in tiles], type_n, costs, cost_n),
        (materials, mat_n, costs, cost_n),
    ):
        pairs = Counter(zip(first, second, strict=True))
        for a, na in first_n.items():
            for b, nb in second_n.items():
                score += (pairs[(a, b)] - na * nb / n) ** 2
    mean_cost = sum(costs) / n
    for key in (0, 1):
        totals = Counter()
        for tile, cost in zip(tiles, costs, strict=True):
            totals[tile[key]] += cost
        group_n = biome_n if key == 0 else type_n
        score += sum((totals[g] - group_n[g] * mean_cost) ** 2 for g in group_n) / 4
    totals = Counter()
    for material, cost in zip(materials, costs, strict=True):
        totals[material] += cost
    score += sum((totals[m] - mat_n[m] * mean_cost) ** 2 for m in mat_n) / 4
    return score


def generate(seed: int = SEED) -> list[dict]:
    """The 44 tiles as dicts (biome, material, type, cost, xp), sorted for reading."""
    rng = random.Random(seed)
    two = list(range(4))
    rng.shuffle(two)  # biome b has only 2 tiles of type two[b]
    tiles = [(b, t) for b in range(4) for t in range(4) for _ in range(2 if two[b] == t else 3)]
    materials = [m for m, count in MATERIAL_TILES.items() for _ in range(count)]
    costs = [c for c, count in COST_TILES.items() for _ in range(count)]
    rng.shuffle(materials)
    rng.shuffle(costs)
    score = _imbalance(tiles, materials, costs)
    for _ in range(ITERATIONS):
        seq = materials if rng.random() < 0.5 else costs
        i, j = rng.randrange(len(seq)), rng.randrange(len(seq))
        if seq[i] == seq[j]:
            continue
        seq[i], seq[j] = seq[j], seq[i]
        new = _imbalance(tiles, materials, costs)
        if new <= score:
            score = new
        else:
            seq[i], seq[j] = seq[j], seq[i]
    rows = [
        {
            "biome": BIOMES[b],
            "material": material,
            "type": TYPES[t],
            "cost": {material: cost},
            "xp": immediate_xp(cost),
        }
        for (b, t), material, cost in zip(tiles, materials, costs, strict=True)
    ]
    rows.sort(
        key=lambda r: (
            BIOMES.index(r["biome"]),
            TYPES.index(r["type"]),
            MATERIALS.index(r["material"]),
            r["cost"][r["material"]],
        )
    )
    return rows


def to_toml(rows: list[dict]) -> str:
    """One inline table per tile, ids b01.., columns aligned."""
    lines = [
        f"# Generated by scripts/gen_default_buildings.py (seed {SEED}): estimates, not the",
        "# printed tiles. One table per physical tile (copies = 1), so a tile can be edited alone.",
        "[buildings]",
    ]
    for i, row in enumerate(rows, start=1):
        ((material, cost),) = row["cost"].items()
        fields = (
            f'biome = "{row["biome"]}",'.ljust(24)
            + f'material = "{material}",'.ljust(23)
            + f'type = "{row["type"]}",'.ljust(23)
            + f"cost = {{ {material} = {cost} }},".ljust(26)
            + f'xp = {row["xp"]}, copies = 1, provenance = "estimate", reason = "{REASON}"'
        )
        lines.append(f"b{i:02d} = {{ {fields} }}")
    return "\n".join(lines) + "\n"


def summary(rows: list[dict]) -> str:
    """Counts that show the balance (``--summary``)."""
    out = []
    for name, key in (("biome", "biome"), ("material", "material"), ("type", "type")):
        out.append(f"{name}: {dict(Counter(r[key] for r in rows))}")
    out.append(f"cost: {dict(sorted(Counter(r['cost'][r['material']] for r in rows).items()))}")
    pairs = Counter((r["biome"], r["type"]) for r in rows)
    out.append(f"biome x type counts: {sorted(set(pairs.values()))}")
    for key in ("biome", "type", "material"):
        totals = Counter()
        for r in rows:
            totals[r[key]] += r["cost"][r["material"]]
        out.append(f"cost total per {key}: {dict(totals)}")
    return "\n".join(out)


if __name__ == "__main__":
    import sys

    generated = generate()
    if "--summary" in sys.argv[1:]:
        print(summary(generated))
    else:
        print(to_toml(generated), end="")
