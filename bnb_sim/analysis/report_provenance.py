"""What a run's numbers rest on: its readings, components and versions.

:func:`provenance_section` closes a simulate-run report; :func:`readings_text` states the
readings of a run in one line for every report that compares runs; the estimated-values
warning box (:func:`_estimated_warning`) says which component values are estimates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from bnb_sim.analysis.report_builder import Section

ESTIMATED_KEYS_SHOWN = 12


def _estimated_warning(section: Section, meta: Mapping, what: str = "This run") -> None:
    components = meta.get("components", {}) or {}
    estimated = int(components.get("estimated_values") or 0)
    if estimated <= 0:
        return
    keys = list(components.get("estimated_keys") or [])
    shown = [f"`{k}`" for k in keys[:ESTIMATED_KEYS_SHOWN]]
    if len(keys) > ESTIMATED_KEYS_SHOWN:
        shown.append(f"… and {len(keys) - ESTIMATED_KEYS_SHOWN} more")
    section.warning(
        "Estimated component values.",
        f"{what} used {estimated} estimated component values (numbers never published for "
        "the game, see `docs/components.md`), so every result below depends on them. Load "
        "your box's values with `--components FILE` to replace them. Estimated keys:",
        shown,
        code="estimated_components",
    )


def _value_text(value: Any) -> str:
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, separators=(", ", ": "))
    return "–" if value is None else str(value)


def _param_rows(params: Mapping) -> list[tuple[str, str]]:
    """Parameter rows; the rule readings get one row each (``reading hunger``, ...)."""
    rows = []
    for key, value in params.items():
        if key == "readings" and isinstance(value, Mapping):
            rows += [(f"reading {name}", _value_text(v)) for name, v in value.items()]
        else:
            rows.append((key, _value_text(value)))
    return rows


def readings_text(params: Mapping) -> str:
    """``hunger=together, bonus_biomes=visible, ...`` of a run, a note for older runs, or
    "none" for a game without rule readings."""
    readings = params.get("readings")
    if not isinstance(readings, Mapping):
        return "not recorded (a run made before readings were recorded)"
    return ", ".join(f"{k}={v}" for k, v in readings.items()) or "none"


def provenance_section(meta: Mapping) -> Section:
    """Parameters, component provenance, versions, machine and timing from ``run.json``."""
    section = Section("Parameters and provenance")
    if meta.get("command"):
        section.text(f"Command: `{meta['command']}`")
    params = meta.get("params", {}) or {}
    if params:
        section.heading("Parameters")
        section.table(pd.DataFrame(_param_rows(params), columns=["parameter", "value"]))
    components = meta.get("components", {}) or {}
    section.heading("Components")
    estimated = int(components.get("estimated_values") or 0)
    section.table(
        pd.DataFrame(
            [
                ("source", _value_text(components.get("source"))),
                ("content hash", _value_text(components.get("content_hash"))),
                ("estimated values", str(estimated)),
            ],
            columns=["component data", "value"],
        )
    )
    _estimated_warning(section, meta)
    if estimated == 0:
        section.text("All component values used by this run are known (none estimated).")
    for key, title in (("versions", "Versions"), ("machine", "Machine"), ("timing", "Timing")):
        values = meta.get(key) or {}
        if values:
            section.heading(title)
            section.table(
                pd.DataFrame(
                    [(k, _value_text(v)) for k, v in values.items()], columns=[key, "value"]
                )
            )
    section.summary["components"] = {
        "source": components.get("source"),
        "content_hash": components.get("content_hash"),
        "estimated_values": estimated,
        "estimated_keys": list(components.get("estimated_keys") or []),
    }
    section.summary["params"] = params
    return section
