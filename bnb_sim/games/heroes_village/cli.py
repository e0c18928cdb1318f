"""The ``bnb`` command handlers of Heroes of the Village (reached through ``--game hotv``).

Each handler takes the parsed options of its shared command as keyword arguments and
ignores the ones it has no use for. Numba loads only inside the handlers that play games.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import click

from bnb_sim import jsonsafe
from bnb_sim.errors import BnbError, SpecError
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.safe_io import digits

EST = "~"


def simulate_options(func):
    """``--pets``, ``--difficulty`` and ``--buildings`` (on ``bnb simulate`` and ``bnb play``)."""
    func = click.option(
        "--buildings",
        default=None,
        metavar="CHOICE",
        help="Heroes of the Village: the three buildings, by number (1,5,9) or one drawn per "
        "game from each level (level:1,2,3, the default).",
    )(func)
    func = click.option(
        "--difficulty",
        type=click.Choice(["standard", "easy", "normal"]),
        default=None,
        help="Heroes of the Village: the box's two Illager starts: space 9 (standard, the "
        "default) or 11 (easy); normal is an old name of standard. The box's other lever is "
        "--buildings (level:3,3,3 is its hardest set).",
    )(func)
    return click.option(
        "--pets",
        default=None,
        metavar="LIST",
        help="Heroes of the Village: pets in seat order (wolf,cat,fox), or 'all' for every "
        "combination of distinct pets on the same seeds.",
    )(func)


def odds_options(func):
    """``--pet`` on ``bnb odds``."""
    return click.option(
        "--pet",
        type=click.Choice(list(L.PET_NAMES)),
        default=None,
        help="Heroes of the Village: the fighter's pet (wolf: +1, panda: ignores an Illager face).",
    )(func)


def _components(components, reading=()):
    """The command's components with its ``--reading NAME=VALUE`` items set (checked)."""
    if components is None or not hasattr(components, "static_arrays"):
        from bnb_sim.games.heroes_village.components import load_components

        components = load_components()
    if not reading:
        return components
    from bnb_sim.games.heroes_village.readings import parse_assignments

    return components.with_readings(parse_assignments(reading))


def _reading_argv(reading) -> list[str]:
    return [x for item in reading or () for x in ("--reading", item)]


# ----------------------------------------------------------------------------- simulate


def simulate(
    *, games, players, policies, seed, out, threads=None, chunk_size=None, components=None,
    resume=False, force=False, as_json=False, quiet=False, yes=False, check=False, pets=None,
    difficulty=None, buildings=None, dask=None, reading=(), defaults=frozenset(), **_ignored,
) -> None:  # fmt: skip
    """``bnb simulate --game hotv``: N games (per pet team) into a run folder."""
    if "policies" in defaults or not policies:
        policies = ()
    _check_seed(seed)
    from bnb_sim.games.heroes_village.runner import make_config, simulate_to_dir
    from bnb_sim.runner.budget import confirm_games
    from bnb_sim.runner.stopping import stoppable_run

    config = make_config(
        _components(components, reading), players, list(policies) or ["team"], pets,
        difficulty or "standard", buildings, seed, check,
    )  # fmt: skip
    confirm_games(games * len(config.teams), "simulate --game hotv", yes=yes)  # every pet team
    argv = [
        "bnb", "simulate", "--game", "hotv", "--games", str(games),
        "--players", str(config.n_players), "--seed", str(seed), "--out", str(out),
        "--difficulty", config.difficulty, "--buildings", config.buildings,
    ]  # fmt: skip
    for p in policies:
        argv += ["--policy", p]
    if pets:
        argv += ["--pets", pets]
    if check:
        argv.append("--check")
    if dask:
        argv += ["--dask", dask]
    argv += _reading_argv(reading)
    bar = _progress(not quiet and sys.stderr.isatty())
    try:  # Ctrl-C, SIGTERM and a full disk end with what is stored and how to resume
        with stoppable_run(out, games, shlex.join([*argv, "--resume"]), progress=bar.update,
                           notice=_notice) as stop:  # fmt: skip
            summary = simulate_to_dir(
                config, games, out, chunk_size=chunk_size, threads=threads, resume=resume,
                force=force, dask=dask, command=" ".join(argv), progress=stop.progress,
                notice=_notice,
            )  # fmt: skip
    finally:
        bar.close()
    from bnb_sim.runner.storage import load_run

    _, g, _ = load_run(out, seat_columns=["game"], game_columns=["game", "won", "pets"])
    from bnb_sim.analysis.stats_clustered import clustered_rate

    # every pet team plays every game index on the same draws: the index is the unit
    rate = clustered_rate(g["won"].to_numpy(dtype=float), g["game"].to_numpy())
    summary["win_rate"] = rate.to_dict()
    if as_json:
        click.echo(jsonsafe.dumps(summary, indent=2))
        return
    teams = summary["teams"]
    click.echo(
        f"Heroes of the Village: {games:,} games x {teams} pet team(s), "
        f"{config.n_players} players, {config.difficulty}, "
        f"policy {', '.join(dict.fromkeys(config.labels))}"
    )
    click.echo(f"  team win rate {rate}" + (" (95% CI clustered by game index)" if teams > 1
                                             else ""))  # fmt: skip
    click.echo(f"  {summary['seconds']:.1f} s ({summary['games_per_second']:,.0f} games/s)")
    click.echo(f"  run folder: {out}  (bnb report {out})")


