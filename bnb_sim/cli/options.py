"""Options shared by several commands.

``@out_option(default, help)`` adds ``--out/-o FOLDER`` (a ``Path``) for the commands that write
a report folder.

``@components_option`` adds ``--components FILE`` (repeatable: files apply in order over the
defaults) and passes the loaded :class:`~bnb_sim.components.Components` to the command as
``components``. Nothing is imported until the command runs, so ``bnb --help`` stays cheap; a
bad file raises :class:`~bnb_sim.errors.ComponentError`, which ``bnb_sim.cli.main`` prints as
one line with exit code 2.
"""

from __future__ import annotations

from pathlib import Path

import click


def _load(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]):
    if ctx.resilient_parsing:  # shell completion: do not read files
        return None
    game = ctx.meta.get("bnb.game")  # set by an eager --game option
    if game is not None:
        return game.entry("load_components")(list(value))
    from bnb_sim.components import load_components

    return load_components(list(value))


def components_option(func):
    """Decorator: ``--components FILE`` -> a ``components`` argument (a Components object)."""
    return click.option(
        "--components",
        "components",
        metavar="FILE",
        multiple=True,
        callback=_load,
        help="Component data (TOML): a complete file, or an override of the defaults "
        "(repeat to stack overrides). Default: the built-in data with its estimates.",
    )(func)


def out_option(default: str | None, help: str):
    """Decorator: ``--out/-o FOLDER`` -> an ``out`` argument (a ``Path``, or None)."""
    return click.option(
        "--out",
        "-o",
        type=click.Path(path_type=Path),
        default=None if default is None else Path(default),
        show_default=default is not None,
        help=help,
    )


def _remember_game(ctx: click.Context, param: click.Parameter, value: str | None):
    """Resolve ``--game`` early (it is eager), so ``--components`` loads that game's data."""
    if ctx.resilient_parsing:
        return value
    from bnb_sim.games import get_game

    spec = get_game(value)
    ctx.meta["bnb.game"] = spec
    return spec


def game_option(func):
    """Decorator: ``--game NAME`` -> a ``game`` argument (a ``bnb_sim.games.GameSpec``)."""
    return click.option(
        "--game",
        "game",
        metavar="NAME",
        default=None,
        is_eager=True,
        callback=_remember_game,
        help="The game: builders-biomes (default) or heroes-of-the-village (alias hotv).",
    )(func)


def game_options(command: str):
    """Decorator: the options that registered games add to ``command`` (entry point
    ``options:<command>`` of each game)."""

    def decorate(func):
        from bnb_sim.games import GAMES

        for spec in GAMES.values():
            add = spec.entry(f"options:{command}")
            if add is not None:
                func = add(func)
        return func

    return decorate


def other_game_handler(ctx: click.Context, command: str, game) -> bool:
    """Run ``command`` with the handler of ``game`` if it declares one; True if it did.

    Options that belong only to another game are refused when they are given. The handler
    gets the command's options, and in ``defaults`` the names of those left at their default.
    """
    from bnb_sim.errors import BnbError
    from bnb_sim.games import GAMES

    foreign = {
        name: spec
        for spec in GAMES.values()
        if spec is not game
        for name in spec.options
        if name not in game.options
    }
    for name, spec in foreign.items():
        source = ctx.get_parameter_source(name) if name in ctx.params else None
        if source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP"):
            flag = "--" + name.replace("_", "-")
            raise BnbError(f"{flag} is an option of {spec.title}, not of {game.title}")
    handler = game.entry(command)
    if handler is None:
        return False
    defaults = frozenset(
        name
        for name in ctx.params
        if (src := ctx.get_parameter_source(name)) is None or src.name in ("DEFAULT", "DEFAULT_MAP")
    )
    handler(**ctx.params, defaults=defaults)
    return True
