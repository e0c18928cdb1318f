"""The simulate-run report from Python: :func:`write_report` of a run folder, or of frames.

:func:`write_report` is the public entry point (``bnb_sim.write_report``): it checks frames
given in Python (:func:`check_report_input`) and hands the run to the shared report of its
game (:func:`bnb_sim.analysis.protocol_report.write_report`, what ``bnb report`` writes for
every game). A game's own sections come through its protocol hooks (Builders & Biomes':
``bnb_sim.games.builders_biomes.report``). The shared pieces live by concern:

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

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from bnb_sim.analysis.figure_scope import renders_figures
from bnb_sim.analysis.key_findings import run_findings  # noqa: F401  (imported from here)
from bnb_sim.analysis.report_builder import (  # noqa: F401  (imported from here)
    BOT_STRENGTH_NOTE,
    SUMMARY_SCHEMA_VERSION,
    Finding,
    ReportBuilder,
    Section,
)
from bnb_sim.analysis.report_play import (  # noqa: F401  (imported from here)
    choices_section,
    fights_section,
    game_length_section,
    margins_section,
    ownership_section,
    play_style_section,
    rule_hits_section,
    xp_section,
)
from bnb_sim.analysis.report_provenance import (  # noqa: F401  (imported from here)
    provenance_section,
    readings_text,
)
from bnb_sim.analysis.report_wins import (  # noqa: F401  (imported from here)
    overview_section,
    seat_policy_confound,
    win_rate_section,
)
from bnb_sim.errors import ArgumentTypeError, BnbError

# --------------------------------------------------------------------------------------
# the entry point


def _game_of(meta: Mapping | None):
    """The protocol object of the game a run's ``run.json`` names (the default game's for
    one that names none, as frames given without ``meta`` are)."""
    from bnb_sim.core.registry import get_game
    from bnb_sim.games import game_of_run

    return get_game(game_of_run(dict(meta or {})).name)


@renders_figures()
def write_report(
    run: str | os.PathLike | tuple[pd.DataFrame, pd.DataFrame, Mapping | None],
    out_dir: str | os.PathLike,
    title: str | None = None,
) -> dict[str, Any]:
    """Write the report of a run directory (or of ``(seats, games, meta)`` frames).

    The shared report of the run's game (:func:`bnb_sim.analysis.protocol_report.write_report`,
    what ``bnb report`` writes). Returns the written paths: ``{"dir", "markdown", "html",
    "summary", "figures": [...]}``. Raises :class:`~bnb_sim.errors.RunError` for a bad run
    directory and :class:`~bnb_sim.errors.BnbError` for an unwritable ``out_dir``.
    """
    from bnb_sim.analysis.protocol_report import write_report as write

    if not isinstance(out_dir, str | os.PathLike) or not os.fspath(out_dir):
        raise ArgumentTypeError(f"out_dir must be a non-empty path, got {out_dir!r}")
    if isinstance(run, (str, os.PathLike)):
        from bnb_sim.runner.run_files import read_meta

        return write(_game_of(read_meta(Path(run))), run, out_dir, title)
    seats, games, meta = check_report_input(run)
    return write(_game_of(meta), (seats, games, meta), out_dir, title)


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
