"""``bnb odds`` of Builders & Biomes as text and JSON (the game's ``odds`` hook).

The numbers come from :mod:`bnb_sim.games.builders_biomes.odds` (exact, plain Python; with
``simulate`` also a Monte Carlo check, which loads its kernel); this module lays them out:
one answer with ``hearts`` or ``mob``, else a table over every heart value a mob has.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from bnb_sim.core.protocol import CommandOutput

EST = "~"  # marks a number that rests on an estimated component value


def _pct(p: float) -> str:
    return f"{100.0 * p:6.2f}%"


def _decimals(low: float, high: float, least: int) -> int:
    """Decimals that show an interval's width (two significant digits of it), at least
    ``least``: a Wilson interval at 0 successes is [0, 0.0019%], never "[0.00%, 0.00%]"."""
    width = high - low
    if width <= 0:
        return least
    return min(max(least, 1 - math.floor(math.log10(width))), 8)


def _interval(sim: dict[str, Any], key: str, percent: bool) -> str:
    est = sim[key]
    scale, unit = (100.0, "%") if percent else (1.0, "")
    mean, low, high = (scale * est[k] for k in ("estimate", "low", "high"))
    if high <= low:  # every fight gave the same number: no interval to give
        return f"MC {mean:.{2 if percent else 3}f}{unit} (the same in all {sim['n']:,} fights)"
    d = _decimals(low, high, 2 if percent else 3)
    return f"MC {mean:.{d}f}{unit} [{low:.{d}f}{unit}, {high:.{d}f}{unit}]"


def _guessed(odds: Any) -> set[str]:
    return {e["key"] for e in odds.estimated}


def _pile_line(odds: Any, detonate: dict[str, int]) -> str:
    total = sum(item["count"] for item in odds.pile)
    guessed = _guessed(odds)
    parts = []
    for item in odds.pile:
        name = item["name"]
        mark = EST if any(k.startswith(f"weapons.{name}.") for k in guessed) else ""
        extra = f", {detonate[name]} if detonated" if name in detonate else ""
        hearts = f"{item['hearts']} heart" + ("" if item["hearts"] == 1 else "s")
        parts.append(f"{name} x{item['count']} ({mark}{hearts}{extra})")
    return f"Pile ({total} tokens): " + ", ".join(parts)


def _estimates_line(estimated: list[dict[str, Any]]) -> list[str]:
    """One line naming the estimated values these odds rest on (marked ~), or nothing."""
    if not estimated:
        return []
    from bnb_sim.estimates import short_list

    return [
        f"{EST} rests on {len(estimated)} estimated value{'s' if len(estimated) != 1 else ''} "
        f"(unpublished; bnb components show): {short_list(estimated)}"
    ]


def _distribution_lines(dist: dict[int, float]) -> list[str]:
    lines = ["Hearts of the revealed tokens (every revealed TNT counted as detonated):"]
    lines.append("  hearts   P(= k)    P(>= k)")
    tail = 1.0
    for k in sorted(dist):
        lines.append(f"  {k:6d}  {_pct(dist[k])}  {_pct(max(tail, 0.0))}")
        tail -= dist[k]
    return lines


def _expectation_lines(odds: Any, sim: dict[str, Any] | None) -> list[str]:
    rows = [
        ("Expected tokens revealed", odds.expected_revealed, "expected_revealed"),
        ("Expected hoe XP", odds.expected_hoe_xp, "expected_hoe_xp"),
        ("Expected pickaxe blocks", odds.expected_pickaxe_blocks, "expected_pickaxe_blocks"),
    ]
    lines = []
    for label, value, key in rows:
        beside = f"   {_interval(sim, key, False)}" if sim else ""
        lines.append(f"  {label:<26s}{value:8.3f}{beside}")
    return lines


ASSUMES_LINE = (
    "Assumes every revealed bow reveals one more token (reading bow=always) and TNT detonated "
    "only to turn a loss into a win."
)


def _single_text(odds: Any, detonate: dict[str, int]) -> str:
    sim = odds.simulated
    who = f" ({', '.join(odds.mobs)})" if odds.mobs else ""
    mark = EST if any(k.startswith("mobs.") for k in _guessed(odds)) else ""
    lines = [_pile_line(odds, detonate), f"Against {mark}{odds.hearts} hearts{who}:"]
    rows = [
        ("P(win)", odds.p_win, "p_win", True),
        ("P(win) without TNT", odds.p_win_no_tnt, "p_win_no_tnt", True),
    ]
    for label, value, key, _ in rows:
        beside = f"   {_interval(sim, key, True)}" if sim else ""
        lines.append(f"  {label:<26s}{_pct(value):>8s}{beside}")
    lines.extend(_expectation_lines(odds, sim))
    beside = f"   {_interval(sim, 'expected_tnt_spent', False)}" if sim else ""
    lines.append(f"  {'Expected TNT detonated':<26s}{odds.expected_tnt_spent:8.3f}{beside}")
    if sim:
        lines.append(f"  (Monte Carlo: {sim['n']:,} fights, seed {sim['seed']}, 95% intervals)")
    lines.extend(_distribution_lines(odds.hearts_distribution))
    lines.append(ASSUMES_LINE)
    lines.extend(_estimates_line(odds.estimated))
    return "\n".join(lines)


def _table_estimates(rows: list[Any]) -> list[dict[str, Any]]:
    """The estimated values any row rests on, each once, in order."""
    return list({e["key"]: e for row in rows for e in row.estimated}.values())


def _table_text(rows: list[Any], detonate: dict[str, int]) -> str:
    first = rows[0]
    lines = [_pile_line(first, detonate), ""]
    head = f"  {'hearts':>6s}  {'mobs':<20s}{'P(win)':>8s}  {'no TNT':>8s}  {'TNT used':>8s}"
    if first.simulated:
        head += "   Monte Carlo P(win), 95%"
    lines.append(head)
    for row in rows:
        mark = EST if any(k.startswith("mobs.") for k in _guessed(row)) else ""
        line = (
            f"  {mark + str(row.hearts):>6s}  {', '.join(row.mobs):<20s}{_pct(row.p_win):>8s}  "
            f"{_pct(row.p_win_no_tnt):>8s}  {row.expected_tnt_spent:8.3f}"
        )
        if row.simulated:
            line += f"   {_interval(row.simulated, 'p_win', True)}"
        lines.append(line)
    lines.append("")
    lines.extend(_expectation_lines(first, first.simulated))
    if first.simulated:
        sim = first.simulated
        lines.append(f"  (Monte Carlo: {sim['n']:,} fights per row, seed {sim['seed']})")
    lines.extend(_distribution_lines(first.hearts_distribution))
    lines.append(ASSUMES_LINE)
    lines.extend(_estimates_line(_table_estimates(rows)))
    return "\n".join(lines)


def odds_output(components: Any, options: Mapping[str, Any]) -> CommandOutput:
    """The odds of ``options["pile"]`` (``hearts``, ``mob``, ``simulate``, ``seed``,
    ``as_json``), as ``bnb odds`` prints them."""
    from bnb_sim.errors import BnbError
    from bnb_sim.games.builders_biomes import odds as odds_api

    pile, hearts, mob = options.get("pile"), options.get("hearts"), options.get("mob")
    if pile is None:  # this game's odds are a pile's (another game's may need none)
        raise BnbError("Missing option '--pile'.")
    n_sim, seed = int(options.get("simulate") or 0), int(options.get("seed") or 0)
    comps = odds_api.get_components(components)
    single = hearts is not None or mob is not None
    if not single:
        rows = odds_api.combat_odds_table(pile, components=comps, simulate=n_sim, seed=seed)
    else:
        rows = [
            odds_api.combat_odds(pile, hearts, mob=mob, components=comps, simulate=n_sim, seed=seed)
        ]
    if options.get("as_json"):
        if single:
            return CommandOutput(payload=rows[0].to_dict())
        payload = {"table": [row.to_dict() for row in rows], "estimated": _table_estimates(rows)}
        return CommandOutput(payload=payload)
    tok_detonate = comps.arrays.tok_detonate
    detonate = {
        name: int(tok_detonate[t]) for t, name in enumerate(comps.weapon_names) if tok_detonate[t]
    }
    return CommandOutput(_single_text(rows[0], detonate) if single else _table_text(rows, detonate))
