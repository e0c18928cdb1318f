"""Builders & Biomes' part of ``bnb report``: its sections and its layout, as the data of
the protocol's report hooks (:class:`bnb_sim.core.protocol.ReportSection`,
:class:`~bnb_sim.core.protocol.ReportLayout`); the shared report
(:mod:`bnb_sim.analysis.protocol_report`) writes them, as it does every game's.

Its sections replace the shared win rates (``own_win_rates``): an overview, win rates per
policy, seat, policy x seat and board, XP, game length, margins, scoring choices, fights,
ownership, play style, rule hits, the Farmer's Market items of an expansion run (R-FM-4/5)
and provenance; the section of ``bnb robustness --run`` goes before provenance. The pieces
are the shared report pieces of :mod:`bnb_sim.analysis` (report_wins, report_play,
report_provenance, key_findings) and its own Farmer's Market items section
(:mod:`bnb_sim.games.builders_biomes.fm_report`); policies are shown by their names
(:func:`bnb_sim.analysis.names.shown_run`).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from bnb_sim.analysis.names import shown_run
from bnb_sim.analysis.report_wins import _policy_order
from bnb_sim.core.protocol import ReportLayout

#: The section that the attached robustness section (``bnb robustness --run``) goes before.
PROVENANCE = "Parameters and provenance"  # report_provenance.provenance_section


def _run_parts(seats, games, meta: Mapping) -> tuple[Any, Any, dict, str | None]:
    """``(seats, games, meta, source)``: the run as the report shows it (policies by their
    names), and the run folder (``meta["run_dir"]``, None for frames given in Python)."""
    source = meta.get("run_dir")
    meta = {k: v for k, v in meta.items() if k != "run_dir"}
    return (*shown_run(seats, games, meta), source)


def report_layout(seats, games, meta: Mapping) -> ReportLayout:
    """Its title and subtitle (games, players, policies, when), its own win rates, the
    attached robustness section before provenance, and the note on bot strength."""
    from bnb_sim.analysis.report_builder import BOT_STRENGTH_NOTE

    policy = [c for c in ("player", "policy") if c in seats.columns]  # what the order reads
    shown, _, meta, source = _run_parts(seats[policy], games.iloc[:0], meta)
    order = _policy_order(shown, meta)
    params = meta.get("params", {}) or {}
    subtitle = (
        f"{len(games):,} games · {params.get('players', '?')} players · "
        f"policies {', '.join(order)} · generated "
        f"{_dt.datetime.now().isoformat(timespec='seconds')}"
    )
    title = f"bnb-sim run report: {Path(source).name}" if source else "bnb-sim run report"
    return ReportLayout(title, subtitle, own_win_rates=True, attached_before=PROVENANCE,
                        notes=(BOT_STRENGTH_NOTE,))  # fmt: skip


def _items_section(seats: pd.DataFrame, order: list[str], source: str | None = None):
    """The Farmer's Market items section, for runs with the expansion only (item_* columns)."""
    if not any(c.startswith("item_") for c in seats.columns):
        return None
    from bnb_sim.games.builders_biomes.fm_report import items_section

    return items_section(seats, order, source)


def _steps(seats, games, meta, source, order) -> tuple:
    """``(label, make)`` of each section, in report order (``make`` may return None)."""
    from bnb_sim.analysis import report_play as play
    from bnb_sim.analysis.report_provenance import provenance_section
    from bnb_sim.analysis.report_wins import overview_section, win_rate_section

    return (
        ("overview", lambda: overview_section(seats, games, meta, source)),
        ("win rates", lambda: win_rate_section(seats, games, order, meta)),
        ("XP", lambda: play.xp_section(seats, order)),
        ("game length", lambda: play.game_length_section(games)),
        ("margins and comebacks", lambda: play.margins_section(seats, order)),
        ("scoring choices", lambda: play.choices_section(seats, order)),
        ("fights", lambda: play.fights_section(seats, order)),
        ("ownership", lambda: play.ownership_section(seats, order)),
        ("play style", lambda: play.play_style_section(seats, order)),
        ("rule hits", lambda: play.rule_hits_section(seats, meta)),
        ("Farmer's Market items", lambda: _items_section(seats, order, source)),
        ("provenance", lambda: provenance_section(meta)),
    )


def report_sections(seats, games, meta: Mapping) -> list:
    """Its sections as :class:`~bnb_sim.core.protocol.ReportSection` data; the first
    carries the key findings, read off the numbers of all of them
    (:func:`bnb_sim.analysis.key_findings.simulate_findings`)."""
    from bnb_sim.analysis.key_findings import simulate_findings
    from bnb_sim.analysis.report_data import section_data
    from bnb_sim.feedback import status

    seats, games, meta, source = _run_parts(seats, games, meta)
    order = _policy_order(seats, meta)
    sections = []
    for label, make in _steps(seats, games, meta, source, order):
        status(f"tables and figures: {label}")
        section = make()
        if section is not None:  # rule hits and items: only where the run has them
            sections.append(section)
    numbers: dict[str, Any] = {}
    for section in sections:
        numbers.update(section.summary)
    findings = simulate_findings(numbers)
    return [section_data(s, findings if i == 0 else ()) for i, s in enumerate(sections)]
