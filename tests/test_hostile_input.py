"""Hostile input, the API and plugin half of the reliability review (docs: reliability).

Each test is one scenario of the review, scaled down; the finding number is in its name.
A new finding of this kind should be one parametrised case away.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bnb_sim
from bnb_sim import entry_points
from bnb_sim.errors import BnbError, ComponentError, PolicyError, SpecError

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "import sys; from bnb_sim.cli import main; main(sys.argv[1:])"]

PROBES = textwrap.dedent(
    '''
    """Probe plugins: raise, spin, write out of bounds."""
    import numba

    from bnb_sim.plugins import Plugin


    @numba.njit
    def _first_legal(legal):
        for a in range(65):
            if legal[a]:
                return a
        return 64


    @numba.njit
    def _spin(n):
        x = 0
        for i in range(n):
            x = (x * 31 + i) % 1000003
        return x


    def _raise(obs, legal, static, rng, params, mem):
        if obs[18] >= params[0]:  # ctl[18]: turn number
            raise ValueError("probe plugin gave up")
        return _first_legal(legal)


    def _slow(obs, legal, static, rng, params, mem):
        if _spin(int(params[0])) < 0:
            return -1
        return _first_legal(legal)


    def _oob(obs, legal, static, rng, params, mem):
        obs[int(params[0])] = 7
        return _first_legal(legal)


    RAISE = Plugin(_raise, params={"turn": 3.0})
    SLOW = Plugin(_slow, params={"n": 1000.0})
    OOB = Plugin(_oob, params={"index": 700.0})
    BROKEN_NAME = 42
    '''
)
ENTRY_POINTS = """\
[bnb_sim.policies]
p_raise = bnb_probe_plugins:RAISE
p_slow = bnb_probe_plugins:SLOW
p_oob = bnb_probe_plugins:OOB
"""


@pytest.fixture
def probes(tmp_path, monkeypatch) -> Path:
    """Install the probe plugins as a real distribution on sys.path (seen by subprocesses
    through PYTHONPATH too); returns the folder."""
    folder = tmp_path / "site"
    info = folder / "bnb_probe-0.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bnb-probe\nVersion: 0.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    (folder / "bnb_probe_plugins.py").write_text(PROBES)
    monkeypatch.syspath_prepend(str(folder))
    return folder


def _env(*extra: Path, **variables: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *map(str, extra)])
    env.update(variables)
    return env


def bnb(*args: str, extra: tuple[Path, ...] = (), timeout: float = 240, **env):
    """Run the CLI in a subprocess; returns the CompletedProcess."""
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_env(*extra, **env),
        cwd=ROOT,
    )


def one_line_error(proc, *needles: str) -> None:
    """The CLI refused with exactly one line on stderr, exit 2, naming every needle."""
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("bnb: error: "), proc.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


# ---- #5 column-name collisions ------------------------------------------------------------


MOB_TILE = """
[mobs.{name}]
hearts = 3
provenance = "estimate"
reason = "probe"
[[mobs.{name}.tiles]]
kind = "hunger"
xp = 1
copies = 1
provenance = "estimate"
reason = "probe"
[buildings.b01]
copies = 0
provenance = "estimate"
reason = "make room for the tile"
"""


def _override(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "override.toml"
    path.write_text('schema = 1\ngame = "builders_biomes"\n' + body)
    return path


@pytest.mark.parametrize("name", ["won", "won_x"])
def test_5_mob_name_that_collides_with_a_fixed_column_is_refused(tmp_path, name):
    from bnb_sim.games.builders_biomes.components import load_components

    path = _override(tmp_path, MOB_TILE.format(name=name))
    if name == "won":
        with pytest.raises(ComponentError) as info:
            load_components(path)
        assert info.value.file == str(path) and info.value.key == "mobs.won"
        assert "'fights_won'" in info.value.problem
    else:  # fights_won_x is no fixed column
        assert "won_x" in load_components(path).mob_names


def test_5_building_type_collision_is_refused(tmp_path):
    from bnb_sim.columns import column_collisions

    # every fixed column is derived from bnb_sim.columns; a type called like a species
    # column's tail is fine, one that repeats a generated column is not
    assert column_collisions(["spider"], ["bridge"]) == []
    assert column_collisions(["spider", "spider"], [])[0][:2] == ("mob", "spider")
    path = _override(
        tmp_path,
        '[characteristics]\nbiome = ["desert", "forest", "snowy", "plains"]\n'
        'material = ["wood", "sand", "stone", "obsidian"]\n'
        'type = ["farm", "farm", "house", "bridge"]\n',
    )
    from bnb_sim.games.builders_biomes.components import load_components

    with pytest.raises(ComponentError):
        load_components(path)


def test_5_components_validate_cli_refuses_the_won_species(tmp_path):
    path = _override(tmp_path, MOB_TILE.format(name="won"))
    one_line_error(bnb("components", "validate", str(path)), "mobs.won", "fights_won")


def test_5_run_file_columns_are_the_documented_ones():
    from bnb_sim.columns import seat_columns
    from bnb_sim.games.builders_biomes.batch import play_block

    config = bnb_sim.GameConfig.create(2, ["random"], seed=3)
    seats, _ = play_block(config, 0, 3)
    comps = config.components
    assert list(seats.columns) == seat_columns(comps.mob_names, comps.values["type"])


# ---- #7 #8 #22 #23 plugins ----------------------------------------------------------------


def test_7_plugin_exception_stops_the_run_with_one_line(probes, tmp_path):
    proc = bnb(
        "simulate", "--games", "20", "--players", "2", "--policy", "p_raise", "--policy",
        "random", "--out", str(tmp_path / "r"), "-q", extra=(probes,),
    )  # fmt: skip
    one_line_error(proc, "p_raise", "ValueError: probe plugin gave up", "game 0")
    assert "Exception ignored" not in proc.stderr + proc.stdout
    assert not (tmp_path / "r").exists()


def test_7_plugin_exception_in_process_and_in_the_game_api(probes):
    from bnb_sim.games.builders_biomes.batch import play_block

    config = bnb_sim.GameConfig.create(2, ["random", "p_raise:turn=2"], seed=1)
    with pytest.raises(PolicyError, match=r"p_raise.*raised ValueError: probe plugin gave up"):
        play_block(config, 0, 8)
    game = bnb_sim.new_game(1, 0, 2, ["p_raise:turn=2", "random"])
    with pytest.raises(PolicyError, match="raised ValueError"):
        game.play()


def test_7_a_plugin_that_does_not_raise_still_plays(probes):
    from bnb_sim.games.builders_biomes.batch import play_block

    config = bnb_sim.GameConfig.create(2, ["p_raise:turn=100000", "random"], seed=1)
    seats, games = play_block(config, 0, 6)
    assert len(games) == 6 and (games["turns"] > 0).all()


def test_8_stop_request_cuts_a_slow_plugin_chunk_short(probes):
    from bnb_sim.games.builders_biomes import batch

    config = bnb_sim.GameConfig.create(2, ["p_slow:n=300000000", "random"], seed=1)
    _ = config.kernel_inputs  # compile the plugin before timing
    timer = threading.Timer(1.0, batch.request_stop)
    timer.start()
    t0 = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        batch.play_arrays(config, 0, 4, threads=1)
    timer.join()
    assert time.perf_counter() - t0 < 20  # one decision per thread after the request


@pytest.mark.slow
def test_8_a_run_stopped_inside_a_chunk_resumes_to_identical_rows(probes, tmp_path):
    from bnb_sim.games.builders_biomes import batch
    from bnb_sim.runner.simulate import RunInterrupted

    policies = ["p_slow:n=200000", "random"]  # about 0.3 s per game
    out = tmp_path / "run"
    timers = []

    def stop_during_the_second_chunk(done, total):
        if done == 2 and not timers:
            timers.append(threading.Timer(0.3, batch.request_stop))
            timers[0].start()

    with pytest.raises(RunInterrupted):
        bnb_sim.simulate(
            8, 2, policies, seed=3, chunk_size=2, threads=1, out=out,
            progress=stop_during_the_second_chunk,
        )  # fmt: skip
    timers[0].join()
    stored = sorted(p.name for p in (out / "seats").iterdir())
    assert "part-000000.parquet" in stored and len(stored) < 4  # the cut chunk is not stored
    bnb_sim.simulate(8, 2, policies, seed=3, chunk_size=2, threads=1, out=out, resume=True)
    seats, _, _ = bnb_sim.load_run(out, seat_columns=lambda c: c not in ("run_id", "seed"))
    expected = bnb_sim.simulate(8, 2, policies, seed=3, chunk_size=4)
    # the same values; a stored part keeps only the categories it saw (choice_b...)
    pd.testing.assert_frame_equal(
        seats.reset_index(drop=True), expected.reset_index(drop=True), check_categorical=False
    )


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_8_signal_stops_a_slow_plugin_run_in_bounded_time(probes, tmp_path, sig):
    command = [
        *CLI, "simulate", "--games", "4", "--players", "2",
        "--policy", "p_slow:n=300000000", "--policy", "random", "--out", str(tmp_path / "r"),
    ]  # fmt: skip
    proc = subprocess.Popen(
        command, env=_env(probes), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    time.sleep(6)  # imports, plugin compile, then inside the first game
    assert proc.poll() is None, proc.communicate()
    t0 = time.perf_counter()
    proc.send_signal(sig)
    if sig == signal.SIGINT:
        time.sleep(0.5)
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert time.perf_counter() - t0 < 25
    assert proc.returncode != 0
    assert "Traceback" not in err


def test_23_plugin_debug_turns_an_out_of_bounds_write_into_one_line(probes, tmp_path):
    proc = bnb(
        "--plugin-debug", "simulate", "--games", "3", "--players", "2", "--policy",
        "p_oob:index=100000000", "--policy", "random", "--out", str(tmp_path / "r"), "-q",
        extra=(probes,),
    )  # fmt: skip
    one_line_error(proc, "p_oob", "IndexError")


# ---- #6 #24 #25 #26 the Python API is memory-safe ------------------------------------------


@pytest.mark.parametrize("seat", [100000, 7, 2, -1, -5, 1.5, "1", None, True])
def test_6_observation_of_a_seat_outside_the_table_is_refused(seat):
    game = bnb_sim.new_game(players=2)
    if seat is None:
        assert game.observation(None).shape == game.observation(game.current_seat).shape
        return
    with pytest.raises((BnbError, TypeError), match="seat"):
        game.observation(seat)
    with pytest.raises((BnbError, TypeError), match="seat"):
        game.player_of_seat(seat)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: bnb_sim.simulate(10, 2, "random", seed="1"), "seed"),
        (lambda: bnb_sim.simulate(10, 2, "random", seed=1.5), "seed"),
        (lambda: bnb_sim.new_game(max_turns="5"), "max_turns"),
        (lambda: bnb_sim.new_game(pickaxe_optional="no"), "pickaxe_optional"),
        (lambda: bnb_sim.combat_odds("stone_sword", hearts=3, components=42), "components"),
        (lambda: bnb_sim.combat_odds("stone_sword", hearts=3, components=[1]), "paths"),
        (lambda: bnb_sim.combat_odds("stone_sword", 3, components={"mobs": {}}), "components"),
        (lambda: bnb_sim.simulate(10, 2, None), "policies"),
        (lambda: bnb_sim.simulate(10, 2, 5), "policies"),
        (lambda: bnb_sim.simulate(10, 2, "random", out=3), "out"),
        (lambda: bnb_sim.simulate(10, 2, "random", out=""), "out"),
        (lambda: bnb_sim.simulate(10, 2, "random", check="no"), "check"),
        (lambda: bnb_sim.load_run("x", seat_columns="won"), "seat_columns"),
        (lambda: bnb_sim.collectable(np.ones((4, 4, 4), bool), "x"), "min_exposed_sides"),
        (lambda: bnb_sim.collectable(np.ones((4, 4, 4), bool), 2.7), "min_exposed_sides"),
        (lambda: bnb_sim.collectable(np.full((4, 4, 4), "a")), "occupancy"),
        (lambda: bnb_sim.largest_group(np.zeros((3, 3)), [0, 1]), "value"),
        (lambda: bnb_sim.GameConfig(bnb_sim.load_components(), ("random",) * 2), "PolicySpec"),
        (lambda: bnb_sim.Game("config", 0), "GameConfig"),
        (lambda: bnb_sim.new_game(players=2).play(max_decisions="9"), "max_decisions"),
        (lambda: bnb_sim.write_report((1, 2, None), "out"), "seats"),
        (lambda: bnb_sim.write_report([], "out"), "run"),
    ],
)
def test_25_wrong_argument_types_raise_a_clear_error(call, match):
    with pytest.raises((BnbError, TypeError), match=match):
        call()


@pytest.mark.slow
def test_26_write_report_takes_frames_without_meta(tmp_path):
    from bnb_sim.games.builders_biomes.batch import play_block

    seats, games = play_block(bnb_sim.GameConfig.create(2, ["random"], seed=2), 0, 30)
    written = bnb_sim.write_report((seats, games, None), tmp_path / "rep")
    assert Path(written["html"]).is_file()


def test_24_uint64_counts_do_not_wrap_and_sums_do_not_overflow():
    types = len(bnb_sim.load_components().weapon_names)
    wrapped = np.zeros(types, np.uint64)
    wrapped[0], wrapped[1] = 2**64 - 1, 2
    with pytest.raises(SpecError, match="limit of 64"):
        bnb_sim.combat_odds(wrapped, hearts=3)
    huge = np.zeros(types, np.int64)
    huge[:3] = 2**62  # the int64 sum wraps negative
    with pytest.raises(SpecError, match="limit of 64"):
        bnb_sim.combat_odds(huge, hearts=3)
    fine = np.zeros(types, np.uint8)
    fine[1] = 2
    assert 0 <= bnb_sim.combat_odds(fine, hearts=3).p_win <= 1


@pytest.mark.parametrize("hearts", [2**70, 2**64, 2**63, 10**6 + 1, 0, -3])
def test_17_hearts_are_capped_everywhere(hearts):
    with pytest.raises(SpecError, match="hearts"):
        bnb_sim.combat_odds("stone_sword", hearts=hearts, simulate=5)
    with pytest.raises(SpecError, match="hearts"):
        bnb_sim.simulate_combat("stone_sword", hearts, 10)


@pytest.mark.parametrize("hearts", ["9223372036854775808", "99999999999999999999"])
def test_17_hearts_cap_on_the_command_line(hearts):
    proc = bnb("odds", "--pile", "stone_sword", "--hearts", hearts, "--simulate", "10")
    one_line_error(proc, "hearts")


FUZZ = textwrap.dedent(
    '''
    """Drive the public API with arbitrary arguments; any exception but BnbError/TypeError
    (or a crash) fails."""
    import sys

    import numpy as np
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    import bnb_sim
    from bnb_sim.errors import BnbError

    BIG = st.integers(min_value=-(2**70), max_value=2**70)
    SMALL = st.integers(min_value=-3, max_value=6)
    ARRAYS = hnp.arrays(
        st.sampled_from([np.bool_, np.int8, np.int64, np.uint64, np.float64, np.uint8]),
        hnp.array_shapes(min_dims=0, max_dims=3, max_side=10),
    )
    ANY = st.one_of(
        st.none(), st.booleans(), BIG, SMALL, st.floats(), st.text(max_size=12), ARRAYS,
        st.lists(SMALL, max_size=10), st.dictionaries(st.text(max_size=4), SMALL, max_size=3),
        st.just(("random", "random")), st.just("heuristic:board=1e300"),
    )
    SETTINGS = settings(
        max_examples=int(sys.argv[1]), deadline=None, database=None, derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    GAME = bnb_sim.new_game(seed=1, players=3, policies=["random"])


    def guarded(call):
        try:
            call()
        except (BnbError, TypeError):
            pass


    @SETTINGS
    @given(ANY, ANY, st.sampled_from(["observation", "player_of_seat", "policy_of_seat",
                                      "apply_action"]))
    def game_methods(seat, action, method):
        guarded(lambda: getattr(GAME, method)(seat))
        guarded(lambda: GAME.observation(seat).sum())
        guarded(lambda: bnb_sim.Game(GAME.config, action).play(max_decisions=seat))


    @SETTINGS
    @given(ANY, ANY, st.one_of(SMALL, ANY), ANY, ANY, ANY)
    def new_game(seed, index, players, policies, turns, pickaxe):
        guarded(lambda: bnb_sim.new_game(seed, index, players, policies))
        guarded(lambda: bnb_sim.new_game(1, 0, 2, ["random"], max_turns=turns,
                                         pickaxe_optional=pickaxe, variant=policies))


    @SETTINGS
    @given(st.one_of(ANY, hnp.arrays(np.int64, 9, elements=BIG.filter(lambda x: abs(x) < 2**63))),
           ANY, ANY, st.one_of(st.none(), SMALL, ANY), ANY)
    def odds(pile, hearts, mob, simulate, components):
        n = simulate if isinstance(simulate, int) and simulate < 10**4 else 5
        guarded(lambda: bnb_sim.combat_odds(pile, hearts, simulate=simulate if simulate is None
                                            or not isinstance(simulate, int) else n))
        guarded(lambda: bnb_sim.combat_odds("stone_sword", mob=mob, components=components))
        guarded(lambda: bnb_sim.simulate_combat(pile, hearts, n, seed=mob))


    @SETTINGS
    @given(ANY, ANY, ANY)
    def board_helpers(array, value, sides):
        guarded(lambda: bnb_sim.collectable(array, sides))
        guarded(lambda: bnb_sim.largest_group(array, value))
        guarded(lambda: bnb_sim.count_matching(array, value))


    @SETTINGS
    @given(st.one_of(SMALL, ANY), st.one_of(SMALL, ANY), ANY, ANY, ANY)
    def simulate(games, players, policies, seed, flag):
        games = games if not isinstance(games, int) or games < 50 else 7
        guarded(lambda: bnb_sim.simulate(games, players, policies, seed))
        guarded(lambda: bnb_sim.simulate(3, 2, "random", seed, check=flag, chunk_size=players))
        guarded(lambda: bnb_sim.GameConfig.create(players, policies, seed=seed))
        guarded(lambda: bnb_sim.load_run(seed, seat_columns=policies))
        guarded(lambda: bnb_sim.write_report(policies, seed))
        guarded(lambda: bnb_sim.load_components(policies))
        guarded(lambda: bnb_sim.load_components(policies, game=seed, expansion=flag))
        guarded(lambda: bnb_sim.simulate(3, 2, ["team"], 1, game="hotv", options=policies,
                                         readings=flag, components=players, threads=1))


    for test in (game_methods, new_game, odds, board_helpers, simulate):
        test()
        print(test.__name__, "ok", flush=True)
    '''
)


@pytest.mark.slow
def test_6_property_the_public_api_never_crashes(tmp_path):
    script = tmp_path / "fuzz_api.py"
    script.write_text(FUZZ)
    proc = subprocess.run(
        [sys.executable, str(script), "60"],
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-2000:], proc.stderr[-4000:])
    assert proc.stdout.count(" ok") == 5


# ---- #9 #10 #21 #30 bounded work ------------------------------------------------------------


def test_9_tournament_schedule_is_counted_before_it_is_built():
    import tracemalloc

    from bnb_sim.analysis.tournament import schedule
    from bnb_sim.runner.budget import tournament_tables

    labels = [f"heuristic:board={i}" for i in range(300)]
    tracemalloc.start()
    with pytest.raises(BnbError, match="combinations"):
        schedule(labels, 4)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 5_000_000  # the 330 million tables were never listed
    for n, players in [(2, 4), (3, 4), (5, 2), (6, 3), (4, 4)]:
        assert tournament_tables(n, players) == len(schedule([str(i) for i in range(n)], players))


@pytest.mark.parametrize(
    "args, what",
    [
        (["tournament", "--policies", ",".join(f"heuristic:board={i}" for i in range(12)),
          "--players", "4", "--games", "10000000"], "tournament: 19,800,000,000 games"),
        (["sweep", "--set", "mobs.enderman.hearts=" + ",".join(map(str, range(15, 65))),
          "--games", "10000000"], "sweep: 510,000,000 games"),
        (["simulate", "--games", "100000001", "--players", "2", "--policy", "random",
          "--out", "never"], "simulate: 100,000,001 games"),
    ],
)  # fmt: skip
def test_10_every_command_counts_its_games_and_needs_yes(args, what, tmp_path):
    proc = bnb(*args, "-o", str(tmp_path / "out")) if args[0] != "simulate" else bnb(*args)
    one_line_error(proc, what, "--yes")
    assert not (tmp_path / "out").exists()


def test_10_an_experiment_file_counts_every_item_first(tmp_path):
    experiment = tmp_path / "big.toml"
    experiment.write_text(
        '[[simulation]]\ngames = 1000\npolicies = ["random"]\n'
        "[[tournament]]\ngames = 10000000\nplayers = 4\n"
        f"policies = {[f'heuristic:board={i}' for i in range(12)]!r}\n".replace("'", '"')
    )
    proc = bnb("run", str(experiment), "-o", str(tmp_path / "rep"))
    one_line_error(proc, "big.toml", "19,800,001,000 games", "--yes")
    assert not (tmp_path / "rep").exists()


def test_10_sweep_limit_says_the_baseline_comes_on_top():
    from bnb_sim.analysis.sweep import build_variants

    base = bnb_sim.load_components()
    values = list(range(10, 61))  # 51 values: one too many
    with pytest.raises(BnbError, match="limit is 50 besides the baseline"):
        build_variants(base, [("mobs.enderman.hearts", values)])
    assert len(build_variants(base, [("mobs.enderman.hearts", values[:50])])) == 51


@pytest.mark.parametrize("sides, ok", [(0, True), (2, True), (3, False), (4, False)])
def test_21_min_exposed_sides_that_would_never_end_a_game_is_refused(sides, ok):
    base = bnb_sim.load_components()
    if ok:
        base.with_values({"rules.min_exposed_sides": sides})
        return
    with pytest.raises(ComponentError, match="no game could") as info:
        base.with_values({"rules.min_exposed_sides": sides})
    assert info.value.key == "rules.min_exposed_sides"


def test_21_sweep_refuses_before_playing_and_leaves_no_folder(tmp_path):
    proc = bnb("sweep", "--set", "rules.min_exposed_sides=0,4", "--games", "10", "-q",
               "-o", str(tmp_path / "rep"))  # fmt: skip
    one_line_error(proc, "rules.min_exposed_sides", "no game could")
    assert not (tmp_path / "rep").exists()


# ---- #18 weights ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec", ["heuristic:trigger=1e308", "heuristic:block_need=1e308,block_wild=-1e308",
             "heuristic:reveal=1e7"]
)  # fmt: skip
def test_18_weights_are_bounded(spec):
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy

    with pytest.raises(PolicyError, match="outside"):
        parse_policy(spec)


def test_18_the_largest_allowed_weights_still_play():
    from bnb_sim.games.builders_biomes.batch import play_block

    spec = "heuristic:trigger=1e6,block_need=1e6,block_wild=-1e6,reveal=1e6,position=-1e6"
    _, games = play_block(bnb_sim.GameConfig.create(2, [spec, "greedy"], seed=4), 0, 20)
    assert len(games) == 20


# ---- #19 #20 files that are not files, experiment paths -------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("which", ["weights", "experiment"])
def test_19_a_fifo_is_refused_not_read(tmp_path, which):
    fifo = tmp_path / ("wf.toml" if which == "weights" else "fifo.toml")
    os.mkfifo(fifo)
    if which == "weights":
        proc = bnb("simulate", "--games", "10", "--policy", f"heuristic:{fifo}", "--out",
                   str(tmp_path / "r"), timeout=60)  # fmt: skip
    else:
        proc = bnb("run", str(fifo), "-o", str(tmp_path / "rep"), timeout=60)
    one_line_error(proc, "not a regular file")


def _experiment(tmp_path: Path, body: str) -> Path:
    folder = tmp_path / "exp"
    folder.mkdir(exist_ok=True)
    path = folder / "e.toml"
    path.write_text(body)
    return path


def test_20_run_dir_is_checked_before_anything_plays(tmp_path):
    path = _experiment(
        tmp_path,
        '[[simulation]]\ngames = 3000\npolicies = ["random"]\n'
        '[[simulation]]\ngames = 10\npolicies = ["random"]\nrun_dir = "/etc"\n',
    )
    t0 = time.perf_counter()
    proc = bnb("run", str(path), "-o", str(tmp_path / "rep"))
    one_line_error(proc, "e.toml", "simulation[2].run_dir", "/etc", "not a run")
    assert "--force" not in proc.stderr and "--resume" not in proc.stderr
    assert not (tmp_path / "rep").exists()
    assert time.perf_counter() - t0 < 60


def test_20_relative_run_dir_resolves_against_the_experiment_file(tmp_path):
    from bnb_sim.analysis.experiment import load_experiment

    path = _experiment(
        tmp_path, '[[simulation]]\ngames = 10\npolicies = ["random"]\nrun_dir = "runs/a"\n'
    )
    experiment = load_experiment(path)
    assert experiment.items[0].run_dir == str(tmp_path / "exp" / "runs" / "a")
    above = _experiment(
        tmp_path, '[[simulation]]\ngames = 10\npolicies = ["random"]\nrun_dir = "../../.."\n'
    )
    with pytest.raises(BnbError, match="run_dir.*not a run"):
        load_experiment(above)


def test_30_experiment_component_errors_name_the_experiment_file_and_key(tmp_path):
    from bnb_sim.analysis.experiment import load_experiment

    path = _experiment(
        tmp_path,
        '[[simulation]]\ngames = 10\npolicies = ["random"]\ncomponents = ["missing.toml"]\n',
    )
    with pytest.raises(BnbError, match=r"e\.toml: simulation\[1\]\.components: .*missing\.toml"):
        load_experiment(path)


# ---- #30 accepted oddities ------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, match",
    [("heuristic:", "nothing after ':'"), ("heuristic:board=1,board=2", "given twice")],
)
def test_30_odd_policy_specs_are_refused(spec, match):
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy

    with pytest.raises(PolicyError, match=match):
        parse_policy(spec)


def test_30_one_spec_written_two_ways_is_one_tournament_entrant():
    from bnb_sim.runner.experiments import play_tournament

    with pytest.raises(PolicyError, match="same policy spec"):
        play_tournament(["heuristic:board=1", "heuristic:board=1.0", "random"], 2, 2)


def test_30_a_plugin_with_a_built_in_name_warns(tmp_path, monkeypatch):
    from bnb_sim.games.builders_biomes.policies import registry

    info = tmp_path / "shadow-0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: shadow\nVersion: 0.0\n")
    (info / "entry_points.txt").write_text("[bnb_sim.policies]\nrandom = nowhere:X\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(entry_points, "_SHADOW_WARNED", set())
    with pytest.warns(UserWarning, match="'random' is shadowed"):
        assert "random" not in registry.plugin_names()


@pytest.mark.parametrize(
    "args, needle",
    [
        (["simulate", "--games", "5", "--out", ""], "must not be empty"),
        (["tournament", "--policies", "random,greedy", "--games", "1"], "--games"),
        (["compare", "random", "greedy", "--precision", "0.05", "--alpha", "0.7"], "--alpha"),
        (["simulate", "--games", "5", "--out", "x", "--chunk-size", "1000000"], "chunk size"),
    ],
)
def test_30_odd_flags_are_refused(args, needle, tmp_path):
    one_line_error(bnb(*args), needle)


def test_30_resume_with_check_does_not_mark_unchecked_parts_checked(tmp_path):
    import json

    out = tmp_path / "run"
    bnb_sim.simulate(40, 2, "random", chunk_size=20, out=out)
    meta = json.loads((out / "run.json").read_text())
    meta["status"] = "partial"  # pretend it stopped after part 0
    (out / "run.json").write_text(json.dumps(meta))
    (out / "seats" / "part-000001.parquet").unlink()
    (out / "games" / "part-000001.parquet").unlink()
    bnb_sim.simulate(40, 2, "random", chunk_size=20, out=out, resume=True, check=True)
    assert json.loads((out / "run.json").read_text())["params"]["check"] is False


def test_30_a_slow_odds_table_is_announced(capsys, monkeypatch):
    from bnb_sim.games.builders_biomes import run_config as C

    monkeypatch.setattr(C, "SLOW_TABLE_PILES", 10)
    C._announce_slow_tables(bnb_sim.load_components())
    assert "weapon piles" in capsys.readouterr().err


# ---- #22 warmup ---------------------------------------------------------------------------


CRASHING = textwrap.dedent(
    """
    import ctypes

    from bnb_sim.plugins import Plugin


    def _fine(obs, legal, static, rng, params, mem):
        for a in range(65):
            if legal[a]:
                return a
        return 64


    def crash():
        ctypes.string_at(0)  # a segfault while loading, like a broken native plugin


    FINE = Plugin(_fine)
    """
)


@pytest.mark.slow
def test_22_warmup_isolates_a_crashing_plugin(probes, tmp_path):
    (probes / "bnb_probe_crash.py").write_text(CRASHING + "\ncrash()\n")
    (probes / "bnb_probe_fine.py").write_text(CRASHING)
    (probes / "bnb_probe-0.0.dist-info" / "entry_points.txt").write_text(
        "[bnb_sim.policies]\na_crash = bnb_probe_crash:FINE\nz_fine = bnb_probe_fine:FINE\n"
    )
    proc = bnb("warmup", "--json", extra=(probes,), timeout=600)
    assert proc.returncode == 0, proc.stderr
    import json

    steps = {s["step"]: s for s in json.loads(proc.stdout)["steps"]}
    assert steps["plugin policy 'a_crash'"]["ok"] is False
    assert "crashed" in steps["plugin policy 'a_crash'"]["error"]
    assert steps["plugin policy 'z_fine'"]["ok"] is True


def test_30_dask_probe_names_what_went_wrong_with_a_non_dask_server():
    import socket

    pytest.importorskip("distributed")
    from bnb_sim.runner.dask_backend import _probe

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    port = server.getsockname()[1]

    def answer_garbage():
        while True:
            try:
                conn, _ = server.accept()
                conn.recv(100)
                conn.sendall(b"\xff" * 64)  # a frame length no Dask scheduler would send
                conn.close()
            except OSError:
                return

    threading.Thread(target=answer_garbage, daemon=True).start()
    try:
        with pytest.raises(BnbError, match="the connection was made, but what answers is not"):
            _probe(f"tcp://127.0.0.1:{port}")
    finally:
        server.close()


def test_8_a_stop_request_between_kernels_stops_the_next_one(probes):
    """A SIGTERM that lands while no kernel runs (a chunk being set up) must not be lost: the
    next kernel takes it and the chunk stops at once instead of playing to its end."""
    from bnb_sim.games.builders_biomes import batch

    config = bnb_sim.GameConfig.create(2, ["p_slow:n=300000000", "random"], seed=1)
    _ = config.kernel_inputs  # compile the plugin before timing
    batch.request_stop()  # no kernel runs now
    t0 = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            batch.play_arrays(config, 0, 4, threads=1)
    finally:
        batch.clear_stop_request()
    assert time.perf_counter() - t0 < 20
    play = bnb_sim.GameConfig.create(2, ["random"], seed=1)
    batch.play_arrays(play, 0, 2, threads=1)  # taken once: the next kernel plays normally


@pytest.mark.parametrize("brk", ["\n", "\r", "\r\n", "\u2028", "\x0b"])
def test_a_value_with_a_line_break_is_quoted_in_one_line(brk):
    """Found by the tuning API's property test (method='\\n' gave a two-line error): any
    BnbError quoting a value with a line break in it shows the break escaped."""
    error = SpecError(f"tune: --method must be auto, grid or ntbea, got 'a{brk}b'")
    assert len(str(error).splitlines()) == 1 and repr(brk)[1:-1] in str(error)
    with pytest.raises(BnbError) as caught:
        bnb_sim.simulate(4, 2, [f"greedy{brk}x", "random"])
    assert len(str(caught.value).splitlines()) == 1
    assert str(BnbError("plain text")) == "plain text"
