"""``bnb robustness --run DIR``: the simulation set-up of a run folder (game, players, seed,
expansion, component data, readings; Heroes of the Village: pet teams, difficulty,
buildings), checked so that the rungs replay exactly the run's box."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bnb_sim.errors import BnbError

__all__ = ["setup_from_run"]

_BUILT_IN = (" (default)", " (expansion)")

#: options that the run folder decides (giving them with --run is a contradiction)
RUN_DECIDES = ("players", "seed", "components", "reading", "variant", "pets", "difficulty",
               "buildings")  # fmt: skip


def setup_from_run(run_dir: str | os.PathLike, given: Iterable[str] = ()) -> dict[str, Any]:
    """``{game, players, seed, expansion, components, readings, options}`` of run ``run_dir``;
    BnbError naming the problem (not a run, an option the run decides, changed components)."""
    from bnb_sim.games import game_of_run
    from bnb_sim.runner.run_files import META_NAME

    run = Path(run_dir)
    for name in given:
        if name in RUN_DECIDES:
            flag = "--" + name.replace("_", "-")
            raise BnbError(f"{flag}: --run {run} takes it from the run; drop one of them")
    try:
        import json

        meta = json.loads((run / META_NAME).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BnbError(f"--run {run}: not a run folder (no {META_NAME})") from None
    except (OSError, ValueError) as exc:
        raise BnbError(f"--run {run}: cannot read {META_NAME} ({exc})") from None
    params = meta.get("params") or {}
    game = game_of_run(meta)
    stored = (meta.get("components") or {}).get("content_hash")
    if game.entry("robustness") is None:  # Builders & Biomes
        out = _bnb_setup(run, params, meta.get("components") or {})
    else:
        out = _hotv_setup(run, params, meta.get("components") or {})
    if stored and out["components"].content_hash != stored:
        raise BnbError(
            f"--run {run}: its component data is not what its files give now (the files "
            "changed, or the data was set another way); run bnb robustness with the set-up "
            "options instead"
        )
    return {"game": game, "seed": int(params.get("seed", 0)),
            "players": int(params["players"]), "run_id": meta.get("run_id"), **out}  # fmt: skip


def _bnb_setup(run: Path, params: dict, comps: dict) -> dict:
    from bnb_sim.games.builders_biomes.components import load_components

    expansion = params.get("expansion")
    # the built-in data is listed by its label ("builders_biomes.toml (default)")
    files = [str(f) for f in comps.get("files") or [] if not str(f).endswith(_BUILT_IN)]
    missing = [f for f in files if not Path(f).is_file()]
    if missing:
        raise BnbError(f"--run {run}: its component file {missing[0]} is not there any more")
    components = load_components(files, expansion=expansion)
    readings = dict(params.get("readings") or {})
    return {"components": components, "expansion": expansion, "readings": readings,
            "options": {}}  # fmt: skip


def _hotv_setup(run: Path, params: dict, comps: dict) -> dict:
    """The run stores its whole component data (readings included): rebuilt from it."""
    from bnb_sim.games.heroes_village import layout as L
    from bnb_sim.games.heroes_village.components import components_from_dict

    teams = list(params.get("pet_teams") or [])
    players = int(params["players"])
    if len(teams) == 1:
        pets = teams[0]
    elif len(teams) == math.comb(len(L.PET_NAMES), players):
        pets = "all"
    else:
        raise BnbError(f"--run {run}: its {len(teams)} pet teams are neither one team nor all")
    if not isinstance(comps.get("data"), dict):
        raise BnbError(f"--run {run}: its run.json holds no component data")
    components = components_from_dict(comps["data"], f"{run}/run.json")
    options = {"pets": pets, "difficulty": params.get("difficulty"),
               "buildings": params.get("buildings")}  # fmt: skip
    return {"components": components, "expansion": None, "readings": {}, "options": options}
