"""The text and report sections of ``bnb compare|tournament|sweep`` for a cooperative game
served through the protocol (the numbers come from :mod:`bnb_sim.analysis.protocol_studies`;
a competitive game's are the first game's, e.g. :mod:`bnb_sim.analysis.compare`).

The entrants are team policies measured by the team win rate (each with its n and 95%
interval), with the paired t interval of their difference and the exact McNemar test of the
discordant games. ``setting`` is the game's own description of a config (``describe`` in
:mod:`bnb_sim.core.protocol`), e.g. "3 players, pets wolf,cat,fox, standard".
"""

from __future__ import annotations

from typing import Any


def bound_note(diff: dict) -> str:
    """Why an interval of a paired difference is a bound (every game went the same way)."""
    if diff.get("note") != "all differences equal":
        return ""
    n = diff["n"]
    what = "A and B never differed" if diff["mean_diff"] == 0 else "every game differed alike"
    return f" ({what} in {n:,} games: the interval bounds how often it could be otherwise)"


def sprt_text(t: dict, a: str, b: str) -> str:
    """One sentence on an SPRT's outcome (``t`` = :meth:`SPRT.summary`): the test's state at
    its decision (n, LLR, Elo), what the decision means, and the games after it apart."""
    if t["decision"] == "H1":
        verdict = f"H1 accepted at {t['decision_n']:,} pairs: {a} is better ({t['meaning']})"
    elif t["decision"] == "H0":
        verdict = f"H0 accepted at {t['decision_n']:,} pairs: {a} is not shown to be better " \
                  f"by {t['elo1']:g} Elo ({t['meaning']})"  # fmt: skip
    else:
        verdict = "no decision"
    text = (f"SPRT [{t['elo0']:g}, {t['elo1']:g}] on the pair scores (1 + A - B)/2: {verdict}; "
            f"LLR {t['llr']:+.2f} in [{t['lower']:.2f}, {t['upper']:.2f}], pair-score Elo "
            f"{t['elo']:+.1f} [{t['elo_lo']:+.1f}, {t['elo_hi']:+.1f}] on {t['n']:,} pairs "
            "(not adjusted for the sequential stop).")  # fmt: skip
    x = t.get("after_decision")
    if x:
        text += (f" {x['pairs_after']:,} more pairs of the block were played after the "
                 "decision (not part of the test; every estimate above stops at it): on all "
                 f"{x['n']:,}, pair-score Elo {x['elo']:+.1f} [{x['elo_lo']:+.1f}, "
                 f"{x['elo_hi']:+.1f}], LLR {x['llr']:+.2f}.")  # fmt: skip
    return text


def _rate(d: dict) -> str:
    from bnb_sim.analysis.stats_intervals import Rate

    return str(Rate(**{k: d[k] for k in ("k", "n", "rate", "lo", "hi")}))


def compare_lines(title: str, result: dict[str, Any]) -> list[str]:
    """The lines ``bnb compare --game NAME`` prints (the first one with the stopping reason)."""
    from bnb_sim.analysis.table_format import fmt_signed_pp

    a, b, diff = result["a"], result["b"], result["difference"]
    shown = fmt_signed_pp(diff["mean_diff"], diff["lo"], diff["hi"]) + bound_note(diff)
    lines = [
        f"{title}, {result['setting']}: {result['game_indices']:,} paired games",
        f"  A {a}: {_rate(result['win_rate_a'])}",
        f"  B {b}: {_rate(result['win_rate_b'])}",
        f"  A - B: {shown} (paired t), McNemar p = {result['mcnemar']['p_value']:.3g}; "
        f"stopped by {result['stopped']}",
    ]
    if "sprt" in result:
        lines.append(f"  {sprt_text(result['sprt'], a, b)}")
    return lines


def compare_builder(title: str, result: dict[str, Any], seed: int):
    """The report of ``bnb compare -o DIR`` of a cooperative game (a ReportBuilder)."""
    from bnb_sim.analysis.report_builder import ReportBuilder

    builder = ReportBuilder(
        f"{title}: {result['a']} vs {result['b']}",
        f"{result['game_indices']:,} paired game indices · seed {seed}",
    )
    section, summary, finding = compare_report(title, result)
    builder.add(section)
    builder.summary.update(summary)
    builder.finding(finding, kind="compare", **summary["difference"])
    return builder


def compare_report(title: str, result: dict[str, Any], name: str = "Comparison"):
    """``(section, summary, finding_text)`` of a comparison (``bnb compare -o DIR``)."""
    import pandas as pd

    from bnb_sim.analysis.report_builder import Section
    from bnb_sim.analysis.table_format import fmt_signed_pp

    a, b, diff = result["a"], result["b"], result["difference"]
    shown = fmt_signed_pp(diff["mean_diff"], diff["lo"], diff["hi"]) + bound_note(diff)
    section = Section(name)
    section.text(
        f"Every seat plays A, then every seat plays B, on the same game indices (paired): "
        f"{result['game_indices']:,} pairs, {result['setting']}; stopped by "
        f"{result['stopped']}. The difference has a paired t interval; the p value is the "
        "exact McNemar test."
    )
    if "sprt" in result:
        section.text(sprt_text(result["sprt"], a, b))
    cells = [_rate(result["win_rate_a"]), _rate(result["win_rate_b"]), shown]
    section.table(pd.DataFrame({"policy": [f"A {a}", f"B {b}", "A - B (paired)"],
                                "team win rate [95% CI]": cells}))  # fmt: skip
    summary = {
        "kind": "compare", "game": result["game"], "outcome": result["outcome"],
        "n_games": int(result["games_played"]), "a": a, "b": b,
        "difference": {k: diff[k] for k in ("mean_diff", "lo", "hi") if k in diff},
        "stopped": result["stopped"], "compare": result,
    }  # fmt: skip
    found = f"{a} minus {b}: {shown} team win rate over {result['game_indices']:,} paired games"
    summary.update(win_rate_a=result["win_rate_a"], win_rate_b=result["win_rate_b"],
                   mcnemar_p=result["mcnemar"]["p_value"])  # fmt: skip
    found += f" (McNemar p = {result['mcnemar']['p_value']:.3g})"
    if "sprt" in result:
        summary["sprt"] = result["sprt"]
    return section, summary, found + "."


