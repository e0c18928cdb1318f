"""Builders & Biomes component data as the Python API and the studies take it: ``None`` (the
default files), a path, a list of paths, or a loaded
:class:`~bnb_sim.games.builders_biomes.components.Components`, with the expansion's data when
one is named. Shared by :mod:`bnb_sim.studies` and the robustness study's game side
(:mod:`bnb_sim.games.builders_biomes.robustness`), so neither imports the other.
"""

from __future__ import annotations

from typing import Any

from bnb_sim import _args
from bnb_sim.errors import BnbError

__all__ = ["components_arg"]


def components_arg(components: Any, expansion: str | None):
    """A Components from None, a path, a list of paths or a Components (and the expansion)."""
    from bnb_sim.games.builders_biomes.components import Components, load_components

    if expansion is not None:
        _args.text(expansion, "expansion")
    if isinstance(components, Components):
        if expansion is not None and components.expansion != expansion:
            raise BnbError(
                f"expansion={expansion!r} but the components were loaded without it "
                f"(load them with load_components(..., expansion={expansion!r}))"
            )
        return components
    return load_components(components, expansion=expansion)
