"""What the two first games share to present their existing parts through the protocol.

Builders & Biomes and Heroes of the Village predate :mod:`bnb_sim.core.protocol`: many of
their commands are still served by code of their own (the run hooks of their protocol
objects, :data:`bnb_sim.core.protocol.ENTRIES`). Their ``spec`` modules wrap the same parts
(component loader, run config, block player, columns) as protocol objects, so the contract
test and new shared code see every game the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

_ARROW_NAMES = {"double": "float64", "float": "float32", "large_string": "string"}


def column_types(columns: dict[str, Any]) -> dict[str, str]:
    """Arrow column types (``pyarrow.int8()``, ...) as the protocol's type names."""
    return {name: _ARROW_NAMES.get(str(t), str(t)) for name, t in columns.items()}


@dataclass
class WrappedConfig:
    """A game's own run config with what the protocol asks of every config."""

    inner: Any
    game: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def n_players(self) -> int:
        return int(self.inner.n_players)

    @property
    def seed(self) -> int:
        return int(self.inner.seed)

    @property
    def labels(self) -> list[str]:
        return list(self.inner.labels)

    def identity(self) -> dict[str, Any]:
        return dict(self.params)


def players_for(players: int | None, policies, default: int) -> int:
    """The player count: as given, else one per policy (``default`` with one policy)."""
    if players is not None:
        return int(players)
    return len(policies) if len(policies) > 1 else default
