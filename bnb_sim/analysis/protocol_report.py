"""``bnb report`` for a game served through the protocol: shared sections, then its own.

The shared sections depend on the protocol's outcome kind: a cooperative game gets the team
win rate (per policy label when a run holds several), a competitive one the win rate per
policy and per seat; every interval clusters by game index (a game's seats are one unit).
The game's :meth:`report_sections` (plain data: paragraphs and row tables) follow.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from bnb_sim.analysis.protocol_studies import COOPERATIVE, team_won


def _rate_rows(seats: pd.DataFrame, by: str) -> list[dict[str, Any]]:
    from bnb_sim.analysis.stats import clustered_rate
    from bnb_sim.analysis.tables import fmt_rate

    rows = []
    for key, part in seats.groupby(by, observed=True, sort=True):
        rate = clustered_rate(part["won"].to_numpy(dtype=float), part["game"].to_numpy())
        rows.append({by: str(key), "games": f"{rate.n:,}",
                     "win rate [95% CI]": fmt_rate(rate.rate, rate.lo, rate.hi),
                     "_rate": rate.to_dict()})  # fmt: skip
    return rows


def _table(section, rows: list[dict[str, Any]]) -> None:
    section.table(pd.DataFrame([{k: v for k, v in r.items() if not k.startswith("_")}
                                for r in rows]))  # fmt: skip


def shared_sections(game: Any, seats: pd.DataFrame, games: pd.DataFrame, meta: dict) -> list:
    """The win-rate sections every game gets (by the protocol's outcome kind)."""
    from bnb_sim.analysis.report import Section
    from bnb_sim.analysis.stats import clustered_rate
    from bnb_sim.analysis.tables import fmt_rate

    params = meta.get("params", {})
    intro = (f"{params.get('games', len(games)):,} games of {game.title}, "
             f"{params.get('players')} players, seed {params.get('seed')}; intervals are 95% "
             "and cluster by game index.")  # fmt: skip
    if game.outcome == COOPERATIVE:
        section = Section("Team win rate")
        won = team_won(seats, games)
        rate = clustered_rate(won, games["game"].to_numpy())
        indices = int(games["game"].nunique())
        unit = f" on {indices:,} game indices" if indices < rate.n else ""  # rows per index
        section.text(intro + f" The team won {fmt_rate(rate.rate, rate.lo, rate.hi)} "
                             f"(n = {rate.n:,}{unit}).")  # fmt: skip
        section.summary["team_win_rate"] = rate.to_dict()
        return [section]
    out = []
    for by, title in (("policy", "Win rate by policy"), ("seat", "Win rate by seat")):
        section = Section(title)
        rows = _rate_rows(seats, by)
        if by == "policy":
            section.text(intro)
        _table(section, rows)
        section.summary[f"win_rate_by_{by}"] = {r[by]: r["_rate"] for r in rows}
        out.append(section)
    return out


def to_section(data: Any):
    """The report :class:`~bnb_sim.analysis.report.Section` of a game's
    :class:`~bnb_sim.core.protocol.ReportSection` data: paragraphs, tables, then its blocks
    in order; ``summary`` as given."""
    from bnb_sim.analysis.report import Section

    section = Section(data.title)
    for text in data.paragraphs:
        section.text(text)
    for caption, rows in data.tables:
        section.table(pd.DataFrame(list(rows)), caption=caption or None)
    for block in data.blocks:
        if block.kind == "text":
            section.text(block.text)
        elif block.kind == "table":
            section.table(pd.DataFrame(list(block.rows)), caption=block.caption or None)
        elif block.kind == "figure":
            section.figure(block.name, block.figure, block.caption)
        else:
            section.warning(block.title, block.text)
    section.summary.update(dict(data.summary))
    return section


def findings_of(data: Any) -> list:
    """The key findings (:class:`~bnb_sim.analysis.report_builder.Finding`) a game's section
    data contributes (its ``findings``: ``{"text": ..., numbers...}`` mappings)."""
    from bnb_sim.analysis.report_builder import Finding

    return [Finding(str(f["text"]), {k: v for k, v in f.items() if k != "text"})
            for f in data.findings]  # fmt: skip


def game_sections(game: Any, seats, games, meta) -> tuple[list, list]:
    """The game's own sections (:class:`bnb_sim.core.protocol.ReportSection` data) as report
    sections, and the key findings they contribute."""
    sections, findings = [], []
    for data in game.report_sections(seats, games, meta):
        sections.append(to_section(data))
        findings += findings_of(data)
    return sections, findings


def write_report(game: Any, run_dir: str | Path, out_dir: str | Path, title: str | None = None):
    """Write report.md, report.html and summary.json of the run ``run_dir`` into ``out_dir``.

    The shared win-rate sections, the game's own sections (``meta["run_dir"]`` tells them the
    folder), then what other commands attached to the run folder, for every game: the
    findings of ``bnb sensitivity --attach`` and the section of ``bnb robustness --run``.
    """
    from bnb_sim.analysis.report import ReportBuilder
    from bnb_sim.analysis.robustness_report import run_section
    from bnb_sim.analysis.sensitivity_attach import sensitivity_run_findings
    from bnb_sim.runner.storage import load_run

    seats, games, meta = load_run(run_dir)
    meta = {**meta, "run_dir": str(run_dir)}
    builder = ReportBuilder(title or f"{game.title}: {Path(run_dir).resolve().name}",
                            subtitle=meta.get("command"))  # fmt: skip
    for section in shared_sections(game, seats, games, meta):
        builder.add(section)
    own, findings = game_sections(game, seats, games, meta)
    for section in own:
        builder.add(section)
    builder.findings += findings  # the answer first
    builder.findings += sensitivity_run_findings(run_dir)
    attached = run_section(run_dir)
    if attached is not None:
        builder.add(attached)
    builder.summary["game"] = game.name
    builder.summary["outcome"] = game.outcome
    return builder.write(out_dir)
