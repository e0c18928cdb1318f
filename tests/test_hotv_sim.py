"""Heroes of the Village games in batches: determinism, bots, invariants, runs, CLI, registry."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bnb_sim.analysis.stats import Rate
from bnb_sim.errors import PolicyError, SpecError
from bnb_sim.games import game_of_run, get_game
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village import policies as P
from bnb_sim.games.heroes_village.components import load_components
from bnb_sim.games.heroes_village.runner import make_config, play_arrays, play_block
from tests.hotv_helpers import Game

COMPS = load_components()


def config(**kw):
    args = {"players": 3, "policies": ["team"], "pets": "wolf,cat,fox", "seed": 5}
    args.update(kw)
    return make_config(COMPS, args.pop("players"), args.pop("policies"), args.pop("pets"), **args)


# ----------------------------------------------------------------------------- determinism


def test_rows_do_not_depend_on_threads_or_chunks():
    cfg = config()
    one = play_arrays(cfg, cfg.teams[0], 0, 400, threads=1)
    two = play_arrays(cfg, cfg.teams[0], 0, 400, threads=2)
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    seats, games = play_block(cfg, 0, 400)
    parts = [play_block(cfg, s, n) for s, n in ((0, 123), (123, 1), (124, 276))]
    pd.testing.assert_frame_equal(
        pd.concat([p[1] for p in parts], ignore_index=True).astype(games.dtypes.to_dict()),
        games, check_categorical=False,
    )  # fmt: skip
    assert np.array_equal(
        pd.concat([p[0] for p in parts])["blocks_collected"].to_numpy(),
        seats["blocks_collected"].to_numpy(),
    )


def test_a_game_replays_from_its_index():
    from bnb_sim.games.heroes_village.play import play_game
    from bnb_sim.games.heroes_village.runner import pet_codes

    cfg = config(seed=9)
    _, games = play_block(cfg, 0, 50)
    k, kf, kinds, params, plugins = cfg.arrays()
    for index in (0, 17, 49):
        s, log = play_game(
            k, kf, kinds, params, plugins, pet_codes(cfg.teams[0]), cfg.master, index, 3, 5000
        )
        row = games.iloc[index]
        assert bool(s[L.S_WON]) == row["won"] and int(s[L.S_ILLAGER]) == row["illager_final"]
        assert int(s[L.S_MOBS_SPAWNED]) == row["mobs_spawned"] and log[0, 0] > 10


def test_pet_teams_share_the_chance_streams():
    cfg = config(pets="all", players=2)
    assert len(cfg.teams) == 15
    _, games = play_block(cfg, 0, 200)
    by_team = games.groupby("pets", observed=True)
    assert set(by_team.size()) == {200}
    # the buildings come from the set-up stream: the same in every team's game g
    assert (games.groupby("game")["buildings"].nunique() == 1).all()


def test_pets_all_for_three_and_four_players():
    assert len(config(pets="all", players=3).teams) == 20
    assert len(config(pets="all", players=4).teams) == 15
    with pytest.raises(SpecError, match="one player only"):
        config(pets="wolf,wolf,cat")
    with pytest.raises(SpecError, match="unknown pet"):
        config(pets="wolf,cat,dragon")


# ----------------------------------------------------------------------------- bots


def test_the_team_bot_beats_random_at_both_difficulties():
    for difficulty in ("normal", "easy"):
        rates = {}
        for policy in ("random", "team"):
            _, games = play_block(config(policies=[policy], difficulty=difficulty, seed=3), 0, 1500)
            rates[policy] = Rate.from_bools(games["won"])
        assert rates["team"].lo > rates["random"].hi + 0.3, (difficulty, rates)


def test_easy_is_easier_than_normal_for_the_team_bot():
    normal = Rate.from_bools(play_block(config(seed=4), 0, 2000)[1]["won"])
    easy = Rate.from_bools(play_block(config(seed=4, difficulty="easy"), 0, 2000)[1]["won"])
    assert easy.rate > normal.rate


def test_team_weights_parse_and_their_kernel_indices_match():
    spec = P.parse_policy("team:complete=6,mob=1")
    assert spec.weights()["complete"] == 6 and spec.weights()["mob"] == 1
    assert spec.weights()["block"] == P.TEAM_WEIGHTS["block"][0]
    for name, index in P.W.items():
        assert getattr(P, f"W_{name.upper()}") == index
    with pytest.raises(PolicyError, match="unknown weight"):
        P.parse_policy("team:speed=1")
    with pytest.raises(PolicyError, match="random, team or strong"):
        P.parse_policy("heuristic")


def test_a_weight_changes_the_play():
    base = play_block(config(seed=2), 0, 300)[1]
    timid = play_block(config(seed=2, policies=["team:fight=-5"]), 0, 300)[1]
    assert not base["mobs_defeated"].equals(timid["mobs_defeated"])


# ----------------------------------------------------------------------------- invariants


def test_check_mode_plays_clean_games_for_every_team():
    cfg = config(pets="all", players=4, check=True, policies=["random", "team"])
    _, games = play_block(cfg, 0, 300)
    assert len(games) == 15 * 300
    # R-HV-1: every game ended with three buildings or the Illager in the village
    assert ((games["won"] & (games["buildings_completed"] == 3) & (games["illager_final"] > 0))
            | (~games["won"] & (games["illager_final"] == 0))).all()  # fmt: skip


@pytest.mark.parametrize(
    "corrupt, code",
    [
        (lambda g: g.s.__setitem__(L.S_POUCH, g.s[L.S_POUCH] + 1), "INV_BLOCKS"),
        (lambda g: g.s.__setitem__(L.S_TILE_MOB + 0, 0), "INV_MOB_TILE"),
        (lambda g: g.s.__setitem__(L.S_ILLAGER, 40), "INV_ILLAGER"),
        (lambda g: g.s.__setitem__(L.S_PHASE, L.PH_OVER), "INV_END"),
        (lambda g: g.s.__setitem__(L.S_INV, 5) or g.s.__setitem__(L.S_SUPPLY, 0), "INV_SLOTS"),
    ],
)
def test_the_invariants_catch_a_broken_state(corrupt, code):
    from bnb_sim.games.heroes_village import invariants as I

    g = Game(pets=("none", "none"))
    assert I.check_invariants(g.s, g.k, False) == 0
    corrupt(g)
    assert I.check_invariants(g.s, g.k, False) == getattr(I, code)


def test_one_mob_token_on_two_tiles_is_caught():
    from bnb_sim.games.heroes_village import invariants as I

    g = Game(pets=("none", "none"))
    a, b = g.lay(L.WOOD), g.lay(L.SAND)
    g.s[L.S_TILE_MOB + a] = g.s[L.S_TILE_MOB + b] = 0
    g.s[L.S_MOB_NEXT] = 2
    assert I.check_invariants(g.s, g.k, False) == I.INV_MOB_TWICE


def test_every_jitted_function_of_the_game_is_a_kernel():
    folder = Path(L.__file__).parent
    allocating = {("play.py", "play_game"), ("play.py", "replay_game"), ("play.py", "play_batch")}
    found = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                for deco in node.decorator_list:
                    target = deco.func if isinstance(deco, ast.Call) else deco
                    name = getattr(target, "id", getattr(target, "attr", None))
                    if name in ("njit", "kernel", "jit"):
                        found.append((path.name, node.name, name))
    assert len(found) > 30
    wrong = [f for f in found if f[2] != "kernel" and (f[0], f[1]) not in allocating]
    assert wrong == []


# ----------------------------------------------------------------------------- runs and CLI


def run_cli(capsys, args):
    from bnb_sim.cli import main

    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_writes_a_run_and_report_reads_it(tmp_path, capsys):
    run = tmp_path / "run"
    code, out, err = run_cli(capsys, ["simulate", "--game", "hotv", "-n", "600", "--pets", "all",
                                      "--players", "2", "--seed", "3", "-o", run, "--chunk-size",
                                      "250", "--quiet"])  # fmt: skip
    assert code == 0, err
    assert "win rate" in out
    from bnb_sim.runner.storage import load_run

    seats, games, meta = load_run(run)
    assert meta["game"] == "heroes_village" and meta["status"] == "complete" and meta["parts"] == 3
    for column in (
        "game",
        "n_players",
        "pets",
        "difficulty",
        "won",
        "turns",
        "buildings_completed",
        "illager_final",
        "mobs_spawned",
        "mobs_defeated",
    ):
        assert column in games.columns  # fmt: skip
    for column in (
        "pet",
        "policy",
        "explores",
        "collects",
        "fights",
        "builds",
        "blocks_collected",
        "fights_won",
    ):
        assert column in seats.columns  # fmt: skip
    assert len(games) == 15 * 600 and len(seats) == 2 * len(games)
    assert game_of_run(meta).name == "heroes_village"
    report = tmp_path / "rep"
    code, out, err = run_cli(capsys, ["report", run, "-o", report])
    assert code == 0, err
    text = (report / "report.md").read_text()
    for heading in (
        "Win rates",
        "Pet teams",
        "Why games are lost",
        "Which pet helps most",
        "Fights against the exact odds",
    ):
        assert heading in text  # fmt: skip
    summary = json.loads((report / "summary.json").read_text())
    assert summary["game"] == "heroes_village" and summary["win_rate"]["n"] == 9000
    # best and worst only when separated from every other team (statistics review N2)
    ranking = summary["pet_ranking"]
    for side, key in (("best", "best_team"), ("worst", "worst_team")):
        assert summary[key] == (ranking[side]["ranked_first"] if ranking[side]["separated"]
                                else None)  # fmt: skip
    assert summary["win_rate"]["game_indices"] == 600  # clustered by game index (N1)
    assert list(report.glob("*.png"))


def test_simulate_resume_completes_the_same_rows(tmp_path, capsys):
    from bnb_sim.runner.storage import load_run

    args = ["simulate", "--game", "hotv", "-n", "300", "--seed", "4", "--chunk-size", "100",
            "--quiet"]  # fmt: skip
    whole, part = tmp_path / "whole", tmp_path / "part"
    assert run_cli(capsys, [*args, "-o", whole])[0] == 0
    assert run_cli(capsys, [*args, "-o", part])[0] == 0
    (part / "games" / "part-000001.parquet").unlink()
    meta = json.loads((part / "run.json").read_text())
    (part / "run.json").write_text(json.dumps({**meta, "status": "partial"}))
    assert run_cli(capsys, [*args, "-o", part, "--resume"])[0] == 0
    pd.testing.assert_frame_equal(load_run(whole)[1], load_run(part)[1])
    code, _, err = run_cli(capsys, [*args[:-1], "--seed", "5", "-o", part, "--resume"])
    assert code == 2 and "made with other parameters: seed 4 (now 5)" in err


def test_the_default_game_is_unchanged_and_foreign_options_are_refused(tmp_path, capsys):
    code, _, err = run_cli(capsys, ["simulate", "-n", "5", "--pets", "wolf,cat", "-o", tmp_path])
    assert code == 2 and "--pets is an option of Minecraft: Heroes of the Village" in err
    code, _, err = run_cli(capsys, ["simulate", "--game", "hotv", "-n", "5", "--variant",
                                    "beginner", "-o", tmp_path / "x"])  # fmt: skip
    assert code == 2 and "--variant" in err
    code, _, err = run_cli(capsys, ["simulate", "--game", "chess", "-n", "5", "-o", tmp_path])
    assert code == 2 and "unknown game" in err


def test_play_game_hotv_tells_the_game(capsys):
    code, out, err = run_cli(capsys, ["play", "--game", "hotv", "--pets", "wolf,cat,fox",
                                      "--seed", "3"])  # fmt: skip
    assert code == 0, err
    for text in (
        "Turn 1: seat 0 (wolf, team)",
        "explores",
        "drawn:",
        "Illagers die",
        "Building 1:",
        "Result:",
    ):
        assert text in out  # fmt: skip
    code, out, _ = run_cli(capsys, ["play", "--game", "hotv", "--json", "--players", "4"])
    data = json.loads(out)
    assert data["pets"] == ["wolf", "cat", "fox", "panda"] and data["log"]


def test_the_registry_names_both_games():
    assert get_game(None).name == "builders_biomes"
    for alias in ("hotv", "heroes-of-the-village", "Heroes_Village"):
        assert get_game(alias).name == "heroes_village"
    assert game_of_run({"format": 1}).name == "builders_biomes"
    hotv = get_game("hotv")
    assert hotv.entry("load_components")().data["game"] == "heroes_village"
    assert hotv.entry("columns")()[1]["won"] is not None
    assert get_game("bnb").entry("simulate") is None  # served by the command itself
    with pytest.raises(SpecError):
        get_game("monopoly")


def test_compare_game_hotv_pairs_two_team_policies(capsys):
    code, out, err = run_cli(capsys, ["compare", "--game", "hotv", "team", "random", "--players",
                                      "2", "--max-games", "600", "--json"])  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["games"] == 600 and data["difference"]["lo"] > 0.3
    assert data["win_rate_a"]["n"] == 600 and "sprt" not in data


@pytest.mark.slow
def test_bench_game_hotv_measures_the_kernel(capsys):
    code, out, err = run_cli(capsys, ["bench", "--game", "hotv", "--quick", "--json"])
    assert code == 0, err
    rows = json.loads(out)["games"]
    assert {r["policy"] for r in rows} == {"random", "team", "strong"}
    assert all(r["games_per_second"] > 0 for r in rows)


def test_bench_game_hotv_has_the_shape_of_its_own_bench(capsys, monkeypatch):
    """``bnb bench --game hotv`` is the shared bench (``bnb_sim.cli.bench_games``) through the
    game's ``bench_plan``: random, team and strong at 2 and 4 players, 1 and all threads, the
    heading and JSON keys its own bench had, and the readings in effect (the timing is
    stubbed here; the test above measures)."""
    from bnb_sim._jit import numba
    from bnb_sim.cli import bench_games

    def speed(play, config, threads, *_):
        return 1000.0 * config.n_players + threads

    monkeypatch.setattr(bench_games, "games_per_second", speed)
    threads = sorted({1, int(numba.config.NUMBA_NUM_THREADS)})
    expected = [(p, n, t) for p in ("random", "team", "strong") for n in (2, 4) for t in threads]
    code, out, err = run_cli(capsys, ["bench", "--game", "hotv", "--quick"])
    assert code == 0, err
    lines = out.splitlines()
    assert "usable cores, numba" in lines[0]
    assert lines[1] == "Heroes of the Village batch kernel (games/s, median of repeats):"
    got = [(r[0], int(r[1]), int(r[3])) for r in (line.split() for line in lines[2:])]
    assert got == expected and lines[2].endswith(f"{2000 + threads[0]:,}")
    code, out, err = run_cli(
        capsys, ["bench", "--game", "hotv", "--quick", "--json", "--reading", "cat=first-draw"]
    )
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == ["game", "machine", "games", "readings"]
    assert data["game"] == "heroes_village" and data["readings"]["cat"] == "first-draw"
    assert [(g["policy"], g["players"], g["threads"]) for g in data["games"]] == expected


def test_the_play_arrays_hook_plays_the_batch_kernel_of_the_first_team():
    from bnb_sim.games.heroes_village.spec import GAME

    config = GAME.make_config(GAME.load_components([]), players=2, policies=["random"], seed=1,
                              options={})  # fmt: skip
    seat_out, game_out = GAME.play_arrays(config, 0, 5, 1)
    assert len(game_out) == 5 and len(seat_out) == 10


def test_the_team_bot_breaks_ties_uniformly():
    from bnb_sim.games.heroes_village.bots import B_SIZE, choose_team

    g = Game(pets=("none", "none"))
    mask = g.legal()
    assert [a for a in range(L.N_ACTIONS) if mask[a]] == [L.A_EXPLORE + i for i in range(3)]
    params = np.zeros(P.N_PARAMS)  # every decision is worth 0: a three-way tie
    buf = np.zeros(B_SIZE)
    counts = np.zeros(3)
    for _ in range(3000):
        counts[choose_team(params, g.s, g.k, g.kf, mask, g.rng, 0, buf) - L.A_EXPLORE] += 1
    assert (np.abs(counts / 3000 - 1 / 3) < 0.04).all(), counts


def test_sweep_game_hotv_pairs_component_variants(tmp_path, capsys):
    out = tmp_path / "sweep"
    code, stdout, err = run_cli(capsys, ["sweep", "--game", "hotv", "--set",
                                         "path.start_normal=7,11", "--games", "400",
                                         "--players", "2", "-o", out, "--quiet"])  # fmt: skip
    assert code == 0, err
    assert "path.start_normal=7" in stdout and "(reference)" in stdout
    summary = json.loads((out / "summary.json").read_text())
    rates = {k: v["rate"] for k, v in summary["variants"].items()}
    assert rates["path.start_normal=11"] > rates["components"] > rates["path.start_normal=7"]
    code, _, err = run_cli(capsys, ["sweep", "--game", "hotv", "--set", "path.nowhere=1",
                                    "--games", "10", "-o", tmp_path / "bad"])  # fmt: skip
    assert code == 2 and "no such component value" in err


def test_help_and_the_hotv_report_do_not_import_numba(tmp_path, capsys):
    import subprocess
    import sys

    run = tmp_path / "run"
    assert run_cli(capsys, ["simulate", "--game", "hotv", "-n", "50", "-o", run, "--quiet"])[0] == 0
    code = (
        "import sys\n"
        "from bnb_sim.cli import main\n"
        "for args in (['simulate', '--help'], ['odds', '--help'], "
        f"['report', {str(run)!r}, '-o', {str(tmp_path / 'rep')!r}]):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print('numba' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"
    assert (tmp_path / "rep" / "report.md").is_file()


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--game", "hotv", "-n", "10000000", "--pets", "all", "--players", "3"],
        ["compare", "--game", "hotv", "team", "random", "--max-games", "60000000"],
    ],
)
def test_heroes_commands_count_their_games_and_need_yes(tmp_path, args):
    """Reliability #10 for the second game: every pet team's (or A's and B's) games count."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "bnb_sim", *args]
    if args[0] == "simulate":
        command += ["-o", str(tmp_path / "run")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "--yes" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


def test_the_rows_of_a_pinned_run_do_not_change():
    """Speed work must not change a game: the kernel's raw rows of 500 games of every pet team
    (3 players, team and random; scripts/profile_hotv.py prints the same kind of digest)."""
    import hashlib

    cfg = config(policies=["team", "random"], pets="all", seed=7)
    digest = hashlib.sha1()
    for team in cfg.teams:
        for part in play_arrays(cfg, team, 0, 500):
            digest.update(part.tobytes())
    # re-pinned for issue 22 (fights may stop, several buildings per build action, the
    # Horse's second tile a decision, free laying counts "needed"): was 8d1d3c34087b42bf
    assert digest.hexdigest()[:16] == "e7c0ac08e04f25f6"
