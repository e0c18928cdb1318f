"""``bnb simulate`` of every game through one command body (``bnb_sim.cli.simulate_cmd``):
the dice race and dice team (tests/dice_race.py), Heroes of the Village and Builders &
Biomes. Dask, the checks, the team win rate, the speed line and the replay command are
shared code, written once (issue 24 item 2)."""

from __future__ import annotations

import json
import pickle

import pandas as pd
import pytest

from bnb_sim.cli import main
from bnb_sim.core.registry import get_game
from bnb_sim.games import game_of_run
from bnb_sim.games import get_game as get_spec
from bnb_sim.runner.storage import load_run


def bnb(capsys, *args, code=0) -> tuple[str, str]:
    got = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        got = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    assert got == code, out + err
    return out, err


@pytest.mark.parametrize("name", ["dice_race", "heroes_village", "builders_biomes"])
def test_a_run_config_pickles_for_dask(name):
    """The protocol promises a picklable config: Dask sends it with the game object."""
    game = get_game(name)
    options = {"pets": "all"} if name == "heroes_village" else {}
    make = getattr(game, "make_run_config", game.make_config)
    config = make(game.load_components([]), players=3, policies=[], seed=4, options=options)
    game.play_block(config, 0, 2)  # a played config too (HotV caches its kernel arrays)
    again = pickle.loads(pickle.dumps({"protocol": game, "config": config}))
    seats, games = again["protocol"].play_block(again["config"], 0, 2)
    want_seats, want_games = game.play_block(config, 0, 2)
    pd.testing.assert_frame_equal(games, want_games)
    pd.testing.assert_frame_equal(seats, want_seats)


def test_the_dice_race_plays_on_dask_with_the_local_rows(capsys, tmp_path):
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    args = ["simulate", "--game", "dice", "--games", "60", "--chunk-size", "25",
            "--policy", "steady", "--policy", "bold", "--seed", "9", "-q"]  # fmt: skip
    bnb(capsys, *args, "--out", tmp_path / "local")
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=None
    ) as cluster:
        bnb(capsys, *args, "--out", tmp_path / "dask", "--dask", cluster.scheduler_address)
    want_seats, want_games, _ = load_run(tmp_path / "local")
    seats, games, meta = load_run(tmp_path / "dask")
    assert meta["params"]["backend"] == "dask" and meta["params"]["dask"].startswith("tcp://")
    assert "--dask tcp://" in meta["command"]
    pd.testing.assert_frame_equal(games.sort_values("game", ignore_index=True), want_games)
    pd.testing.assert_frame_equal(
        seats.sort_values(["game", "seat"], ignore_index=True), want_seats
    )


def test_a_cooperative_run_prints_the_team_win_rate_and_the_speed(capsys, tmp_path):
    out, _ = bnb(capsys, "simulate", "--game", "dice_team", "--games", "200", "--policy",
                 "bold", "--out", tmp_path / "run", "-q")  # fmt: skip
    lines = out.splitlines()
    assert lines[0].startswith("Dice team: 200 games, 2 players, policy bold")
    assert lines[1].startswith("  team win rate ") and "n=200" in lines[1]
    assert "clustered" not in lines[1]  # one row per game index
    assert lines[2].endswith("games/s)") and lines[3].startswith("  run folder: ")
    summary, _ = bnb(capsys, "simulate", "--game", "dice_team", "--games", "50", "--json",
                     "--out", tmp_path / "j", "-q")  # fmt: skip
    data = json.loads(summary)
    assert data["win_rate"]["n"] == 50 and data["rows_per_game"] == 1


def test_the_stored_command_replays_the_run_with_its_component_files(capsys, tmp_path):
    comps = tmp_path / "short.toml"
    comps.write_text("goal = 9\n")
    run = tmp_path / "run"
    bnb(capsys, "simulate", "--game", "dice", "--games", "30", "--components", comps,
        "--reading", "x=1", "--out", run, "-q", code=2)  # fmt: skip
    bnb(capsys, "simulate", "--game", "dice", "--games", "30", "--components", comps,
        "--out", run, "-q")  # fmt: skip
    command = json.loads((run / "run.json").read_text())["command"].split()
    assert command[command.index("--components") + 1] == str(comps)
    bnb(capsys, *command[1:], "--resume", "-q")  # the same identity: nothing to play again


def test_heroes_simulate_is_served_by_the_one_command_body(capsys, tmp_path):
    from bnb_sim.cli.protocol_cmds import HANDLERS, HOOKED

    spec = get_spec("hotv")
    assert "simulate" not in spec.protocol_commands and spec.entry("simulate") is None
    assert "simulate" in HOOKED and "simulate" not in HANDLERS  # no second body
    run = tmp_path / "run"
    args = ["-n", "40", "--pets", "all", "--players", "4", "--difficulty", "easy", "--seed", "2"]
    out, _ = bnb(capsys, "simulate", "--game", "hotv", *args, "-o", run, "-q")
    lines = out.splitlines()
    assert (
        lines[0] == "Heroes of the Village: 40 games x 15 pet team(s), 4 players, easy, policy team"
    )
    assert lines[1].startswith("  team win rate ") and "(95% CI clustered by game index)" in out
    seats, games, meta = load_run(run)
    assert meta["params"]["teams"] == 15 and len(games) == 40 * 15 and len(seats) == 40 * 60
    assert meta["components"]["content_hash"] == get_game("hotv").load_components([]).content_hash
    assert meta["title"] == "Minecraft: Heroes of the Village"
    assert "--pets all" in meta["command"] and "--difficulty easy" in meta["command"]


