"""Heroes of the Village in words: the engine's event rows and decisions as readable text.

``bnb play --game hotv`` prints :func:`game_log`; the step-by-step
:class:`~bnb_sim.games.heroes_village.game.HotvGame` names its events with
:func:`event_line` and its decisions with :func:`action_text`. Pure Python: nothing here
imports numba.
"""

from __future__ import annotations

from collections.abc import Sequence

from bnb_sim.games.heroes_village import layout as L

#: the event kinds by name (the ``event`` key of the step API's event dicts)
EVENT_NAMES = {
    L.EV_SETUP: "setup",
    L.EV_TURN: "turn",
    L.EV_EXPLORE: "explore",
    L.EV_FREE_TILE: "free_tile",
    L.EV_COLLECT: "collect",
    L.EV_DRAW: "draw",
    L.EV_MOB: "mob",
    L.EV_FIGHT: "fight",
    L.EV_ROLL: "roll",
    L.EV_DEFEAT: "defeat",
    L.EV_BUILD: "build",
    L.EV_COMPLETE: "complete",
    L.EV_ILLAGER: "illager",
    L.EV_DARK_TO_POUCH: "darkness_to_pouch",
    L.EV_DIE: "illagers_die",
    L.EV_PICK: "pick",
    L.EV_DISCARD: "discard",
    L.EV_END: "end",
    L.EV_FIGHT_STOP: "fight_stop",
    L.EV_HORSE_STOP: "horse_stop",
}


def block_text(counts) -> str:
    """Block counts in words: "2 wood, 1 stone" ("nothing" when there are none)."""
    parts = [f"{n} {L.BLOCK_NAMES[b]}" for b, n in enumerate(counts) if n]
    return ", ".join(parts) if parts else "nothing"


def _face_text(code: int) -> str:
    for name, c in L.FACE_CODES.items():
        if c == code:
            return name
    return str(code)


def tile_text(comps, t: int) -> str:
    """A world tile by terrain and number, with its collecting symbol: ``forest #3 (wood)``."""
    tile = comps.data["tiles"]["list"][t]
    sym = tile.get("symbol", "none")
    where = f"{tile.get('terrain', 'tile')} #{t + 1}"
    return where if sym == "none" else f"{where} ({sym})"


def building_text(comps, chosen: Sequence[int], j: int) -> str:
    """Chosen building ``j`` by name and number: ``Blacksmith (#4)``."""
    b = comps.buildings[chosen[j]]
    return f"{b['name']} (#{b['number']})"


