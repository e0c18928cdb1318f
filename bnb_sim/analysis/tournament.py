"""Round-robin tournaments on paired seeds: schedule, ratings, head-to-head, report sections.

Design (docs/design.md, "Statistics"):

* **Schedule.** For K policies and P players every combination of P *different* policies
  plays (``itertools.combinations``); only when K < P are policies repeated
  (``combinations_with_replacement``, dropping the tables where one policy plays alone).
* **Paired seeds.** Every combination plays the same game indices ``0 .. N-1`` (the *seeds*)
  under each of its P cyclic seatings: seating ``r`` puts ``combo[(s + r) % P]`` in seat
  ``s``. A game depends only on (seed, game index, seat), so the P seatings of one index deal
  the same cubes, tiles and dice per seat and only who sits where changes; that cancels the
  first-player advantage and the luck of the deal.
* **Ratings.** Bradley--Terry on the pairwise results of every game (better rank wins, equal
  ranks ½-½, :func:`bnb_sim.analysis.ratings.pairwise_from_games`), on the Elo scale, anchored
  to ``random`` when it plays (else mean 0). Intervals: percentile bootstrap over *seeds*: a
  seed (game index) carries every game played on it, in every combination and seating, so the
  dependence that CRN creates between those games is kept inside the resampled unit.
* **Head-to-head.** Score of the row policy against the column policy over all their
  meetings, with n (meetings) and the same seed-bootstrap interval.
* **Strength against budget.** When two or more entrants are one search bot differing only
  in budget (:mod:`bnb_sim.analysis.budget_series`), their Elo and win rate by budget, as a
  table and a plot on a log axis.
* **Win rates** per policy (and per seat) with Wilson intervals clustered by seed
  (:func:`~bnb_sim.analysis.stats.rates_by_cluster`), and **XP** means with t intervals
  clustered by seed (:func:`~bnb_sim.analysis.stats.clustered_mean_ci`): all games of a seed
  share its deal, and a policy may take several seats of one game. ``won`` counts a shared win
  for every tied winner.

The frames this module reads are the engine's per-seat and per-game rows
(``docs/run-format.md``) with three extra columns the runner adds: ``seed_index`` (the game
index, i.e. the seed), ``combo`` and ``rotation``; ``game`` is a unique id per played game.
Nothing here imports numba: the games are played by :mod:`bnb_sim.runner.tournament_play`.

The parts live in their own modules, whose public names this one gathers: the schedule
(:mod:`~bnb_sim.analysis.tournament_schedule`), the estimates
(:mod:`~bnb_sim.analysis.tournament_analysis`) and the report
(:mod:`~bnb_sim.analysis.tournament_report`).
"""

from __future__ import annotations

from bnb_sim.analysis.tournament_analysis import TournamentResult, analyse_tournament, seed_pairwise
from bnb_sim.analysis.tournament_report import (
    build_tournament_report,
    elo_leader,
    tournament_findings,
    tournament_sections,
    tournament_summary,
)
from bnb_sim.analysis.tournament_schedule import MAX_SEATINGS, schedule, seatings, split_policy_list

__all__ = [
    "MAX_SEATINGS",
    "TournamentResult",
    "analyse_tournament",
    "build_tournament_report",
    "elo_leader",
    "schedule",
    "seatings",
    "seed_pairwise",
    "split_policy_list",
    "tournament_findings",
    "tournament_sections",
    "tournament_summary",
]
