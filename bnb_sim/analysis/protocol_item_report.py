"""The report sections of a :class:`~bnb_sim.analysis.protocol_item.ProtocolItem` (an
experiment item of a game served through the protocol): what ``bnb report`` says of its run,
or ``bnb compare|tournament|sweep --game NAME -o DIR`` of its study, titled by the item's name.

Each function returns ``(sections, summary, findings)``. What differs between the outcome
kinds is branched on ``game.outcome`` (through the item), never on a game's name.
"""

from __future__ import annotations

from typing import Any


def name_sections(sections: list, name: str, summary: dict) -> None:
    """Title, anchor and figure files of each section prefixed with the item's ``name`` (two
    items' figures never share a file); each section's summary merged into ``summary``."""
    from bnb_sim.analysis.report_builder import _slug

    for section in sections:
        section.title = f"{name}: {section.title}"
        section.anchor = _slug(section.title)
        for fig in section.figures:
            fig.name = _slug(f"{name}-{fig.name}")
        summary.update(section.summary)
        section.summary = {}


def simulation_report(item, result):
    """The sections of ``bnb report`` on the run (the shared win rates unless the game gives
    its own, then the game's), with the key findings they carry."""
    from bnb_sim.analysis.protocol_report import run_sections

    seats, games, meta = result
    sections, findings = run_sections(item.game_object, seats, games, meta)
    summary: dict[str, Any] = {"kind": "simulation", "game": item.game, "n_games": len(games)}
    name_sections(sections, item.name, summary)
    summary["params"] = meta.get("params", {})
    for finding in findings:  # the game's key findings, named by the item
        finding.text = f"{item.name}: {finding.text}"
    return sections, summary, findings


def team_compare_report(item, result):
    """A cooperative game's comparison: the section, summary and finding of ``bnb compare
    --game NAME -o DIR``."""
    from bnb_sim.analysis.protocol_text import compare_report as section_of
    from bnb_sim.analysis.report_builder import Finding

    title = item.game_object.title
    section, summary, found = section_of(title, result, f"{item.name}: {title} comparison")
    summary = {k: v for k, v in summary.items() if k != "compare"}
    finding = Finding(f"{item.name}: {found}", {"kind": "compare", "game": item.game,
                                                **summary["difference"]})  # fmt: skip
    return [section], summary, [finding]


def competitive_compare_report(item, result):
    """A competitive game's comparison: the section, summary and key finding of ``bnb
    compare -o DIR`` (:mod:`bnb_sim.analysis.compare`), named by the item, as the first
    game's ``[[compare]]`` item reports them."""
    from bnb_sim.analysis.compare import compare_findings, compare_sections, compare_summary

    summary = {**compare_summary(result), "game": item.game}
    findings = compare_findings(result, f"{item.name}: ")
    return compare_sections(result, item.name), summary, findings


def team_sweep_report(item, result):
    """A cooperative game's sweep: each variant's team win rate and its paired difference
    against the first variant (the table of ``bnb sweep --game NAME``), and the leader."""
    from bnb_sim.analysis.leaders import paired_ranking
    from bnb_sim.analysis.protocol_text import sweep_table
    from bnb_sim.analysis.report_builder import Finding, Section
    from bnb_sim.analysis.stats_intervals import Rate

    won = {label: s.astype(bool) for label, s in result["_scores"].items()}
    table = sweep_table(won)
    title = item.game_object.title
    section = Section(f"{item.name}: {title} component sweep")
    section.text(
        f"{title}, {result['setting']}, policies {', '.join(item.policies)}. {item.games:,} "
        "games per variant on the same game indices (paired); each variant's difference "
        "against the first variant (the component file's values) has a paired t interval."
    )
    section.table(table)
    variants = {label: Rate.from_bools(values).to_dict() for label, values in won.items()}
    summary = {"kind": "sweep", "game": item.game, "n_games": item.played(result),
               "variants": variants}  # fmt: skip
    leader = paired_ranking(won).leader
    best = leader.first
    shown = table.set_index("variant").loc[best, "win rate [95% CI]"]
    claim = leader.claim(f"gives the team its highest win rate, {shown}",
                         name=lambda s: f"`{s}`")  # fmt: skip
    summary["leader"] = leader.to_dict()
    finding = Finding(
        f"{item.name}: {claim}; n = {item.games:,} {title} games per variant, paired.",
        {"kind": "sweep", "game": item.game, "best": leader.to_dict()["best"],
         "ranked_first": best, **variants[best]},
    )  # fmt: skip
    return [section], summary, [finding]


def tournament_report(item, result):
    """A competitive game's round robin: the sections, summary and key findings of ``bnb
    tournament -o DIR`` (:mod:`bnb_sim.analysis.tournament_report`), named by the item."""
    from bnb_sim.analysis.tournament_report import (
        tournament_findings,
        tournament_sections,
        tournament_summary,
    )

    summary = {"game": item.game, **tournament_summary(result)}
    findings = tournament_findings(result, f"{item.name}: ")
    return tournament_sections(result, item.name), summary, findings


def competitive_sweep_report(item, result):
    """A competitive game's sweep: ``bnb sweep``'s sections, summary and findings, named by
    the item."""
    from bnb_sim.analysis.sweep_report import sweep_findings, sweep_sections, sweep_summary

    summary = {**sweep_summary(result), "game": item.game}
    return sweep_sections(result, item.name), summary, sweep_findings(result, f"{item.name}: ")


def text_report(item, result):
    """A tournament's ranking, in a few lines."""
    from bnb_sim.analysis.report_builder import Section

    result = {k: v for k, v in result.items() if not k.startswith("_")}
    section = Section(f"{item.name}: {item.game_object.title} {item.kind}")
    section.text(f"{item.what()}; {item.games_text()}; the same game indices for every "
                 "entrant (paired), 95% intervals.")  # fmt: skip
    summary: dict[str, Any] = {"kind": item.kind, "game": item.game, **result}
    for row in result["ranking"]:
        section.text(f"{row['policy']}: {100 * row['score']:.1f}% "
                     f"[{100 * row['lo']:.1f}, {100 * row['hi']:.1f}]")  # fmt: skip
    section.summary[item.kind] = result
    return [section], summary, []
