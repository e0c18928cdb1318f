"""What every Heroes of the Village experiment item shares, whatever its kind: the game's
name, its component data (files and ``set`` overrides, checked with the item's key in the
message), paths relative to the experiment file, and the batch kernel's warm-up.

The game's ``[[robustness]]`` item (:mod:`~bnb_sim.games.heroes_village.robustness`) and its
ladder setting (:mod:`~bnb_sim.games.heroes_village.ladder`) import these from here; its other
items are the shared protocol items (:mod:`bnb_sim.analysis.protocol_item`).
"""

from __future__ import annotations

from pathlib import Path

from bnb_sim.errors import BnbError

__all__ = ["GAME", "item_components", "resolve_path", "warm_batch_kernel"]

GAME = "heroes_village"


def warm_batch_kernel() -> None:
    """Compile (or load) this game's batch kernel: one game of the default components."""
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.runner import make_config, play_arrays

    config = make_config(load_components(), 2, ["random"], None)
    play_arrays(config, config.teams[0], 0, 1, 1)


def resolve_path(base_dir: Path, path: str) -> Path:
    p = Path(path).expanduser()
    return p if p.is_absolute() else base_dir / p


def item_components(r, files: list[str], overrides: dict):
    from bnb_sim.games.heroes_village.components import components_from_dict, load_components
    from bnb_sim.games.heroes_village.variants import _set_path

    try:
        comps = load_components(files or None)
        if overrides:
            import copy

            data = copy.deepcopy({k: v for k, v in comps.data.items() if not k.startswith("_")})
            for path, value in overrides.items():
                _set_path(data, path, value)
            comps = components_from_dict(data, f"{r.source}: {r.where}.set")
    except BnbError as exc:
        raise BnbError(f"{r.source}: {r.where}.components: {exc}") from None
    return comps
