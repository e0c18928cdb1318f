"""What keeps the first compile short (docs/design.md, "Kernels and the cache"): one compiled
version per argument types, inlined functions translated once, a cache keyed on content, a
fingerprint per game, compile jobs in parallel processes merged into one cache, and batch
drivers that compile only the policy kinds a run uses."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import bnb_sim

PACKAGE = Path(bnb_sim.__file__).resolve().parent


def test_a_kernel_called_with_different_constants_compiles_once():
    """numba types a constant argument by its value (``Literal[int](1)``), so each constant
    compiled the callee again; bnb-sim's dispatcher compiles one version per types."""
    from bnb_sim._jit import kernel

    @kernel
    def callee(a, n):
        return a[0] + n

    @kernel
    def caller(a):
        return callee(a, 1) + callee(a, 2) + callee(a, 3)

    assert caller(np.zeros(1, np.int64)) == 6
    assert len(callee.signatures) == 1


def test_an_inlined_function_is_translated_once_per_process():
    """``inline="always"`` ran numba's front end over the callee at every call site."""
    from numba.core.inline_closurecall import InlineWorker

    from bnb_sim._jit import kernel
    from bnb_sim.games.builders_biomes.engine.bits import popcount

    seen = []
    original = InlineWorker.run_untyped_passes

    def spy(self, func, enable_ssa=False):
        seen.append(func)
        return original(self, func, enable_ssa)

    InlineWorker.run_untyped_passes = spy
    try:

        @kernel
        def three_sites(x):
            return popcount(x) + popcount(x + np.uint64(1)) + popcount(x + np.uint64(2))

        assert three_sites(np.uint64(3)) == 2 + 1 + 2  # 0b11, 0b100, 0b101
    finally:
        InlineWorker.run_untyped_passes = original
    assert seen.count(popcount.py_func) <= 1


def test_a_kernel_is_cached_under_its_games_folder_and_its_path_in_the_package():
    from bnb_sim.cache_paths import cache_dir
    from bnb_sim.games.builders_biomes.engine.scoring import ranks
    from bnb_sim.games.heroes_village.engine import apply_action
    from bnb_sim.rng import seed_stream

    where = Path(ranks._cache.cache_path)
    assert where == cache_dir("builders_biomes") / "games" / "builders_biomes" / "engine"
    assert Path(apply_action._cache.cache_path).parent == cache_dir("heroes_village") / "games"
    assert Path(seed_stream._cache.cache_path) == cache_dir("shared")


def _fingerprints(package_parent: Path) -> dict:
    code = (
        "import json; from bnb_sim import cache_paths as c\n"
        "print(json.dumps({g: c.kernel_fingerprint(g) for g in c.groups()}))"
    )
    env = dict(os.environ, PYTHONPATH=str(package_parent))
    command = [sys.executable, "-c", code]  # run elsewhere: `-c` puts the working folder first
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=package_parent)
    assert done.returncode == 0, done.stderr
    import json

    return json.loads(done.stdout)


def test_an_edit_to_one_games_kernels_keeps_the_other_games_cache(tmp_path):
    copy = tmp_path / "src"
    shutil.copytree(PACKAGE, copy / "bnb_sim", ignore=shutil.ignore_patterns("__pycache__"))
    before = _fingerprints(copy)
    assert set(before) >= {"builders_biomes", "heroes_village", "shared"}
    engine = copy / "bnb_sim" / "games" / "heroes_village" / "engine.py"
    engine.write_text(engine.read_text() + "\n# an edit\n")
    after = _fingerprints(copy)
    assert after["heroes_village"] != before["heroes_village"]
    assert after["builders_biomes"] == before["builders_biomes"]
    assert after["shared"] == before["shared"]
    rng = copy / "bnb_sim" / "rng.py"  # a shared module: every game's kernels call it
    rng.write_text(rng.read_text() + "\n# an edit\n")
    shared = _fingerprints(copy)
    assert all(shared[g] != after[g] for g in after)
    report = copy / "bnb_sim" / "analysis" / "report.py"  # no kernel reads it
    report.write_text(report.read_text() + "\n# an edit\n")
    assert _fingerprints(copy) == shared


