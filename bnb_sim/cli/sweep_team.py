"""``bnb sweep`` of a cooperative game (the protocol's outcome kind ``"cooperative"``): the
same games under each value, the team win rate per variant, paired against the first
variant (the component file's values). A competitive game's sweep is
:mod:`bnb_sim.runner.sweep_play`'s (:mod:`bnb_sim.cli.sweep_cmd` chooses by the outcome).
"""

from __future__ import annotations

import click

from bnb_sim import jsonsafe


def team_sweep(*, game, sets, zip_mode=False, games=2000, players=None, policies=None,
               components=None, seed=0, threads=None, quiet=False, out=None, as_json=False,
               yes=False, reading=(), defaults=frozenset(), **rest) -> None:  # fmt: skip
    """``bnb sweep --game NAME --set PATH=V1,V2`` of a cooperative game: variants by the
    game's ``sweep_variants`` hook (else dotted paths into mapping components), each
    variant's team win rate and its paired difference from the first variant's."""
    from bnb_sim.analysis import protocol_studies as S
    from bnb_sim.analysis.protocol_text import sweep_table, team_sweep_report
    from bnb_sim.analysis.sweep import parse_set_option
    from bnb_sim.cli.protocol_cmds import (
        command_components,
        option_values,
        prepare_folder,
        protocol_of,
    )
    from bnb_sim.runner.budget import confirm_games

    proto = protocol_of(game)
    comps = command_components(proto, components, reading)
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
    prepare_folder(out)
    result = S.sweep(proto, comps, variants, list(policies), players=players, games=games,
                     seed=seed, options=option_values(proto, rest), threads=threads)  # fmt: skip
    scores = result.pop("_scores")
    if not (quiet or as_json):
        for row in result["variants"]:
            rates = ", ".join(f"{k} {100 * v['rate']:.1f}%" for k, v in row["win_rates"].items())
            click.echo(f"  {row['variant']}: {rates}", err=True)
    table = sweep_table({label: s.astype(bool) for label, s in scores.items()})
    head = (f"{proto.title}, {result['setting']}, policies {', '.join(policies)}, "
            f"{games:,} games per variant on the same game indices (paired).")  # fmt: skip
    if out is not None:
        written = team_sweep_report(proto, comps, parsed, result, head, table).write(out)
    if as_json:
        click.echo(jsonsafe.dumps(result, indent=2, default=float))
        return
    click.echo(table.to_string(index=False))
    if out is not None and not quiet:
        click.echo(f"report: {written['html']}")
