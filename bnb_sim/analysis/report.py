"""The simulate-run report: load a run, put its sections together, write it.

:func:`write_report` is the one-call entry point (``bnb report``): it loads a run directory
(or checks frames given in Python, :func:`check_report_input`) and
:func:`build_simulate_report` puts the sections together in a
:class:`~bnb_sim.analysis.report_builder.ReportBuilder`. The pieces live by concern:

* :mod:`bnb_sim.analysis.report_builder` -- sections, findings, the builder (HTML, Markdown,
  ``summary.json``), reused by every other report;
* :mod:`bnb_sim.analysis.report_wins` -- overview and win rates;
* :mod:`bnb_sim.analysis.report_play` -- XP, length, margins, choices, fights, ownership,
  play style, rule hits;
* :mod:`bnb_sim.analysis.report_provenance` -- readings, components, versions;
* :mod:`bnb_sim.analysis.key_findings` -- the key findings at the top.

The names that tests, scripts and the modules another split moves (``tournament``, ``sweep``)
import from here stay importable from here; new code imports them from their homes.
Nothing here imports numba: a report needs only pandas, pyarrow and matplotlib.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from bnb_sim.analysis.key_findings import run_findings  # noqa: F401  (imported from here)
from bnb_sim.analysis.report_builder import (  # noqa: F401  (imported from here)
    BOT_STRENGTH_NOTE,
    SUMMARY_SCHEMA_VERSION,
    Finding,
    ReportBuilder,
    Section,
)
from bnb_sim.analysis.report_play import (
    choices_section,
    fights_section,
    game_length_section,
    margins_section,
    ownership_section,
    play_style_section,
    rule_hits_section,
    xp_section,
)
from bnb_sim.analysis.report_provenance import (
    provenance_section,
    readings_text,  # noqa: F401  (imported from here)
)
from bnb_sim.analysis.report_wins import (
    _policy_order,
    overview_section,
    seat_policy_confound,  # noqa: F401  (imported from here)
    win_rate_section,
)
from bnb_sim.errors import ArgumentTypeError, BnbError
from bnb_sim.feedback import status

# --------------------------------------------------------------------------------------
# entry points

# run_id and seed are the same on every row of a run (run.json has them)
_SKIP_SEAT_COLUMNS = {"player", "rank", "turns", "n_players", "run_id", "seed"}
_SKIP_GAME_COLUMNS = {"winner_policy", "first_policy", "run_id", "seed"}


def _items_section(seats: pd.DataFrame, order: list[str], source: str | None = None):
    """The Farmer's Market items section, for runs with the expansion only (item_* columns)."""
    if not any(c.startswith("item_") for c in seats.columns):
        return None
    from bnb_sim.analysis.fm_report import items_section

    return items_section(seats, order, source)


def robustness_run_section(source):  # bnb robustness --run DIR recorded results for the run
    from bnb_sim.analysis.robustness_report import run_section

    return run_section(source)


def build_simulate_report(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    meta: Mapping | None = None,
    title: str | None = None,
    source: str | None = None,
) -> ReportBuilder:
    """All sections of a simulate-run report, in a :class:`ReportBuilder` (nothing written)."""
    from bnb_sim.analysis.key_findings import simulate_findings
    from bnb_sim.analysis.names import shown_run
    from bnb_sim.analysis.sensitivity_attach import sensitivity_run_findings

    seats, games, meta = shown_run(seats, games, dict(meta or {}))  # bots by their names
    order = _policy_order(seats, meta)
    name = title or (f"bnb-sim run report: {Path(source).name}" if source else "bnb-sim run report")
    params = meta.get("params", {}) or {}
    subtitle = (
        f"{len(games):,} games · {params.get('players', '?')} players · "
        f"policies {', '.join(order)} · generated "
        f"{_dt.datetime.now().isoformat(timespec='seconds')}"
    )
    builder = ReportBuilder(name, subtitle)
    steps = (
        ("overview", lambda: overview_section(seats, games, meta, source)),
        ("win rates", lambda: win_rate_section(seats, games, order, meta)),
        ("XP", lambda: xp_section(seats, order)),
        ("game length", lambda: game_length_section(games)),
        ("margins and comebacks", lambda: margins_section(seats, order)),
        ("scoring choices", lambda: choices_section(seats, order)),
        ("fights", lambda: fights_section(seats, order)),
        ("ownership", lambda: ownership_section(seats, order)),
        ("play style", lambda: play_style_section(seats, order)),
        ("rule hits", lambda: rule_hits_section(seats, meta)),
        ("Farmer's Market items", lambda: _items_section(seats, order, source)),
        ("how far the findings hold", lambda: robustness_run_section(source)),
        ("provenance", lambda: provenance_section(meta)),
    )
    for label, make in steps:
        status(f"tables and figures: {label}")
        section = make()
        if section is not None:  # rule hits and items: only where the run has them
            builder.add(section)
    builder.findings += simulate_findings(builder.collect_summary())  # key_findings.py
    builder.findings += sensitivity_run_findings(source)  # bnb sensitivity --attach RUN
    builder.notes.append(BOT_STRENGTH_NOTE)
    return builder


