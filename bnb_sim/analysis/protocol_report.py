"""``bnb report`` of every game: shared sections, then the game's own.

The shared sections depend on the protocol's outcome kind: a cooperative game gets the team
win rate (per policy label when a run holds several), a competitive one the win rate per
policy and per seat; every interval clusters by game index (a game's seats are one unit).
The game's :meth:`report_sections` (plain data, :mod:`bnb_sim.analysis.report_data`)
follow. A game whose optional ``report_layout`` hook says ``own_win_rates`` gives its win
rates itself (Builders & Biomes: overview, win rates per policy, seat and board), and may
name the report, add standing notes and place the attached robustness section.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from bnb_sim.analysis.figure_scope import renders_figures
from bnb_sim.analysis.protocol_studies import COOPERATIVE, team_won
from bnb_sim.analysis.report_data import findings_of, to_section  # noqa: F401 (imported from here)


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
    from bnb_sim.analysis.report_builder import Section
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
        if by == "seat":
            _seat_figure(section, rows, params.get("players") or len(rows))
        section.summary[f"win_rate_by_{by}"] = {r[by]: r["_rate"] for r in rows}
        out.append(section)
    return out


def _seat_figure(section, rows: list[dict[str, Any]], players: int) -> None:
    """Each seat's win rate with its 95% interval against the fair share 1/players: a seat
    whose interval misses the line wins more (or less) often than an even game gives it."""
    from bnb_sim.analysis.plots import rate_bars

    rates = pd.DataFrame([r["_rate"] for r in rows])
    fig = rate_bars([f"seat {r['seat']}" for r in rows], {"win rate": rates},
                    "Win rate by seat", reference=1 / players,
                    reference_label=f"fair share 1/{players}")  # fmt: skip
    section.figure("win-rate-by-seat", fig, f"Win rate of each seat (bars: 95% intervals, "
                   f"clustered by game index); the dashed line is 1/{players}.")  # fmt: skip


def layout_of(game: Any, seats, games, meta):
    """The game's :class:`~bnb_sim.core.protocol.ReportLayout` (its optional
    ``report_layout`` hook), or the shared layout's defaults."""
    from bnb_sim.core.protocol import ReportLayout

    own = getattr(game, "report_layout", None)
    return own(seats, games, meta) if callable(own) else ReportLayout()


def game_sections(game: Any, seats, games, meta) -> tuple[list, list]:
    """The game's own sections (:class:`bnb_sim.core.protocol.ReportSection` data) as report
    sections, and the key findings they contribute."""
    sections, findings = [], []
    for data in game.report_sections(seats, games, meta):
        sections.append(to_section(data))
        findings += findings_of(data)
    return sections, findings


def run_sections(game: Any, seats, games, meta, layout=None) -> tuple[list, list]:
    """Every section of a run's report (the shared win rates unless the game gives its own,
    then the game's) and the key findings of the game's sections."""
    layout = layout or layout_of(game, seats, games, meta)
    shared = [] if layout.own_win_rates else shared_sections(game, seats, games, meta)
    own, findings = game_sections(game, seats, games, meta)
    return [*shared, *own], findings


#: Columns no report reads: the same on every row of a run (run.json has them).
UNREAD_COLUMNS = frozenset({"run_id", "seed"})


def read_run(run_dir: str | os.PathLike, game: Any = None):
    """``(seats, games, meta)`` of a run folder, verified, in little memory
    (:func:`bnb_sim.analysis.compact.load_for_report`: narrow integers, labels as
    categories), without the columns that ``game``'s report never reads (its optional
    ``report_unread``: ``{"seats": names, "games": names}``)."""
    from bnb_sim.analysis.compact import load_for_report

    unread = getattr(game, "report_unread", None) or {}
    skip_seats = UNREAD_COLUMNS | set(unread.get("seats", ()))
    skip_games = UNREAD_COLUMNS | set(unread.get("games", ()))
    return load_for_report(run_dir, seat_columns=lambda c: c not in skip_seats,
                           game_columns=lambda c: c not in skip_games)  # fmt: skip


def _placed(sections: list, attached, before: str) -> list:
    """``sections`` with the attached section before the one titled ``before`` (else last)."""
    if attached is None:
        return sections
    at = next((i for i, s in enumerate(sections) if before and s.title == before), len(sections))
    return [*sections[:at], attached, *sections[at:]]


@renders_figures()
def write_report(game: Any, run, out_dir: str | Path, title: str | None = None):
    """Write report.md, report.html, the PNG figures and summary.json of ``run`` into
    ``out_dir``; returns the written paths (:meth:`ReportBuilder.write`).

    ``run``: a run folder, or checked ``(seats, games, meta)`` frames. For a folder the
    game's sections get ``meta["run_dir"]``, and what other commands attached to it follows,
    for every game: the findings of ``bnb sensitivity --attach`` and the section of
    ``bnb robustness --run``. ``out_dir`` is checked before the run is read.
    """
    from bnb_sim.analysis.publish import check_writable
    from bnb_sim.analysis.report_builder import ReportBuilder
    from bnb_sim.analysis.robustness_report import run_section
    from bnb_sim.analysis.sensitivity_attach import sensitivity_run_findings
    from bnb_sim.feedback import status

    source = os.fspath(run) if isinstance(run, str | os.PathLike) else None
    check_writable(out_dir)  # fail before the long part; nothing is created until the end
    if source is None:
        seats, games, meta = run
    else:
        seats, games, meta = read_run(source, game)
        meta = {**meta, "run_dir": source}
    layout = layout_of(game, seats, games, meta)
    heading = title or layout.title or f"{game.title}: {Path(source or 'run').resolve().name}"
    builder = ReportBuilder(heading, subtitle=layout.subtitle or meta.get("command"))
    sections, findings = run_sections(game, seats, games, meta, layout)
    builder.findings += findings  # the answer first
    builder.findings += sensitivity_run_findings(source)
    status("tables and figures: how far the findings hold")  # bnb robustness --run
    for section in _placed(sections, run_section(source), layout.attached_before):
        builder.add(section)
    builder.notes += layout.notes
    builder.summary["game"] = game.name
    builder.summary["outcome"] = game.outcome
    status(f"writing {out_dir}")
    return builder.write(out_dir)
