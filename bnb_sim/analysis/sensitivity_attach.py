"""``bnb sensitivity --attach RUN``: a run's report flags the findings that hinge on an estimate.

The sensitivity of a finding is measured by its own command (thousands of games per estimate);
``--attach`` saves its answer into a run folder of the same game and player count
(``sensitivity.json``, one entry per finding), and the run's report then leads its key
findings with "… hinges on the estimate farmers_market.items.crafting_table.letter", so a
reader of the run sees at once which of its numbers rest on a guessed component value. The
entry keeps the run's id: a run later replaced in the same folder shows no stale flags.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from bnb_sim.analysis.report_builder import Finding
from bnb_sim.errors import BnbError

__all__ = ["SENSITIVITY_FILE", "attach_sensitivity", "sensitivity_run_findings"]

SENSITIVITY_FILE = "sensitivity.json"


def _meta(run: Path) -> dict[str, Any]:
    try:
        meta = json.loads((run / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise BnbError(f"--attach {run}: not a run folder (no readable run.json)") from None
    if not isinstance(meta, dict):
        raise BnbError(f"--attach {run}: run.json is not a run's metadata")
    return meta


def check_attach(run: str | os.PathLike, game_name: str, players: int) -> None:
    """Refuse (one line, before anything is played) a folder that is not a run of the same
    game and player count: its report must never show another set-up's sensitivities."""
    from bnb_sim.games import game_of_run

    meta = _meta(Path(run))
    game = game_of_run(meta)
    ran = (meta.get("params") or {}).get("players")
    if game.name != game_name or (ran is not None and int(ran) != int(players)):
        raise BnbError(
            f"--attach {run}: that run is {game.name} with {ran} players; this sensitivity is "
            f"{game_name} with {players}"
        )


def attach_sensitivity(result, findings: list[Finding], run: str | os.PathLike,
                       report: str | os.PathLike | None = None) -> Path:  # fmt: skip
    """Save the answer for ``result.finding`` into ``run``'s ``sensitivity.json`` (other
    findings' entries are kept); the path written."""
    from bnb_sim.jsonsafe import dumps

    run = Path(run)
    meta = _meta(run)
    path = run / SENSITIVITY_FILE
    saved = _load(path)
    entries = saved.get("findings", {}) if saved.get("run_id") == meta.get("run_id") else {}
    entries[result.finding.label] = {
        "key_findings": [f.to_dict() for f in findings],
        "hinges": sorted(set(result.hinges["key"])),
        "games": int(result.games),
        "report": None if report is None else str(Path(report).resolve()),
    }
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(dumps({"run_id": meta.get("run_id"), "findings": entries}), encoding="utf-8")
    os.replace(tmp, path)  # never a half-written file
    return path


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def sensitivity_run_findings(source: str | os.PathLike | None) -> list[Finding]:
    """Key findings for the report of run ``source`` from its ``sensitivity.json``: each
    "hinges on the estimate" flag (and each finding's largest mover when nothing hinges),
    marked as coming from ``bnb sensitivity``; none when nothing was attached, the file is
    unreadable, or it belongs to an earlier run in the folder."""
    if source is None:
        return []
    data = _load(Path(source) / SENSITIVITY_FILE)
    if not data or data.get("run_id") != _meta_or_empty(Path(source)).get("run_id"):
        return []
    found = []
    for label, entry in (data.get("findings") or {}).items():
        kept = [f for f in entry.get("key_findings", []) if f.get("kind") == "hinges_on_estimate"]
        if not kept:  # nothing hinges: say what moves it most, so the check is visible
            kept = [f for f in entry.get("key_findings", [])][:1]
        for f in kept:
            numbers = {k: v for k, v in f.items() if k != "text"}
            text = f"Sensitivity ({label}, bnb sensitivity): {f.get('text', '')}"
            found.append(Finding(text, {**numbers, "source": "bnb sensitivity"}))
    return found


def _meta_or_empty(run: Path) -> dict[str, Any]:
    try:
        meta = json.loads((run / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}
