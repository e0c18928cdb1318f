"""``bnb robustness --run DIR``: the simulation set-up of a run folder (game, players, seed,
expansion, component data, readings; Heroes of the Village: pet teams, difficulty,
buildings), checked so that the rungs replay exactly the run's box. The game rebuilds its
own part (``run_setup`` of its ``robustness`` entry)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bnb_sim.errors import BnbError

__all__ = ["setup_from_run"]

#: options that the run folder decides (giving them with --run is a contradiction), with the
#: run's game's own options of ``bnb robustness`` (its OptionSpec data, e.g. a team's pets)
RUN_DECIDES = ("players", "seed", "components", "reading", "variant")


def setup_from_run(run_dir: str | os.PathLike, given: Iterable[str] = ()) -> dict[str, Any]:
    """``{game, players, seed, expansion, components, readings, options}`` of run ``run_dir``;
    BnbError naming the problem (not a run, an option the run decides, changed components)."""
    from bnb_sim.games import game_of_run
    from bnb_sim.runner.robustness_play import game_play
    from bnb_sim.runner.run_files import META_NAME

    run = Path(run_dir)
    _refuse_what_the_run_decides(run, given, RUN_DECIDES)
    try:
        import json

        meta = json.loads((run / META_NAME).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BnbError(f"--run {run}: not a run folder (no {META_NAME})") from None
    except (OSError, ValueError) as exc:
        raise BnbError(f"--run {run}: cannot read {META_NAME} ({exc})") from None
    params = meta.get("params") or {}
    game = game_of_run(meta)
    _refuse_what_the_run_decides(run, given, _own_options(game.name))
    stored = (meta.get("components") or {}).get("content_hash")
    out = game_play(game).run_setup(run, params, meta.get("components") or {})
    if stored and out["components"].content_hash != stored:
        raise BnbError(
            f"--run {run}: its component data is not what its files give now (the files "
            "changed, or the data was set another way); run bnb robustness with the set-up "
            "options instead"
        )
    return {"game": game, "seed": int(params.get("seed", 0)),
            "players": int(params["players"]), "run_id": meta.get("run_id"), **out}  # fmt: skip


def _own_options(game: str) -> tuple[str, ...]:
    """The names of ``game``'s own options of ``bnb robustness`` (its OptionSpec data)."""
    from bnb_sim.core.registry import get_game

    return tuple(o.name for o in get_game(game).options if o.applies_to("robustness"))


def _refuse_what_the_run_decides(run: Path, given: Iterable[str], decided) -> None:
    for name in given:
        if name in decided:
            flag = "--" + name.replace("_", "-")
            raise BnbError(f"{flag}: --run {run} takes it from the run; drop one of them")