def _notice(message: str) -> None:
    click.echo(message, err=True)


#: The largest seed (the run's master seed is a 64-bit integer) and game index (as in
#: Builders & Biomes: the engine adds offsets to it in 64-bit arithmetic).
MAX_SEED = 2**63 - 1
MAX_GAME_INDEX = 2**62 - 1


def _check_range(value: int, flag: str, high: int) -> None:
    if not 0 <= value <= high:
        raise SpecError(f"{flag} must be between 0 and {high:,}, got {value:,}")


def _check_seed(seed: int) -> None:
    _check_range(seed, "--seed", MAX_SEED)


class _progress:
    def __init__(self, enabled: bool):
        self.bar = None
        self.enabled = enabled

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit=" games", file=sys.stderr, unit_scale=True)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ----------------------------------------------------------------------------- play


def _block_text(counts) -> str:
    parts = [f"{n} {L.BLOCK_NAMES[b]}" for b, n in enumerate(counts) if n]
    return ", ".join(parts) if parts else "nothing"


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


# ----------------------------------------------------------------------------- odds


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


# ----------------------------------------------------------------------------- compare

BOUNDS = (-1.0, 1.0)  # a paired win difference: all-equal samples get a valid bound (D6)


def compare(
    *, a, b, players=None, sprt=None, alpha=0.05, beta=0.05, precision=None, max_games=200_000,
    as_json=False, components=None, seed=0, threads=None, quiet=False, pets=None,
    difficulty=None, buildings=None, opponents=None, yes=False, defaults=frozenset(),
    out=None, reading=(), **_ignored,
) -> None:  # fmt: skip
    """``bnb compare --game hotv A B``: two team policies on the same game indices (paired).

    Stops at ``--max-games`` paired games, or earlier once the 95% half-width of the paired
    win-rate difference is at most ``--precision``, or once ``--sprt ELO0 ELO1`` decides.
    """
    if opponents:
        raise BnbError("compare --game hotv: the players are a team; --opponents does not apply")
    if pets == "all":
        raise SpecError("compare --game hotv: give one pet team (simulate --pets all ranks them)")
    check_stopping(sprt, precision, alpha, beta, given={n for n in ("alpha", "beta")
                                                        if n not in defaults})  # fmt: skip
    from bnb_sim.runner.budget import confirm_games

    confirm_games(2 * max_games, "compare --game hotv", yes=yes)  # A's and B's games
    if out is not None:
        from bnb_sim.cli.run_cmd import prepare_out

        prepare_out(out)  # refused before any game is played

    def say(start, diff, rule=None):
        if not quiet and not as_json:
            llr = "" if rule is None else f", LLR {rule.llr:+.2f} in [{rule.lower:.2f}, " \
                                          f"{rule.upper:.2f}]"  # fmt: skip
            click.echo(f"  {start:,} paired games: {100 * diff['mean_diff']:+.2f} pp{llr}",
                       err=True)  # fmt: skip

    result = compare_policies(
        _components(components, reading), a, b, players=players, pets=pets,
        difficulty=difficulty,
        buildings=buildings, seed=seed, precision=precision, max_games=max_games,
        threads=threads, progress=say, sprt=sprt, alpha=alpha, beta=beta,
    )  # fmt: skip
    if out is not None:
        _write_compare_report(result, a, b, out, seed, quiet=quiet or as_json)
    if as_json:
        data = {k: v for k, v in result.items() if k not in ("rate_a", "rate_b")}
        click.echo(jsonsafe.dumps(data, indent=2, default=float))
        return
    from bnb_sim.analysis.table_format import fmt_signed_pp

    team = ",".join(result["pets"])
    diff, test = result["difference"], result["mcnemar"]
    click.echo(f"Heroes of the Village, {result['players']} players, pets {team}, "
               f"{result['difficulty']}: {result['games']:,} paired games")  # fmt: skip
    click.echo(f"  A {a}: {result['rate_a']}")
    click.echo(f"  B {b}: {result['rate_b']}")
    shown = fmt_signed_pp(diff["mean_diff"], diff["lo"], diff["hi"]) + _bound_note(diff)
    click.echo(f"  A - B: {shown} (paired t), McNemar p = {test['p_value']:.3g}; "
               f"stopped by {result['stopped']}")  # fmt: skip
    if "sprt" in result:
        click.echo(f"  {sprt_text(result['sprt'], a, b)}")


