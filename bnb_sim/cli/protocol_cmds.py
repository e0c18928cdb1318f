"""The shared commands for a game that implements only the protocol (no handlers).

``bnb sweep --game NAME`` comes here through
:func:`bnb_sim.cli.options.other_game_handler` when the game is registered with
:func:`bnb_sim.core.registry.register_game`; ``bnb report`` through its run's ``game``.
:func:`add_options` turns the game's :class:`~bnb_sim.core.protocol.OptionSpec` data into
click options. Each handler gets the command's parsed options (``**params``).
"""

from __future__ import annotations

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


def write_report(spec, run_dir, out_dir, title=None):
    """``bnb report`` of a protocol game's run."""
    from bnb_sim.analysis.protocol_report import write_report as write

    return write(_protocol(spec), run_dir, out_dir, title=title)


def _prepare(out) -> None:
    """Refuse a folder that holds files before any game is played."""
    if out is not None:
        from bnb_sim.cli.out_folder import prepare_out

        prepare_out(Path(out))


def _echo_progress(quiet: bool):
    def say(label, value):
        if not quiet:
            click.echo(f"  {label}: {value}", err=True)

    return say


def _write(builder, out) -> dict:
    return builder.write(out)


def sweep(*, game, sets, zip_mode=False, games=2000, players=None, policies=None,
          components=None, seed=0, threads=None, quiet=False, out=None, as_json=False,
          yes=False, reading=(), defaults=frozenset(), **rest) -> None:  # fmt: skip
    """``bnb sweep --game NAME --set PATH=V1,V2``: the same games under each value; a
    cooperative game's team win rate per variant, paired against the first variant."""
    from bnb_sim.analysis import protocol_studies as S
    from bnb_sim.analysis.protocol_text import sweep_table
    from bnb_sim.analysis.report_builder import ReportBuilder, Section
    from bnb_sim.analysis.sweep import parse_set_option
    from bnb_sim.runner.budget import confirm_games

    proto = _protocol(game)
    team = proto.outcome == S.COOPERATIVE
    comps = _components(proto, components, reading)
    parsed = [parse_set_option(s) for s in sets]
    mode = "zip" if zip_mode else "grid"
    own = getattr(proto, "sweep_variants", None)  # the game's paths and labels, if it has them
    variants = (own(comps, parsed, mode) if callable(own)
                else S.sweep_variants(proto, comps, parsed, mode))  # fmt: skip
    confirm_games(len(variants) * games, f"sweep --game {proto.name}", yes=yes)
    if "policies" in defaults:
        policies = [proto.default_policy]
    if "players" in defaults:
        players = None
    _prepare(out)
    result = S.sweep(proto, comps, variants, list(policies), players=players, games=games,
                     seed=seed, options=option_values(proto, rest), threads=threads)  # fmt: skip
    scores = result.pop("_scores")
    say = _echo_progress(quiet or as_json)
    for row in result["variants"]:
        say(row["variant"], ", ".join(f"{k} {100 * v['rate']:.1f}%"
                                      for k, v in row["win_rates"].items()))  # fmt: skip
    if team:
        table = sweep_table({label: s.astype(bool) for label, s in scores.items()})
        lines = [table.to_string(index=False)]
        head = (f"{proto.title}, {result['setting']}, policies {', '.join(policies)}, "
                f"{games:,} games per variant on the same game indices (paired).")  # fmt: skip
    else:
        lines = [f"{proto.title}: {games:,} games per variant (the same game indices)"]
        for row in result["variants"]:
            rates = ", ".join(f"{k} {100 * v['rate']:.1f}%" for k, v in row["win_rates"].items())
            lines.append(f"  {row['variant']}: {rates}")
        head = lines[0]
    if out is not None:
        paths = ", ".join(path for path, _ in parsed)
        builder = ReportBuilder(f"{proto.title}: sweep of {paths}")
        section = builder.add(Section("Variants"))
        section.text(head)
        if team:
            section.table(table)
        else:
            section.text("\n".join(lines[1:]))
        if callable(getattr(comps, "estimates", None)):  # values that are estimates, flagged
            from bnb_sim.analysis.estimated import add_estimated_warning, estimates_meta

            add_estimated_warning(section, estimates_meta(comps, [p for p, _ in parsed]))
        section.summary["sweep"] = result
        if team:  # each variant's team win rate, by its label
            section.summary["variants"] = {
                row["variant"]: row["win_rates"]["team"] for row in result["variants"]
            }
        written = _write(builder, out)
    if as_json:
        click.echo(jsonsafe.dumps(result, indent=2, default=float))
        return
    click.echo("\n".join(lines))
    if out is not None and not quiet:
        click.echo(f"report: {written['html']}")


HANDLERS = {"sweep": sweep}
#: Commands whose own code serves every game: through its optional hooks
#: (:data:`bnb_sim.core.protocol.HOOKS`; a game that lacks the hook is told so in one line),
#: or by the protocol's outcome kind (``simulate``: cli/simulate_cmd.py, ``compare``:
#: cli/compare_cmd.py, ``tournament``: cli/tournament_cmd.py, one body for every game).
HOOKED = frozenset(
    {"simulate", "play", "odds", "components_show", "train", "bench", "compare", "tournament"}
)
