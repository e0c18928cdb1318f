"""Interval estimates and tests for simulation reports (docs/design.md, "Statistics").

Conventions
-----------
- Every rate is reported with its ``n`` and a confidence interval (:class:`Rate`); win rates use
  the Wilson score interval, never the Wald interval.
- Intervals for anything computed from per-seat rows are clustered by game (or by seed / seat-
  swapped pair): rows of one game are not independent, so resampling or variance estimates
  treat the game as the unit.
- Only numpy is imported at module level; pandas and scipy.special are imported inside the
  functions that need them, so ``import bnb_sim.analysis.stats`` stays cheap. No numba, no
  matplotlib.

This module is the public face of the statistics: it names them (``__all__``) and imports
them from where they live, one module per concern:

* :mod:`bnb_sim.analysis.stats_intervals` -- rates, means, Wilson and t intervals, digits;
* :mod:`bnb_sim.analysis.stats_clustered` -- rates and means clustered by game, the cluster
  bootstrap;
* :mod:`bnb_sim.analysis.stats_paired` -- paired differences and McNemar's test;
* :mod:`bnb_sim.analysis.stats_seats` -- first-player advantage, seat gap test, balance;
* :mod:`bnb_sim.analysis.ratings` -- Bradley--Terry ratings and the Elo scale;
* :mod:`bnb_sim.analysis.sequential` -- sequential tests (SPRT).

Code inside bnb_sim imports from those modules; users (and tests) import from here.
"""

from __future__ import annotations

from bnb_sim.analysis.ratings import elo_from_score, score_from_elo
from bnb_sim.analysis.stats_clustered import (
    _pattern_bootstrap,  # noqa: F401  (not public; tournament.py imports it from here)
    _percentile,  # noqa: F401  (the same)
    _ratio_se,  # noqa: F401  (not public; runner/simulate.py imports it from here)
    _unique_patterns,  # noqa: F401  (tournament.py)
    cluster_bootstrap_ci,
    clustered_mean_ci,
    clustered_rate,
    clustered_wilson,
    rates_by_cluster,
)
from bnb_sim.analysis.stats_intervals import (
    Rate,
    constant_sample_interval,
    mean_ci,
    num_digits,
    pct_digits,
    rates_by,
    sample_size_for_halfwidth,
    wilson_interval,
)
from bnb_sim.analysis.stats_paired import mcnemar, paired_difference
from bnb_sim.analysis.stats_seats import balance_metric, first_player_advantage, seat_gap_test

__all__ = [
    "Rate",
    "balance_metric",
    "seat_gap_test",
    "cluster_bootstrap_ci",
    "constant_sample_interval",
    "clustered_mean_ci",
    "clustered_rate",
    "clustered_wilson",
    "elo_from_score",
    "first_player_advantage",
    "mcnemar",
    "mean_ci",
    "num_digits",
    "paired_difference",
    "pct_digits",
    "rates_by",
    "rates_by_cluster",
    "sample_size_for_halfwidth",
    "score_from_elo",
    "wilson_interval",
]