def _bound_note(diff: dict) -> str:
    """Why an interval of a paired difference is a bound (every game went the same way)."""
    if diff.get("note") != "all differences equal":
        return ""
    n = diff["n"]
    what = "A and B never differed" if diff["mean_diff"] == 0 else "every game differed alike"
    return f" ({what} in {n:,} games: the interval bounds how often it could be otherwise)"


def _write_compare_report(result, a: str, b: str, out, seed: int, quiet: bool) -> None:
    """``-o DIR``: the comparison's report (the same section as a ``[[compare]]`` item's)."""
    from bnb_sim.analysis.report_builder import ReportBuilder
    from bnb_sim.cli.run_cmd import echo_written
    from bnb_sim.games.heroes_village.experiment import compare_report

    sections, summary, findings = compare_report(result, "comparison", a, b)
    builder = ReportBuilder(
        f"bnb-sim: Heroes of the Village comparison, {a} vs {b}",
        f"{result['games']:,} paired games · seed {seed}",
    )
    for section in sections:
        builder.add(section)
    builder.summary.update(summary)
    builder.findings += findings
    written = builder.write(out)
    if not quiet:
        echo_written(written)


def check_stopping(sprt, precision, alpha=0.05, beta=0.05, given=()) -> None:
    """Refuse a bad stopping rule before a game is played (one line): ``--sprt`` is checked
    as the first game's ``bnb compare`` checks it; ``--sprt`` and ``--precision`` exclude each
    other; ``--alpha``/``--beta`` (named in ``given`` when the user set them) need ``--sprt``."""
    from bnb_sim.analysis.compare import make_rule

    if sprt and precision is not None:
        raise BnbError("compare --game hotv: give --sprt or --precision, not both")
    if sprt:
        make_rule(tuple(sprt), None, alpha, beta)
        return
    for name in sorted(given):
        raise BnbError(f"compare --game hotv: --{name} applies to --sprt only")
    if precision is not None and not 0 < precision < 1:
        raise BnbError(f"compare --game hotv: --precision must be between 0 and 1 (e.g. 0.02), "
                       f"got {precision:g}")  # fmt: skip


def sprt_text(t: dict, a: str, b: str) -> str:
    """One sentence on an SPRT's outcome (``t`` = :meth:`SPRT.summary`): the test's state at
    its decision (n, LLR, Elo), what the decision means, and the games after it apart."""
    if t["decision"] == "H1":
        verdict = f"H1 accepted at {t['decision_n']:,} pairs: {a} is better ({t['meaning']})"
    elif t["decision"] == "H0":
        verdict = f"H0 accepted at {t['decision_n']:,} pairs: {a} is not shown to be better " \
                  f"by {t['elo1']:g} Elo ({t['meaning']})"  # fmt: skip
    else:
        verdict = "no decision"
    text = (f"SPRT [{t['elo0']:g}, {t['elo1']:g}] on the pair scores (1 + A - B)/2: {verdict}; "
            f"LLR {t['llr']:+.2f} in [{t['lower']:.2f}, {t['upper']:.2f}], pair-score Elo "
            f"{t['elo']:+.1f} [{t['elo_lo']:+.1f}, {t['elo_hi']:+.1f}] on {t['n']:,} pairs "
            "(not adjusted for the sequential stop).")  # fmt: skip
    x = t.get("after_decision")
    if x:
        text += (f" {x['pairs_after']:,} more pairs of the block were played after the "
                 "decision (not part of the test; every estimate above stops at it): on all "
                 f"{x['n']:,}, pair-score Elo {x['elo']:+.1f} [{x['elo_lo']:+.1f}, "
                 f"{x['elo_hi']:+.1f}], LLR {x['llr']:+.2f}.")  # fmt: skip
    return text


