"""The Heroes of the Village handlers that play no study: the exact odds of a fight (``bnb odds``),
the component data (``bnb components show``), the kernels ``bnb warmup`` compiles and the
speed benchmark (``bnb bench``).
"""

from __future__ import annotations

from typing import Any

import click

from bnb_sim import jsonsafe
from bnb_sim.errors import SpecError
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village.cli_common import EST, _components
from bnb_sim.safe_io import digits


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


def odds(*, mob=None, pet=None, as_json=False, components=None, **_ignored) -> None:
    """``bnb odds --game hotv --mob V [--pet wolf|panda]``: the exact odds of one fight."""
    from bnb_sim.estimates import short_list
    from bnb_sim.games.heroes_village.odds import estimates_used, odds_for

    comps = _components(components)
    if pet is not None and pet not in L.PET_NAMES:
        raise SpecError(f"--pet {pet!r}: one of {', '.join(L.PET_NAMES)}")
    values = [_mob_value(comps, mob)] if mob else [
        (v, sorted({n for n, x in comps.mob_tokens if x == v})) for v in comps.mob_values
    ]  # fmt: skip
    results = [(odds_for(comps, v, pet), names) for v, names in values]
    used = estimates_used(comps, [n for _, names in values for n in names], pet)
    if as_json:
        payload = [
            {**o.to_dict(), "mobs": names, "estimated": estimates_used(comps, names, pet)}
            for o, names in results
        ]
        table = {"table": payload, "estimated": used}
        click.echo(jsonsafe.dumps(payload[0] if mob else table, indent=2))
        return
    guessed = {e["key"] for e in used}
    faces = ", ".join(str(x) for x in comps.data["dice"]["fight"]["faces"])
    click.echo(f"Fight die: {EST if 'dice.fight.faces' in guessed else ''}{faces}; up to "
               f"{comps.data['rules']['fight_rolls']} rolls; pet: {pet or 'none'}")  # fmt: skip
    for o, names in results:
        mark = EST if any(f"mobs.{n}.value" in guessed for n in names) else ""
        click.echo("")
        click.echo(f"Against fight value {mark}{o.value} ({', '.join(names) or 'no such mob'}):")
        click.echo(f"  P(defeated)       {100 * float(o.p_defeated):7.2f}%   (= {o.p_defeated})")
        click.echo(f"  expected rolls    {float(o.expected_rolls):7.3f}")
        click.echo(
            f"  expected net move {float(o.expected_toward):+7.3f} spaces toward the village"
        )
        click.echo("  rolls used: " + ", ".join(
            f"{r}: {100 * float(p):.2f}%" for r, p in sorted(o.rolls_distribution.items())
        ))  # fmt: skip
        click.echo("  net Illager movement during the fight (+ = toward the village):")
        for m, p in sorted(o.net_toward.items()):
            click.echo(f"    {m:+d}  {100 * float(p):6.2f}%")
    if used:
        click.echo("")
        plural = "s" if len(used) != 1 else ""
        click.echo(f"{EST} rests on {len(used)} estimated value{plural} (unpublished; "
                   f"bnb components show --game hotv): {short_list(used)}")  # fmt: skip


def warm_batch() -> None:
    """Compile (or load) the batch kernel, with the invariant checker."""
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.runner import make_config, play_arrays

    config = make_config(load_components(), 2, ["team"], None, check=True)
    play_arrays(config, config.teams[0], 0, 2)


def warm_one_game() -> None:
    """Compile (or load) the one-game kernel that keeps a log."""
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.play import play_game
    from bnb_sim.games.heroes_village.runner import make_config, pet_codes

    config = make_config(load_components(), 2, ["random"], None)
    k, kf, kinds, params, plugins = config.arrays()
    play_game(k, kf, kinds, params, plugins, pet_codes(config.teams[0]), config.master, 0, 2, 10)


def warm_step_api() -> None:
    """Compile (or load) the kernels the step-by-step ``Game`` calls one by one."""
    from bnb_sim.games.heroes_village.game import new_game

    game = new_game(0, 0, 2, ["team"], check=True)
    game.play()
    game.result()


