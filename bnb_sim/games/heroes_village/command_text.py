"""Heroes of the Village's part of the shared commands, as text and JSON: its protocol hooks
(:data:`bnb_sim.core.protocol.HOOKS`) on :mod:`bnb_sim.games.heroes_village.spec` call these.

``bnb odds --game hotv`` (the exact odds of one fight), ``bnb play --game hotv`` (one game
told event by event, from the engine's event log: :func:`~bnb_sim.games.heroes_village.
describe.game_log`, which the step-by-step ``Game`` tells its events with too) and ``bnb
train show`` of a Heroes of the Village model. The shared commands parse and check their
options, and print what these return (:class:`bnb_sim.core.protocol.CommandOutput`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bnb_sim import jsonsafe
from bnb_sim.core.protocol import CommandOutput
from bnb_sim.errors import BnbError, SpecError
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village.components_arg import components_arg
from bnb_sim.games.heroes_village.show import EST
from bnb_sim.safe_io import digits

#: The largest seed (the run's master seed is a 64-bit integer) and game index (as in
#: Builders & Biomes: the engine adds offsets to it in 64-bit arithmetic).
MAX_SEED = 2**63 - 1
MAX_GAME_INDEX = 2**62 - 1


def _check_range(value: int, flag: str, high: int) -> None:
    if not 0 <= value <= high:
        raise SpecError(f"{flag} must be between 0 and {high:,}, got {value:,}")


def _mob_value(comps, mob: str) -> tuple[int, list[str]]:
    tokens = comps.mob_tokens
    if (value := digits(mob.strip())) is not None:
        names = sorted({n for n, v in tokens if v == value})
        if not 1 <= value < L.MAX_VALUE:
            raise SpecError(f"--mob {mob}: a fight value from 1 to {L.MAX_VALUE - 1}")
        return value, names
    for name, value in tokens:
        if name == mob.strip().lower():
            return value, [name]
    known = ", ".join(sorted({n for n, _ in tokens}))
    raise SpecError(f"--mob {mob!r}: not a fight value or a mob ({known})")


def odds_output(components, options: Mapping[str, Any]) -> CommandOutput:
    """``bnb odds --game hotv --mob V [--pet wolf|panda]``: the exact odds of one fight
    (``options``: ``mob``, ``pet``; without ``mob``, every fight value a mob has)."""
    from bnb_sim.estimates import short_list
    from bnb_sim.games.heroes_village.odds import estimates_used, odds_for

    mob, pet = options.get("mob"), options.get("pet")
    comps = components_arg(components)
    if pet is not None and pet not in L.PET_NAMES:
        raise SpecError(f"--pet {pet!r}: one of {', '.join(L.PET_NAMES)}")
    values = [_mob_value(comps, mob)] if mob else [
        (v, sorted({n for n, x in comps.mob_tokens if x == v})) for v in comps.mob_values
    ]  # fmt: skip
    results = [(odds_for(comps, v, pet), names) for v, names in values]
    used = estimates_used(comps, [n for _, names in values for n in names], pet)
    payload = [
        {**o.to_dict(), "mobs": names, "estimated": estimates_used(comps, names, pet)}
        for o, names in results
    ]
    table = {"table": payload, "estimated": used}
    if options.get("as_json"):
        return CommandOutput(payload=payload[0] if mob else table)
    guessed = {e["key"] for e in used}
    faces = ", ".join(str(x) for x in comps.data["dice"]["fight"]["faces"])
    lines = [f"Fight die: {EST if 'dice.fight.faces' in guessed else ''}{faces}; up to "
             f"{comps.data['rules']['fight_rolls']} rolls; pet: {pet or 'none'}"]  # fmt: skip
    for o, names in results:
        mark = EST if any(f"mobs.{n}.value" in guessed for n in names) else ""
        lines.append("")
        lines.append(f"Against fight value {mark}{o.value} ({', '.join(names) or 'no such mob'}):")
        lines.append(f"  P(defeated)       {100 * float(o.p_defeated):7.2f}%   (= {o.p_defeated})")
        lines.append(f"  expected rolls    {float(o.expected_rolls):7.3f}")
        lines.append(
            f"  expected net move {float(o.expected_toward):+7.3f} spaces toward the village"
        )
        lines.append("  rolls used: " + ", ".join(
            f"{r}: {100 * float(p):.2f}%" for r, p in sorted(o.rolls_distribution.items())
        ))  # fmt: skip
        lines.append("  net Illager movement during the fight (+ = toward the village):")
        for m, p in sorted(o.net_toward.items()):
            lines.append(f"    {m:+d}  {100 * float(p):6.2f}%")
    if used:
        lines.append("")
        plural = "s" if len(used) != 1 else ""
        lines.append(f"{EST} rests on {len(used)} estimated value{plural} (unpublished; "
                     f"bnb components show --game hotv): {short_list(used)}")  # fmt: skip
    return CommandOutput("\n".join(lines), payload=payload[0] if mob else table)


def play_output(components, options: Mapping[str, Any]) -> CommandOutput:
    """``bnb play --game hotv``: one game, told event by event (``options``: ``seed``,
    ``players`` (None or in ``defaults``: as many as the pets or policies say), ``policies``,
    ``game_index``, ``readings``, ``pets``, ``difficulty``, ``buildings``, ``as_json``)."""
    players, policies = options.get("players"), options.get("policies") or ()
    seed, game_index = options.get("seed", 0), options.get("game_index", 0)
    pets, difficulty = options.get("pets"), options.get("difficulty")
    if "players" in options.get("defaults", ()):
        players = None
    _check_range(seed, "--seed", MAX_SEED)
    _check_range(game_index, "--game-index", MAX_GAME_INDEX)

    from bnb_sim.games.heroes_village.describe import game_log
    from bnb_sim.games.heroes_village.play import play_game
    from bnb_sim.games.heroes_village.runner import make_config, pet_codes

    if pets == "all":
        raise SpecError("--pets all: bnb play plays one team; give the pets (e.g. wolf,cat,fox)")
    comps = components_arg(components)
    if options.get("readings"):
        comps = comps.with_readings(dict(options["readings"]))
    config = make_config(
        comps, players, list(policies) or ["team"], pets, difficulty or "standard",
        options.get("buildings"), seed,
    )  # fmt: skip
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
    if options.get("as_json"):  # laid out here (indented): the text is the JSON
        return CommandOutput(jsonsafe.dumps({**result, "log": lines}, indent=2))
    verdict = "won" if result["won"] else "lost"
    text = [
        f"Heroes of the Village, game {game_index} of seed {seed}: {config.n_players} players, "
        f"pets {', '.join(team)}, {config.difficulty} (Illager starts on space "
        f"{config.start_space})",
        "\n".join(lines),
        f"Result: {verdict} after {result['turns']} turns; {result['buildings_completed']} "
        f"buildings, Illager on space {result['illager_final']}, mobs {result['mobs_spawned']} "
        f"spawned / {result['mobs_defeated']} defeated",
    ]
    return CommandOutput("\n".join(text), payload={**result, "log": lines})


def describe_model(model) -> list[str]:
    """What a model values: each weight against the team bot's, with its meaning."""
    from bnb_sim.games.heroes_village.policies import TEAM_WEIGHTS

    training = model.training
    lines = [f"Heroes of the Village strong model {model.source or '(in memory)'}"]
    if training.get("summary"):
        lines.append(f"  trained: {training['summary']}")
    elif training.get("method"):
        lines.append(f"  trained: {training['method']}")
    lines.append("  weight          model    team  x      meaning")
    for (name, (default, meaning)), value in zip(TEAM_WEIGHTS.items(), model.weights,
                                                 strict=True):  # fmt: skip
        factor = f"{value / default:5.2f}" if default else "  -  "
        lines.append(f"  {name:<14}{value:7.3f}  {default:6.2f}  {factor}  {meaning}")
    return lines


def show_output(file: str) -> CommandOutput:
    """``bnb train show FILE`` for a Heroes of the Village model."""
    from bnb_sim.games.heroes_village.strong_model import load_model

    model = load_model(file)
    payload = {"file": file, "game": "heroes_village", "training": model.training,
               "weights": model.named()}  # fmt: skip
    return CommandOutput("\n".join(describe_model(model)), payload=payload)
