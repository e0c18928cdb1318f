"""``bnb play`` of Builders & Biomes: one game played and told turn by turn, or as one JSON
object (the game's ``play_transcript`` hook).

The game is game ``game_index`` of a run with the same seed, players, policies, components
and readings: it replays exactly what a batch run played there (the step-by-step
:class:`~bnb_sim.games.builders_biomes.game.Game` with its event log).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bnb_sim.core.protocol import CommandOutput

XP_SOURCES = [
    ("xp_buildings", "build"),
    ("xp_mobs", "mobs"),
    ("xp_hoes", "hoes"),
    ("xp_round_a", "A"),
    ("xp_round_b", "B"),
    ("xp_round_c", "C"),
    ("xp_bonus_mobs", "bonus"),
]
FM_XP_SOURCES = [("xp_items_play", "items"), ("xp_items_end", "end-items"), ("xp_farming", "farm")]


def _plain(value: Any) -> Any:
    """JSON-ready Python values (numpy scalars become Python numbers, others text)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def _who(game: Any, seat: int) -> str:
    return f"seat {seat} ({game.policy_of_seat(seat).label})"


def number_turns(events: list[dict]) -> list[int]:
    """The turn of each event (scoring rounds belong to the turn that triggered them)."""
    turns = []
    turn = 0
    open_turn = False
    for event in events:
        if event["event"] == "action" and not open_turn:
            turn += 1
            open_turn = True
        elif event["event"] == "end_turn":
            open_turn = False
        turns.append(turn)
    return turns


