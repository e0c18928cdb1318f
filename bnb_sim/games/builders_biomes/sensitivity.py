"""Builders & Biomes' set-up for ``bnb sensitivity`` (entry point ``sensitivity_setup``): one
table, its seats rotating between the policies, replayed under other component values on the
same game indices (:mod:`bnb_sim.runner.sensitivity`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bnb_sim.errors import BnbError

if TYPE_CHECKING:
    from bnb_sim.runner.sensitivity import Setup


def setup(
    components=None,
    *,
    players: int | None = 4,
    policies: Sequence[str] | None = ("heuristic",),
    seed: int = 0,
    readings=None,
    threads: int | None = None,
    dask: str | None = None,
    **_other,
) -> Setup:
    """Builders & Biomes (with or without Farmer's Market): ``players`` seats with
    ``policies`` cycled over them, seats rotating between the policies by game index (the
    design of ``bnb sweep``), so seat effects are not one policy's. ``dask``: ``"local"`` or
    a scheduler address plays the blocks on Dask workers (the same games)."""
    from bnb_sim.games.builders_biomes.components import Components, load_components
    from bnb_sim.runner.dask_blocks import open_blocks
    from bnb_sim.runner.design_play import _config, _labels, design_readings, play_games
    from bnb_sim.runner.sensitivity import Setup

    if not isinstance(components, Components):
        components = load_components(components)
    players = 4 if players is None else players
    if not 2 <= int(players) <= 4:
        raise BnbError(f"sensitivity: players must be between 2 and 4, got {players}")
    labels = _labels(list(policies or ()) or ["heuristic"])
    table = [labels[i % len(labels)] for i in range(int(players))]
    chosen = design_readings(readings, None, seating="rotate", what="sensitivity")
    blocks = open_blocks(dask, threads)  # a bad address: one line, before any game

    def keep(column: str) -> bool:
        return column in ("game", "seat", "won")

    def play(comps, start: int, n: int):
        config = _config(int(players), table, seed=int(seed), components=comps, readings=chosen)
        if blocks is not None:
            return blocks.play(config, int(start), int(n), keep=keep)
        return play_games(config, int(n), start=int(start), threads=threads, keep=keep)

    seats_text = (
        f"{table[0]} in every seat" if len(set(table)) == 1 else "policies " + ", ".join(table)
    )
    expansion = getattr(components, "expansion", None)
    describe = f"{players} players, {seats_text}" + (f", {expansion}" if expansion else "")
    params = {"players": int(players), "policies": table, "seed": int(seed),
              "readings": chosen, "expansion": expansion}  # fmt: skip
    return Setup("Minecraft: Builders & Biomes", components, describe, play, params, True, blocks)
