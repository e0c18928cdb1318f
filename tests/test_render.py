"""``bnb play --svg``: a picture of the final table (bnb_sim/analysis/render.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import bnb_sim
from bnb_sim.cli import main

ROOT = Path(__file__).resolve().parent.parent
POLICIES = ["heuristic", "greedy", "random"]


@pytest.fixture(scope="module")
def game():
    g = bnb_sim.new_game(seed=1, game_index=0, players=3, policies=POLICIES)
    g.play()
    return g


def test_table_data_matches_the_game(game):
    table = game.table()
    result = {row["seat"]: row for row in game.result()}
    assert table["over"] and len(table["seats"]) == 3
    for seat in table["seats"]:
        row = result[seat["seat"]]
        assert seat["xp"] == row["xp"] == sum(seat["xp_by_source"].values())
        assert seat["won"] == row["won"] and seat["policy"] == row["policy"]
        assert seat["board"] == row["board"]
        spaces = [s for line in seat["spaces"] for s in line]
        assert len(spaces) == 9
        built = [s["building"] for s in spaces if s["building"]]
        assert len(built) <= row["buildings_built"]  # covered buildings no longer show
        # the printed biomes are the board's layout in the component data (R-SETUP-1)
        layout = game.config.components.data["boards"][seat["board"]]["spaces"]
        assert [[s["printed"] for s in line] for line in seat["spaces"]] == layout
    left = [layer["left"] for layer in table["cube"]]
    assert left[:3] == [0, 0, 0]  # the game ends after round C (R-END-1)
    assert sum(b is not None for b in sum(table["cube"][3]["blocks"], [])) == left[3]
    json.dumps(table)  # plain data


def test_svg_shows_boards_buildings_cube_and_scores(game, tmp_path):
    from bnb_sim.analysis.render import save_table

    table = game.table()
    path = save_table(table, tmp_path / "table.svg")
    svg = path.read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    texts = [re.sub(r"\s+", " ", t).strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    joined = "\n".join(texts)
    for seat in table["seats"]:
        assert f"seat {seat['seat']}: {seat['policy']}" in texts
        assert f"{seat['xp']} XP" in joined
        for line in seat["spaces"]:
            for space in line:
                b = space["building"]
                if b:
                    assert b["material"] in texts and b["type"].replace("_", " ") in texts
                else:
                    assert space["printed"].replace("_", " ") in texts
    assert "winner" in joined
    for layer in table["cube"]:
        assert any(t.startswith(f"layer {layer['layer']}: ") for t in texts)
    # the same game gives the same file (no dates or random ids)
    assert save_table(table, tmp_path / "again.svg").read_text() == svg


def test_png_and_cli(tmp_path, capsys):
    png = tmp_path / "t.png"
    argv = ["play", "--seed", "1", "--players", "2", "--policy", "heuristic", "--svg", png]
    main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Winner" in out and f"picture: {png}" in err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000


def test_bad_picture_name_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["play", "--seed", "1", "--players", "2", "--svg", str(tmp_path / "t.jpg")])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--svg" in err and ".svg or .png" in err and err.count("\n") == 1


def test_render_module_is_numba_free(game, tmp_path):
    table = tmp_path / "table.json"
    table.write_text(json.dumps(game.table()))
    code = (
        "import json, sys; from bnb_sim.analysis.render import save_table; "
        f"save_table(json.load(open({str(table)!r})), {str(tmp_path / 'x.svg')!r}); "
        "assert 'numba' not in sys.modules, 'numba imported'"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)}
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "x.svg").stat().st_size > 10_000


def test_an_explore_without_a_step_says_so(game):
    from bnb_sim.games.builders_biomes.describe import decode_event
    from bnb_sim.games.builders_biomes.engine import state as S

    assert decode_event(game, 0, S.EV_MOVE, 12, 12, 0)["text"] == (
        "stays at (2,2) (explores without moving)"
    )
    assert decode_event(game, 0, S.EV_MOVE, 12, 13, 0)["text"] == "moves (2,2) -> (2,3)"
