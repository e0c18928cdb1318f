"""The shared run path reaches a game through its registry entries (issue 24).

``bnb simulate``'s plan and executors, the Dask backend, the first-run warm-up and ``bnb
bench`` import no game package: they find the config's game in the registry
(``config.game``) and call its entry points. These tests pin that the built-in games declare
what that path calls, and that a game without an entry gets one line, not a fallback to
another game's code.
"""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import pytest

from bnb_sim.errors import SpecError
from bnb_sim.games import GAMES, entry_of_config, get_game

#: What the shared Dask backend calls of every game whose runs it plays.
DASK_ENTRIES = ("dask_payload", "dask_config", "play_block")
#: What the simulate path (plan, executors, warm-up) and ``bnb bench`` call of the game.
RUN_ENTRIES = ("create_config", "play_block", "play_arrays", "games_per_thread", "warm_engine")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_built_in_game_declares_what_the_dask_backend_calls(name):
    spec = get_game(name)
    for what in DASK_ENTRIES:
        assert callable(spec.entry(what)), f"{name} lacks {what}"


def test_the_first_game_declares_what_the_simulate_path_calls():
    spec = get_game("builders_biomes")
    for what in RUN_ENTRIES:
        assert callable(spec.need(what)), what


def test_a_config_names_its_game_and_finds_its_entries():
    create_config = get_game(None).need("create_config")
    config = create_config(2, ["random"], seed=3)
    assert config.game == "builders_biomes"
    assert entry_of_config(config, "play_block") == get_game("bnb").entry("play_block")
    assert entry_of_config(config, "games_per_thread")(config) == 20_000  # all random
    heuristic = create_config(2, ["heuristic"], seed=3)
    assert entry_of_config(heuristic, "games_per_thread")(heuristic) == 10_000


def test_a_missing_entry_is_one_line_naming_the_game():
    with pytest.raises(SpecError, match="Heroes of the Village does not offer 'warm engine'"):
        entry_of_config(SimpleNamespace(game="heroes_village"), "warm_engine")


def test_the_warm_up_goes_to_the_configs_game():
    from bnb_sim import feedback

    with pytest.raises(SpecError, match="does not offer 'warm engine'"):
        feedback.warm_engine([2], config=SimpleNamespace(game="heroes_village"), notice=False)


def test_the_warm_up_before_a_run_is_the_games_first_compile_job(monkeypatch):
    """``bnb run``'s items, ``bnb sensitivity`` and ``bnb luck`` warm a game through the
    protocol: one with a warm-up of its own (the first game) per player count, any other by
    the first of its compile jobs (its batch kernel) in this process, one with no compile
    jobs (the dice race) not at all."""
    from bnb_sim import feedback, precompile

    asked = []
    monkeypatch.setattr(precompile, "warm_here", lambda jobs, names: asked.append(names))
    key, step = feedback.warmup_step("hotv", 3)
    assert key == ("heroes_village", "batch kernel")
    step()
    assert asked == [["hotv:batch"]]
    assert feedback.warmup_step(None, 3)[0] == ("builders_biomes", 3)
    assert feedback.warmup_step("dice_race", 2)[1]() == 0.0 and len(asked) == 1


def test_warming_in_this_process_runs_a_job_after_the_jobs_it_needs(monkeypatch):
    import importlib

    from bnb_sim.precompile import Job, warm_here

    ran = []
    monkeypatch.setattr(importlib, "import_module",
                        lambda name: SimpleNamespace(go=lambda: ran.append(name)))  # fmt: skip
    jobs = [Job("a", "A", "m_a:go"), Job("b", "B", "m_b:go", ("a",)), Job("c", "C", "m_c:go")]
    warm_here(jobs, ["b"])
    assert ran == ["m_a", "m_b"]


def test_the_dask_payload_names_the_game_and_rebuilds_its_config():
    from bnb_sim.runner import dask_backend as db

    config = get_game(None).need("create_config")(3, ["greedy"], seed=5, seating="random")
    payload = pickle.loads(pickle.dumps(db.config_payload(config)))
    assert payload["game"] == "builders_biomes"
    rebuilt = db.config_from_payload(payload)
    assert type(rebuilt) is type(config) and rebuilt.to_dict() == config.to_dict()


def test_a_payload_of_changed_components_is_refused_on_the_worker():
    from bnb_sim.runner import dask_backend as db

    config = get_game(None).need("create_config")(2, ["random"], seed=1)
    payload = {**db.config_payload(config), "content_hash": "0" * 64}
    with pytest.raises(Exception, match="rebuilt other component data"):
        db.config_from_payload(payload)


def test_bench_measures_through_the_default_games_entries():
    """``bnb bench``'s alternating ratio plays the default game's configs with its batch
    kernel, both found in the registry."""
    from bnb_sim.cli import bench_cmd

    create_config, play_arrays = bench_cmd.engine_entries()
    assert play_arrays == get_game(None).entry("play_arrays")
    assert create_config(2, ["greedy"]).labels == ["greedy", "greedy"]
    result = bench_cmd.alternating_ratio("greedy", players=2, threads=1, seconds=0.05, repeats=1)
    assert result["ratio"] > 0 and result["reference"] == "heuristic"
