"""The first game's kernels as compile jobs (:mod:`bnb_sim.precompile`).

Each job compiles one part of the kernels, ``after`` the parts it calls, so that parallel
processes never compile the same function: the rules' set-up and output rows, the
one-step bots, the tables the one-step bots read (exact combat odds of every pile), the
built-in bots' batch driver (which inlines legality and the decisions' effects, and so
compiles the step functions they reach), the rules as entry points of their own, the search
bots, the priority-list interpreter, the invariant checker, the full batch driver, the
step-by-step API and the odds command. ``bnb warmup`` runs them all; the first run of a
command runs the ones it needs (:func:`jobs_for_run`), two at a time on two cores.

A job compiles a kernel without running it (``dispatcher.compile`` with the argument types of
small sample values, the types the game loop passes) or, for an entry point, runs it once on a
tiny input. The weights are CPU seconds measured from an empty cache on the 2-core machine
(under load, numba 0.68): they only order the jobs.
"""

from __future__ import annotations

from bnb_sim.precompile import Job

_MODULE = "bnb_sim.games.builders_biomes.compile_jobs"
GROUP = "builders_biomes"


def _job(name, label, after=(), weight=10.0) -> Job:
    return Job(f"bnb:{name}", label, f"{_MODULE}:compile_{name}", after, weight, GROUP)


def jobs() -> list[Job]:
    """Every compile job of the game (``bnb warmup``)."""
    rules, onestep, tables = "bnb:rules", "bnb:onestep", "bnb:tables"
    # The batch driver inlines legality and the decisions' effects (``legal_bits``,
    # ``apply_action``), so it waits only for set-up and rows; the jobs that run after it
    # find the step functions those reach in the cache instead of compiling them again.
    builtin = "bnb:builtin"
    return [
        _job("rules", "rules: set-up, output rows", (), 9),
        _job("onestep", "greedy and heuristic bots", (), 16),
        _job("tables", "combat-odds tables of the one-step bots", (), 9),
        _job("builtin", "batch kernel, built-in bots", (rules, onestep), 30),
        _job("rules_api", "rules called one by one: legality, decisions applied", (builtin,), 10),
        _job("strong", "strong bot (its model's terms)", (builtin,), 10),
        _job("search", "search bots (mc, ismcts)", (builtin, "bnb:strong"), 38),
        _job("priority", "priority-list bots", (builtin,), 13),
        _job("invariants", "invariant checker", (rules,), 5),
        _job(
            "full",
            "batch kernel, every policy kind and --check",
            (builtin, "bnb:strong", "bnb:search", "bnb:priority", "bnb:invariants"),
            20,
        ),
        _job("step", "step-by-step game API", ("bnb:rules_api", tables), 5),
        _job(
            "step_full",
            "step-by-step game API, every policy kind",
            ("bnb:step", "bnb:search", "bnb:priority", "bnb:invariants"),
            8,
        ),
        _job("odds", "combat odds (exact + Monte Carlo)", (tables,), 3),
        _job("cube", "cube bitboards", (), 2),
    ]


def jobs_for_run(kinds, check: bool) -> list[str]:
    """The jobs a batch run of policy ``kinds`` needs (with ``--check`` or not): its driver,
    and the one-step bots' tables unless every seat plays the random bot."""
    from bnb_sim.games.builders_biomes.engine.play import BUILTIN_KINDS
    from bnb_sim.games.builders_biomes.policies.kinds import RANDOM

    builtin = not check and all(int(kind) in BUILTIN_KINDS for kind in kinds)
    names = ["bnb:builtin"] if builtin else ["bnb:full"]
    if any(int(kind) != RANDOM for kind in kinds):
        names.append("bnb:tables")
    return names