COMPILES = textwrap.dedent(
    """
    import json, numpy as np
    from numba.core import event
    from bnb_sim.api import collectable
    compiled = []

    class Count(event.Listener):
        def on_start(self, ev):
            compiled.append(ev.data["dispatcher"].py_func.__qualname__)

        def on_end(self, ev):
            pass

    event.register("numba:compile", Count())
    collectable(np.ones((4, 4, 4), bool))
    print(json.dumps(compiled))
    """
)


def _compiles_in(package_parent: Path, cache: Path) -> list:
    import json

    env = dict(os.environ, PYTHONPATH=str(package_parent), NUMBA_CACHE_DIR=str(cache))
    env.pop("BNB_USER_NUMBA_CACHE_DIR", None)
    command = [sys.executable, "-c", COMPILES]
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=package_parent)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_checkout_of_the_same_code_finds_its_kernels_compiled(tmp_path):
    """The cache is keyed on the code, not on where the checkout lies."""
    cache = tmp_path / "cache"
    first, second = tmp_path / "a" / "src", tmp_path / "b" / "elsewhere"
    for where in (first, second):
        shutil.copytree(PACKAGE, where / "bnb_sim", ignore=shutil.ignore_patterns("__pycache__"))
    assert "collectable_array" in _compiles_in(first, cache)
    assert _compiles_in(second, cache) == []


def test_the_built_in_bots_get_the_smaller_driver_and_play_the_same_games():
    from bnb_sim.games.builders_biomes.batch import play_arrays
    from bnb_sim.games.builders_biomes.engine import play as P
    from bnb_sim.games.builders_biomes.run_config import GameConfig

    config = GameConfig.create(3, ["heuristic", "greedy", "random"], seed=11)
    k, _, kinds, _, _ = config.kernel_inputs
    assert P.batch_kernel(kinds, k) is P.play_batch_builtin
    checked = GameConfig.create(3, ["heuristic", "greedy", "random"], seed=11, check=True)
    assert P.batch_kernel(kinds, checked.kernel_inputs[0]) is P.play_batch
    mc = GameConfig.create(2, ["mc", "random"], seed=11)
    assert P.batch_kernel(mc.kernel_inputs[2], mc.kernel_inputs[0]) is P.play_batch
    # the same games through both drivers (the full one checks the invariants as it goes)
    seats, games = play_arrays(config, 5, 40)
    seats_checked, games_checked = play_arrays(checked, 5, 40)
    assert np.array_equal(seats, seats_checked) and np.array_equal(games, games_checked)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_blocks_cover_every_game_once(threads):
    from bnb_sim.runner.blocks import blocks, run_blocks

    for n in (0, 1, 15, 16, 17, 1000, 12345):
        spans = blocks(n, threads)
        covered = [i for first, end in spans for i in range(first, end)]
        assert covered == list(range(n))
    hits = np.zeros(5000, np.int64)
    run_blocks(lambda first, end: hits.__setitem__(slice(first, end), hits[first:end] + 1),
               5000, threads)  # fmt: skip
    assert (hits == 1).all()


def test_a_failing_block_stops_the_others_and_raises():
    from bnb_sim.runner.blocks import run_blocks

    stop = np.zeros(1, np.int64)

    def play(first, end):
        if first == 0:
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        run_blocks(play, 1000, 2, stop)
    assert stop[0] == 1


def test_ctrl_c_while_a_block_thread_starts_raises_it_and_stops_the_others(monkeypatch):
    """A signal that lands inside ``Thread.start`` (seen in CI: SIGTERM to a tuning) left a
    thread that never started, and joining it raised RuntimeError over the interrupt."""
    import threading

    from bnb_sim.runner.blocks import run_blocks

    start = threading.Thread.start

    def interrupted_start(self):
        if self.name == "bnb-kernel-1":
            raise KeyboardInterrupt  # the handler ran before this thread was started
        start(self)

    monkeypatch.setattr(threading.Thread, "start", interrupted_start)
    stop = np.zeros(1, np.int64)
    with pytest.raises(KeyboardInterrupt):
        run_blocks(lambda first, end: None, 1000, 2, stop)
    assert stop[0] == 1


# ----------------------------------------------------------------------------- jobs


