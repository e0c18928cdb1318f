"""Words for the engine's numbers: events, actions, positions (used by ``bnb play`` and the
Game API). Pure Python; no kernels."""

from __future__ import annotations

from bnb_sim.games.builders_biomes.engine import state as S
from bnb_sim.games.builders_biomes.engine.layout import MAX_MARKET
from bnb_sim.games.builders_biomes.engine.layout import P_FM_MARKET as S_MARKET

ROUND_NAMES = ("A", "B", "C")
ROUND_CHARACTERISTIC = ("biome", "material", "type")
EVENT_NAMES = {
    S.EV_ACTION: "action",
    S.EV_TAKE_BLOCK: "take_block",
    S.EV_MOVE: "move",
    S.EV_REVEAL_TILE: "reveal_tile",
    S.EV_BUILD: "build",
    S.EV_FIGHT: "fight",
    S.EV_TOKEN: "token",
    S.EV_HOE: "hoe",
    S.EV_TNT: "tnt",
    S.EV_FIGHT_END: "fight_end",
    S.EV_WEAPON: "weapon",
    S.EV_SPEND_HUNGER: "spend_hunger",
    S.EV_END_TURN: "end_turn",
    S.EV_ROUND: "round",
    S.EV_SCORE: "score",
    S.EV_BONUS: "bonus",
    S.EV_GAME_OVER: "game_over",
    S.EV_TRIGGER: "trigger",
    S.EV_BOW_DECLINED: "bow_declined",
    S.EV_FARMLAND: "farmland",
    S.EV_BUY: "buy",
    S.EV_MARKET: "market",
    S.EV_REFILL: "refill",
    S.EV_REFIGHT: "refight",
    S.EV_MAY_DECLINED: "may_declined",
}
# R-FM-5: what a seat declined (EV_MAY_DECLINED's a: MAY_* of engine/state.py)
MAY_TEXTS = (
    "declines the bed's second fight",
    "declines the collect-3 item's third block",
    "declines the reveal-4 item's extra token",
)
LETTERS = ("X", "A", "B")

# events printed under the action that caused them
_DETAIL = {
    "take_block",
    "move",
    "reveal_tile",
    "build",
    "fight",
    "token",
    "hoe",
    "tnt",
    "fight_end",
    "weapon",
    "trigger",
    "buy",  # Farmer's Market (R-FM-4)
    "refight",
    "may_declined",  # a "may" item the player declined (R-FM-5)
}
# Farmer's Market events outside actions: farmland at set-up, refills and reveals after rounds
_FM_TABLE = {"farmland", "refill", "market"}


def action_type_name(a: int) -> str:
    """The name of an action type; ``buy`` is the Farmer's Market's (R-FM-4)."""
    if a == S.ACT_BUY:
        return "buy"
    return S.ACTION_TYPE_NAMES[a] if 0 <= a < len(S.ACTION_TYPE_NAMES) else f"no action ({a})"


def position_name(pos: int) -> str:
    """Cube position as 'layer L, row R, col C' (layer 1 = top, as in the rules)."""
    layer, rest = divmod(int(pos), 16)
    row, col = divmod(rest, 4)
    return f"layer {layer + 1} r{row + 1}c{col + 1}"


def point_name(point: int) -> str:
    i, j = divmod(int(point), 5)
    return f"({i},{j})"


def decode_event(game, seat: int, kind: int, a: int, b: int, c: int) -> dict:
    """One kernel event as a dict with a readable ``text``."""
    comps = game.config.components
    name = EVENT_NAMES.get(kind, f"event{kind}")
    event = {"seat": seat, "event": name, "a": a, "b": b, "c": c}
    block = comps.block_names
    if kind == S.EV_ACTION:
        text = ("extra " if b else "") + action_type_name(a)
    elif kind == S.EV_TAKE_BLOCK:
        how = " with the stone pickaxe" if c else ""
        text = f"takes {block[b]} from {position_name(a)}{how}"
    elif kind == S.EV_MOVE and a == b:  # moving 0 steps is a legal explore (R-EXPLORE-1)
        text = f"stays at {point_name(a)} (explores without moving)"
    elif kind == S.EV_MOVE:
        text = f"moves {point_name(a)} -> {point_name(b)}"
    elif kind == S.EV_REVEAL_TILE:
        text = f"turns up stack {a}: {comps.tile_label(b)}"
    elif kind == S.EV_BUILD:
        text = f"builds {comps.tile_label(a)} on space {b + 1}" + (f" (+{c} XP)" if c else "")
    elif kind == S.EV_FIGHT:
        text = f"fights {comps.tile_label(b)} ({c} hearts) on stack {a}"
    elif kind == S.EV_TOKEN:
        text = f"reveals {comps.weapon_names[a]}"
    elif kind == S.EV_HOE:
        text = f"golden hoe: +{a} XP"
    elif kind == S.EV_TNT:
        text = f"detonates {a} TNT (+{b} hearts)"
    elif kind == S.EV_FIGHT_END:
        text = f"{'wins' if a else 'loses'} the fight: {b} vs {c} hearts"
    elif kind == S.EV_WEAPON:
        text = f"takes weapon token from spot {a}: {comps.weapon_names[b]}"
    elif kind == S.EV_SPEND_HUNGER:
        text = f"returns {comps.tile_label(a)} for an extra action"
    elif kind == S.EV_END_TURN:
        text = "ends the turn"
    elif kind == S.EV_ROUND:
        text = f"scoring round {ROUND_NAMES[a]} ({ROUND_CHARACTERISTIC[a]})"
    elif kind == S.EV_SCORE:
        values = comps.values[ROUND_CHARACTERISTIC[a]] + ["farming structures"]
        text = f"round {ROUND_NAMES[a]}: scores {values[b]} for {c} XP"
    elif kind == S.EV_FARMLAND:
        text = f"places the farmland on space {a + 1} with {b} vegetables"
    elif kind == S.EV_BUY:
        text = f"buys {comps.item_names[a]} for {b} vegetables"
    elif kind == S.EV_MARKET:
        text = f"the {LETTERS[a]} items are turned face-up on the marketplace"
    elif kind == S.EV_REFILL:
        text = f"vegetables grow: +{a}"
    elif kind == S.EV_REFIGHT:
        text = f"fights {comps.tile_label(a)} again (bed)"
    elif kind == S.EV_BONUS:
        text = f"bonus mob {comps.tile_label(a)}: +{b} XP"
    elif kind == S.EV_GAME_OVER:
        text = "game over"
    elif kind == S.EV_BOW_DECLINED:
        text = "declines the bow's extra reveal"
    elif kind == S.EV_MAY_DECLINED:
        text = MAY_TEXTS[a] if 0 <= a < len(MAY_TEXTS) else name
    elif kind == S.EV_TRIGGER:
        text = f"empties layer {a + 1}: round {ROUND_NAMES[a]} at the end of the turn"
    else:
        text = name
    event["text"] = text
    return event


