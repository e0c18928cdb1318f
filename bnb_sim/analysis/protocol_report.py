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
        section.text(intro + f" The team won {fmt_rate(rate.rate, rate.lo, rate.hi)} "
                             f"(n = {rate.n:,}).")  # fmt: skip
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


def game_sections(game: Any, seats, games, meta) -> list:
    """The game's own sections (:class:`bnb_sim.core.protocol.ReportSection` data)."""
    from bnb_sim.analysis.report import Section

    out = []
    for data in game.report_sections(seats, games, meta):
        section = Section(data.title)
        for text in data.paragraphs:
            section.text(text)
        for caption, rows in data.tables:
            section.table(pd.DataFrame(list(rows)), caption=caption or None)
        section.summary.update(dict(data.summary))
        out.append(section)
    return out


def write_report(game: Any, run_dir: str | Path, out_dir: str | Path, title: str | None = None):
    """Write report.md, report.html and summary.json of the run ``run_dir`` into ``out_dir``."""
    from bnb_sim.analysis.report import ReportBuilder
    from bnb_sim.runner.storage import load_run

    seats, games, meta = load_run(run_dir)
    builder = ReportBuilder(title or f"{game.title}: {Path(run_dir).resolve().name}")
    for section in [*shared_sections(game, seats, games, meta),
                    *game_sections(game, seats, games, meta)]:  # fmt: skip
        builder.add(section)
    builder.summary["game"] = game.name
    builder.summary["outcome"] = game.outcome
    return builder.write(out_dir)
