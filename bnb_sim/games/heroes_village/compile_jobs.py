"""The kernels of Heroes of the Village as compile jobs (``bnb warmup``; the first, its batch
kernel, is what the shared warm-up before a run compiles: :func:`bnb_sim.feedback.warm_game`).
``bnb bench --game hotv`` is the shared bench (:mod:`bnb_sim.cli.bench_games`) through the
``bench_plan`` and ``play_arrays`` hooks of its spec; the exact odds of a fight, the component
tables and a game told turn by turn are hooks of its spec too
(:mod:`bnb_sim.games.heroes_village.command_text`).
"""

from __future__ import annotations


def warm_batch() -> None:
    """Compile (or load) the batch kernel, with the invariant checker."""
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.runner import make_config, play_arrays

    config = make_config(load_components(), 2, ["team"], None, check=True)
    play_arrays(config, config.teams[0], 0, 2)


def warm_one_game() -> None:
    """Compile (or load) the one-game kernel that keeps a log."""
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.play import play_game
    from bnb_sim.games.heroes_village.runner import make_config, pet_codes

    config = make_config(load_components(), 2, ["random"], None)
    k, kf, kinds, params, plugins = config.arrays()
    play_game(k, kf, kinds, params, plugins, pet_codes(config.teams[0]), config.master, 0, 2, 10)


def warm_step_api() -> None:
    """Compile (or load) the kernels the step-by-step ``Game`` calls one by one."""
    from bnb_sim.games.heroes_village.game import new_game

    game = new_game(0, 0, 2, ["team"], check=True)
    game.play()
    game.result()


def compile_jobs() -> list:
    """This game's kernels as compile jobs (:mod:`bnb_sim.precompile`, ``bnb warmup``)."""
    from bnb_sim.precompile import Job

    here = "bnb_sim.games.heroes_village.compile_jobs"
    return [
        Job(
            "hotv:batch",
            "Heroes of the Village: batch kernel",
            f"{here}:warm_batch",
            (),
            32,
            "heroes_village",
        ),
        Job(
            "hotv:step",
            "Heroes of the Village: step-by-step game API",
            f"{here}:warm_step_api",
            ("hotv:batch",),
            5,
            "heroes_village",
        ),
        Job(
            "hotv:game",
            "Heroes of the Village: one game with its log",
            f"{here}:warm_one_game",
            ("hotv:batch",),
            5,
            "heroes_village",
        ),
    ]
