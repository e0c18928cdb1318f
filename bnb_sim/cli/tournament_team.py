"""``bnb tournament`` of a cooperative game (``outcome == "cooperative"``): each entrant is a
team policy that plays every seat, all on the same game indices (paired), ranked by its team
win rate, with paired differences to the best and the exact McNemar test, Holm-adjusted
(:func:`bnb_sim.analysis.protocol_studies.tournament`; the table and words:
:func:`bnb_sim.analysis.protocol_text.team_tournament_report`). A competitive game's round
robin is :mod:`bnb_sim.cli.tournament_cmd`'s own.
"""

from __future__ import annotations

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.protocol_cmds import command_components, option_values, prepare_folder, protocol_of


def team_tournament(*, game, policies=(), players=None, games=1000, components=None, seed=0,
                    threads=None, out=None, as_json=False, yes=False, reading=(),
                    **rest) -> None:  # fmt: skip
    """``bnb tournament --game NAME`` of a cooperative game: the command's parsed options
    (``rest``: the game's own, e.g. its pets, and those it leaves alone)."""
    from bnb_sim.analysis import protocol_studies as S
    from bnb_sim.analysis.protocol_text import team_tournament_report
    from bnb_sim.analysis.tournament import split_policy_list
    from bnb_sim.runner.budget import confirm_games

    proto = protocol_of(game)
    entrants = split_policy_list(list(policies or ()))
    comps = command_components(proto, components, reading)
    confirm_games(games * max(1, len(S.tables(proto, entrants, players)) if len(entrants) > 1
                              else 1), f"tournament --game {proto.name}", yes=yes)  # fmt: skip
    if len(entrants) > 1:
        prepare_folder(out)
    result = S.tournament(proto, comps, entrants, players=players, games=games, seed=seed,
                          options=option_values(proto, rest), threads=threads)  # fmt: skip
    lines, builder = team_tournament_report(proto.title, result, games=games, seed=seed)
    if out is not None:
        written = builder.write(out)
    if as_json:
        click.echo(jsonsafe.dumps(result, indent=2, default=float))
        return
    click.echo("\n".join(lines))
    if out is not None:
        click.echo(f"report: {written['html']}")