def compare_policies(
    comps, a, b, *, players=None, pets=None, difficulty=None, buildings=None, seed=0,
    precision=None, max_games=200_000, threads=None, progress=None, sprt=None, alpha=0.05,
    beta=0.05,
) -> dict[str, Any]:  # fmt: skip
    """Team policies A and B on the same game indices (paired), in blocks of 2,000, until
    ``max_games`` pairs, a 95% half-width of at most ``precision``, or a decision of the
    SPRT ``sprt = (elo0, elo1)``; the result as data (``rate_a``/``rate_b`` are
    :class:`~bnb_sim.analysis.stats.Rate` objects).

    The SPRT is the first game's (:class:`~bnb_sim.analysis.sequential.SPRT`, checked after
    every pair) on the pair score ``(1 + won_A - won_B) / 2`` of each game index: 1 when A's
    team won where B's lost, 0 for the reverse, ½ when both went the same way. Its Elo is the
    pair-score Elo of the first game's comparison against a field (docs/statistics.md);
    ``elo >= E`` means a paired win-rate difference of at least ``2 s(E) - 1``.
    """
    import numpy as np

    from bnb_sim.analysis.compare import make_rule
    from bnb_sim.analysis.stats_intervals import Rate
    from bnb_sim.analysis.stats_paired import mcnemar, paired_difference
    from bnb_sim.games.heroes_village.runner import make_config, play_block

    rule = make_rule(tuple(sprt), None, alpha, beta) if sprt else None
    configs = [
        make_config(comps, players, [spec], pets, difficulty or "standard", buildings, seed)
        for spec in (a, b)
    ]
    won = {0: [], 1: []}
    start, block = 0, 2000
    while start < max_games:
        n = min(block, max_games - start)
        for i, cfg in enumerate(configs):
            won[i].append(play_block(cfg, start, n, threads)[1]["won"].to_numpy())
        start += n
        diff = paired_difference(np.concatenate(won[0]), np.concatenate(won[1]), bounds=BOUNDS)
        if rule is not None:
            rule.update((1.0 + won[0][-1].astype(float) - won[1][-1].astype(float)) / 2.0)
        if progress is not None:
            progress(start, diff, rule) if rule is not None else progress(start, diff)
        if rule is not None and rule.decision is not None:
            break
        if precision and (diff["hi"] - diff["lo"]) / 2 <= precision:
            break
    wa, wb = np.concatenate(won[0]), np.concatenate(won[1])
    after = None
    if rule is not None and rule.decision_n is not None and rule.decision_n < len(wa):
        # the estimates are the test's state at its decision; the rest of the block apart
        d_all = paired_difference(wa, wb, bounds=BOUNDS)
        after = {"games": int(len(wa)), "games_after_decision": int(len(wa) - rule.decision_n),
                 "difference": d_all}  # fmt: skip
        wa, wb = wa[: rule.decision_n], wb[: rule.decision_n]
    ra, rb = Rate.from_bools(wa), Rate.from_bools(wb)
    diff = paired_difference(wa, wb, bounds=BOUNDS)
    if rule is not None:
        stopped = rule.reason or "max-games"
    elif precision and (diff["hi"] - diff["lo"]) / 2 <= precision:
        stopped = "precision"
    else:
        stopped = "max-games"
    result = {
        "game": "heroes_village", "a": a, "b": b, "pets": list(configs[0].teams[0]),
        "players": configs[0].n_players, "difficulty": configs[0].difficulty,
        "games": int(len(wa)), "win_rate_a": ra.to_dict(), "win_rate_b": rb.to_dict(),
        "difference": diff, "mcnemar": mcnemar(wa, wb), "stopped": stopped,
        "rate_a": ra, "rate_b": rb,
    }  # fmt: skip
    if rule is not None:
        result["sprt"] = rule.summary()
        result["after_decision"] = after
    return result


