"""``bnb tune``: search policy parameters or component values toward a target.

* :mod:`~bnb_sim.tune.space`: parameter spaces (continuous, integer, categorical) and the
  parsing of ``--param`` values;
* :mod:`~bnb_sim.tune.search`: the optimisers (CMA-ES through the ``cmaes`` library for
  continuous spaces, an N-tuple bandit (NTBEA) or an exhaustive grid for discrete ones), all
  driven through one evaluation callback and a ledger of finished evaluations;
* :mod:`~bnb_sim.tune.store`: the tuning folder (``tune.json``), which makes runs resumable;
* :mod:`~bnb_sim.tune.targets`: what a game setting is tuned toward;
* :mod:`~bnb_sim.tune.policy_tune` and :mod:`~bnb_sim.tune.game_tune`: the two drivers;
* :mod:`~bnb_sim.tune.report`: tables, plots and the report.

Nothing in this package imports numba at module level; games are played through
:mod:`bnb_sim.runner.experiments` inside the drivers.
"""
