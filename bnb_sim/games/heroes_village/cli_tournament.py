"""``bnb tournament --game hotv``: team policies ranked by team win rate on the same game
indices, with paired differences to the best and Holm-adjusted McNemar p values.
"""

from __future__ import annotations

from pathlib import Path

import click

from bnb_sim import jsonsafe
from bnb_sim.errors import BnbError, SpecError
from bnb_sim.games.heroes_village.cli_common import _components


def tournament(
    *, policies=(), players=2, games=1000, components=None, seed=0, threads=None, quiet=False,
    out=None, as_json=False, yes=False, pets=None, difficulty=None, buildings=None,
    reading=(), defaults=frozenset(), **_ignored,
) -> None:  # fmt: skip
    """``bnb tournament --game hotv``: team policies ranked on the same game indices.

    The game is cooperative, so there are no tables of rivals: every entrant plays every
    seat, on games 0..N-1 (paired); the report ranks them by team win rate, with each one's
    paired difference to the best and the exact McNemar p value."""
    import pandas as pd

    from bnb_sim.analysis.leaders import holm, paired_ranking
    from bnb_sim.analysis.report import ReportBuilder, Section
    from bnb_sim.analysis.stats import Rate, mcnemar
    from bnb_sim.analysis.tables import fmt_rate, fmt_signed_pp
    from bnb_sim.analysis.tournament_schedule import split_policy_list
    from bnb_sim.games.heroes_village.runner import make_config, play_block
    from bnb_sim.runner.budget import confirm_games

    specs = split_policy_list(list(policies or ()))
    if len(specs) < 2:
        raise BnbError("tournament --game hotv: name at least two team policies with --policy")
    if len(set(specs)) != len(specs):
        raise BnbError("tournament --game hotv: an entrant is listed twice")
    if pets == "all":
        raise SpecError("tournament --game hotv: give one pet team (simulate --pets all ranks "
                        "the pet teams)")  # fmt: skip
    comps = _components(components, reading)
    configs = {spec: make_config(comps, players, [spec], pets, difficulty or "standard",
                                 buildings, seed) for spec in specs}  # fmt: skip
    confirm_games(len(specs) * games, "tournament --game hotv", yes=yes)
    if out is not None:
        from bnb_sim.cli.run_cmd import prepare_out

        prepare_out(Path(out))
    won = {}
    for spec, cfg in configs.items():
        parts = []
        for start in range(0, games, 50_000):
            parts.append(play_block(cfg, start, min(50_000, games - start), threads)[1]["won"])
        won[spec] = pd.concat(parts).to_numpy(bool)
        if not quiet and not as_json:
            click.echo(f"  {spec}: {Rate.from_bools(won[spec])}", err=True)
    ranking = paired_ranking({spec: won[spec] for spec in specs})
    order, best, leader = ranking.order, ranking.order[0], ranking.leader
    mc = {spec: mcnemar(won[spec], won[best])["p_value"] for spec in order[1:]}
    mc_holm = dict(zip(order[1:], holm([mc[s] for s in order[1:]]), strict=True))
    rows, summary = [], []
    for spec in order:
        r = Rate.from_bools(won[spec])
        d = ranking.vs_top.get(spec)
        rows.append({"policy": spec, "games": f"{r.n:,}",
                     "team win rate [95% CI]": fmt_rate(r.rate, r.lo, r.hi),
                     "vs best, paired [95% CI]": leader.label() if d is None
                     else fmt_signed_pp(d["mean_diff"], d["lo"], d["hi"]),
                     "McNemar p (Holm)": "" if d is None
                     else f"{mc_holm[spec]:.3g}"})  # fmt: skip
        vs_best = None if d is None else {k: d[k] for k in ("mean_diff", "lo", "hi")}
        summary.append({"policy": spec, "win_rate": r.to_dict(), "vs_best": vs_best,
                        "mcnemar_p": mc.get(spec),
                        "mcnemar_p_holm": mc_holm.get(spec)})  # fmt: skip
    team = ",".join(configs[best].teams[0])
    text = (f"Heroes of the Village, {configs[best].n_players} players, pets {team}, "
            f"{configs[best].difficulty}: {len(specs)} team policies, each in every seat, on "
            f"game indices 0..{games - 1} (paired), seed {seed}")  # fmt: skip
    table = pd.DataFrame(rows)
    if out is not None:
        section = Section("Team policies")
        section.text(text + ". Paired differences: t intervals over game indices; McNemar: "
                     "the exact test of the discordant games. The first row is ranked first "
                     f"on these games: {ranking.selected_note()}.")  # fmt: skip
        section.table(table)
        section.summary["ranking"] = summary
        section.summary["leader"] = leader.to_dict()
        builder = ReportBuilder("Heroes of the Village: team policies")
        builder.add(section)
        claim = leader.claim(f"is the best team policy, {rows[0]['team win rate [95% CI]']}")
        builder.finding(f"{claim[0].upper()}{claim[1:]} (n = {games:,} paired games).",
                        kind="tournament", best=leader.to_dict()["best"],
                        ranked_first=best)  # fmt: skip
        written = builder.write(out)
    if as_json:
        click.echo(jsonsafe.dumps({"game": "heroes_village", "players": configs[best].n_players,
                               "pets": list(configs[best].teams[0]), "games": games,
                               "ranking": summary, "leader": leader.to_dict()}, indent=2,
                              default=float))  # fmt: skip
        return
    click.echo(text + ":")
    click.echo(table.to_string(index=False))
    click.echo(leader.claim("is the best team policy", name=str) + ".")
    if out is not None:
        click.echo(f"report: {written['html']}")