# ----------------------------------------------------------------------------- tournament


def tournament(
    *, policies=(), players=2, games=1000, components=None, seed=0, threads=None, quiet=False,
    out=None, as_json=False, yes=False, pets=None, difficulty=None, buildings=None,
    reading=(), defaults=frozenset(), **_ignored,
) -> None:  # fmt: skip
    """``bnb tournament --game hotv``: team policies ranked on the same game indices.

    The game is cooperative, so there are no tables of rivals: every entrant plays every
    seat, on games 0..N-1 (paired); the report ranks them by team win rate, with each one's
    paired difference to the best and the exact McNemar p value."""
    import pandas as pd

    from bnb_sim.analysis.leaders import holm, paired_ranking
    from bnb_sim.analysis.report_builder import ReportBuilder, Section
    from bnb_sim.analysis.stats_intervals import Rate
    from bnb_sim.analysis.stats_paired import mcnemar
    from bnb_sim.analysis.table_format import fmt_rate, fmt_signed_pp
    from bnb_sim.analysis.tournament import split_policy_list
    from bnb_sim.games.heroes_village.runner import make_config, play_block
    from bnb_sim.runner.budget import confirm_games

    specs = split_policy_list(list(policies or ()))
    if len(specs) < 2:
        raise BnbError("tournament --game hotv: name at least two team policies with --policy")
    if len(set(specs)) != len(specs):
        raise BnbError("tournament --game hotv: an entrant is listed twice")
    if pets == "all":
        raise SpecError("tournament --game hotv: give one pet team (simulate --pets all ranks "
                        "the pet teams)")  # fmt: skip
    comps = _components(components, reading)
    configs = {spec: make_config(comps, players, [spec], pets, difficulty or "standard",
                                 buildings, seed) for spec in specs}  # fmt: skip
    confirm_games(len(specs) * games, "tournament --game hotv", yes=yes)
    if out is not None:
        from bnb_sim.cli.run_cmd import prepare_out

        prepare_out(Path(out))
    won = {}
    for spec, cfg in configs.items():
        parts = []
        for start in range(0, games, 50_000):
            parts.append(play_block(cfg, start, min(50_000, games - start), threads)[1]["won"])
        won[spec] = pd.concat(parts).to_numpy(bool)
        if not quiet and not as_json:
            click.echo(f"  {spec}: {Rate.from_bools(won[spec])}", err=True)
    ranking = paired_ranking({spec: won[spec] for spec in specs})
    order, best, leader = ranking.order, ranking.order[0], ranking.leader
    mc = {spec: mcnemar(won[spec], won[best])["p_value"] for spec in order[1:]}
    mc_holm = dict(zip(order[1:], holm([mc[s] for s in order[1:]]), strict=True))
    rows, summary = [], []
    for spec in order:
        r = Rate.from_bools(won[spec])
        d = ranking.vs_top.get(spec)
        rows.append({"policy": spec, "games": f"{r.n:,}",
                     "team win rate [95% CI]": fmt_rate(r.rate, r.lo, r.hi),
                     "vs best, paired [95% CI]": leader.label() if d is None
                     else fmt_signed_pp(d["mean_diff"], d["lo"], d["hi"]),
                     "McNemar p (Holm)": "" if d is None
                     else f"{mc_holm[spec]:.3g}"})  # fmt: skip
        vs_best = None if d is None else {k: d[k] for k in ("mean_diff", "lo", "hi")}
        summary.append({"policy": spec, "win_rate": r.to_dict(), "vs_best": vs_best,
                        "mcnemar_p": mc.get(spec),
                        "mcnemar_p_holm": mc_holm.get(spec)})  # fmt: skip
    team = ",".join(configs[best].teams[0])
    text = (f"Heroes of the Village, {configs[best].n_players} players, pets {team}, "
            f"{configs[best].difficulty}: {len(specs)} team policies, each in every seat, on "
            f"game indices 0..{games - 1} (paired), seed {seed}")  # fmt: skip
    table = pd.DataFrame(rows)
    if out is not None:
        section = Section("Team policies")
        section.text(text + ". Paired differences: t intervals over game indices; McNemar: "
                     "the exact test of the discordant games. The first row is ranked first "
                     f"on these games: {ranking.selected_note()}.")  # fmt: skip
        section.table(table)
        section.summary["ranking"] = summary
        section.summary["leader"] = leader.to_dict()
        builder = ReportBuilder("Heroes of the Village: team policies")
        builder.add(section)
        claim = leader.claim(f"is the best team policy, {rows[0]['team win rate [95% CI]']}")
        builder.finding(f"{claim[0].upper()}{claim[1:]} (n = {games:,} paired games).",
                        kind="tournament", best=leader.to_dict()["best"],
                        ranked_first=best)  # fmt: skip
        written = builder.write(out)
    if as_json:
        click.echo(jsonsafe.dumps({"game": "heroes_village", "players": configs[best].n_players,
                               "pets": list(configs[best].teams[0]), "games": games,
                               "ranking": summary, "leader": leader.to_dict()}, indent=2,
                              default=float))  # fmt: skip
        return
    click.echo(text + ":")
    click.echo(table.to_string(index=False))
    click.echo(leader.claim("is the best team policy", name=str) + ".")
    if out is not None:
        click.echo(f"report: {written['html']}")


