"""What the ``bnb`` command handlers of Heroes of the Village share: the components with the
command's ``--reading`` items set, the seed and game-index checks, and the text of a block
count. Its command options (``--pets``, ``--difficulty``, ``--buildings``, ``--teams``) are
``OptionSpec`` data of its protocol object (:mod:`bnb_sim.games.heroes_village.spec`).
"""

from __future__ import annotations

from pathlib import Path

from bnb_sim.errors import SpecError
from bnb_sim.games.heroes_village import layout as L

EST = "~"


def _components(components, reading=()):
    """The command's components with its ``--reading NAME=VALUE`` items set (checked)."""
    if components is None or not hasattr(components, "static_arrays"):
        from bnb_sim.games.heroes_village.components import load_components

        components = load_components()
    if not reading:
        return components
    from bnb_sim.games.heroes_village.readings import parse_assignments

    return components.with_readings(parse_assignments(reading))


#: The largest seed (the run's master seed is a 64-bit integer) and game index (as in
#: Builders & Biomes: the engine adds offsets to it in 64-bit arithmetic).
MAX_SEED = 2**63 - 1


MAX_GAME_INDEX = 2**62 - 1


def _check_range(value: int, flag: str, high: int) -> None:
    if not 0 <= value <= high:
        raise SpecError(f"{flag} must be between 0 and {high:,}, got {value:,}")


def _check_seed(seed: int) -> None:
    _check_range(seed, "--seed", MAX_SEED)


def _block_text(counts) -> str:
    parts = [f"{n} {L.BLOCK_NAMES[b]}" for b, n in enumerate(counts) if n]
    return ", ".join(parts) if parts else "nothing"


def path_of(value) -> Path:
    return Path(value)
