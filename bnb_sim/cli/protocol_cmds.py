"""The shared commands for a game that implements only the protocol (no handlers).

``bnb simulate|compare|tournament --game NAME`` come here through
:func:`bnb_sim.cli.options.other_game_handler` when the game is registered with
:func:`bnb_sim.core.registry.register_game`; ``bnb report`` through its run's ``game``.
:func:`add_options` turns the game's :class:`~bnb_sim.core.protocol.OptionSpec` data into
click options. Each handler gets the command's parsed options (``**params``).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import click

from bnb_sim import jsonsafe
from bnb_sim.errors import BnbError

_TYPES = {"str": str, "int": int, "float": float}


def click_option(option, command: str):
    """The click decorator of one :class:`~bnb_sim.core.protocol.OptionSpec`."""
    if option.kind == "flag":
        return click.option(*option.flags, option.name, is_flag=True, default=False,
                            help=option.help)  # fmt: skip
    kind = click.Choice(list(option.choices)) if option.kind == "choice" else _TYPES[option.kind]
    if option.low is not None or option.high is not None:
        kind = click.IntRange(option.low, option.high)
    shown = "" if option.default is None else f" Default: {option.default}."
    return click.option(*option.flags, option.name, type=kind, default=None,
                        metavar=option.metavar or None, help=option.help + shown)  # fmt: skip


def add_options(game, command: str, func):
    """``func`` with the click options ``game`` declares for ``command`` (names it already
    has are left alone: two games may share an option name)."""
    taken = {p.name for p in getattr(func, "__click_params__", [])}
    for option in game.options:
        if option.applies_to(command) and option.name not in taken:
            func = click_option(option, command)(func)
            taken.add(option.name)
    return func


def add_named_options(game, command: str, func):
    """``func`` with the click options of ``game`` whose ``commands`` name ``command``
    (e.g. ``--pet`` of ``bnb odds``, ``--teams`` of ``bnb train``): a built-in game's
    options, listed in ``--help`` in the game's order."""
    taken = {p.name for p in getattr(func, "__click_params__", [])}
    for option in reversed(game.options):  # click lists the last one added first
        if command in option.commands and option.name not in taken:
            func = click_option(option, command)(func)
            taken.add(option.name)
    return func


def option_values(game, params: dict) -> dict[str, Any]:
    """The game's own options from a command's parsed ``params`` (defaults filled in)."""
    return {
        o.name: o.default if params.get(o.name) is None else params[o.name] for o in game.options
    }


def _option_argv(game, options: dict) -> list[str]:
    """The game's options given (not at their default) as command-line arguments."""
    out: list[str] = []
    for option in game.options:
        value = options.get(option.name)
        if value is None or value == option.default or value is False:
            continue
        out += [option.flags[0]] if option.kind == "flag" else [option.flags[0], str(value)]
    return out


def _protocol(spec):
    """The protocol object of a registry entry: its own, or the built-in game's (a built-in
    game names the commands the protocol serves in ``GameSpec.protocol_commands``)."""
    if spec.protocol is not None:
        return spec.protocol
    from bnb_sim.core.registry import get_game

    return get_game(spec.name)


def _components(game, components, reading=()):
    """The command's components (the game's defaults when none are given), with its
    ``--reading NAME=VALUE`` items set where the game takes readings."""
    comps = components if components is not None else game.load_components([])
    if not reading:
        return comps
    with_readings = getattr(game, "with_readings", None)
    if not callable(with_readings):
        _refuse("--reading", reading, game)
    return with_readings(comps, list(reading))


def _refuse(what: str, value, game) -> None:
    if value:
        raise BnbError(f"{what} is not offered for {game.title} yet (a protocol game)")


#: The largest master seed (a 64-bit integer, bnb_sim.core.seeds).
MAX_SEED = 2**63 - 1


