"""``bnb play --game hotv``: one game told event by event, from the engine's event log
(:func:`bnb_sim.games.heroes_village.describe.game_log`, which the step-by-step ``Game``
tells its events with too).
"""

from __future__ import annotations

import click

from bnb_sim import jsonsafe
from bnb_sim.errors import BnbError, SpecError
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village.cli_common import (
    MAX_GAME_INDEX,
    _check_range,
    _check_seed,
    _components,
)
from bnb_sim.games.heroes_village.describe import game_log


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
