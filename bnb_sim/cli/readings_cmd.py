"""``bnb readings``: every rule reading, its values, its default and the rule it interprets.

Pure Python (no numba): each game's table lives with the game, which offers it through the
protocol's ``readings`` hook (:data:`bnb_sim.core.protocol.HOOKS`); a game without readings
says so in one line.
"""

from __future__ import annotations

import textwrap

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.options import game_option


@click.command("readings")
@click.argument("name", required=False)
@game_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def readings(name: str | None, game, as_json: bool) -> None:
    """List the rule readings (or show one, NAME): where a reasonable player could read the
    rules another way, the run chooses. Set one with --reading NAME=VALUE on play, simulate,
    tournament, compare, sweep, bench and tune, readings={...} in the Python API, or a [readings]
    table in an experiment file. --game hotv lists the Heroes of the Village readings (set with
    --reading, or in a component file's [readings] table)."""
    from bnb_sim.cli.game_hooks import need_hook, protocol_game

    proto = protocol_game(game)
    table = need_hook(proto, "readings", "rule readings (bnb readings)")
    chosen = list(table(name or None))
    flags = _flags(proto)
    if as_json:
        rows = [{**r.to_dict(), "flags": flags.get(r.name, [])} for r in chosen]
        click.echo(jsonsafe.dumps({"readings": rows}, indent=2))
        return
    lines = []
    for r in chosen:
        lines.append(f"{r.name}  ({r.rule}): {r.summary}")
        for value, meaning in r.values.items():
            mark = "*" if value == r.default else " "
            head = f"  {mark} {value:<11s} "
            wrapped = textwrap.wrap(meaning, 96 - len(head)) or [""]
            lines.append(head + wrapped[0])
            lines += [" " * len(head) + more for more in wrapped[1:]]
        if r.per_player:
            lines.append("    (one value, or one per player separated by commas)")
        if r.name in flags:
            lines.append(f"    also set with {', '.join(flags[r.name])}")
        lines += textwrap.wrap(
            f"default {r.default}: {r.why_default}", 96, initial_indent="    ",
            subsequent_indent="    ",
        )  # fmt: skip
        lines.append("")
    lines.append("* = default. Set with --reading NAME=VALUE (repeatable).")
    click.echo("\n".join(lines))


def _flags(game) -> dict[str, list[str]]:
    """The game's shorter flags of each reading (its ``reading_flags``): ``--variant VALUE``,
    ``--fixed-seats (= fixed)``."""
    out: dict[str, list[str]] = {}
    for option in getattr(game, "reading_flags", ()):
        shown = (
            f"{option.flags[0]} (= {option.sets})" if option.sets else f"{option.flags[0]} VALUE"
        )
        out.setdefault(option.reading, []).append(shown)
    return out
