"""``bnb compare`` of a cooperative game (``bnb compare --game hotv team random``): A's team
and B's team on the same game indices, paired, with the exact McNemar test
(:func:`bnb_sim.analysis.protocol_studies.compare`; texts of
:mod:`bnb_sim.analysis.protocol_text`). :mod:`bnb_sim.cli.compare_cmd` sends a game here by
its outcome kind.
"""

from __future__ import annotations

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.protocol_cmds import (
    command_components,
    option_values,
    prepare_folder,
    protocol_of,
    refuse_unoffered,
)
from bnb_sim.errors import BnbError


def team_compare(*, game, a, b, players=None, sprt=None, alpha=0.05, beta=0.05,
                 precision=None, max_games=200_000, as_json=False, components=None, seed=0,
                 threads=None, quiet=False, opponents=None, yes=False, out=None, reading=(),
                 defaults=frozenset(), **rest) -> None:  # fmt: skip
    """``bnb compare --game NAME A B`` of a cooperative game: A and B on the same game
    indices (paired), each index a pair of team games (A's team, B's team)."""
    from bnb_sim.analysis import protocol_studies as S
    from bnb_sim.analysis.protocol_text import compare_builder, compare_lines
    from bnb_sim.runner.budget import confirm_games

    proto = protocol_of(game)
    refuse_unoffered("--opponent", opponents, proto)
    for name in ("alpha", "beta"):
        if not sprt and name not in defaults:
            raise BnbError(f"compare: --{name} applies to --sprt only")
    if a is None or b is None:
        raise BnbError("compare: name two policies, A and B")
    if sprt:
        from bnb_sim.analysis.compare import make_rule

        make_rule(tuple(sprt), None, alpha, beta)  # a bad rule is refused before any game
    comps = command_components(proto, components, reading)
    options = option_values(proto, rest)
    confirm_games(2 * max_games, f"compare --game {proto.name}", yes=yes)  # A's and B's teams
    prepare_folder(out)

    def say(n, diff):
        if not quiet and not as_json:
            click.echo(f"  {n:,} game indices: {100 * diff['mean_diff']:+.2f} pp", err=True)

    result = S.compare(proto, comps, a, b, players=players, seed=seed, options=options,
                       max_games=max_games, precision=precision, threads=threads,
                       progress=say, sprt=tuple(sprt) if sprt else None, alpha=alpha,
                       beta=beta)  # fmt: skip
    if out is not None:
        written = compare_builder(proto.title, result, seed).write(out)
    if as_json:
        click.echo(jsonsafe.dumps(result, indent=2, default=float))
        return
    click.echo("\n".join(compare_lines(proto.title, result)))
    if out is not None and not quiet:
        click.echo(f"report: {written['html']}")
