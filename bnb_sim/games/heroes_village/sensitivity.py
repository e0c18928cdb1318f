"""Heroes of the Village's set-up for ``bnb sensitivity`` (entry point ``sensitivity_setup``):
one pet team at one difficulty, replayed under other component values on the same game
indices (:mod:`bnb_sim.runner.sensitivity`)."""

from __future__ import annotations

from collections.abc import Sequence

from bnb_sim.errors import SpecError


def setup(
    components=None,
    *,
    players: int | None = 3,
    policies: Sequence[str] | None = None,
    seed: int = 0,
    threads: int | None = None,
    pets: str | None = None,
    difficulty: str | None = None,
    buildings: str | None = None,
    reading: Sequence[str] = (),
    dask: str | None = None,
    **_other,
):
    """A :class:`~bnb_sim.runner.sensitivity.Setup` of ``players`` heroes playing
    ``policies`` (default: ``team``) with the pets ``pets`` (one team; ``all`` is refused:
    a sensitivity analysis follows one table). ``dask``: ``"local"`` or a scheduler address
    plays the blocks on Dask workers (the same games)."""
    from bnb_sim.games.heroes_village.components_arg import components_arg
    from bnb_sim.games.heroes_village.runner import make_config, play_block
    from bnb_sim.runner.dask_blocks import open_blocks
    from bnb_sim.runner.sensitivity import Setup

    if pets == "all":
        raise SpecError("sensitivity --game hotv: give one pet team (not --pets all)")
    comps = components_arg(components, reading)
    specs = [p.strip() for p in (policies or ["team"]) if p.strip()]
    level = difficulty or "standard"
    first = make_config(comps, players, specs, pets, level, buildings, seed)  # checks now
    blocks = open_blocks(dask, threads)  # a bad address: one line, before any game

    def play(variant, start: int, n: int):
        config = make_config(variant, first.n_players, specs, pets, level, buildings, seed)
        if blocks is not None:
            return blocks.play(config, int(start), int(n), report=False)
        return play_block(config, int(start), int(n), threads)

    from bnb_sim.games.heroes_village.readings import setting_suffix

    team = ",".join(first.teams[0]) or "no pets"
    describe = (f"{first.n_players} players, {', '.join(specs)}, pets {team}, difficulty {level}"
                f"{setting_suffix(comps.readings)}")  # fmt: skip
    params = {"players": first.n_players, "policies": specs, "seed": int(seed),
              "pets": team, "difficulty": level, "buildings": buildings,
              "readings": comps.readings}  # fmt: skip
    return Setup("Minecraft: Heroes of the Village", comps, describe, play, params, blocks=blocks)