def warm_engine(players: list[int], components=None, *, notice: bool = True, config=None) -> float:
    """Compile (or load from the cache) the batch kernel for each player count now, under
    :func:`bnb_sim.feedback.compile_notice`; returns the seconds it took (kept apart from
    playing time). The game's ``warm_engine`` entry (:func:`bnb_sim.feedback.warm_engine`).

    ``config`` (a :class:`~bnb_sim.games.builders_biomes.run_config.GameConfig`): the run's
    own policies and ``--check``, so only the driver it needs compiles; without it, the
    built-in bots'. On more than one core, the parts the driver calls compile first in
    parallel processes (:func:`jobs_for_run`)."""
    import time

    from bnb_sim.feedback import compile_notice, compile_processes
    from bnb_sim.games.builders_biomes.batch import play_block
    from bnb_sim.games.builders_biomes.run_config import GameConfig
    from bnb_sim.precompile import ensure, is_done, mark_done, needed

    start = time.perf_counter()
    if config is not None:
        configs = [config]
    else:
        counts = sorted(set(players), reverse=True)
        configs = [
            GameConfig.create(n, ["random"] * n, seed=0, components=components) for n in counts
        ]
    names = sorted(
        {name for c in configs for name in jobs_for_run([p.kind for p in c.policies], c.check)}
    )
    every = jobs()
    todo = [job for job in needed(every, names) if not is_done(job)]
    with compile_notice(notice, cold=bool(todo)):
        processes = compile_processes()
        if todo and processes > 1:
            ensure(every, names, processes)  # a job that fails compiles below instead
        for c in configs:
            if config is None:
                play_block(c, 0, 1, 1)
            else:  # the run's own policies: compiled by type, no game played here
                compile_run_driver(c)
    for job in every:
        if job.name in names:
            mark_done(job)
    return time.perf_counter() - start


# ----------------------------------------------------------------------------- samples


def _typed(dispatcher, *values) -> None:
    """Compile ``dispatcher`` for the types of ``values`` (nothing runs)."""
    from bnb_sim._jit import numba

    dispatcher.compile(tuple(numba.typeof(v) for v in values))


def _config(policies, players=4, check=False):
    from bnb_sim.games.builders_biomes.run_config import GameConfig

    return GameConfig.create(players, list(policies), seed=0, check=check)


def _state(k):
    """Zeroed game arrays of the engine's shapes (types are all a compile needs)."""
    import numpy as np

    from bnb_sim.games.builders_biomes.engine.layout import H_SIZE, N_STREAM_ROWS, P_SIZE

    return (
        np.zeros(P_SIZE, np.int64),
        np.zeros(H_SIZE, np.int64),
        np.zeros((N_STREAM_ROWS, 4), np.uint64),
    )


def _decision_args(config):
    """(params row, pub, seat, memory row, k, ft, mask, pass_ok, rng, row): a policy's call."""
    import numpy as np

    from bnb_sim.games.builders_biomes.engine.play import MEM_SIZE

    k, ft, _, params, _ = config.kernel_inputs
    pub, _, rng = _state(k)
    mem = np.zeros((config.n_players, MEM_SIZE), np.float64)
    return params[0], pub, 0, mem[0], k, ft, np.uint64(1), True, rng, 0


# ----------------------------------------------------------------------------- jobs


def compile_rules() -> None:
    """Set-up (compiled and run) and the output rows: what the batch drivers call and do not
    inline."""
    import numpy as np

    from bnb_sim.games.builders_biomes.engine import play as P
    from bnb_sim.games.builders_biomes.policies.search import new_search_scratch

    config = _config(["random"])
    k, _, kinds, params, _ = config.kernel_inputs
    pub, hid, rng = P.new_game(k, config.master, 0, 4)  # set-up (compiled and run)
    seat_out = np.zeros((4, 8), np.int64)
    game_out = np.zeros((1, P.N_GAME_COLUMNS), np.int64)
    _typed(P.write_rows, pub, hid, k, 0, seat_out, game_out)
    _typed(P.write_rule_hits, pub, k, np.zeros((4, P.MEM_SIZE)), 0, seat_out)
    _typed(new_search_scratch, k, kinds, params, 4, P.MEM_SIZE)


def compile_rules_api() -> None:
    """Legality and the decisions' effects as entry points of their own (the step-by-step
    API calls them from Python; the batch drivers inline them)."""
    from bnb_sim.games.builders_biomes.engine import play as P
    from bnb_sim.games.builders_biomes.engine.legal import legal_action_mask, legal_bits
    from bnb_sim.games.builders_biomes.engine.observation import prepare_observation
    from bnb_sim.games.builders_biomes.engine.step import apply_action

    config = _config(["random"])
    k = config.kernel_inputs[0]
    pub, hid, rng = P.new_game(k, config.master, 0, 4)
    _typed(legal_bits, pub, k)
    _typed(legal_action_mask, pub, k)
    _typed(apply_action, pub, hid, rng, k, 0)
    _typed(prepare_observation, pub, hid, 0)