# ----------------------------------------------------------------------------- sweep


def _set_path(data: dict, path: str, value) -> None:
    """Set a component value by dotted path: a list item by index, a mob by its name
    (``mobs.zombie.count``, the keys of ``bnb components show --game hotv``)."""
    from bnb_sim.games.heroes_village.ranges import set_value

    try:
        set_value(data, path, value)
    except KeyError:
        raise SpecError(f"--set {path}: no such component value") from None


def sweep_variants(base, parsed, zip_mode=False, origin="--set"):
    """``[(label, components)]``: the component file first (label ``"components"``), then
    every combination (or, with ``zip_mode``, every position) of ``parsed``'s values, a list
    of ``(path, [values])``; the lists are checked as the first game's sweep checks them
    (a zip of unequal lengths, a path set twice, too many variants: one line).

    A combination equal to the component file's own values is the baseline, not a second
    variant: it is played once, first, labelled ``"PATH=V (components)"``."""
    import copy

    from bnb_sim.analysis.sweep import variant_combinations
    from bnb_sim.games.heroes_village.components import components_from_dict

    combos = variant_combinations(parsed, "zip" if zip_mode else "grid", origin)
    raw = {k: v for k, v in base.data.items() if not k.startswith("_")}
    variants = [("components", base)]
    for combo in combos:
        data = copy.deepcopy(raw)
        for (path, _), value in zip(parsed, combo, strict=True):
            _set_path(data, path, value)
        label = ", ".join(f"{path}={value}" for (path, _), value in zip(parsed, combo, strict=True))
        if data == raw and variants[0][0] == "components":  # the file's values: the baseline
            variants[0] = (f"{label} (components)", base)
            continue
        variants.append((label, components_from_dict(data, f"{origin} {label}")))
    return variants


def play_sweep(variants, *, games, players, specs, pets=None, difficulty="standard",
               buildings=None, seed=0, threads=None, say=None) -> dict:  # fmt: skip
    """``{label: won (bool array)}``: the same game indices ``0..games-1`` under each
    variant (paired); ``say(label, rate)`` after each."""
    from bnb_sim.analysis.stats_intervals import Rate
    from bnb_sim.games.heroes_village.runner import make_config, play_block

    won = {}
    for label, comps in variants:
        cfg = make_config(comps, players, specs, pets, difficulty or "standard", buildings, seed)
        won[label] = play_block(cfg, 0, games, threads)[1]["won"].to_numpy()
        if say is not None:
            say(label, Rate.from_bools(won[label]))
    return won


def sweep_table(won: dict):
    """The sweep's table: each variant's win rate and its paired difference against the
    component file (the first variant)."""
    import pandas as pd

    from bnb_sim.analysis.stats_intervals import Rate
    from bnb_sim.analysis.stats_paired import paired_difference
    from bnb_sim.analysis.table_format import fmt_rate, fmt_signed_pp

    rows = []
    first = next(iter(won))  # the component file's values (sweep_variants puts them first)
    reference = won[first]
    for label, values in won.items():
        r = Rate.from_bools(values)
        d = paired_difference(values.astype(float), reference.astype(float))
        rows.append({"variant": label, "games": f"{r.n:,}",
                     "win rate [95% CI]": fmt_rate(r.rate, r.lo, r.hi),
                     "vs components, paired [95% CI]": "(reference)" if label == first
                     else fmt_signed_pp(d["mean_diff"], d["lo"], d["hi"])})  # fmt: skip
    return pd.DataFrame(rows)


