"""Heroes of the Village component data as its study hooks take it: loaded components (a
:class:`~bnb_sim.games.heroes_village.components.HotvComponents`) or ``None`` (the default
file), with ``--reading NAME=VALUE`` items set. The game's ``luck``, ``robustness``,
``sensitivity``, ``team_play`` and ``value_study`` hooks and its command texts
(:mod:`~bnb_sim.games.heroes_village.command_text`) share it; its command options
(``--pets``, ``--difficulty``, ``--buildings``, ``--teams``) are ``OptionSpec`` data of its
protocol object (:mod:`bnb_sim.games.heroes_village.spec`).
"""

from __future__ import annotations

__all__ = ["components_arg"]


def components_arg(components, reading=()):
    """The components with the ``--reading NAME=VALUE`` items of ``reading`` set (checked):
    ``components`` loaded already, or ``None`` (the default file), a path or a list of paths
    (merged over the defaults, as ``--components``); the Python API passes any of them."""
    if not hasattr(components, "static_arrays"):
        from bnb_sim.games.heroes_village.components import load_components

        components = load_components(components)  # a path or paths: not silently the defaults
    if not reading:
        return components
    from bnb_sim.games.heroes_village.readings import parse_assignments

    return components.with_readings(parse_assignments(reading))