def compile_onestep() -> None:
    from bnb_sim.games.builders_biomes.policies.onestep import choose_onestep

    _typed(choose_onestep, *_decision_args(_config(["random"])))


def compile_tables() -> None:
    _config(["heuristic"]).kernel_inputs  # noqa: B018 (builds the tables: compiles them)


def compile_search() -> None:
    import numpy as np

    from bnb_sim.games.builders_biomes.engine.play import MEM_SIZE
    from bnb_sim.games.builders_biomes.policies.search import new_search_scratch, search_decide

    config = _config(["mc", "ismcts"], players=2)
    k, ft, kinds, params, _ = config.kernel_inputs
    pub, hid, rng = _state(k)
    scratch = new_search_scratch(k, kinds, params, 2, MEM_SIZE)
    _typed(search_decide, 8, pub, hid, rng, k, ft, params[0], 0, np.uint64(1), True, scratch)


def compile_strong() -> None:
    from bnb_sim.games.builders_biomes.policies.strong import choose_strong

    _typed(choose_strong, *_decision_args(_config(["random"])))


def compile_priority() -> None:
    from bnb_sim.games.builders_biomes.policies.priority import choose_priority

    _typed(choose_priority, *_decision_args(_config(["random"])))


def compile_invariants() -> None:
    from bnb_sim.games.builders_biomes.engine.invariants import check_invariants

    k = _config(["random"]).kernel_inputs[0]
    pub, hid, _ = _state(k)
    _typed(check_invariants, pub, hid, k)


def _driver(kernel, config=None) -> None:
    """Compile a batch driver for the types of a run (no tables needed: nothing runs)."""
    import numpy as np

    from bnb_sim.games.builders_biomes.engine.play import N_GAME_COLUMNS

    config = config or _config(["random"])
    k, ft, kinds, params, plugins = config.kernel_inputs
    seat_out = np.zeros((config.n_players, 8), np.int64)
    game_out = np.zeros((1, N_GAME_COLUMNS), np.int64)
    stop = np.zeros(1, np.int64)
    _typed(kernel, k, ft, kinds, params, plugins, config.master, 0, config.n_players, seat_out,
           game_out, stop)  # fmt: skip


def compile_run_driver(config) -> None:
    """Compile (or load) the batch driver a run of ``config`` plays with, without playing a
    game: a plugin may take days over its first decision, and the run's own loop, not its
    warm-up, is where a signal stops it cleanly."""
    from bnb_sim.games.builders_biomes.engine.play import batch_kernel

    _driver(batch_kernel(config.kernel_inputs[2], config.kernel_inputs[0]), config)


def compile_builtin() -> None:
    from bnb_sim.games.builders_biomes.engine.play import play_batch_builtin

    _driver(play_batch_builtin)


def compile_full() -> None:
    from bnb_sim.games.builders_biomes.engine.play import play_batch

    _driver(play_batch)


def compile_step() -> None:
    from bnb_sim.games.builders_biomes.game import new_game

    game = new_game(0, 0, 2, ["heuristic", "greedy"], log=True)
    game.play()
    game.result()


def compile_step_full() -> None:
    from bnb_sim.games.builders_biomes.game import new_game

    game = new_game(0, 0, 2, ["heuristic", "greedy"], check=True)
    game.apply_action(game.policy_action())


def compile_odds() -> None:
    from bnb_sim.games.builders_biomes.odds import combat_odds, combat_odds_table

    pile = "wooden_sword,stone_sword*3,potato*3,iron_sword*4,diamond_sword*2,bow*2,hoe*2,tnt*2"
    combat_odds(pile, 4, simulate=1000, seed=0)
    combat_odds_table("wooden_sword")


def compile_cube() -> None:
    import numpy as np

    from bnb_sim.api import collectable

    collectable(np.ones((4, 4, 4), bool))
