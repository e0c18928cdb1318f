"""The Farmer's Market from the command line (R-FM-2, R-FM-4): `bnb play` shows the
marketplace and every purchase; `bnb simulate` writes the expansion's columns and
`bnb report` adds its items section."""

from __future__ import annotations

import json

from test_cli_simulate import run_cli

from bnb_sim.runner.storage import load_run

FM = ["--expansion", "farmers-market"]


def test_r_fm_2_r_fm_4_play_shows_marketplace_and_purchases(capsys):
    args = ["play", *FM, "--seed", "3", "--policy", "heuristic", "--policy", "greedy"]
    code, out, err = run_cli(capsys, args)
    assert code == 0, err
    assert "marketplace" in out and "X face-up" in out and "A after round A" in out
    assert "places the farmland" in out
    assert " buys " in out and "Purchases (Farmer's Market):" in out
    assert "vegetables grow" in out


def test_play_json_and_game_index_replay_rows(capsys):
    args = ["play", *FM, "--seed", "3", "--game-index", "2", "--json"]
    code, out, err = run_cli(capsys, args)
    assert code == 0, err
    payload = json.loads(out)
    assert any(e["event"] == "buy" for e in payload["events"]) or all(
        r["items_bought"] == 0 for r in payload["result"]
    )
    assert "item_minecart" in payload["result"][0]


def test_r_fm_4_simulate_and_report(tmp_path, capsys):
    run = tmp_path / "run"
    args = ["simulate", *FM, "--games", "80", "--players", "2", "--policy", "heuristic"]
    args += ["--policy", "random", "--seed", "4", "--out", run, "--json"]
    code, out, err = run_cli(capsys, args)
    assert code == 0, err
    seats, _, meta = load_run(run)
    assert meta["params"]["expansion"] == "farmers-market"
    assert {"items_bought", "vegetables_spent", "item_bell", "xp_items_end"} <= set(seats.columns)
    xp_cols = [c for c in seats.columns if c.startswith("xp_")]
    assert (seats[xp_cols].sum(axis=1) == seats["xp"]).all()
    report = tmp_path / "report"
    code, out, err = run_cli(capsys, ["report", run, "--out", report])
    assert code == 0, err
    text = (report / "report.md").read_text()
    assert "Farmer's Market items" in text and "Purchase rate per item" in text
    assert "When items are bought" in text and "Win rate of buyers and non-buyers" in text


def test_unknown_expansion_is_one_clear_error(capsys):
    code, out, err = run_cli(capsys, ["play", "--expansion", "nether"])
    assert code == 2 and "nether" in err