def describe_action(game, action: int) -> str:
    """What ``action`` means in the game's current phase."""
    comps = game.config.components
    phase = game.phase
    action = int(action)
    if action == S.PASS:
        if phase == "buy":
            return "end the buying"
        return "end the turn" if phase == "turn" else "decline"
    if phase == "turn":
        return action_type_name(action)
    if phase == "farmland":
        return f"farmland on space {action + 1}"
    if phase == "buy":
        item = int(game._pub[S_MARKET + action]) if action < MAX_MARKET else -1
        names = comps.item_names
        return f"buy {names[item]}" if 0 <= item < len(names) else f"no item ({action})"
    if phase in ("collect", "pickaxe"):
        return f"take block at {position_name(action)}"
    if phase == "explore":
        return f"move to {point_name(action)}"
    if phase in ("build_tile", "fight_mob"):
        return f"stack {action}"
    if phase == "build_space":
        return f"space {action + 1}"
    if phase == "tnt":
        return f"detonate {action} TNT"
    if phase == "hunger":
        return "end the turn" if action == 0 else f"return {action} hunger mob(s)"
    if phase == "bow":
        return "reveal one more token"
    if phase == "bed":
        return "fight the mob a second time"
    if phase == "reveal_four":
        return "reveal the item's extra token"
    if phase == "weapon":
        return f"token spot {action}"
    if phase == "score":
        rnd = int(game._pub[S.C_SCORE_ROUND])
        choices = comps.values[ROUND_CHARACTERISTIC[rnd]] + ["farming structures"]
        return choices[action] if action < len(choices) else f"no choice ({action})"
    return str(action)


def _who(game, seat: int) -> str:
    return f"seat {seat} ({game.policy_of_seat(seat).label})"


def turn_log(game, events: list[dict]) -> list[str]:
    """The readable lines of a finished game's events (grouped by turn and action)."""
    lines: list[str] = []
    turn = 0
    in_turn = False
    bonus_header = False
    tokens: list[str] = []

    def flush_tokens() -> None:
        if tokens:
            lines.append("      reveals " + ", ".join(tokens))
            tokens.clear()

    for event in events:
        kind, seat, text = event["event"], event["seat"], event["text"]
        if kind != "token":
            flush_tokens()
        if kind == "action":
            if not in_turn:
                turn += 1
                in_turn = True
                lines.append(f"Turn {turn}: {_who(game, seat)}")
            lines.append(f"  {text}")
        elif kind == "spend_hunger":
            lines.append(f"  {text}")
        elif kind == "token":
            tokens.append(text.removeprefix("reveals "))
        elif kind in _DETAIL:
            lines.append(f"    {text}")
        elif kind in _FM_TABLE:
            who = f"{_who(game, seat)}: " if seat >= 0 else ""
            lines.append(f"  {who}{text}")
        elif kind == "end_turn":
            in_turn = False
        elif kind == "round":
            lines.append("")
            lines.append(text[0].upper() + text[1:])
        elif kind == "score":
            lines.append(f"  {_who(game, seat)}: {text.split(': ', 1)[1]}")
        elif kind == "bonus":
            if not bonus_header:
                lines += ["", "End of the game: bonus mobs"]
                bonus_header = True
            lines.append(f"  {_who(game, seat)}: {text}")
        elif kind == "game_over":
            lines.append("")
            lines.append("Game over.")
    flush_tokens()
    return lines
