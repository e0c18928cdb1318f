"""``bnb play --game hotv``: one game told event by event, from the engine's event log
(:func:`game_log`).
"""

from __future__ import annotations

import click

from bnb_sim import jsonsafe
from bnb_sim.errors import BnbError, SpecError
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village.cli_common import (
    MAX_GAME_INDEX,
    _block_text,
    _check_range,
    _check_seed,
    _components,
)


def _face_text(code: int) -> str:
    for name, c in L.FACE_CODES.items():
        if c == code:
            return name
    return str(code)


def game_log(comps, config, team, s, log) -> list[str]:
    """Readable lines of one game's event log."""
    tiles = comps.data["tiles"]["list"]
    tokens = comps.mob_tokens
    blist = comps.buildings
    chosen = [int(b) for b in s[L.S_CHOSEN : L.S_CHOSEN + len(config.chosen)]]

    def tile_text(t):
        tile = tiles[t]
        sym = tile.get("symbol", "none")
        where = f"{tile.get('terrain', 'tile')} #{t + 1}"
        return where if sym == "none" else f"{where} ({sym})"

    def building_text(j):
        b = blist[chosen[j]]
        return f"{b['name']} (#{b['number']})"

    lines = []
    for row in log[1 : int(log[0, 0]) + 1]:
        kind, turn, seat, a, b, c = (int(x) for x in row)
        who = f"seat {seat} ({team[seat]}, {config.labels[seat]})"
        if kind == L.EV_SETUP:
            bl = blist[b]
            lines.append(
                f"Building {a + 1}: {bl['name']} (#{bl['number']}, level {bl['level']}), "
                f"cost {_block_text(bl['_cost'])}"
            )
        elif kind == L.EV_TURN:
            lines.append(f"Turn {turn + 1}: {who}; Illager on space {a}")
        elif kind in (L.EV_EXPLORE, L.EV_FREE_TILE):
            how = "explores" if kind == L.EV_EXPLORE else "lays for free (R-HV-3)"
            lines.append(f"  {how}: {tile_text(a)} from stack {c + 1}, {b} block(s) into the pouch")
        elif kind == L.EV_COLLECT:
            sym = L.BLOCK_NAMES[b] if b >= 0 else "?"
            lines.append(f"  collects {sym} on {tile_text(a)}: draws {c}")
        elif kind == L.EV_DRAW:
            counts = [a // 10000 % 10, a // 1000 % 10, a // 100 % 10, a // 10 % 10, b]
            lines.append(f"    drawn: {_block_text(counts)}")
        elif kind == L.EV_MOB:
            lines.append(f"    a {tokens[b][0]} ({c}) appears on {tile_text(a)}")
        elif kind == L.EV_FIGHT:
            lines.append(f"  fights the {tokens[b][0]} ({c}) on {tile_text(a)}")
        elif kind == L.EV_ROLL:
            lines.append(f"    roll {b + 1}: {_face_text(a)}")
        elif kind == L.EV_FIGHT_STOP:
            lines.append(f"    stops the fight after {b} roll(s) (R-HV-6); the mob stays")
        elif kind == L.EV_HORSE_STOP:
            lines.append("    the Horse's next tile: declined (R-HV-9)")
        elif kind == L.EV_DEFEAT:
            lines.append(f"    the {tokens[b][0]} is defeated")
        elif kind == L.EV_PICK:
            why = "Fox" if b == L.PICK_FOX else "reward"
            lines.append(f"    keeps a {L.BLOCK_NAMES[a]} ({why})")
        elif kind == L.EV_BUILD:
            wild = " (darkness as wild)" if c % 2 else ""
            how = "    and hands in" if c >= 2 else "  builds: hands in"  # c >= 2: same action
            lines.append(f"{how} {b} block(s) to {building_text(a)}{wild}")
        elif kind == L.EV_COMPLETE:
            lines.append(f"    {building_text(a)} is complete ({c} built)")
        elif kind == L.EV_DISCARD:
            lines.append(f"  discards a {L.BLOCK_NAMES[a]}")
        elif kind == L.EV_DIE:
            lines.append(f"  Illagers die: {_face_text(a)}")
        elif kind == L.EV_ILLAGER:
            way = "away from" if b > 0 else "toward"
            lines.append(f"    the Illager moves {way} the village: space {a}")
        elif kind == L.EV_DARK_TO_POUCH:
            lines.append(f"    the darkness block on space {a} goes into the pouch")
        elif kind == L.EV_END:
            lines.append("The players win: three buildings stand." if a else
                         "The players lose: the Illager reached the village.")  # fmt: skip
    return lines


def play(
    *, players=None, policies=(), seed=0, components=None, game_index=0, as_json=False,
    pets=None, difficulty=None, buildings=None, reading=(), defaults=frozenset(), **_ignored,
) -> None:  # fmt: skip
    """``bnb play --game hotv``: one game, told event by event."""
    if "players" in defaults:
        players = None
    _check_seed(seed)
    _check_range(game_index, "--game-index", MAX_GAME_INDEX)

    from bnb_sim.games.heroes_village.play import play_game
    from bnb_sim.games.heroes_village.runner import make_config, pet_codes

    if pets == "all":
        raise SpecError("--pets all: bnb play plays one team; give the pets (e.g. wolf,cat,fox)")
    comps = _components(components, reading)
    config = make_config(
        comps, players, list(policies) or ["team"], pets, difficulty or "standard", buildings, seed
    )
    team = config.teams[0]
    k, kf, kinds, params, plugins = config.arrays()
    s, log = play_game(
        k, kf, kinds, params, plugins, pet_codes(team), config.master, int(game_index),
        config.n_players, 20000,
    )  # fmt: skip
    if s[L.S_STATUS] != L.ST_OK:
        raise BnbError(f"game {game_index} did not finish normally (status {s[L.S_STATUS]})")
    lines = game_log(comps, config, team, s, log)
    result = {
        "game": int(game_index),
        "seed": seed,
        "pets": list(team),
        "policies": config.labels,
        "difficulty": config.difficulty,
        "won": bool(s[L.S_WON]),
        "turns": int(s[L.S_TURN]) + (0 if s[L.S_END_BY_DIE] else 1),
        "buildings_completed": int(s[L.S_BUILT]),
        "illager_final": int(s[L.S_ILLAGER]),
        "mobs_spawned": int(s[L.S_MOBS_SPAWNED]),
        "mobs_defeated": int(s[L.S_MOBS_DEFEATED]),
        "readings": comps.readings,
    }
    if as_json:
        click.echo(jsonsafe.dumps({**result, "log": lines}, indent=2))
        return
    click.echo(
        f"Heroes of the Village, game {game_index} of seed {seed}: {config.n_players} players, "
        f"pets {', '.join(team)}, {config.difficulty} (Illager starts on space "
        f"{config.start_space})"
    )
    click.echo("\n".join(lines))
    verdict = "won" if result["won"] else "lost"
    click.echo(
        f"Result: {verdict} after {result['turns']} turns; {result['buildings_completed']} "
        f"buildings, Illager on space {result['illager_final']}, mobs {result['mobs_spawned']} "
        f"spawned / {result['mobs_defeated']} defeated"
    )