def warmup_steps() -> list[tuple[str, Any]]:
    """(label, function) for ``bnb warmup``: this game's kernel entry points."""
    return [
        ("Heroes of the Village: batch kernel", warm_batch),
        ("Heroes of the Village: one game with its log", warm_one_game),
    ]


def compile_jobs() -> list:
    """This game's kernels as compile jobs (:mod:`bnb_sim.precompile`, ``bnb warmup``)."""
    from bnb_sim.precompile import Job

    here = "bnb_sim.games.heroes_village.cli_tools"
    return [
        Job(
            "hotv:batch",
            "Heroes of the Village: batch kernel",
            f"{here}:warm_batch",
            (),
            32,
            "heroes_village",
        ),
        Job(
            "hotv:step",
            "Heroes of the Village: step-by-step game API",
            f"{here}:warm_step_api",
            ("hotv:batch",),
            5,
            "heroes_village",
        ),
        Job(
            "hotv:game",
            "Heroes of the Village: one game with its log",
            f"{here}:warm_one_game",
            ("hotv:batch",),
            5,
            "heroes_village",
        ),
    ]


def games_per_second(policy: str, players: int, threads: int, seconds: float, repeats: int,
                     reading=()):  # fmt: skip
    """Median games/s of the batch kernel (no DataFrames, no Parquet)."""
    import statistics
    import time

    from bnb_sim.games.heroes_village.runner import make_config, play_arrays

    config = make_config(_components(None, reading), players, [policy], None, seed=1)
    team = config.teams[0]
    play_arrays(config, team, 0, 200, threads)  # compile or load
    n = 2000
    while True:  # size a block to about `seconds`
        t = time.perf_counter()
        play_arrays(config, team, 0, n, threads)
        dt = time.perf_counter() - t
        if dt >= seconds / 4 or n >= 4_000_000:
            break
        n *= 4
    n = max(1000, int(n * seconds / max(dt, 1e-9)))
    times = []
    for r in range(repeats):
        t = time.perf_counter()
        play_arrays(config, team, r * n, n, threads)
        times.append(time.perf_counter() - t)
    return n / statistics.median(times)


def bench(*, as_json=False, quick=False, reading=(), **_ignored) -> None:
    """``bnb bench --game hotv``: games/s of random, team and strong, 2 and 4 players, 1 and
    all threads."""
    from bnb_sim._jit import numba
    from bnb_sim.runner.run_meta import machine

    all_threads = int(numba.config.NUMBA_NUM_THREADS)
    seconds, repeats = (0.3, 1) if quick else (1.0, 3)
    rows = []
    for policy in ("random", "team", "strong"):
        for players in (2, 4):
            for threads in sorted({1, all_threads}):
                gps = games_per_second(policy, players, threads, seconds, repeats, reading)
                rows.append({"policy": policy, "players": players, "threads": threads,
                             "games_per_second": gps})  # fmt: skip
    result = {"game": "heroes_village", "machine": machine(), "games": rows,
              "readings": _components(None, reading).readings}  # fmt: skip
    if as_json:
        click.echo(jsonsafe.dumps(result, indent=2))
        return
    m = result["machine"]
    click.echo(f"{m['cpu']}, {m['cores_usable']} usable cores, numba {m['numba']}")
    click.echo("Heroes of the Village batch kernel (games/s, median of repeats):")
    for r in rows:
        click.echo(f"  {r['policy']:<7s} {r['players']} players  {r['threads']} thread(s)"
                   f"  {r['games_per_second']:>12,.0f}")  # fmt: skip


def components_show(*, components=None, as_json=False, **_ignored) -> None:
    """``bnb components show --game hotv``: the data, estimates marked ~."""
    comps = _components(components)
    if as_json:
        click.echo(jsonsafe.dumps(comps.to_json_dict(), indent=2, default=str))
        return
    from bnb_sim.games.heroes_village.show import render

    click.echo("\n".join(render(comps)))
