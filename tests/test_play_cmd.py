"""``bnb play``: the readable log, ``--json``, the same game as in a batch, bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import engine_helpers as H
import pytest

from bnb_sim.cli import main
from bnb_sim.games.builders_biomes.batch import play_block


def run(capsys, *argv):
    """``bnb ARGV`` in-process: (exit code, stdout, stderr)."""
    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_play_prints_a_readable_game(capsys):
    code, out, err = run(
        capsys, "play", "--seed", "3", "--players", "3", "--policy", "heuristic",
        "--policy", "greedy", "--policy", "random",
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith("Game 0 of seed 3: 3 players, standard rules, seating rotate")
    for needle in (
        "  seat 0: player 0, heuristic, board ",
        "Turn 1: seat 0 (heuristic)\n  ",
        "Turn 2: seat 1 (greedy)",
        "    takes ",
        "    moves (2,2) -> ",
        "    turns up stack ",
        "Scoring round A (biome)",
        "Scoring round B (material)",
        "Scoring round C (type)",
        "Game over.",
        "Final table (XP by source):",
        "rank  seat  player  policy",
    ):
        assert needle in out, needle
    assert "Winner: seat " in out or "Shared win" in out
    if "    fights " in out:  # fights show the tokens revealed and the result
        assert "      reveals " in out and " the fight: " in out


def test_play_json_is_one_object_with_config_events_and_result(capsys):
    code, out, err = run(capsys, "play", "--seed", "4", "--json", "--policy", "greedy")
    assert code == 0, err
    payload = json.loads(out)
    assert set(payload) == {"config", "events", "result", "winners"}
    assert payload["config"]["seed"] == 4 and payload["config"]["game_index"] == 0
    assert payload["config"]["components"]["source"] == "default"
    kinds = {e["event"] for e in payload["events"]}
    assert {"action", "take_block", "round", "score", "game_over"} <= kinds
    assert all(e["turn"] >= 1 and "text" in e for e in payload["events"])
    assert [r["seat"] for r in payload["result"]] == [0, 1]
    assert payload["winners"] == [r["seat"] for r in payload["result"] if r["won"]]


@pytest.mark.parametrize(
    "argv, players, policies, options",
    [
        (["--game-index", "5"], 2, ["heuristic"], {}),
        (
            ["--players", "3", "--policy", "random", "--policy", "greedy", "--game-index", "8",
             "--variant", "beginner", "--seating", "random"],
            3, ["random", "greedy"], {"variant": "beginner", "seating": "random"},
        ),
        (
            ["--players", "4", "--policy", "heuristic:board=2", "--policy", "random",
             "--seating", "fixed", "--game-index", "2"],
            4, ["heuristic:board=2", "random"], {"seating": "fixed"},
        ),
    ],
)  # fmt: skip
def test_play_replays_game_i_of_a_batch(capsys, argv, players, policies, options):
    code, out, err = run(capsys, "play", "--seed", "21", "--json", *argv)
    assert code == 0, err
    result = json.loads(out)["result"]
    index = int(argv[argv.index("--game-index") + 1])
    config = H.config(players, policies, seed=21, **options)
    seats, _ = play_block(config, index, 1)
    batch = seats.to_dict("records")
    for mine, theirs in zip(result, batch, strict=True):
        for key, value in theirs.items():
            expected = value.item() if hasattr(value, "item") else value
            assert mine[key] == (expected if isinstance(expected, bool | int) else str(expected))


def test_play_with_a_components_file(capsys, tmp_path):
    path = tmp_path / "box.toml"
    path.write_text('[mobs.enderman]\nhearts = 7\nprovenance = "known"\nsource = "my tile"\n')
    code, out, err = run(capsys, "play", "--seed", "2", "--json", "--components", str(path))
    assert code == 0, err
    payload = json.loads(out)
    from bnb_sim.games.builders_biomes.components import load_components

    comps = load_components([str(path)])
    assert payload["config"]["components"]["content_hash"] == comps.content_hash
    seats, _ = play_block(H.config(2, ["heuristic"], seed=2, components=comps), 0, 1)
    assert [r["xp"] for r in payload["result"]] == seats.xp.tolist()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--players", "5"], "players must be between 2 and 4"),
        (["--players", "1"], "players must be between 2 and 4"),
        (["--seed", "-1"], "'--seed'"),
        (["--seed", "x"], "'--seed'"),
        (["--game-index", "-2"], "'--game-index'"),
        (["--policy", "alphazero"], "unknown policy 'alphazero'"),
        (["--policy", "heuristic:boardd=1"], "unknown weight 'boardd'"),
        (["--policy", "random", "--policy", "greedy", "--policy", "random"], "3 policies"),
        (["--variant", "expert"], "'--variant'"),
        (["--seating", "left"], "'--seating'"),
        (["--components", "/no/such/file.toml"], "file not found"),
        (["--bogus"], "--bogus"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, "play", *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("bnb: error: ")
    assert message in err


def test_play_module_does_not_import_numba_and_is_listed():
    code = (
        "import sys, bnb_sim.cli.play_cmd, bnb_sim.cli as c; "
        "assert 'numba' not in sys.modules, 'numba imported'; "
        "assert 'play' in c.COMMANDS; print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_play_help(capsys):
    code, out, _ = run(capsys, "play", "--help")
    assert code == 0 and "--game-index" in out and "--seating" in out
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "play" in out
