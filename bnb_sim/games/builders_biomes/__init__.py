"""Minecraft: Builders & Biomes (with its Farmer's Market expansion), the first game.

* ``engine/``: the rules as jitted kernels on flat arrays (set-up, legality, apply, scoring,
  the batch driver), each module citing the rule IDs it implements;
* ``policies/``: the bots (random, greedy, heuristic, priority-list bot files, Monte Carlo and
  ISMCTS search) and the policy-spec parser;
* ``components/``: the validated component data (every number, with provenance) and the arrays
  the kernels read;
* ``game.py`` (one game at a time, OpenSpiel style), ``odds.py`` (exact combat odds),
  ``readings.py`` (rule readings), ``describe.py`` (words for the engine's numbers).

The shared runner, storage and report serve it directly; ``spec.py`` is the game as the
registry (:mod:`bnb_sim.games`) sees it: one protocol object with every hook.
"""

from __future__ import annotations