def simulate(*, game, games, players, policies, seed, out, threads=None, chunk_size=None,
             components=None, resume=False, force=False, as_json=False, quiet=False, yes=False,
             dask=None, reading=(), defaults=frozenset(), **rest) -> None:  # fmt: skip
    """``bnb simulate --game NAME`` for a protocol game: a run folder of N games (Dask,
    resume, a progress meter on stderr, the team win rate of a cooperative game)."""
    from bnb_sim.feedback import progress_meter
    from bnb_sim.runner.budget import confirm_games
    from bnb_sim.runner.protocol_run import rows_per_game, simulate_to_dir
    from bnb_sim.runner.run_summary import RunInterrupted

    proto = _protocol(game)
    if not 0 <= seed <= MAX_SEED:
        raise BnbError(f"--seed must be between 0 and {MAX_SEED:,}, got {seed:,}")
    comps = _components(proto, components, reading)
    options = option_values(proto, rest)
    make = getattr(proto, "make_run_config", None) or proto.make_config  # a run's own config
    config = make(comps, players=players, policies=list(policies), seed=seed, options=options)
    confirm_games(games * rows_per_game(config), f"simulate --game {proto.name}", yes=yes)
    argv = ["bnb", "simulate", "--game", proto.name, "--games", str(games),
            "--players", str(config.n_players), "--seed", str(seed), "--out", str(out)]  # fmt: skip
    for p in policies:
        argv += ["--policy", p]
    argv += _option_argv(proto, options)
    ctx = click.get_current_context(silent=True)
    for path in ctx.meta.get("bnb.simulate.components", []) if ctx else []:
        argv += ["--components", str(path)]
    argv += [x for item in reading or () for x in ("--reading", item)]
    if dask:
        argv += ["--dask", dask]
    progress, close = progress_meter(not quiet, desc=proto.name)

    def notice(message: str) -> None:
        click.echo(message, err=True)

    try:  # Ctrl-C, SIGTERM and a full disk end with what is stored and how to resume
        summary = simulate_to_dir(
            proto, config, comps, games, out, chunk_size=chunk_size, threads=threads,
            resume=resume, force=force, dask=dask, command=shlex.join(argv),
            resume_command=shlex.join([*argv, "--resume"]), handle_sigint=True,
            progress=progress, notice=notice,
        )  # fmt: skip
    except RunInterrupted as stop:  # bnb's handler prints what is kept and how to go on
        close()
        if as_json:
            click.echo(jsonsafe.dumps(stop.partial(), indent=2))
        raise
    finally:
        close()
    rate = _team_rate(out) if proto.outcome == "cooperative" else None
    if rate is not None:
        summary["win_rate"] = rate.to_dict()
    if as_json:
        click.echo(jsonsafe.dumps(summary, indent=2))
        return
    headline = getattr(proto, "run_headline", None)  # the game's own words for its setting
    click.echo(headline(config, games) if callable(headline) else
               f"{proto.title}: {games:,} games, {config.n_players} players, "
               f"policy {', '.join(dict.fromkeys(config.labels))}")  # fmt: skip
    if rate is not None:
        clustered = " (95% CI clustered by game index)" if summary["rows_per_game"] > 1 else ""
        click.echo(f"  team win rate {rate}{clustered}")
    if summary["games_per_second"] is not None:
        click.echo(f"  {summary['seconds']:.1f} s ({summary['games_per_second']:,.0f} games/s)")
    click.echo(f"  run folder: {out}  (bnb report {out})")


def _team_rate(out):
    """A cooperative run's team win rate: seat 0's ``won`` of every game row, clustered by
    game index (a config that plays several variants of an index plays them on the same
    draws, so the index is the unit)."""
    from bnb_sim.analysis.stats import clustered_rate
    from bnb_sim.runner.run_reader import load_run

    seats, _, _ = load_run(out, seat_columns=["game", "seat", "won"], game_columns=["game"])
    first = seats[seats["seat"] == 0]
    return clustered_rate(first["won"].to_numpy(dtype=float), first["game"].to_numpy())


def write_report(spec, run_dir, out_dir, title=None):
    """``bnb report`` of a protocol game's run."""
    from bnb_sim.analysis.protocol_report import write_report as write

    return write(_protocol(spec), run_dir, out_dir, title=title)


def _prepare(out) -> None:
    """Refuse a folder that holds files before any game is played."""
    if out is not None:
        from bnb_sim.cli.out_folder import prepare_out

        prepare_out(Path(out))


