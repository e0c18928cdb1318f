"""``bnb components``: show or validate component data with its provenance.

Imports neither numba nor numpy: it reads and checks TOML only.
"""

from __future__ import annotations

from pathlib import Path

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.options import (
    components_option,
    expansion_option,
    game_option,
    other_game_handler,
)


@click.group("components")
def components() -> None:
    """Show or validate component data (hearts, XP, costs) with provenance."""


@components.command("show")
@game_option
@components_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")
def show(components, as_json: bool, game=None) -> None:
    """Print the component data; estimated values are marked with ~."""
    if other_game_handler(click.get_current_context(), "components_show", game):
        return
    from bnb_sim.cli.game_hooks import need_hook, protocol_game

    tables = need_hook(protocol_game(game), "component_tables", "component tables")
    if as_json:
        click.echo(jsonsafe.dumps(components.to_json_dict(), indent=2))
        return
    click.echo("\n".join(tables(components)))


@components.command("validate")
@game_option
@expansion_option
@click.argument("file", metavar="FILE")
def validate(file: str, game=None) -> None:
    """Check FILE (a complete file or an override of the defaults), as --components FILE
    reads it: with --expansion, over the expansion's data; with --game, another game's."""
    from bnb_sim.cli.options import _EXPANSION, _load
    from bnb_sim.errors import ComponentError

    ctx = click.get_current_context()
    try:
        comps = _load(ctx, None, (file,))
    except ComponentError as exc:
        if ctx.meta.get(_EXPANSION) is None and exc.key.startswith("farmers_market"):
            hint = "a Farmer's Market file? check it with --expansion farmers-market"
            raise ComponentError(exc.file, exc.key, f"{exc.problem} ({hint})") from None
        raise
    missing = sum(not e.has_range for e in comps.estimate_ranges())
    note = f", {missing} without a plausible range" if missing else ""
    click.echo(f"{file}: valid ({comps.n_estimates} estimated values{note})")


@components.command("template")
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Write the file here instead of printing it.",
)
@click.option("--force", "-f", is_flag=True, help="Replace --out if it exists.")
def template(out: Path | None, force: bool) -> None:
    """Print a commented, valid override file to start from (edit it to your box's values)."""
    from bnb_sim.cli.options import _FORCE, write_template

    click.get_current_context().meta[_FORCE] = force
    write_template("components.toml", out)
