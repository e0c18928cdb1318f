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


class OutPath(click.Path):
    """A folder path that must not be empty: ``--out ''`` would silently mean "."."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail("must not be empty", param, ctx)
        return super().convert(value, param, ctx)


def out_option(default: str | None, help: str):
    """Decorator: ``--out/-o FOLDER`` -> an ``out`` argument (a ``Path``, or None)."""
    return click.option(
        "--out",
        "-o",
        type=OutPath(path_type=Path),
        default=None if default is None else Path(default),
        show_default=default is not None,
        help=help,
    )


def readings_option(func):
    """Decorator: ``--reading NAME=VALUE`` (repeatable) -> a ``reading`` tuple of strings."""
    return click.option(
        "--reading",
        "reading",
        metavar="NAME=VALUE",
        multiple=True,
        help="A rule reading, e.g. --reading hunger=one-by-one (repeatable; `bnb readings` "
        "lists every reading, its values and its default).",
    )(func)


def cli_readings(reading: tuple[str, ...], **aliases) -> dict[str, str]:
    """The readings a command was given: ``--reading`` assignments plus the alias flags
    (``aliases``: flag label such as ``--variant`` -> value or None). A flag that
    contradicts a ``--reading`` of the same name is a one-line error."""
    from bnb_sim import readings as R

    given = R.parse_assignments(reading)
    R.resolve(given, aliases=aliases)  # raises on a contradiction
    out = dict(given)
    for label, value in aliases.items():
        if value is not None:
            name = R.ALIASES[label]
            out[name] = R.check_value(name, value)
    return out


def yes_option(func):
    """Decorator: ``--yes`` -> a ``yes`` argument (play more games than the threshold)."""
    return click.option(
        "--yes",
        is_flag=True,
        help="Play even if the command's games in all are more than 100,000,000 "
        "(counted before anything plays).",
    )(func)