def tournament_table(result: dict[str, Any]):
    """The ranking table of a cooperative ``bnb tournament``: each team policy's games, team
    win rate, paired difference to the best and Holm-adjusted McNemar p value."""
    import pandas as pd

    from bnb_sim.analysis.table_format import fmt_rate, fmt_signed_pp

    leader, rows = result["_leader"], []
    for r in result["ranking"]:
        gap = r["vs_best"]
        vs_best = leader.label() if gap is None else fmt_signed_pp(
            gap["mean_diff"], gap["lo"], gap["hi"])  # fmt: skip
        w = r["win_rate"]
        rows.append({"policy": r["policy"], "games": f"{w['n']:,}",
                     "team win rate [95% CI]": fmt_rate(w["rate"], w["lo"], w["hi"]),
                     "vs best, paired [95% CI]": vs_best,
                     "McNemar p (Holm)": "" if gap is None
                     else f"{r['mcnemar_p_holm']:.3g}"})  # fmt: skip
    return pd.DataFrame(rows)


def team_tournament_report(title: str, result: dict[str, Any], *, games: int, seed: int):
    """``(lines, builder)`` of a cooperative tournament (``result``: of
    :func:`bnb_sim.analysis.protocol_studies.tournament`, which loses its ``_leader``): the
    lines ``bnb tournament`` prints and its report."""
    from bnb_sim.analysis.report_builder import ReportBuilder, Section

    leader = result["_leader"]
    table = tournament_table(result)
    del result["_leader"]
    n = len(result["ranking"])
    text = (f"{title}, {result['setting']}: {n} team policies, each in every seat, on game "
            f"indices 0..{games - 1} (paired), seed {seed}")  # fmt: skip
    verb = "is the best team policy"
    builder = ReportBuilder(f"{title}: tournament")
    section = builder.add(Section("Ranking"))
    section.text(
        f"{text}. Paired differences: t intervals over game indices; McNemar: the exact test "
        "of the discordant games, Holm-adjusted. The first row is ranked first on these "
        f"games: {result['selected']}."
    )
    section.table(table)
    section.summary.update(ranking=result["ranking"], leader=result["leader"],
                           tournament=result)  # fmt: skip
    claim = leader.claim(f"{verb}, {table.iloc[0]['team win rate [95% CI]']}")
    builder.finding(f"{claim[0].upper()}{claim[1:]} (n = {games:,} paired games).",
                    kind="tournament", best=result["leader"].get("best"),
                    ranked_first=result["ranking"][0]["policy"])  # fmt: skip
    lines = [text + ":", table.to_string(index=False), leader.claim(verb, name=str) + "."]
    return lines, builder


def sweep_table(won: dict):
    """The sweep's table: each variant's win rate and its paired difference against the
    first variant (the component file's values when the game puts them first)."""
    import pandas as pd

    from bnb_sim.analysis.stats import Rate, paired_difference
    from bnb_sim.analysis.tables import fmt_rate, fmt_signed_pp

    rows = []
    first = next(iter(won))
    reference = won[first]
    for label, values in won.items():
        r = Rate.from_bools(values)
        d = paired_difference(values.astype(float), reference.astype(float), bounds=(-1.0, 1.0))
        rows.append({"variant": label, "games": f"{r.n:,}",
                     "win rate [95% CI]": fmt_rate(r.rate, r.lo, r.hi),
                     "vs reference, paired [95% CI]": "(reference)" if label == first
                     else fmt_signed_pp(d["mean_diff"], d["lo"], d["hi"])})  # fmt: skip
    return pd.DataFrame(rows)


def team_sweep_report(proto, comps, parsed, result, head, table):
    """The report of a cooperative sweep: the table, the estimates warning (values that are
    estimates, where the components flag them), each variant's team win rate by label."""
    from bnb_sim.analysis.report_builder import ReportBuilder, Section

    paths = ", ".join(path for path, _ in parsed)
    builder = ReportBuilder(f"{proto.title}: sweep of {paths}")
    section = builder.add(Section("Variants"))
    section.text(head)
    section.table(table)
    if callable(getattr(comps, "estimates", None)):
        from bnb_sim.analysis.estimated import add_estimated_warning, estimates_meta

        add_estimated_warning(section, estimates_meta(comps, [p for p, _ in parsed]))
    section.summary["sweep"] = result
    section.summary["variants"] = {
        row["variant"]: row["win_rates"]["team"] for row in result["variants"]
    }
    return builder