def test_jobs_run_after_what_they_call_and_merge_into_the_shared_cache(tmp_path, monkeypatch):
    from bnb_sim.precompile import Job, needed, run_jobs

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "shared"))
    monkeypatch.setenv("BNB_USER_NUMBA_CACHE_DIR", str(tmp_path / "shared"))
    here = "tests.compile_helpers"
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parent.parent))
    jobs = [
        Job("t:cube", "cube", f"{here}:compile_cube", (), 5),
        Job("t:again", "cube again", f"{here}:expect_cube_cached", ("t:cube",), 1),
        Job("t:broken", "broken", f"{here}:broken", (), 1),
        Job("t:after-broken", "after broken", f"{here}:compile_cube", ("t:broken",), 1),
    ]
    assert [j.name for j in needed(jobs, ["t:again"])] == ["t:cube", "t:again"]
    order = []
    results = run_jobs(jobs, 2, on_done=lambda r: order.append(r.job.name))
    by_name = {r.job.name: r for r in results}
    assert by_name["t:cube"].ok and by_name["t:again"].ok, by_name["t:again"].error
    assert order.index("t:cube") < order.index("t:again")
    assert not by_name["t:broken"].ok and "on purpose" in by_name["t:broken"].error
    assert not by_name["t:after-broken"].ok
    assert list((tmp_path / "shared").rglob("*cube*.nbi"))


def test_merging_keeps_every_signature_of_both_caches(tmp_path, monkeypatch):
    """Two jobs that compiled different versions of one function: both land in the shared
    cache under free data-file names."""
    from bnb_sim.precompile import merge_cache

    shared = tmp_path / "shared"
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parent.parent))
    for name, kind in (("one", "uint64"), ("two", "int64")):
        env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / name))
        env.pop("BNB_USER_NUMBA_CACHE_DIR", None)
        code = f"from tests.compile_helpers import compile_popcount; compile_popcount({kind!r})"
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        merge_cache(tmp_path / name, shared)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(shared))
    env.pop("BNB_USER_NUMBA_CACHE_DIR", None)
    code = "from tests.compile_helpers import count_loaded; count_loaded()"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "loaded 2 compiled 0"


def test_the_job_at_the_head_of_the_longest_chain_starts_first():
    """A short job that a long one waits for outranks a heavier job that nothing waits for
    (ordering by weight alone started the heavy one and left the chain for later)."""
    from bnb_sim.precompile import Job, _critical_path

    jobs = [
        Job("t:heavy", "nothing waits for it", "m:f", (), 20),
        Job("t:rules", "short, called by the driver", "m:f", (), 5),
        Job("t:driver", "long, after rules", "m:f", ("t:rules",), 30),
        Job("t:check", "after the driver", "m:f", ("t:driver",), 2),
    ]
    rank = _critical_path(jobs)
    assert rank == {"t:heavy": 20, "t:rules": 37, "t:driver": 32, "t:check": 2}
    assert max(("t:heavy", "t:rules"), key=rank.get) == "t:rules"


def test_exact_odds_order_detonations_as_a_stable_argsort_without_compiling_a_sort():
    """R-FIGHT-4: detonatable classes by decreasing gain; ``_by_gain`` replaces np.argsort
    (about five seconds of numba compile) and must give the same order, ties by index."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from bnb_sim.games.builders_biomes.engine.odds import _by_gain

    @settings(deadline=None)  # the first call loads the kernel
    @given(st.lists(st.integers(min_value=-3, max_value=6), min_size=0, max_size=24))
    def same_order(gains):
        a = np.array(gains, np.int64)
        expected = np.argsort(-a, kind="stable")
        assert _by_gain(a).tolist() == expected.tolist()
        assert _by_gain.py_func(a).tolist() == expected.tolist()

    same_order()


def test_inline_tradeoff_compiles_exactly_the_named_kernels_as_plain_calls(tmp_path):
    """scripts/inline_tradeoff.py's package copy: the named functions lose inline="always",
    nothing else changes (a variant that named nothing real would measure the baseline)."""
    import importlib.util

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("it", root / "scripts" / "inline_tradeoff.py")
    it = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(it)
    changed = it.patch_copy(root, tmp_path, ("legal_bits", "*rng.py"))
    assert "games/builders_biomes/engine/legal:legal_bits" in changed
    assert sum(c.startswith("rng:") for c in changed) >= 5
    legal = (tmp_path / "bnb_sim/games/builders_biomes/engine/legal.py").read_text()
    assert 'inline="never")\ndef legal_bits(' in legal
    assert 'inline="always")\ndef is_legal(' in legal  # not named: still inlined
    for name, names in it.VARIANTS.items():  # every variant names functions that exist
        assert it.patch_copy(root, tmp_path / name, names), name