def sweep(
    *, sets, zip_mode=False, games=2000, players=4, policies="team", components=None, seed=0,
    threads=None, quiet=False, out=None, pets=None, difficulty=None, buildings=None,
    yes=False, reading=(), defaults=frozenset(), **_ignored,
) -> None:  # fmt: skip
    """``bnb sweep --game hotv --set PATH=V1,V2``: the same game indices under each
    component variant; win rates and paired differences against the component file."""
    from bnb_sim.analysis.estimated import add_estimated_warning, estimates_meta
    from bnb_sim.analysis.report_builder import ReportBuilder, Section
    from bnb_sim.analysis.stats_intervals import Rate
    from bnb_sim.analysis.sweep import parse_set_option

    if pets == "all":
        raise SpecError("sweep --game hotv: give one pet team")
    base = _components(components, reading)
    if "policies" in defaults:
        policies = "team"
    if isinstance(policies, str):
        policies = policies.split(",")
    specs = [p.strip() for p in policies if p.strip()]
    parsed = [parse_set_option(x) for x in sets]
    variants = sweep_variants(base, parsed, zip_mode)
    from bnb_sim.cli.run_cmd import prepare_out
    from bnb_sim.runner.budget import confirm_games

    confirm_games(len(variants) * games, "sweep --game hotv", yes=yes)
    if out is not None:
        prepare_out(Path(out))  # a non-empty folder is refused before any game is played
    won = play_sweep(
        variants, games=games, players=players, specs=specs, pets=pets,
        difficulty=difficulty, buildings=buildings, seed=seed, threads=threads,
        say=None if quiet else lambda label, rate: click.echo(f"  {label}: {rate}", err=True),
    )  # fmt: skip
    table = sweep_table(won)
    click.echo(table.to_string(index=False))
    if out is not None:
        section = Section("Component sweep")
        section.text(
            f"Heroes of the Village, {players} players, policies {', '.join(specs)}, "
            f"{games:,} games per variant on the same game indices (paired)."
        )
        section.table(table)
        add_estimated_warning(section, estimates_meta(base, [path for path, _ in parsed]))
        section.summary["variants"] = {
            label: Rate.from_bools(values).to_dict() for label, values in won.items()
        }
        builder = ReportBuilder("Heroes of the Village: component sweep")
        builder.add(section)
        written = builder.write(out)
        click.echo(f"report: {written['html']}")


# ----------------------------------------------------------------------------- warmup


def warmup_steps() -> list[tuple[str, Any]]:
    """(label, function) for ``bnb warmup``: this game's kernel entry points."""

    def batch() -> None:
        from bnb_sim.games.heroes_village.components import load_components
        from bnb_sim.games.heroes_village.runner import make_config, play_arrays

        config = make_config(load_components(), 2, ["team"], None, check=True)
        play_arrays(config, config.teams[0], 0, 2)

    def one_game() -> None:
        from bnb_sim.games.heroes_village.components import load_components
        from bnb_sim.games.heroes_village.play import play_game
        from bnb_sim.games.heroes_village.runner import make_config, pet_codes

        config = make_config(load_components(), 2, ["random"], None)
        k, kf, kinds, params, plugins = config.arrays()
        play_game(
            k, kf, kinds, params, plugins, pet_codes(config.teams[0]), config.master, 0, 2, 10
        )

    return [
        ("Heroes of the Village: batch kernel", batch),
        ("Heroes of the Village: one game with its log", one_game),
    ]


# ----------------------------------------------------------------------------- bench


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
    from bnb_sim.cli.bench_cmd import machine

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


# ----------------------------------------------------------------------------- components


def components_show(*, components=None, as_json=False, **_ignored) -> None:
    """``bnb components show --game hotv``: the data, estimates marked ~."""
    comps = _components(components)
    if as_json:
        click.echo(jsonsafe.dumps(comps.to_json_dict(), indent=2, default=str))
        return
    from bnb_sim.games.heroes_village.show import render

    click.echo("\n".join(render(comps)))


def path_of(value) -> Path:
    return Path(value)


_ = Any
