"""Balance sweeps: the same games under component variants, effects against the baseline.

``bnb sweep --set mobs.enderman.hearts=5,6,7 --games N`` re-runs one simulation (players,
policies, seed, rule variant) under each value. Rules:

* **Values.** ``--set PATH=V1,V2,...``: ``PATH`` is a dotted key of the component file (as
  ``bnb components`` lists them, e.g. ``mobs.enderman.hearts``,
  ``scoring.a.values.desert``, ``weapons.tnt.detonate_hearts``); each value is read as a
  TOML value (``5``, ``"x"``, ``[1, 2]``), a bare word as a string. Commas inside ``[...]`` or
  quotes do not split. A wrong path or value is a :class:`~bnb_sim.errors.ComponentError`
  naming it.
* **Several ``--set``** form a **grid** (every combination) by default, or a **zip** (the
  i-th values together; every list must have the same length) with ``--zip``. At most
  :data:`MAX_VARIANTS` variants (the baseline not counted).
* **Baseline.** The unchanged component file. A variant whose values all equal the file's
  values *is* the baseline (it is not played twice); otherwise the baseline is added.
* **Paired design.** Every variant plays the same game indices with the same seating
  rotation, so a seed's deal and dice are shared (as far as the change lets them be); effects
  are paired differences per seed against the baseline: per policy, the seed's win share
  (wins / seats of that policy) and mean XP; over all players, each XP source and the game
  length. Intervals: Student t on the per-seed differences (95%); when no seed changed (all
  differences equal) a win-rate effect gets the bound of
  :func:`~bnb_sim.analysis.stats.constant_sample_interval` and other effects say there is no
  interval, never a zero-width one. Win rates themselves carry Wilson intervals (clustered
  by game when a policy plays several seats).

Nothing here imports numba; :mod:`bnb_sim.runner.sweep_play` plays the games.

The parts live in their own modules, whose public names this one gathers: the variants
(:mod:`~bnb_sim.analysis.sweep_variants`), the estimates (:mod:`~bnb_sim.analysis.sweep_analysis`),
the report (:mod:`~bnb_sim.analysis.sweep_report`), its fairness tables
(:mod:`~bnb_sim.analysis.sweep_fairness`) and plots (:mod:`~bnb_sim.analysis.sweep_plots`).
"""

from __future__ import annotations

from bnb_sim.analysis.sweep_analysis import SweepResult, analyse_sweep
from bnb_sim.analysis.sweep_plots import effect_plot
from bnb_sim.analysis.sweep_report import (
    build_sweep_report,
    format_sweep,
    sweep_findings,
    sweep_sections,
    sweep_summary,
)
from bnb_sim.analysis.sweep_variants import (
    MAX_VARIANTS,
    Variant,
    build_variants,
    parse_set_option,
    split_values,
    variant_combinations,
)
from bnb_sim.analysis.sweep_variants import (
    _lookup as _lookup,  # read by tune/game_tune.py
)

__all__ = [
    "MAX_VARIANTS",
    "SweepResult",
    "Variant",
    "analyse_sweep",
    "build_sweep_report",
    "build_variants",
    "effect_plot",
    "format_sweep",
    "parse_set_option",
    "split_values",
    "sweep_findings",
    "sweep_sections",
    "sweep_summary",
    "variant_combinations",
]
