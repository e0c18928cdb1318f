"""What the commands share about a game's protocol object: :func:`add_options` turns the
game's :class:`~bnb_sim.core.protocol.OptionSpec` data into click options and
:func:`option_values` reads them back; the command's components (:func:`command_components`),
``bnb report`` of a game's run (:func:`write_report`). Every command has one body for every
game (``HANDLERS`` is empty; ``HOOKED`` lists the commands that serve every game themselves,
which :func:`bnb_sim.cli.options.other_game_handler` leaves to their own code).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from bnb_sim.errors import BnbError

_TYPES = {"str": str, "int": int, "float": float}


def click_option(option, command: str):
    """The click decorator of one :class:`~bnb_sim.core.protocol.OptionSpec`."""
    if option.kind == "flag":
        return click.option(*option.flags, option.name, is_flag=True, default=False,
                            help=option.help)  # fmt: skip
    if option.kind == "file":
        return click.option(*option.flags, option.name, default=None, help=option.help,
                            metavar=option.metavar or "FILE", callback=_output_file(option),
                            type=click.Path(dir_okay=False, path_type=Path))  # fmt: skip
    kind = click.Choice(list(option.choices)) if option.kind == "choice" else _TYPES[option.kind]
    if option.low is not None or option.high is not None:
        kind = click.IntRange(option.low, option.high)
    shown = "" if option.default is None else f" Default: {option.default}."
    return click.option(*option.flags, option.name, type=kind, default=None,
                        metavar=option.metavar or None, help=option.help + shown)  # fmt: skip


def _output_file(option):
    """The click callback of a "file" option: a bad name or a target that cannot be written
    (a FIFO would block the writer for ever) is one line before anything plays."""

    def check(ctx, param, value):
        if value is None or ctx.resilient_parsing:
            return value
        from bnb_sim.safe_io import output_file_problem

        if option.suffixes and value.suffix.lower() not in option.suffixes:
            raise click.BadParameter(f"must end in {' or '.join(option.suffixes)}",
                                     ctx=ctx, param=param)  # fmt: skip
        problem = output_file_problem(value)
        if problem is not None:
            raise click.BadParameter(f"{value}: {problem}", ctx=ctx, param=param)
        return value

    return check


def add_options(game, command: str, func):
    """``func`` with the click options ``game`` declares for ``command`` (names it already
    has are left alone: two games may share an option name)."""
    taken = {p.name for p in getattr(func, "__click_params__", [])}
    for option in game.options:
        if option.applies_to(command) and option.name not in taken:
            func = click_option(option, command)(func)
            taken.add(option.name)
    return func


def add_named_options(game, command: str, func, options=None):
    """``func`` with the click options of ``game`` (or ``options``) whose ``commands`` name
    ``command`` (e.g. ``--pet`` of ``bnb odds``, ``--teams`` of ``bnb train``): a built-in
    game's options, listed in ``--help`` in the game's order."""
    taken = {p.name for p in getattr(func, "__click_params__", [])}
    for option in reversed(game.options if options is None else options):  # last added: first
        if command in option.commands and option.name not in taken:
            func = click_option(option, command)(func)
            taken.add(option.name)
    return func


def option_values(game, params: dict) -> dict[str, Any]:
    """The game's own options of a command from its parsed ``params`` (defaults filled in):
    those the command offers (another command's, such as ``bnb odds``'s ``--pile``, are
    not in ``params``)."""
    return {
        o.name: o.default if params.get(o.name) is None else params[o.name]
        for o in game.options
        if o.name in params
    }


def add_reading_flags(game, command: str, func):
    """``func`` with the flags of ``game`` that set one of its rule readings
    (``reading_flags``, e.g. ``--variant``) and name ``command``."""
    return add_named_options(game, command, func, getattr(game, "reading_flags", ()))


def reading_aliases(game, params: dict) -> dict[str, Any]:
    """``{flag: value or None}`` of the reading flags of ``game`` in a command's parsed
    ``params`` (the ``aliases`` of its ``parse_readings`` hook); two flags that set one
    reading to different values are one line (``--fixed-seats`` with ``--seating rotate``)."""
    aliases: dict[str, Any] = {}
    given: dict[str, tuple[str, Any]] = {}  # reading -> (flag, value) of the first flag
    for option in getattr(game, "reading_flags", ()):
        if option.name not in params:
            continue
        value = params[option.name]
        if option.kind == "flag":
            value = option.sets if value else None
        flag = option.flags[0]
        aliases[flag] = value
        if value is None:
            continue
        first = given.setdefault(option.reading, (flag, value))
        if first[1] != value:
            raise BnbError(f"{flag} contradicts {first[0]} {first[1]}")
    return aliases


def without_reading_flags(params: dict) -> dict:
    """``params`` less the reading flags of every registered game (:func:`reading_aliases`
    passes them to the readings; a game's own options are the rest)."""
    from bnb_sim.games import all_specs

    flags = {o.name for spec in all_specs()
             for o in getattr(protocol_of(spec), "reading_flags", ())}  # fmt: skip
    return {name: value for name, value in params.items() if name not in flags}


def protocol_of(spec):
    """The protocol object of a registry entry: its own, or the built-in game's (a built-in
    game names the commands the protocol serves in ``GameSpec.protocol_commands``)."""
    if spec.protocol is not None:
        return spec.protocol
    from bnb_sim.core.registry import get_game

    return get_game(spec.name)


def command_components(game, components, reading=()):
    """The command's components (the game's defaults when none are given), with its
    ``--reading NAME=VALUE`` items set where the game takes readings."""
    comps = components if components is not None else game.load_components([])
    if not reading:
        return comps
    with_readings = getattr(game, "with_readings", None)
    if not callable(with_readings):
        refuse_unoffered("--reading", reading, game)
    return with_readings(comps, list(reading))


def refuse_unoffered(what: str, value, game) -> None:
    if value:
        raise BnbError(f"{what} is not offered for {game.title} yet (a protocol game)")


def write_report(spec, run_dir, out_dir, title=None):
    """``bnb report`` of a protocol game's run."""
    from bnb_sim.analysis.protocol_report import write_report as write

    return write(protocol_of(spec), run_dir, out_dir, title=title)


def prepare_folder(out) -> None:
    """Refuse a folder that holds files before any game is played."""
    if out is not None:
        from bnb_sim.cli.out_folder import prepare_out

        prepare_out(Path(out))


HANDLERS: dict = {}  # every command now serves every game itself (one body per command)
#: Commands whose own code serves every game: through its optional hooks
#: (:data:`bnb_sim.core.protocol.HOOKS`; a game that lacks the hook is told so in one line),
#: or by the protocol's outcome kind (``simulate``: cli/simulate_cmd.py, ``compare``:
#: cli/compare_cmd.py, ``tournament``: cli/tournament_cmd.py, ``sweep``:
#: cli/sweep_cmd.py, ``ladder``: cli/ladder_cmd.py, one body for every game).
HOOKED = frozenset(
    {"simulate", "play", "odds", "components_show", "train", "bench", "compare", "tournament",
     "sweep", "ladder"}
)  # fmt: skip
