"""``bnb compare --game hotv A B``: the command's checks, its progress lines, its text or JSON
result and its ``-o DIR`` report; the paired play itself is
:func:`bnb_sim.games.heroes_village.paired_compare.compare_policies`.
"""

from __future__ import annotations

import click

from bnb_sim import jsonsafe
from bnb_sim.errors import BnbError, SpecError
from bnb_sim.games.heroes_village.cli_common import _components
from bnb_sim.games.heroes_village.paired_compare import (
    _bound_note,
    check_stopping,
    compare_policies,
    sprt_text,
)


def compare(
    *, a, b, players=None, sprt=None, alpha=0.05, beta=0.05, precision=None, max_games=200_000,
    as_json=False, components=None, seed=0, threads=None, quiet=False, pets=None,
    difficulty=None, buildings=None, opponents=None, yes=False, defaults=frozenset(),
    out=None, reading=(), **_ignored,
) -> None:  # fmt: skip
    """``bnb compare --game hotv A B``: two team policies on the same game indices (paired).

    Stops at ``--max-games`` paired games, or earlier once the 95% half-width of the paired
    win-rate difference is at most ``--precision``, or once ``--sprt ELO0 ELO1`` decides.
    """
    if opponents:
        raise BnbError("compare --game hotv: the players are a team; --opponents does not apply")
    if pets == "all":
        raise SpecError("compare --game hotv: give one pet team (simulate --pets all ranks them)")
    check_stopping(sprt, precision, alpha, beta, given={n for n in ("alpha", "beta")
                                                        if n not in defaults})  # fmt: skip
    from bnb_sim.runner.budget import confirm_games

    confirm_games(2 * max_games, "compare --game hotv", yes=yes)  # A's and B's games
    if out is not None:
        from bnb_sim.cli.run_cmd import prepare_out

        prepare_out(out)  # refused before any game is played

    def say(start, diff, rule=None):
        if not quiet and not as_json:
            llr = "" if rule is None else f", LLR {rule.llr:+.2f} in [{rule.lower:.2f}, " \
                                          f"{rule.upper:.2f}]"  # fmt: skip
            click.echo(f"  {start:,} paired games: {100 * diff['mean_diff']:+.2f} pp{llr}",
                       err=True)  # fmt: skip

    result = compare_policies(
        _components(components, reading), a, b, players=players, pets=pets,
        difficulty=difficulty,
        buildings=buildings, seed=seed, precision=precision, max_games=max_games,
        threads=threads, progress=say, sprt=sprt, alpha=alpha, beta=beta,
    )  # fmt: skip
    if out is not None:
        _write_compare_report(result, a, b, out, seed, quiet=quiet or as_json)
    if as_json:
        data = {k: v for k, v in result.items() if k not in ("rate_a", "rate_b")}
        click.echo(jsonsafe.dumps(data, indent=2, default=float))
        return
    from bnb_sim.analysis.tables import fmt_signed_pp

    team = ",".join(result["pets"])
    diff, test = result["difference"], result["mcnemar"]
    click.echo(f"Heroes of the Village, {result['players']} players, pets {team}, "
               f"{result['difficulty']}: {result['games']:,} paired games")  # fmt: skip
    click.echo(f"  A {a}: {result['rate_a']}")
    click.echo(f"  B {b}: {result['rate_b']}")
    shown = fmt_signed_pp(diff["mean_diff"], diff["lo"], diff["hi"]) + _bound_note(diff)
    click.echo(f"  A - B: {shown} (paired t), McNemar p = {test['p_value']:.3g}; "
               f"stopped by {result['stopped']}")  # fmt: skip
    if "sprt" in result:
        click.echo(f"  {sprt_text(result['sprt'], a, b)}")


def _write_compare_report(result, a: str, b: str, out, seed: int, quiet: bool) -> None:
    """``-o DIR``: the comparison's report (the same section as a ``[[compare]]`` item's)."""
    from bnb_sim.analysis.report import ReportBuilder
    from bnb_sim.cli.run_cmd import echo_written
    from bnb_sim.games.heroes_village.experiment import compare_report

    sections, summary, findings = compare_report(result, "comparison", a, b)
    builder = ReportBuilder(
        f"bnb-sim: Heroes of the Village comparison, {a} vs {b}",
        f"{result['games']:,} paired games · seed {seed}",
    )
    for section in sections:
        builder.add(section)
    builder.summary.update(summary)
    builder.findings += findings
    written = builder.write(out)
    if not quiet:
        echo_written(written)
