"""Options shared by several commands.

``@components_option`` adds ``--components FILE`` (repeatable: files apply in order over the
defaults) and passes the loaded :class:`~bnb_sim.components.Components` to the command as
``components``. Nothing is imported until the command runs, so ``bnb --help`` stays cheap; a
bad file raises :class:`~bnb_sim.errors.ComponentError`, which ``bnb_sim.cli.main`` prints as
one line with exit code 2.
"""

from __future__ import annotations

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