@pytest.mark.parametrize("name", ["dice_race", "heroes_village", "builders_biomes"])
def test_a_stopped_run_says_how_to_resume_and_resumes_to_the_whole_rows(name, tmp_path):
    """Every game's folder is written by the one run path (issue 24): a stop between chunks
    is RunInterrupted with the resume command, run.json stays partial with that command,
    and the resumed run has exactly the rows of an uninterrupted one."""
    from bnb_sim.runner.protocol_run import simulate_to_dir
    from bnb_sim.runner.run_summary import RunInterrupted

    game = get_game(name)
    comps = game.load_components([])
    make = getattr(game, "make_run_config", game.make_config)
    config = make(comps, players=3, policies=[], seed=5, options={})
    simulate_to_dir(game, config, comps, 60, tmp_path / "whole", chunk_size=20)

    def stop_after_a_part(done, total):
        if done >= 20:
            raise KeyboardInterrupt

    with pytest.raises(RunInterrupted) as stopped:
        simulate_to_dir(game, config, comps, 60, tmp_path / "cut", chunk_size=20,
                        progress=stop_after_a_part, resume_command="go on")  # fmt: skip
    assert (stopped.value.done, stopped.value.exit_code) == (20, 130)
    assert stopped.value.resume_command == "go on" and stopped.value.kept
    meta = json.loads((tmp_path / "cut" / "run.json").read_text())
    assert meta["status"] == "partial" and meta["resume_command"] == "go on"
    summary = simulate_to_dir(game, config, comps, 60, tmp_path / "cut", resume=True)
    assert (summary["played"], summary["games"], summary["status"]) == (40, 60, "complete")
    want_seats, want_games, _ = load_run(tmp_path / "whole")
    seats, games, meta = load_run(tmp_path / "cut")
    pd.testing.assert_frame_equal(seats, want_seats)
    pd.testing.assert_frame_equal(games, want_games)
    # (a run of the base game names no game in run.json: the registry reads it as its run)
    assert len(meta["timing"]["sessions"]) == 2 and game_of_run(meta).name == game.name


GAMES = {
    "builders_biomes": ["--policy", "random", "--players", "2"],
    "heroes_village": ["--players", "2"],
    "dice_race": [],
    "dice_team": [],
}


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize(
    ("bad", "line"),
    [
        (["--threads", "0"], "bnb: error: threads must be between 1 and 1024, got 0"),
        (["--chunk-size", "300000"],
         "bnb: error: chunk size must be between 1 and 250,000, got 300,000"),
        (["--games", "0"], "bnb: error: games must be a positive number, got 0"),
        (["--seed", "-1"],
         "bnb: error: seed must be between 0 and 9,223,372,036,854,775,807, got -1"),
    ],
    ids=["threads", "chunk-size", "games", "seed"],
)  # fmt: skip
def test_every_game_refuses_a_bad_run_shape_in_the_same_line(capsys, tmp_path, name, bad, line):
    """One body, one set of checks: before, Heroes of the Village and the dice race played
    --threads 0 and a 300,000-game chunk (a chunk is held in memory whole), and said the
    other lines in other words."""
    args = ["simulate", "--game", name, "--games", "5", *GAMES[name], *bad]
    _, err = bnb(capsys, *args, "--out", tmp_path / "run", code=2)
    assert err.strip() == line
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_records_the_same_command_and_resumes_with_it(capsys, tmp_path, name):
    """run.json's command names --threads, --chunk-size and the output flags for every game
    (before, a protocol game's left them out, so its resume command played other chunks
    with all threads and printed text where the run had printed JSON)."""
    run = tmp_path / "run"
    args = ["simulate", "--game", name, "--games", "6", *GAMES[name], "--seed", "2"]
    args += ["--threads", "1", "--chunk-size", "3", "--json", "--quiet"]
    out, _ = bnb(capsys, *args, "--out", run)
    assert json.loads(out)["chunks"] == 2
    meta = json.loads((run / "run.json").read_text())
    named = [] if name == "builders_biomes" else ["--game", name]  # the default goes unsaid
    want = ["bnb", "simulate", *named, "--games", "6"]
    assert meta["command"].split()[: len(want)] == want
    for item in ("--threads 1", "--chunk-size 3", "--quiet --json"):
        assert item in meta["command"], meta["command"]
    assert meta["resume_command"] == meta["command"] + " --resume"
    again, _ = bnb(capsys, *meta["resume_command"].split()[1:])
    assert json.loads(again)["played"] == 0  # the same identity: nothing played again
