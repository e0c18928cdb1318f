"""Statistics for reports: win-rate intervals, paired comparisons, ratings, sequential stopping.

Submodules (import them directly; this package imports nothing so that it stays cheap):

- :mod:`bnb_sim.analysis.stats` -- Wilson intervals, :class:`~bnb_sim.analysis.stats.Rate`,
  t intervals, paired differences, McNemar, cluster bootstrap, seat balance.
- :mod:`bnb_sim.analysis.ratings` -- Bradley--Terry ratings on the Elo scale, head-to-head tables.
- :mod:`bnb_sim.analysis.sequential` -- SPRT and precision-based stopping rules.

None of them imports numba or matplotlib.
"""
