"""Component data: every number of the game, with provenance (docs/components.md).

    from bnb_sim.games.builders_biomes.components import load_components
    comps = load_components()                # the default file
    comps = load_components("my_box.toml")   # a complete file, or an override of the defaults
    comps.arrays                             # ComponentArrays for the kernels

Importing this package imports neither numba nor numpy; ``comps.arrays`` imports numpy.
"""

from __future__ import annotations

from bnb_sim.games.builders_biomes.components.loader import (
    DEFAULT_COMPONENTS_PATH,
    components_from_dict,
    components_from_text,
    load_components,
    parse_assignment,
)
from bnb_sim.games.builders_biomes.components.model import Components

__all__ = [
    "DEFAULT_COMPONENTS_PATH",
    "Components",
    "components_from_dict",
    "components_from_text",
    "load_components",
    "parse_assignment",
]