def compare(*, game, a, b, players=None, sprt=None, alpha=0.05, beta=0.05, precision=None,
            max_games=200_000, as_json=False, components=None, seed=0, threads=None,
            quiet=False, opponents=None, yes=False, out=None, reading=(),
            defaults=frozenset(), **rest) -> None:  # fmt: skip
    """``bnb compare --game NAME A B``: A and B on the same game indices (paired); for a
    cooperative game each index is a pair of team games (A's team, B's team)."""
    from bnb_sim.analysis import protocol_studies as S
    from bnb_sim.analysis.protocol_text import compare_lines, compare_report
    from bnb_sim.analysis.report_builder import ReportBuilder
    from bnb_sim.runner.budget import confirm_games

    proto = _protocol(game)
    _refuse("--opponent", opponents, proto)
    for name in ("alpha", "beta"):
        if not sprt and name not in defaults:
            raise BnbError(f"compare: --{name} applies to --sprt only")
    if a is None or b is None:
        raise BnbError("compare: name two policies, A and B")
    if sprt:
        from bnb_sim.analysis.compare import make_rule

        make_rule(tuple(sprt), None, alpha, beta)  # a bad rule is refused before any game
    comps = _components(proto, components, reading)
    options = option_values(proto, rest)
    per_index = 1 if proto.outcome == S.COOPERATIVE else 2  # --max-games counts index pairs
    confirm_games(2 * (max_games // per_index), f"compare --game {proto.name}", yes=yes)
    _prepare(out)

    def say(n, diff):
        if not quiet and not as_json:
            click.echo(f"  {n:,} game indices: {100 * diff['mean_diff']:+.2f} pp", err=True)

    result = S.compare(proto, comps, a, b, players=players, seed=seed, options=options,
                       max_games=max_games, precision=precision, threads=threads,
                       progress=say, sprt=tuple(sprt) if sprt else None, alpha=alpha,
                       beta=beta)  # fmt: skip
    if out is not None:
        builder = ReportBuilder(
            f"{proto.title}: {a} vs {b}",
            f"{result['game_indices']:,} paired game indices · seed {seed}",
        )
        section, summary, finding = compare_report(proto.title, result)
        builder.add(section)
        builder.summary.update(summary)
        builder.finding(finding, kind="compare", **summary["difference"])
        written = builder.write(out)
    if as_json:
        click.echo(jsonsafe.dumps(result, indent=2, default=float))
        return
    click.echo("\n".join(compare_lines(proto.title, result)))
    if out is not None and not quiet:
        click.echo(f"report: {written['html']}")


def tournament(*, game, policies=(), players=2, games=1000, components=None, seed=0,
               threads=None, quiet=False, out=None, as_json=False, yes=False, reading=(),
               defaults=frozenset(), **rest) -> None:  # fmt: skip
    """``bnb tournament --game NAME``: every entrant on the same game indices, ranked (a
    cooperative game's entrants are team policies, each in every seat)."""
    from bnb_sim.analysis import protocol_studies as S
    from bnb_sim.analysis.protocol_text import tournament_table
    from bnb_sim.analysis.report_builder import ReportBuilder, Section
    from bnb_sim.analysis.tournament import split_policy_list
    from bnb_sim.runner.budget import confirm_games

    proto = _protocol(game)
    team = proto.outcome == S.COOPERATIVE
    entrants = split_policy_list(list(policies or ()))
    comps = _components(proto, components, reading)
    confirm_games(games * max(1, len(S.tables(proto, entrants, players)) if len(entrants) > 1
                              else 1), f"tournament --game {proto.name}", yes=yes)  # fmt: skip
    if len(entrants) > 1:
        _prepare(out)
    result = S.tournament(proto, comps, entrants, players=players, games=games, seed=seed,
                          options=option_values(proto, rest), threads=threads)  # fmt: skip
    leader = result["_leader"]
    table = tournament_table(result)
    del result["_leader"]
    if team:
        text = (f"{proto.title}, {result['setting']}: {len(entrants)} team policies, each in "
                f"every seat, on game indices 0..{games - 1} (paired), seed {seed}")  # fmt: skip
        verb, what = "is the best team policy", "team win rate [95% CI]"
    else:
        text = (f"{proto.title}: {len(entrants)} policies on game indices 0..{games - 1} "
                f"(paired), seed {seed}; score = win rate, every seating")  # fmt: skip
        verb, what = "scores highest", "score [95% CI]"
    if out is not None:
        builder = ReportBuilder(f"{proto.title}: tournament")
        section = builder.add(Section("Ranking"))
        mc = "; McNemar: the exact test of the discordant games, Holm-adjusted" if team else ""
        section.text(
            f"{text}. Paired differences: t intervals over game indices{mc}. The "
            f"first row is ranked first on these games: {result['selected']}."
        )
        section.table(table)
        section.summary.update(ranking=result["ranking"], leader=result["leader"],
                               tournament=result)  # fmt: skip
        claim = leader.claim(f"{verb}, {table.iloc[0][what]}")
        builder.finding(f"{claim[0].upper()}{claim[1:]} (n = {games:,} paired games).",
                        kind="tournament", best=result["leader"].get("best"),
                        ranked_first=result["ranking"][0]["policy"])  # fmt: skip
        written = _write(builder, out)
    if as_json:
        click.echo(jsonsafe.dumps(result, indent=2, default=float))
        return
    click.echo(text + ":")
    click.echo(table.to_string(index=False))
    click.echo(leader.claim(verb, name=str) + ".")
    if out is not None:
        click.echo(f"report: {written['html']}")


def _write(builder, out) -> dict:
    return builder.write(out)


HANDLERS = {"simulate": simulate, "compare": compare, "tournament": tournament}
#: Commands whose own code serves every game through its optional hooks
#: (:data:`bnb_sim.core.protocol.HOOKS`): a game that lacks the hook is told so in one line.
HOOKED = frozenset({"play", "odds", "components_show", "train", "bench"})