def final_table(result: list[dict]) -> list[str]:
    """Rank, seat, player, policy, XP (total and by source), blocks left, winner mark."""
    sources = XP_SOURCES + (FM_XP_SOURCES if result and "xp_farming" in result[0] else [])
    head = ["rank", "seat", "player", "policy", "xp"] + [short for _, short in sources]
    head += ["blocks", ""]
    rows = [head]
    for row in sorted(result, key=lambda r: (int(r["rank"]), int(r["seat"]))):
        cells = [row["rank"], row["seat"], row["player"], row["policy"], row["xp"]]
        cells += [row[key] for key, _ in sources] + [row["blocks_left"]]
        rows.append([str(c) for c in cells] + ["winner" if row["won"] else ""])
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = []
    for r in rows:
        cells = [
            c.ljust(w) if i in (3, len(head) - 1) else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def winner_line(game: Any, result: list[dict]) -> str:
    winners = [r for r in result if r["won"]]
    xp = winners[0]["xp"]
    if len(winners) == 1:
        return f"Winner: {_who(game, int(winners[0]['seat']))} with {xp} XP"
    who = ", ".join(_who(game, int(r["seat"])) for r in winners)
    return f"Shared win ({xp} XP, equal blocks): {who}"


def header(game: Any) -> list[str]:
    config = game.config
    lines = [
        f"Game {game.game_index} of seed {config.seed}: {config.n_players} players, "
        f"{config.variant} rules, seating {config.seating}, components "
        f"{config.components.source} ({config.components.content_hash[:12]})",
        f"  readings: {config.readings.describe()}",
    ]
    boards = config.components.board_names
    from bnb_sim.games.builders_biomes.engine.layout import P_BOARD_ID

    for seat in range(config.n_players):
        board = boards[int(game._pub[P_BOARD_ID + seat])]
        lines.append(
            f"  seat {seat}: player {game.player_of_seat(seat)}, "
            f"{game.policy_of_seat(seat).label}, board {board}"
        )
    return lines


def market_lines(game: Any) -> list[str]:
    """Farmer's Market: the 12 items dealt onto the marketplace (R-FM-8), by letter."""
    comps = game.config.components
    if comps.expansion is None:
        return []
    from bnb_sim.games.builders_biomes.engine.layout import H_FM_MARKET

    items = comps.data["farmers_market"]["items"]
    by_letter: dict[str, list[str]] = {"X": [], "A": [], "B": []}
    for slot in range(24):
        item = int(game._hid[H_FM_MARKET + slot])
        if item >= 0:
            name = comps.item_names[item]
            by_letter[items[name]["letter"]].append(f"{name} ({items[name]['cost']})")
    when = {"X": "face-up", "A": "after round A", "B": "after round B"}
    lines = ["  marketplace (item (vegetables)):"]
    for letter, names in by_letter.items():
        lines.append(f"    {letter} {when[letter]:<14} {', '.join(names)}")
    return lines


def purchase_lines(game: Any, result: list[dict]) -> list[str]:
    """Farmer's Market: what each seat bought, vegetables spent and left."""
    if game.config.components.expansion is None:
        return []
    names = game.config.components.item_names
    lines = ["", "Purchases (Farmer's Market):"]
    for row in sorted(result, key=lambda r: r["seat"]):
        bought = [n for n in names if row.get(f"item_{n}")]
        lines.append(
            f"  seat {row['seat']}: {', '.join(bought) or 'nothing'}; "
            f"{row['vegetables_spent']} vegetables spent, {row['vegetables_left']} left"
        )
    return lines


def play_output(components: Any, options: Mapping[str, Any]) -> CommandOutput:
    """Play game ``options["game_index"]`` of the run (``seed``, ``players``, ``policies``,
    ``readings``) and tell it; ``picture``: also draw the final table there (SVG or PNG);
    ``as_json``: the payload instead of the text; ``on_interrupt``: called on Ctrl-C."""
    from bnb_sim.games.builders_biomes.game import Game
    from bnb_sim.games.builders_biomes.run_config import GameConfig

    # picture: bnb play's --svg, its name and target checked before anything plays
    game_index, picture = options["game_index"], options.get("picture")
    config = GameConfig.create(
        options["players"],
        list(options.get("policies") or ()) or ["heuristic"],
        seed=options["seed"],
        components=components,
        readings=options.get("readings"),
        log=True,
    )
    game = Game(config, game_index)
    market = market_lines(game)  # the marketplace as dealt, before anything is bought
    game.play(on_interrupt=options.get("on_interrupt"))  # Ctrl-C works inside a long decision
    notes = ()
    if picture is not None:
        from bnb_sim.analysis.render import save_table

        save_table(game.table(), picture)
        notes = (f"picture: {picture}",)
    result = [{key: _plain(value) for key, value in row.items()} for row in game.result()]
    if options.get("as_json"):
        payload = {
            "config": {
                **config.to_dict(),
                "game_index": game_index,
                "components": {
                    "source": config.components.source,
                    "content_hash": config.components.content_hash,
                },
            },
            "events": [
                {"turn": turn, **{key: _plain(v) for key, v in event.items()}}
                for turn, event in zip(number_turns(game.log), game.log, strict=True)
            ],
            "result": result,
            "winners": [int(row["seat"]) for row in result if row["won"]],
        }
        if game.rule_log:  # priority-list bots: which rule made each decision, and totals
            payload["bot_rules"] = {
                "decisions": game.rule_log,
                "totals": {str(seat): hits for seat, hits in game.rule_hits().items()},
            }
        return CommandOutput(payload=payload, notes=notes)
    from bnb_sim.games.builders_biomes.describe import turn_log

    lines = header(game) + market + [""] + turn_log(game, game.log)
    lines += ["", "Final table (XP by source):"] + final_table(result)
    lines += purchase_lines(game, result)
    lines.append(winner_line(game, result))
    for seat, hits in game.rule_hits().items():
        lines += ["", f"Rule hits of seat {seat} ({game.policy_of_seat(seat).label}):"]
        lines += [f"  {n:4d}  {rule}" for rule, n in sorted(hits.items(), key=lambda x: -x[1])]
    return CommandOutput("\n".join(lines), notes=notes)