def event_line(comps, labels, team, chosen, row) -> str:
    """The readable line of one event row ``(kind, turn, seat, a, b, c)`` (indented as in
    ``bnb play``: two spaces for an action, four for what follows from it); "" for a row
    that has no text."""
    tokens = comps.mob_tokens
    blist = comps.buildings
    kind, turn, seat, a, b, c = (int(x) for x in row)
    who = f"seat {seat} ({team[seat]}, {labels[seat]})"
    if kind == L.EV_SETUP:
        bl = blist[b]
        return (
            f"Building {a + 1}: {bl['name']} (#{bl['number']}, level {bl['level']}), "
            f"cost {block_text(bl['_cost'])}"
        )
    if kind == L.EV_TURN:
        return f"Turn {turn + 1}: {who}; Illager on space {a}"
    if kind in (L.EV_EXPLORE, L.EV_FREE_TILE):
        how = "explores" if kind == L.EV_EXPLORE else "lays for free (R-HV-3)"
        return f"  {how}: {tile_text(comps, a)} from stack {c + 1}, {b} block(s) into the pouch"
    if kind == L.EV_COLLECT:
        sym = L.BLOCK_NAMES[b] if b >= 0 else "?"
        return f"  collects {sym} on {tile_text(comps, a)}: draws {c}"
    if kind == L.EV_DRAW:
        counts = [a // 10000 % 10, a // 1000 % 10, a // 100 % 10, a // 10 % 10, b]
        return f"    drawn: {block_text(counts)}"
    if kind == L.EV_MOB:
        return f"    a {tokens[b][0]} ({c}) appears on {tile_text(comps, a)}"
    if kind == L.EV_FIGHT:
        return f"  fights the {tokens[b][0]} ({c}) on {tile_text(comps, a)}"
    if kind == L.EV_ROLL:
        return f"    roll {b + 1}: {_face_text(a)}"
    if kind == L.EV_FIGHT_STOP:
        return f"    stops the fight after {b} roll(s) (R-HV-6); the mob stays"
    if kind == L.EV_HORSE_STOP:
        return "    the Horse's next tile: declined (R-HV-9)"
    if kind == L.EV_DEFEAT:
        return f"    the {tokens[b][0]} is defeated"
    if kind == L.EV_PICK:
        why = "Fox" if b == L.PICK_FOX else "reward"
        return f"    keeps a {L.BLOCK_NAMES[a]} ({why})"
    if kind == L.EV_BUILD:
        wild = " (darkness as wild)" if c % 2 else ""
        how = "    and hands in" if c >= 2 else "  builds: hands in"  # c >= 2: same action
        return f"{how} {b} block(s) to {building_text(comps, chosen, a)}{wild}"
    if kind == L.EV_COMPLETE:
        return f"    {building_text(comps, chosen, a)} is complete ({c} built)"
    if kind == L.EV_DISCARD:
        return f"  discards a {L.BLOCK_NAMES[a]}"
    if kind == L.EV_DIE:
        return f"  Illagers die: {_face_text(a)}"
    if kind == L.EV_ILLAGER:
        way = "away from" if b > 0 else "toward"
        return f"    the Illager moves {way} the village: space {a}"
    if kind == L.EV_DARK_TO_POUCH:
        return f"    the darkness block on space {a} goes into the pouch"
    if kind == L.EV_END:
        if a:
            return "The players win: three buildings stand."
        return "The players lose: the Illager reached the village."
    return ""


def game_log(comps, config, team, s, log) -> list[str]:
    """Readable lines of one game's event log."""
    chosen = [int(b) for b in s[L.S_CHOSEN : L.S_CHOSEN + len(config.chosen)]]
    lines = []
    for row in log[1 : int(log[0, 0]) + 1]:
        line = event_line(comps, config.labels, team, chosen, row)
        if line:
            lines.append(line)
    return lines


def action_text(comps, chosen: Sequence[int], phase: int, action: int) -> str:
    """What decision ``action`` means in ``phase`` (``layout.PH_*``; R-HV-2 .. R-HV-9)."""
    if L.A_PICK <= action < L.A_PICK_NONE:
        return f"keep a {L.BLOCK_NAMES[action - L.A_PICK]}"
    if action == L.A_PICK_NONE:
        return "keep none of the drawn blocks"
    if action == L.A_STOP:
        return {
            L.PH_FIGHT: "stop the fight (the mob stays)",
            L.PH_BUILD: "hand in to no more buildings",
            L.PH_HORSE: "decline the Horse's next tile",
        }.get(phase, "stop")
    if action == L.A_PASS:
        return "pass (no action is possible)"
    if action < L.A_COLLECT:
        stack = action - L.A_EXPLORE + 1
        if phase == L.PH_HORSE:
            return f"the Horse lays the top tile of stack {stack}"
        return f"explore: lay the top tile of stack {stack}"
    if action < L.A_FIGHT:
        t = action - L.A_COLLECT
        return f"collect on {tile_text(comps, t)}"
    if action < L.A_BUILD:
        t = action - L.A_FIGHT
        if phase == L.PH_FIGHT:
            return f"roll the Fight die again (mob on {tile_text(comps, t)})"
        return f"fight the mob on {tile_text(comps, t)}"
    if action < L.A_DISCARD:
        j, wild = divmod(action - L.A_BUILD, 2)
        more = "also " if phase == L.PH_BUILD else ""
        name = building_text(comps, chosen, j) if j < len(chosen) else f"building {j + 1}"
        return f"{more}hand in to {name}" + (" (darkness as wild)" if wild else "")
    return f"discard a {L.BLOCK_NAMES[action - L.A_DISCARD]} (free, not an action)"
