"""``bnb compare A B``: a paired-seed A/B test with SPRT or precision stopping, for every game.

A competitive game (Builders & Biomes, any registered one) is played by
:mod:`bnb_sim.runner.compare_play` (seat-swapped pairs or the same seat against a field); a
cooperative game's teams are compared in pairs of team games (:mod:`bnb_sim.cli.compare_team`).
The branch is on the protocol's outcome kind, never on a game's name.
"""

from __future__ import annotations

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.options import (
    components_option,
    defaults_of,
    game_option,
    game_options,
    other_game_handler,
    out_option,
    policy_options,
    yes_option,
)
from bnb_sim.cli.run_cmd import (
    echo_written,
    play_options,
    prepare_out,
    progress_printer,
    warm_and_meter,
)
from bnb_sim.errors import BnbError


@click.command("compare")
@game_option
@game_options("compare")
@click.argument("a", required=False)
@click.argument("b", required=False)
@policy_options(help="A and B as options instead of arguments: --policy A --policy B.")
@policy_options(
    flag="--opponent",
    alias="--opponents",
    dest="opponents",
    help="Play A and B, in turn, in the same seat against these opponents (repeat per "
    "opponent; 2-4 players). Default: A vs B head-to-head with the seats swapped.",
)
@click.option(
    "--players",
    type=click.IntRange(2, 4),
    default=None,
    help="Players with --opponent (opponents are cycled). Default: 1 + opponents.",
)
@click.option(
    "--sprt",
    nargs=2,
    type=float,
    default=None,
    metavar="ELO0 ELO1",
    help="Sequential probability ratio test: H0 elo <= ELO0 vs H1 elo >= ELO1 (A - B).",
)
@click.option(
    "--precision",
    type=float,
    default=None,
    metavar="H",
    help="Stop when the 95% half-width of the win-rate difference is at most H (0.02 = 2 pp).",
)
@click.option("--alpha", type=float, default=0.05, show_default=True, help="SPRT type-I error.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="SPRT type-II error.")
@click.option(
    "--max-games",
    type=click.IntRange(4, 100_000_000),
    default=200_000,
    show_default=True,
    help="Stop after this many games (A's and B's together) if no decision was reached.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@out_option(None, "Also write a report (md, html, summary.json) into this folder.")
@components_option
@play_options
@yes_option
def compare(
    a,
    b,
    policies,
    opponents,
    players,
    sprt,
    precision,
    alpha,
    beta,
    max_games,
    as_json,
    out,
    components,
    seed,
    threads,
    readings,
    quiet,
    yes,
    game=None,
    **game_specific,
) -> None:
    """Is policy A better than policy B? Both play the same seeds (same deal, same dice), the
    seats swapped or the same seat against the same opponents; the run stops by the SPRT
    decision, the precision target or --max-games, and prints the verdict, the difference
    with its 95% interval, n and the stopping reason."""
    named = policies if policies is not None and a is None and len(policies) == 2 else (a, b)
    ctx = click.get_current_context()
    if other_game_handler(ctx, "compare", game, a=named[0], b=named[1], opponents=opponents):
        return  # a game's own compare entry (none of the games in bnb_sim declares one)
    from bnb_sim.cli.game_hooks import protocol_game

    if protocol_game(game).outcome == "cooperative":  # team pairs: A's team, B's team
        from bnb_sim.cli.compare_team import team_compare

        params = {name: value for name, value in ctx.params.items() if not name.startswith("_")}
        params.update(a=named[0], b=named[1], opponents=opponents)
        team_compare(**params, defaults=defaults_of(ctx))
        return
    from bnb_sim.analysis.compare import (
        build_compare_report,
        compare_summary,
        format_result,
        make_rule,
    )
    from bnb_sim.analysis.report_builder import _jsonable
    from bnb_sim.analysis.tournament_schedule import split_policy_list
    from bnb_sim.runner.budget import confirm_games
    from bnb_sim.runner.compare_play import check_policies, run_compare
    from bnb_sim.runner.design_play import design_readings

    # bad input fails before any game is played or any folder is made
    if policies is not None:
        if a is not None or len(policies) != 2:
            raise BnbError("compare: give A and B as two arguments or as --policy A --policy B")
        a, b = policies
    if a is None or b is None:
        raise BnbError("compare: name the two policies: bnb compare A B (or --policy A --policy B)")
    make_rule(tuple(sprt) if sprt else None, precision, alpha, beta)
    if not sprt:  # --alpha/--beta set the SPRT's errors only; silently ignored they mislead
        for name in ("alpha", "beta"):
            if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE:
                raise BnbError(f"compare: --{name} applies to --sprt only (--precision uses 95%)")
    confirm_games(max_games, "compare", yes=yes)
    opponent_list = split_policy_list(opponents) if opponents else []
    options = game_option_values(game, game_specific)
    check_policies([a, b, *opponent_list], players=players, game=game.name, options=options)
    if not opponent_list and players not in (None, 2):
        raise BnbError("compare: a head-to-head comparison (no --opponent) has 2 players")
    if opponent_list and players is not None and len(opponent_list) > players - 1:
        raise BnbError(f"compare: {len(opponent_list)} opponents do not fit {players} players")
    design = "rotate" if opponent_list else "fixed"
    design_readings(readings, None, seating=design, what="compare", game=game.name)
    if out is not None:
        prepare_out(out)
    with warm_and_meter(
        quiet or as_json,
        [players or (len(opponent_list) + 2 if opponent_list else 2)],
        game=game.name,
    ):
        result = run_compare(
            a,
            b,
            opponents=opponent_list,
            players=players,
            sprt=tuple(sprt) if sprt else None,
            precision=precision,
            alpha=alpha,
            beta=beta,
            max_games=max_games,
            seed=seed,
            components=components,
            readings=readings,
            threads=threads,
            progress=progress_printer(quiet or as_json),
            yes=yes,
            game=game.name,
            options=options,
        )
    if as_json:
        click.echo(jsonsafe.dumps(_jsonable(compare_summary(result)), indent=2))
    else:
        click.echo(format_result(result))
    if out is not None:
        written = build_compare_report(result).write(out)
        if not as_json:
            echo_written(written)


def game_option_values(game, params: dict) -> dict:
    """The game's own options given on the command line (``--goal`` of a game that declares
    it as :class:`~bnb_sim.core.protocol.OptionSpec` data), for its ``make_config``."""
    from bnb_sim.cli.game_hooks import protocol_game
    from bnb_sim.cli.protocol_cmds import option_values

    values = option_values(protocol_game(game), params)
    return {name: value for name, value in values.items() if value is not None}
