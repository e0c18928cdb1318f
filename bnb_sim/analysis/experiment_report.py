"""The combined report of an experiment: every played item's sections in one report.

:func:`build_experiment_report` lists what was played (kind, games, readings, time) and puts
each item's sections and findings in one
:class:`~bnb_sim.analysis.report_builder.ReportBuilder`, with the components and versions
that produced them.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import Any

import pandas as pd

from bnb_sim.analysis.experiment_specs import KINDS, Experiment
from bnb_sim.analysis.figure_scope import renders_figures
from bnb_sim.runner.experiments import ItemOutcome

# --------------------------------------------------------------------------------------
# report


def _games_text(spec) -> str:
    if callable(getattr(spec, "games_text", None)):  # an item of another game describes itself
        return spec.games_text()
    if spec.kind == "tune":
        from bnb_sim.tune.experiment_item import games_text

        return games_text(spec)
    if spec.kind == "simulation":
        return f"{spec.games:,} games"
    if spec.kind == "tournament":
        return f"{spec.games:,} seeds per seating"
    if spec.kind == "sweep":
        return f"{spec.games:,} games x {len(spec.variants)} variants"
    rule = (
        f"SPRT [{spec.sprt[0]:g}, {spec.sprt[1]:g}]"
        if spec.sprt
        else f"precision ±{100 * spec.precision:g} pp"
    )
    return f"{rule}, at most {spec.max_games:,} games"


def _what(spec) -> str:
    if callable(getattr(spec, "what", None)):
        return spec.what()
    if spec.kind == "tune":
        from bnb_sim.tune.experiment_item import what_text

        return what_text(spec)
    if spec.kind == "compare":
        vs = f" against {', '.join(spec.opponents)}" if spec.opponents else " head-to-head"
        return f"{spec.a} vs {spec.b}{vs}"
    text = f"{spec.players} players: {', '.join(spec.policies)}"
    if spec.kind == "sweep":
        text += "; " + ", ".join(f"{p} = {', '.join(map(str, v))}" for p, v in spec.sets)
    return text


def _played(outcome: ItemOutcome) -> int:
    spec, result = outcome.spec, outcome.result
    if callable(getattr(spec, "played", None)):
        return spec.played(result)
    if spec.kind == "tune":
        return int(result["games"])
    if spec.kind == "simulation":
        return len(result[1])
    if spec.kind == "tournament":
        return result.n_games
    if spec.kind == "sweep":
        return result.games * len(result.variants)
    return result.n_games


def _spec_readings(spec) -> str:
    """Every reading an item plays under (the design's seating for non-simulations)."""
    from bnb_sim.analysis.study_hooks import study_hooks
    from bnb_sim.runner.experiments import design_readings

    if callable(getattr(spec, "readings_text", None)):
        return spec.readings_text()
    game = getattr(spec, "game", None)
    if spec.kind == "simulation":
        values = study_hooks(game).resolve_readings(spec.readings)
    else:
        design = "fixed" if spec.kind == "tournament" else "rotate"
        if spec.kind == "compare" and not spec.opponents:
            design = "fixed"
        if spec.kind == "tune":
            from bnb_sim.tune.experiment_item import design_seating

            design = design_seating(spec.what)
        values = design_readings(spec.readings, None, seating=design, what=spec.kind,
                                 game=game)  # fmt: skip
    return ", ".join(f"{k}={v}" for k, v in values.items())


def _readings_text(meta: Mapping) -> str:
    from bnb_sim.analysis.report_provenance import readings_text

    return readings_text(meta.get("params", {}) or {})


def _simulation_sections(outcome: ItemOutcome):
    from bnb_sim.analysis import table_format, tables
    from bnb_sim.analysis.leaders import Leader
    from bnb_sim.analysis.names import shown_run
    from bnb_sim.analysis.report_builder import Section, _slug
    from bnb_sim.analysis.report_play import (
        fights_section,
        game_length_section,
        play_style_section,
        rule_hits_section,
        xp_section,
    )
    from bnb_sim.analysis.report_wins import win_rate_section

    spec = outcome.spec
    seats, games, meta, shown = shown_run(*outcome.result, spec.policies, with_names=True)
    order = list(dict.fromkeys(shown))
    overview = Section(f"{spec.name}: simulation")
    winners = tables.win_rates(seats, "policy", order)
    overview.text(
        f"{len(games):,} games, {spec.players} players ({', '.join(shown)} in player "
        f"order), seating `{spec.seating}`, rules `{spec.variant}`, seed {spec.seed}; "
        f"readings: {_readings_text(meta)}."
    )
    best = winners.sort_values("rate", ascending=False).iloc[0]
    rates = win_rate_section(seats, games, order, {"params": {"seating": spec.seating}})
    shown = f"{table_format.fmt_rate(best.rate, best.lo, best.hi)} (n = {int(best.n):,})"
    if "win_rate_leader" in rates.summary:  # "best" only when the gap excludes 0
        claim = Leader.from_dict(rates.summary["win_rate_leader"]).claim(f"wins most, {shown}")
        overview.text(f"{claim[0].upper()}{claim[1:]}; every rate per policy and seat is in "
                      "the sections below.")  # fmt: skip
    else:
        overview.text(f"Win rate of **{best['policy']}**: {shown}; every rate per seat is in "
                      "the sections below.")  # fmt: skip
    sections = [
        overview,
        rates,
        xp_section(seats, order),
        game_length_section(games),
        fights_section(seats, order),
        play_style_section(seats, order),
    ]
    hits = rule_hits_section(seats, meta)
    if hits is not None:
        sections.append(hits)
    summary: dict[str, Any] = {"kind": "simulation", "n_games": len(games)}
    from bnb_sim.analysis.protocol_item_report import name_sections

    name_sections(sections[1:], spec.name, summary)  # the same naming as a protocol game's items
    overview.anchor = _slug(overview.title)
    summary["params"] = meta.get("params", {})
    return sections, summary


def _seat_figure(section, outcomes: Sequence[ItemOutcome]) -> None:
    """Win rate per seat with 95% intervals, one series per simulation item (by player
    count, in the demo): the first-player advantage as a picture."""
    from bnb_sim.analysis import plots, tables

    series, most = {}, 0
    for outcome in outcomes:
        if outcome.spec.kind != "simulation" or hasattr(outcome.spec, "report"):
            continue  # a team game has no seat advantage to show
        seats = outcome.result[0]
        by_seat = tables.win_rates(seats, "seat").set_index("seat")
        series[outcome.spec.name] = by_seat
        most = max(most, len(by_seat))
    if not series:
        return
    groups = list(range(most))
    section.figure(
        "win-rate-by-seat",
        plots.rate_bars(
            [f"seat {s}" + (" (starts)" if s == 0 else "") for s in groups],
            {name: df.reindex(groups)[["rate", "lo", "hi"]] for name, df in series.items()},
            "Win rate per seat, per simulation",
        ),
        "Win rate of each seat (seat 0 starts) in each simulation item, 95% intervals; the fair "
        "share is 1/players (50% with 2, 25% with 4).",
    )


def _components_meta(comps) -> dict:
    return {
        "source": comps.source,
        "files": list(comps.files),
        "content_hash": comps.content_hash,
        "estimated_values": comps.n_estimates,
        "estimated_keys": [r["key"] for r in comps.estimates()],
    }


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for package in ("bnb-sim", "numba", "numpy", "pandas", "pyarrow", "matplotlib", "scipy"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = None
    return out


@renders_figures()
def build_experiment_report(
    experiment: Experiment,
    outcomes: Sequence[ItemOutcome],
    *,
    command: str | None = None,
    seconds: float | None = None,
    compile_seconds: float | None = None,
):
    """One report for a whole experiment: key findings first (the headline answer of every
    item, then the caveats), an overview, every item's sections, provenance.

    ``compile_seconds`` is the time spent compiling (or loading) the kernels before the first
    item; the items' seconds are playing and analysis only."""
    from bnb_sim.analysis import compare, sweep, tournament
    from bnb_sim.analysis.key_findings import simulate_findings as run_findings
    from bnb_sim.analysis.report_builder import BOT_STRENGTH_NOTE, ReportBuilder, Section
    from bnb_sim.analysis.report_provenance import _estimated_warning

    counts = {k: sum(o.spec.kind == k for o in outcomes) for k in KINDS}
    kinds = ", ".join(f"{n} {k}{'s' if n != 1 else ''}" for k, n in counts.items() if n)
    builder = ReportBuilder(
        experiment.title,
        f"Experiment `{experiment.source}` · {kinds} · seed {experiment.seed} · generated "
        f"{_dt.datetime.now().isoformat(timespec='seconds')}",
    )
    overview = builder.add(Section("Experiment"))
    if experiment.description:
        overview.text(experiment.description)
    overview.text(
        "Every rate is shown with its n and a 95% interval (Wilson for rates, Student t for "
        "means and paired differences, bootstrap over seeds for ratings). Everything is "
        "deterministic for the seed: the same file gives the same numbers."
    )
    overview.table(
        pd.DataFrame(
            {
                "item": [o.spec.name for o in outcomes],
                "kind": [o.spec.kind for o in outcomes],
                "what": [_what(o.spec) for o in outcomes],
                "size": [_games_text(o.spec) for o in outcomes],
                "games played": [f"{_played(o):,}" for o in outcomes],
                "playing seconds": [f"{o.seconds:.1f}" for o in outcomes],
            }
        ),
        "Playing seconds: games and analysis of each item, without compiling the engine"
        + (
            f" (compiling or loading the kernels took {compile_seconds:.1f} s before the "
            "first item)."
            if compile_seconds is not None
            else "."
        ),
    )
    _seat_figure(overview, outcomes)
    items_summary = []
    for outcome in outcomes:
        spec, result = outcome.spec, outcome.result
        prefix = f"{spec.name}: "
        if callable(getattr(spec, "report", None)):  # an item of another game reports itself
            sections, summary, findings = spec.report(result)
            builder.findings += findings
        elif spec.kind == "simulation":
            sections, summary = _simulation_sections(outcome)
            builder.findings += [
                f for f in run_findings(summary, prefix) if f.numbers["kind"] != "game_length"
            ]
        elif spec.kind == "tournament":
            sections = tournament.tournament_sections(result, spec.name)
            summary = tournament.tournament_summary(result)
            builder.findings += tournament.tournament_findings(result, prefix)
        elif spec.kind == "sweep":
            sections = sweep.sweep_sections(result, spec.name)
            summary = sweep.sweep_summary(result)
            builder.findings += sweep.sweep_findings(result, prefix)
        elif spec.kind == "tune":
            from bnb_sim.tune.experiment_item import tune_sections

            sections, summary = tune_sections(result, spec.name)
        else:
            sections = compare.compare_sections(result, spec.name)
            summary = compare.compare_summary(result)
            builder.findings += compare.compare_findings(result, prefix)
        for section in sections:
            builder.add(section)
        items_summary.append(
            {
                "name": spec.name,
                **summary,
                "kind": spec.kind,
                "seconds": round(outcome.seconds, 3),
                "components": {
                    k: v
                    for k, v in _components_meta(spec.components).items()
                    if k != "estimated_keys"
                },
            }
        )

    prov = builder.add(Section("Parameters and provenance"))
    if command:
        prov.text(f"Command: `{command}`")
    prov.heading("Components per item")
    prov.table(
        pd.DataFrame(
            {
                "item": [o.spec.name for o in outcomes],
                "component files": [
                    ", ".join(o.spec.components.files) or "default" for o in outcomes
                ],
                "overrides": [
                    ", ".join(f"{k}={v}" for k, v in o.spec.overrides.items()) or "–"
                    for o in outcomes
                ],
                "content hash": [o.spec.components.content_hash[:16] for o in outcomes],
                "estimated values": [str(o.spec.components.n_estimates) for o in outcomes],
            }
        )
    )
    prov.heading("Rule readings per item")
    prov.table(
        pd.DataFrame(
            {
                "item": [o.spec.name for o in outcomes],
                "readings": [_spec_readings(o.spec) for o in outcomes],
            }
        )
    )
    worst = max(outcomes, key=lambda o: o.spec.components.n_estimates, default=None)
    if worst is not None:
        _estimated_warning(prov, {"components": _components_meta(worst.spec.components)})
    versions = _versions()
    prov.heading("Versions and machine")
    machine = {
        "platform": platform.platform(),
        "cores": os.cpu_count(),
        "threads": experiment.threads or "all",
    }
    rows = [(k, str(v)) for k, v in {**versions, **machine}.items()]
    if compile_seconds is not None:
        rows.append(("compiling/loading the kernels (s)", f"{compile_seconds:.1f}"))
    if seconds is not None:
        rows.append(("wall time (s)", f"{seconds:.1f}"))
    prov.table(pd.DataFrame(rows, columns=["", "value"]))
    prov.heading("Experiment file")
    prov.text(f"`{experiment.source}`, {len(experiment.items)} items, seed {experiment.seed}.")
    builder.summary.update(
        {
            "kind": "experiment",
            "source": experiment.source,
            "seed": experiment.seed,
            "items": items_summary,
            "versions": versions,
            "compile_seconds": None if compile_seconds is None else round(compile_seconds, 3),
        }
    )
    builder.notes.append(BOT_STRENGTH_NOTE)
    return builder