def write_report(
    run: str | os.PathLike | tuple[pd.DataFrame, pd.DataFrame, Mapping | None],
    out_dir: str | os.PathLike,
    title: str | None = None,
) -> dict[str, Any]:
    """Write the report of a run directory (or of ``(seats, games, meta)`` frames).

    Returns the written paths: ``{"dir", "markdown", "html", "summary", "figures": [...]}``.
    Raises :class:`~bnb_sim.errors.RunError` for a bad run directory and
    :class:`~bnb_sim.errors.BnbError` for an unwritable ``out_dir``.
    """
    from bnb_sim.analysis.publish import check_writable

    source = None
    if not isinstance(out_dir, str | os.PathLike) or not os.fspath(out_dir):
        raise ArgumentTypeError(f"out_dir must be a non-empty path, got {out_dir!r}")
    if isinstance(run, (str, os.PathLike)):
        from bnb_sim.analysis.compact import load_for_report

        source = os.fspath(run)
        check_writable(out_dir)  # fail before the long part; nothing is created until the end
        seats, games, meta = load_for_report(  # says "reading" once the run is verified
            run,
            seat_columns=lambda c: c not in _SKIP_SEAT_COLUMNS,
            game_columns=lambda c: c not in _SKIP_GAME_COLUMNS,
        )
    else:
        seats, games, meta = check_report_input(run)
        check_writable(out_dir)
    builder = build_simulate_report(seats, games, meta, title, source)
    status(f"writing {out_dir}")
    return builder.write(out_dir)


#: Columns every simulate report needs (the others are optional: their sections say so).
REQUIRED_SEAT_COLUMNS = ("game", "seat", "policy", "xp", "won")
REQUIRED_GAME_COLUMNS = ("game", "turns")
_META_OBJECTS = ("params", "components", "versions", "machine", "timing")


def check_report_input(run: Any) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """``(seats, games, meta)`` given to :func:`write_report` as frames, checked: BnbError
    naming the problem (not a pair or triple of frames, no rows, a missing column, missing
    values in a needed column, a meta that is not a mapping). ``meta`` may be None."""
    if not isinstance(run, (tuple, list)) or len(run) not in (2, 3):
        raise ArgumentTypeError(
            "write_report: give a run directory or a (seats, games[, meta]) tuple, "
            f"got {type(run).__name__}"
        )
    seats, games, meta = (*run, None) if len(run) == 2 else run
    for name, frame, required in (
        ("seats", seats, REQUIRED_SEAT_COLUMNS),
        ("games", games, REQUIRED_GAME_COLUMNS),
    ):
        if not isinstance(frame, pd.DataFrame):
            kind = type(frame).__name__
            raise ArgumentTypeError(f"write_report: {name} must be a DataFrame, got {kind}")
        if not len(frame):
            raise BnbError(f"write_report: the {name} frame has no rows")
        missing = [c for c in required if c not in frame.columns]
        if missing:
            raise BnbError(f"write_report: the {name} frame lacks the column {missing[0]!r}")
        for column in required:
            if frame[column].isna().any():
                raise BnbError(
                    f"write_report: the {name} column {column!r} has missing values (NaN)"
                )
    if meta is None:
        meta = {}
    if not isinstance(meta, Mapping):
        kind = type(meta).__name__
        raise ArgumentTypeError(f"write_report: meta must be a mapping or None, got {kind}")
    meta = {k: v for k, v in meta.items() if not (k in _META_OBJECTS and v is None)}
    for key in _META_OBJECTS:
        if key in meta and not isinstance(meta[key], Mapping):
            raise BnbError(
                f"write_report: meta[{key!r}] must be a mapping, got {type(meta[key]).__name__}"
            )
    policies = (meta.get("params") or {}).get("policies")
    if policies is not None and not (
        isinstance(policies, (list, tuple)) and all(isinstance(p, str) for p in policies)
    ):
        raise BnbError("write_report: meta['params']['policies'] must be a list of labels")
    return seats, games, meta
