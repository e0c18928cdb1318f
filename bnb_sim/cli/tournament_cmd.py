"""``bnb tournament``: a round robin on paired seeds with Bradley-Terry ratings and a report."""

from __future__ import annotations

import click

from bnb_sim.cli.options import (
    components_option,
    game_option,
    game_options,
    json_option,
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


@click.command("tournament")
@game_option
@game_options("tournament")
@policy_options(help="An entrant, repeat for each (at least 2), e.g. --policy heuristic.")
@click.option(
    "--players", type=click.IntRange(2, 4), default=2, show_default=True, help="Seats per table."
)
@click.option(
    "--games",
    type=click.IntRange(2, 10_000_000),
    default=1000,
    show_default=True,
    help="Seeds: every seating of every table plays game indices 0..N-1 (at least 2, for "
    "the bootstrap over seeds).",
)
@click.option(
    "--bootstrap",
    type=click.IntRange(0, 100_000),
    default=200,
    show_default=True,
    help="Bootstrap resamples (over seeds) for the rating intervals.",
)
@click.option(
    "--anchor",
    default="auto",
    show_default=True,
    help="Policy pinned to Elo 0; 'auto' = random when it plays, 'none' = mean 0.",
)
@components_option
@play_options
@out_option("reports/tournament", "Report folder (created if needed).")
@json_option
@yes_option
def tournament(
    policies,
    players,
    games,
    bootstrap,
    anchor,
    components,
    seed,
    threads,
    readings,
    quiet,
    out,
    as_json,
    yes,
    game=None,
    **game_specific,
) -> None:
    """Every combination of PLAYERS policies, each in all its seatings on the same seeds; a
    head-to-head matrix, Bradley-Terry Elo ratings with bootstrap intervals over seeds, win
    rates with Wilson intervals, and a report."""
    ctx = click.get_current_context()
    if other_game_handler(ctx, "tournament", game, policies=policies):
        return
    from bnb_sim.cli.game_hooks import protocol_game

    proto = protocol_game(game)
    # a cooperative game: each entrant is a team policy in every seat, ranked by its team
    # win rate on the same games (bnb_sim.cli.tournament_team); else the round robin below
    if proto.outcome == "cooperative":
        from click.core import ParameterSource

        from bnb_sim.cli.tournament_team import team_tournament

        params = {k: v for k, v in ctx.params.items() if not k.startswith("_")}
        if ctx.get_parameter_source("players") is ParameterSource.DEFAULT:
            params["players"] = None  # the game's own count, as its compare, sweep and ladder
        team_tournament(**params, policies=policies)
        return
    from bnb_sim.cli.protocol_cmds import option_values

    _competitive(
        proto.name,
        policies,
        players,
        games,
        bootstrap=bootstrap,
        anchor=anchor,
        components=components,
        seed=seed,
        threads=threads,
        readings=readings,
        quiet=quiet,
        out=out,
        as_json=as_json,
        yes=yes,
        options={k: v for k, v in option_values(proto, game_specific).items() if v is not None},
    )


def _competitive(
    game, policies, players, games, *, bootstrap, anchor, components, seed, threads, readings,
    quiet, out, as_json, yes, options
) -> None:  # fmt: skip
    """The round robin of a competitive ``game`` (a registered name) with its ``options``."""
    from bnb_sim.analysis.ratings import _fmt_elo
    from bnb_sim.analysis.stats_intervals import pct_digits
    from bnb_sim.analysis.table_format import fmt_rate
    from bnb_sim.analysis.tournament_report import build_tournament_report
    from bnb_sim.analysis.tournament_schedule import schedule, split_policy_list
    from bnb_sim.errors import BnbError
    from bnb_sim.runner.budget import confirm_games, tournament_games
    from bnb_sim.runner.design_play import design_readings
    from bnb_sim.runner.tournament_play import entrant_labels, run_tournament

    if not policies:
        raise BnbError("tournament: name the entrants with --policy (repeat it) or --policies")
    specs = split_policy_list(policies)
    labels = entrant_labels(specs, players, game, options=options)
    schedule(labels, players)  # bad input fails before play
    entrant_labels(specs, players, game, distinct="tournament", options=options)
    design_readings(readings, None, seating="fixed", what="tournament", game=game)
    confirm_games(tournament_games(len(specs), players, games), "tournament", yes=yes)
    prepare_out(out)
    with warm_and_meter(quiet, [players], game=game):
        result = run_tournament(
            specs,
            players,
            games,
            seed=seed,
            components=components,
            readings=readings,
            threads=threads,
            n_boot=bootstrap,
            anchor=None if anchor == "none" else anchor,
            progress=progress_printer(quiet),
            yes=yes,
            game=game,
            options=options,
        )
    if as_json:
        echo_written(build_tournament_report(result).write(out), as_json=True)
        return
    zero = f"{result.anchor} = 0" if result.anchor else "mean 0"
    click.echo(
        f"tournament: {len(result.policies)} policies, {players} players, "
        f"{result.seeds:,} seeds per seating, {result.n_games:,} games"
    )
    click.echo(
        f"Bradley-Terry Elo ({zero}), 95% bootstrap CI over seeds; win rates with 95% "
        "intervals clustered by seed:"
    )
    width = max(len(p) for p in result.policies)
    wr = result.win_rates
    digits = pct_digits(wr["lo"].to_numpy(float), wr["hi"].to_numpy(float))
    for row in result.ratings.itertuples():
        rate = result.win_rates.set_index("policy").loc[row.policy]
        click.echo(
            f"  {row.policy.ljust(width)}  {_fmt_elo(row.elo, row.lo, row.hi):>22}   "
            f"win rate {fmt_rate(rate['rate'], rate['lo'], rate['hi'], digits)} "
            f"n={int(rate['n']):,}"
        )
    echo_written(build_tournament_report(result).write(out))
