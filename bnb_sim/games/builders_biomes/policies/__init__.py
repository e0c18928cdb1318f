"""Policies (bots): built-ins as data (kind id + parameters) and third-party plugins.

Import :mod:`bnb_sim.games.builders_biomes.policies.registry` to parse policy specs; the jitted
decision code lives
in the other modules and is only imported by the engine's drivers.
"""
